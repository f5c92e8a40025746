"""Data-parallel training of a small classifier: the kind of script a team ports to ROCm, Ascend or Cambricon."""

import argparse
import os

import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel


def build_model() -> nn.Module:
    return nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 10))


def main() -> None:
    parser = argparse.ArgumentParser(description="train on cuda devices")
    parser.add_argument("--no-cuda", action="store_true", help="run on the CPU instead of cuda")
    args = parser.parse_args()
    if args.no_cuda:
        raise SystemExit("this example trains data-parallel on accelerators only")

    os.environ.setdefault("CUDA_VISIBLE_DEVICES", "0,1")
    dist.init_process_group(backend="nccl")
    rank = dist.get_rank()
    torch.cuda.set_device(rank)
    device = torch.device(f"cuda:{rank}")
    torch.backends.cudnn.benchmark = True

    model = DistributedDataParallel(build_model().cuda(), device_ids=[rank])
    optimizer = torch.optim.AdamW(model.parameters(), lr=1e-3)
    scaler = torch.cuda.amp.GradScaler()
    for step in range(100):
        x = torch.randn(64, 784, device=device)
        y = torch.randint(0, 10, (64,), device="cuda")
        with torch.autocast(device_type="cuda", dtype=torch.bfloat16):
            loss = nn.functional.cross_entropy(model(x), y)
        optimizer.zero_grad(set_to_none=True)
        scaler.scale(loss).backward()
        scaler.step(optimizer)
        scaler.update()
        if step % 10 == 0 and rank == 0:
            print(f"step {step} loss {loss.item():.4f} on cuda, peak {torch.cuda.max_memory_allocated() >> 20} MiB")
    torch.cuda.synchronize()
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
