"""Defaults read by the launcher (no torch import here)."""

import torch_npu  # noqa: F401
DEVICE = "npu"
