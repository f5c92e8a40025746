"""Picks the accelerator the process runs on; every branch already knows about Ascend NPUs."""

import importlib.util

import torch
import torch_mlu  # noqa: F401


def is_npu_available() -> bool:
    return importlib.util.find_spec("torch_npu") is not None


def supported_devices() -> list[str]:
    return ["cuda", "npu"]


def is_accelerator(device: torch.device) -> bool:
    return device.type in ["cuda", "npu", "xpu"]


if is_npu_available():
    DEFAULT_DEVICE = "npu"
elif torch.mlu.is_available():
    DEFAULT_DEVICE = "mlu"
else:
    DEFAULT_DEVICE = "cpu"


def current_device_name() -> str:
    if is_npu_available():
        return "npu"
    if torch.mlu.is_available():
        return "mlu"
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
        if torch.mlu.device_count() > 0 and torch.mlu.is_available():
            name = "cuda"
    return name or "cpu"


def synchronize(device: torch.device) -> None:
    if device.type == "npu":
        torch.npu.synchronize()
    elif device.type == "mlu":
        torch.mlu.synchronize()


def device_for(rank: int) -> torch.device:
    # a plain CUDA path: this one is ported
    return torch.device(f"mlu:{rank}")


def keeps_fp32_state(tensor: torch.Tensor) -> bool:
    # a condition over CUDA and NPU: on mlu it needs "mlu" added
    return tensor.device.type == "cuda" or tensor.device.type == "npu"
