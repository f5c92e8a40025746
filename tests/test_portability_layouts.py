"""Project layouts of real dual-stack code bases (llama.cpp's ggml-cuda): vendor headers included through the
project's include path, and headers that define the CUDA names for another platform."""

from __future__ import annotations

from pathlib import Path

from conftest import Cli

COMMON = """#pragma once
#if defined(GGML_USE_HIP)
#include "vendors/hip.h"
#elif defined(GGML_USE_MUSA)
#include "vendors/musa.h"
#else
#include "vendors/cuda.h"
#endif
"""
HIP_VENDOR = "#pragma once\n#include <hip/hip_runtime.h>\n#define cudaMalloc hipMalloc\n#define cudaFree hipFree\n"
MUSA_VENDOR = "#pragma once\n#include <musa_runtime.h>\n#define cudaMalloc musaMalloc\n#define cudaFree musaFree\n"
CUDA_VENDOR = "#pragma once\n#include <cuda_runtime.h>\n"
BACKEND = """#include "ggml-cuda/common.cuh"

void* alloc(size_t n) {
  void* p = nullptr;
  cudaMalloc(&p, n);
  return p;
}
void release(void* p) { cudaFree(p); }
"""


def _project(root: Path) -> Path:
    cuda = root / "src" / "ggml-cuda"
    (cuda / "vendors").mkdir(parents=True)
    (cuda / "common.cuh").write_text(COMMON)
    (cuda / "vendors" / "hip.h").write_text(HIP_VENDOR)
    (cuda / "vendors" / "musa.h").write_text(MUSA_VENDOR)
    (cuda / "vendors" / "cuda.h").write_text(CUDA_VENDOR)
    # The backend file includes the common header by its path under src/, as the build's include path allows.
    (cuda / "ggml-cuda.cu").write_text(BACKEND)
    return cuda


def _rows(cli: Cli, folder: Path, *paths: str) -> list[tuple[str, int, str, str, str]]:
    report = cli("check", *paths, "--format", "json", "--target", "hip", cwd=folder).json()
    return [
        (Path(d["path"]).name, d["line"], d["rule"], d["symbol"], d["difficulty"])
        for d in report["diagnostics"]
        if d["rule"] not in ("CP1030", "CP1031")
    ]


def test_a_vendor_header_reached_through_the_include_path_marks_the_names_ported(cli: Cli, tmp_path: Path) -> None:
    cuda = _project(tmp_path)
    rows = _rows(cli, cuda, "ggml-cuda.cu")
    assert rows == [
        ("ggml-cuda.cu", 5, "CP1001", "cudaMalloc", "portable"),
        ("ggml-cuda.cu", 8, "CP1001", "cudaFree", "portable"),
    ]
    report = cli("check", "ggml-cuda.cu", "--format", "json", cwd=cuda).json()
    malloc = next(d for d in report["diagnostics"] if d["symbol"] == "cudaMalloc")
    assert malloc["message"].endswith("already mapped to `hipMalloc` by vendors/hip.h")
    assert malloc["replacement"] is None and not malloc["fixable"]


def test_another_platforms_vendor_header_is_never_rewritten(cli: Cli, tmp_path: Path) -> None:
    cuda = _project(tmp_path)
    rows = _rows(cli, cuda, "vendors/musa.h")
    assert rows == [
        ("musa.h", 3, "CP1001", "cudaMalloc", "portable"),
        ("musa.h", 4, "CP1001", "cudaFree", "portable"),
    ]
    report = cli("check", "vendors/musa.h", "--format", "json", cwd=cuda).json()
    messages = [d["message"] for d in report["diagnostics"]]
    assert messages[0].endswith("this file defines `cudaMalloc` itself (as `musaMalloc`)")
    before = (cuda / "vendors" / "musa.h").read_text()
    cli("fix", ".", cwd=cuda)
    assert (cuda / "vendors" / "musa.h").read_text() == before
    assert (cuda / "ggml-cuda.cu").read_text() == BACKEND  # already ported: fix leaves it alone


def test_a_vendor_header_with_windows_line_endings_still_maps_the_names(cli: Cli, tmp_path: Path) -> None:
    cuda = _project(tmp_path)
    (cuda / "vendors" / "hip.h").write_bytes(HIP_VENDOR.replace("\n", "\r\n").encode())
    rows = _rows(cli, cuda, "ggml-cuda.cu")
    assert rows == [
        ("ggml-cuda.cu", 5, "CP1001", "cudaMalloc", "portable"),
        ("ggml-cuda.cu", 8, "CP1001", "cudaFree", "portable"),
    ]


# mamba / causal-conv1d style: one header picks CUB or hipCUB, and aliases the namespace for ROCm.
CUB_SELECT = """#pragma once
#ifdef USE_ROCM
#include <hipcub/hipcub.hpp>
namespace cub = hipcub;
#else
#include <cub/cub.cuh>
#endif
"""
SCAN_KERNEL = """#include "static_switch.h"
#include "cub_select.h"

template <int THREADS>
__global__ void block_sums(const float* in, float* out) {
  using BlockReduce = cub::BlockReduce<float, THREADS>;
  __shared__ typename BlockReduce::TempStorage storage;
  float total = BlockReduce(storage).Sum(in[threadIdx.x]);
  if (threadIdx.x == 0) out[blockIdx.x] = total;
}
"""


def test_a_cub_namespace_alias_under_use_rocm_leaves_the_cub_uses_alone(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "cub_select.h").write_text(CUB_SELECT)
    (tmp_path / "static_switch.h").write_text("#pragma once\n#define BOOL_SWITCH(c, n, ...) __VA_ARGS__\n")
    (tmp_path / "scan.cu").write_text(SCAN_KERNEL)
    aliases = [
        "namespace cub = hipcub;",
        "using namespace hipcub;",  # not an alias: the kernel's cub:: uses are still CUDA's
    ]
    rows = _rows(cli, tmp_path, "scan.cu", "cub_select.h")
    assert ("scan.cu", 6, "CP1015", "cub", "portable") in rows, rows
    assert ("cub_select.h", 6, "CP1015", "cub/cub.cuh", "portable") in rows, rows
    report = cli("check", "scan.cu", "--format", "json", cwd=tmp_path).json()
    cub = next(d for d in report["diagnostics"] if d["symbol"] == "cub")
    assert cub["message"].endswith("already mapped to `hipcub` by cub_select.h")
    # fix leaves the dual-stack tree as it is, so the CUDA build keeps working
    cli("fix", ".", cwd=tmp_path)
    assert (tmp_path / "scan.cu").read_text() == SCAN_KERNEL
    assert (tmp_path / "cub_select.h").read_text() == CUB_SELECT
    # without the alias, the same kernel's cub:: is work to do
    (tmp_path / "cub_select.h").write_text(CUB_SELECT.replace(aliases[0], aliases[1]))
    rows = _rows(cli, tmp_path, "scan.cu")
    assert ("scan.cu", 6, "CP1015", "cub", "mechanical") in rows, rows
