"""Process groups for data-parallel training."""

import torch
import torch_npu  # noqa: F401
import torch.distributed as dist


def init(rank: int, world_size: int) -> None:
    torch.npu.set_device(rank)
    dist.init_process_group("hccl", rank=rank, world_size=world_size)
