"""Picks the accelerator the process runs on; every branch already knows about Ascend NPUs."""

import importlib.util

import torch


def is_npu_available() -> bool:
    return importlib.util.find_spec("torch_npu") is not None


def supported_devices() -> list[str]:
    return ["cuda", "npu"]


def is_accelerator(device: torch.device) -> bool:
    return device.type in ["cuda", "npu", "xpu"]


if is_npu_available():
    DEFAULT_DEVICE = "npu"
elif torch.cuda.is_available():
    DEFAULT_DEVICE = "cuda"
else:
    DEFAULT_DEVICE = "cpu"


def current_device_name() -> str:
    if is_npu_available():
        return "npu"
    if torch.cuda.is_available():
        return "cuda"
    return "cpu"


def detect() -> str:
    name = None
    if name is None:
        try:
            import torch_npu  # noqa: F401

            name = "npu"
        except ImportError:
            pass
    if name is None:
        if torch.cuda.device_count() > 0 and torch.cuda.is_available():
            name = "cuda"
    return name or "cpu"


def synchronize(device: torch.device) -> None:
    if device.type == "npu":
        torch.npu.synchronize()
    elif device.type == "cuda":
        torch.cuda.synchronize()


def device_for(rank: int) -> torch.device:
    # a plain CUDA path: this one is ported
    return torch.device(f"cuda:{rank}")


def keeps_fp32_state(tensor: torch.Tensor) -> bool:
    # a condition over CUDA and NPU: on mlu it needs "mlu" added
    return tensor.device.type == "cuda" or tensor.device.type == "npu"
