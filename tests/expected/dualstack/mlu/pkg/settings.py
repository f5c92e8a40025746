"""Defaults read by the launcher (no torch import here)."""

import torch_mlu  # noqa: F401
DEVICE = "mlu"
