"""Process groups for data-parallel training."""

import torch
import torch_mlu  # noqa: F401
import torch.distributed as dist


def init(rank: int, world_size: int) -> None:
    torch.mlu.set_device(rank)
    dist.init_process_group("cncl", rank=rank, world_size=world_size)
