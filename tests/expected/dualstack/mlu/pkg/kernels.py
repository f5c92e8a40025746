"""Loads the fastest kernels available: a CUDA extension, Triton, then plain PyTorch."""

import os

import torch
import torch_mlu  # noqa: F401

try:
    import flash_attn
except ImportError:  # the program runs without it
    flash_attn = None

CUDA_HOME = os.environ.get("CUDA_HOME")


class CudaExtension:
    """Kernels built with nvcc from csrc/*.cu."""

    @staticmethod
    def is_available() -> bool:
        return torch.cuda.is_available()


class TritonKernels:
    @staticmethod
    def is_available() -> bool:
        return torch.cuda.is_available() and importlib_available("triton")


class CUDAOpBuilder:
    """Builds csrc/ with nvcc."""


class FusedAdamBuilder(CUDAOpBuilder):
    def is_compatible(self) -> bool:
        return torch.cuda.is_available()


def importlib_available(name: str) -> bool:
    import importlib.util

    return importlib.util.find_spec(name) is not None


def can_build_fused() -> bool:
    return torch.cuda.is_available() and CUDA_HOME is not None


def fused_attention_enabled() -> bool:
    return flash_attn is not None and torch.cuda.is_available()


def pick_device() -> str:
    return "mlu" if torch.mlu.is_available() else "cpu"


def fused_adam_available() -> bool:
    if not importlib_available("fused_adam_cuda"):
        return False
    import fused_adam_cuda  # noqa: F401  (only reached when it is installed)

    return True


def fp8_enabled() -> bool:
    return torch.cuda.is_available() and check_cuda_fp8_capability()


def check_cuda_fp8_capability() -> bool:
    return torch.cuda.get_device_capability() >= (8, 9)
