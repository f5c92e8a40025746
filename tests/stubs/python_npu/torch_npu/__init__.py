"""A stand-in for torch_npu: importing it registers torch.npu, as the real package does."""

import torch

npu = torch.register("npu")
