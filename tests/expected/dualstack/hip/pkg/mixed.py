"""Lines that use several torch.cuda APIs at once."""

import torch


def half_precision() -> torch.dtype:
    # both have counterparts everywhere: rewritten together
    return torch.bfloat16 if torch.cuda.is_available() and torch.cuda.is_bf16_supported() else torch.float16


def fast_matmul() -> bool:
    # the capability is a CUDA notion: the whole line waits for a person
    return torch.cuda.is_available() and torch.cuda.get_device_capability()[0] >= 8


def log_cuda_memory() -> None:
    # named after CUDA: whether its probe should test the target is a decision, the rest is ported
    if torch.cuda.is_available():
        print(torch.cuda.memory_allocated())
