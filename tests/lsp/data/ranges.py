"""Serving and benchmarking helpers: the spellings a ranged re-analysis must get exactly right.

Chains that span lines, calls whose CUDA sources sit lines below the call, strings and f-strings that
span lines, aliases whose imports are rewritten (or held), a library used through a plain `import numba`,
decorators, compound-statement headers and imports inside functions. "cuda" in this docstring is prose.
"""

import os

import numba
import torch
import torch.cuda as tc
from torch.cuda import Stream, amp
from torch.utils.cpp_extension import load

BACKEND = "nccl"
DEVICE = "cuda" if torch.cuda.is_available() else "cpu"


@numba.cuda.jit
def scale_kernel(values, factor):
    index = numba.cuda.grid(1)
    if index < values.size:
        values[index] *= factor


def scaled(values, factor=2.0):
    threads = 128
    blocks = (values.size + threads - 1) // threads
    scale_kernel[blocks, threads](numba.cuda.to_device(values), factor)
    numba.cuda.synchronize()


def build():
    return load(
        name="fused",
        sources=[
            "csrc/fused.cpp",
            "csrc/fused_kernel.cu",
        ],
        verbose=True,
    )


class Runner:
    def __init__(self, model, device: str = "cuda:0") -> None:
        self.model = model.to(device)
        self.stream = Stream()
        self.graph = tc.CUDAGraph()
        self.side = tc.Stream()
        peak = torch.cuda.max_memory_allocated()
        total = torch.cuda.get_device_properties(0).total_memory
        self.headroom = total - peak

    @torch.no_grad()
    def __call__(self, batch):
        with amp.autocast(), tc.stream(self.side):
            out = self.model(batch.cuda(non_blocking=True))
        tc.synchronize()
        return out

    def describe(self, rank: int) -> str:
        note = """a triple-quoted string on "cuda"
        that spans lines, with torch.cuda in its prose"""
        where = f"""cuda:{rank} of {torch.cuda.device_count()}
        devices, {tc.memory_allocated() >> 20} MiB"""
        return note + where + f"{'cuda'}:{rank}"


def launch(rank: int, world: int) -> None:
    import torch.distributed as dist

    os.environ["NCCL_DEBUG"] = "INFO"
    os.environ.setdefault(
        "CUDA_VISIBLE_DEVICES",
        "0,1",
    )
    dist.init_process_group(backend=BACKEND if world > 1 else "nccl", rank=rank, world_size=world)
    if torch.cuda.is_available() and dist.get_backend() == "nccl":
        torch.cuda.set_device(rank)
    match os.environ.get("ACCELERATOR", "cuda"):
        case "cuda":
            torch.cuda.empty_cache()
        case _:
            pass
    handle = lambda t: t.cuda() if t.is_cuda is False else t  # noqa: E731
    handle(torch.zeros(1, device=f"cuda:{rank}"))
