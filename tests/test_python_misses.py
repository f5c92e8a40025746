"""What real PyTorch code showed cudaport missing or getting wrong, in our own words, through the CLI for every
target: more device and backend positions, aliased distributed modules, NVIDIA tools run as programs,
torch.compile options, more environment variables and CUDA-only libraries, kernel decorators, torch_mlu's
counterparts, and Ascend's unsupported-API rule limited to calls."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import Cli

SNIPPET = """import os
import subprocess

import torch
import torch.distributed as dist
from torch.distributed import distributed_c10d as c10d
from torch.distributed.device_mesh import DeviceMesh, init_device_mesh

mesh = init_device_mesh("cuda", (2, 4))
flat = DeviceMesh("cuda", [0, 1])
if tensor.type == "cuda":
    pass
model = build(default_device="cuda")
device = accelerator.get_device("cuda")
group_backend = groups.get(ranks, "nccl")
init_collective_group(world_size, rank, "nccl")
if c10d.is_nccl_available():
    backend = c10d.Backend.NCCL
paths = torch.utils.cpp_extension.include_paths("cuda")
smi = subprocess.check_output(["nvidia-smi", "-L"])
nvcc = os.popen("nvcc --version").read()
compiled = torch.compile(model, mode="reduce-overhead")
os.environ["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8"
os.environ["TORCH_CUDA_ARCH_LIST"] = "8.0"
os.environ["CUDA_DEVICE_MAX_CONNECTIONS"] = "1"
os.environ["TORCH_NCCL_AVOID_RECORD_STREAMS"] = "1"
print("nccl", "cuda")
"""

EXPECTED_LINES = {  # line: rule, the same on every target
    9: "CP7010",
    10: "CP7010",
    11: "CP7010",
    13: "CP7010",
    14: "CP7010",
    15: "CP7020",
    16: "CP7020",
    17: "CP7020",
    18: "CP7020",
    19: "CP7010",
    20: "CP7060",
    21: "CP7060",
    22: "CP7070",
    23: "CP7030",
    24: "CP7041",
    25: "CP7030",
    26: "CP7030",
}


def _rows(cli: Cli, folder: Path, target: str) -> list[tuple[int, str, str, str, bool]]:
    report = cli("check", ".", "--format", "json", "--target", target, cwd=folder).json()
    return [(d["line"], d["rule"], d["symbol"], d["difficulty"], d["fixable"]) for d in report["diagnostics"]]


@pytest.mark.parametrize("target", ["hip", "npu", "mlu"])
def test_more_positions_tools_options_and_variables_are_found(cli: Cli, tmp_path: Path, target: str) -> None:
    (tmp_path / "train.py").write_text(SNIPPET)
    rows = _rows(cli, tmp_path, target)
    found = {line: rule for line, rule, *_ in rows}
    assert {line: found.get(line) for line in EXPECTED_LINES} == EXPECTED_LINES
    assert 27 not in found  # a print is no position


def test_the_npu_rewrites_of_the_new_positions(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text(SNIPPET)
    cli("fix", ".", "--target", "npu", "--fail-on", "never", cwd=tmp_path)
    fixed = (tmp_path / "train.py").read_text().splitlines()
    assert 'mesh = init_device_mesh("npu", (2, 4))' in fixed
    assert 'group_backend = groups.get(ranks, "hccl")' in fixed
    assert "if torch_npu.distributed.is_hccl_available():" in fixed
    assert 'smi = subprocess.check_output(["nvidia-smi", "-L"])' in fixed  # the tool is a person's call
    assert 'print("nccl", "cuda")' in fixed


def test_mlu_counterparts_of_torch_mlu(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "m.py").write_text(
        "import torch\n"
        "ok = torch.cuda.is_available() and torch.cuda.is_bf16_supported()\n"
        "states = torch.cuda.get_rng_state_all()\n"
        "t = torch.cuda.temperature()\n"
        "alloc = torch.cuda.CUDAPluggableAllocator(path, 'alloc', 'free')\n"
        "try:\n    pass\nexcept torch.cuda.OutOfMemoryError:\n    pass\n"
    )
    rows = {(line, symbol): fixable for line, _, symbol, _, fixable in _rows(cli, tmp_path, "mlu")}
    assert rows[(2, "torch.cuda.is_bf16_supported")] and rows[(2, "torch.cuda.is_available")]
    assert rows[(3, "torch.cuda.get_rng_state_all")]
    assert rows[(4, "torch.cuda.temperature")]
    assert rows[(5, "torch.cuda.CUDAPluggableAllocator")]
    assert rows[(8, "torch.cuda.OutOfMemoryError")]
    cli("fix", ".", "--target", "mlu", "--fail-on", "never", cwd=tmp_path)
    text = (tmp_path / "m.py").read_text()
    assert "torch.mlu.is_available() and torch.mlu.is_bf16_supported()" in text
    assert "torch.mlu.MLUPluggableAllocator(" in text


def test_libraries_decorators_and_ascend_unsupported_calls(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "k.py").write_text(
        "import torch\n"
        "import transformer_engine.pytorch as te\n"
        "import flashinfer\n"
        "from vllm import _C\n"
        "import fused_layer_norm_cuda\n"
        "from numba import cuda\n"
        "\n"
        "@cuda.jit\n"
        "def add(a, b):\n"
        "    a[0] += b[0]\n"
        "\n"
        "@torch.jit.script\n"
        "def scaled(x):\n"
        "    return x * 2\n"
        "\n"
        "WRAPPERS = [torch.nn.DataParallel, torch.nn.parallel.DistributedDataParallel]\n"
        "def unwrap(m: torch.nn.DataParallel):\n"
        "    if isinstance(m, torch.nn.DataParallel):\n"
        "        return m.module\n"
        "    return torch.nn.DataParallel(m)\n"
        "fast = torch.compiler.disable(scaled)\n"
    )
    npu = _rows(cli, tmp_path, "npu")
    assert [(line, rule) for line, rule, *_ in npu if rule == "CP7050"] == [
        (2, "CP7050"),
        (3, "CP7050"),
        (4, "CP7050"),
        (5, "CP7050"),
        (6, "CP7050"),
        (8, "CP7050"),
    ]
    unsupported = [(line, symbol) for line, rule, symbol, *_ in npu if rule == "CP7090"]
    assert unsupported == [(12, "torch.jit.script"), (20, "torch.nn.DataParallel")]  # not 16, 17, 18 or 21
    assert not any(rule == "CP7090" for _, rule, *_ in _rows(cli, tmp_path, "mlu"))


def test_a_portable_difficulty_in_the_data_is_kept(cli: Cli, tmp_path: Path) -> None:
    """`portable` is the lowest difficulty (0): the data's `portable` must not fall back to the rule's default."""
    (tmp_path / "env.py").write_text('import os\nos.environ["CUBLAS_WORKSPACE_CONFIG"] = ":4096:8"\n')
    for target in ("npu", "mlu"):
        [(_, rule, _, difficulty, _)] = _rows(cli, tmp_path, target)
        assert (rule, difficulty) == ("CP7030", "portable")


def test_the_cuda_side_of_a_device_abstraction_is_the_hip_side(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "attention_cuda.py").write_text(
        "class FlashAttentionCudaExtension:\n"
        "    def load(self):\n"
        "        from flash_attn import flash_attn_func\n"
        "        return flash_attn_func\n"
    )
    (tmp_path / "attention_npu.py").write_text("class FlashAttentionNpuExtension:\n    pass\n")
    [hip] = _rows(cli, tmp_path, "hip")
    assert hip[1:4] == ("CP7050", "flash_attn", "manual")  # a ROCm build to install: not "left as it is"
    [npu] = _rows(cli, tmp_path, "npu")
    assert npu[1:4] == ("CP7050", "flash_attn", "portable")  # the NPU side exists beside it
    [mlu] = _rows(cli, tmp_path, "mlu")
    assert mlu[1:4] == ("CP7050", "flash_attn", "manual")  # add an MLU side
