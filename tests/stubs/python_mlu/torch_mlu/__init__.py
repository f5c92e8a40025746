"""A stand-in for torch_mlu: importing it registers torch.mlu, as the real package does."""

import torch

mlu = torch.register("mlu")
