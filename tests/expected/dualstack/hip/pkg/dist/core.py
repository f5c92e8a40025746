"""Process groups for data-parallel training."""

import torch
import torch.distributed as dist


def init(rank: int, world_size: int) -> None:
    torch.cuda.set_device(rank)
    dist.init_process_group("nccl", rank=rank, world_size=world_size)
