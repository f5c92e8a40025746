"""Tables keyed by device type."""

import torch
import torch_npu  # noqa: F401

# complete for Ascend already
COMM_BACKENDS = {"cuda": "nccl", "cpu": "gloo", "npu": "hccl"}

# knows XPUs but not NPUs or MLUs: an entry is missing, the CUDA one must stay
PEAK_MEMORY_RESET = {"cuda": torch.cuda.reset_peak_memory_stats, "xpu": torch.xpu.reset_peak_memory_stats}

# devices that behave like CUDA (ROCm reports itself as cuda)
CUDA_LIKE_DEVICES = ["cuda", "rocm"]

# only CUDA and the host: ported key and value together
SIMPLE_BACKENDS = {"npu": "hccl", "cpu": "gloo"}


def backend_for(device_type: str) -> str:
    return COMM_BACKENDS.get(device_type, "gloo")
