"""Every finding of every fixture, checked through `cudaport check --format json` against expectations written by
reading the fixture (tests/expected/c/findings/*.txt): a wrong finding, a missing one or an extra one fails."""

from __future__ import annotations

import difflib
from pathlib import Path

import pytest

from conftest import FIXTURES, Cli, finding_line, fixture_files, read_expected_findings, run_subprocess


def _decoded_lines(path: Path) -> list[str]:
    raw = path.read_bytes()
    if raw.startswith(b"\xef\xbb\xbf"):
        raw = raw[3:]
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        text = raw.decode("gbk")
    return text.split("\n")


@pytest.mark.parametrize("name", fixture_files())
def test_every_finding_of_the_fixture(cli: Cli, name: str) -> None:
    result = cli("check", name, "--format", "json", "--target", "hip", cwd=FIXTURES)
    report = result.json()
    got = [finding_line(d) for d in report["diagnostics"]]
    expected = read_expected_findings(name)
    assert got == expected, "\n" + "\n".join(difflib.unified_diff(expected, got, "expected", "cudaport", lineterm=""))
    assert all(d["path"] == name for d in report["diagnostics"])  # paths as given on the command line
    # exit 1 exactly when something at or above the default --fail-on (mechanical) is left
    worst = max((d["difficulty"] != "portable" for d in report["diagnostics"]), default=False)
    assert result.code == (1 if worst else 0), result.err


@pytest.mark.parametrize("name", fixture_files())
def test_each_span_covers_the_symbol_in_code_points(name: str) -> None:
    """Independent of the expectation data: the text between (line, column) and (end_line, end_column), counted
    in code points of the decoded file (GBK, BOM, emoji, CRLF), is the symbol the finding names."""
    lines = _decoded_lines(FIXTURES / name)
    for entry in read_expected_findings(name):
        position, _rule, _difficulty, symbol, _replacement, _fixable = (c.strip() for c in entry.split(" | "))
        start, end = position.split("-")
        line, column = map(int, start.split(":"))
        end_line, end_column = map(int, end.split(":"))
        if line == end_line:
            span = lines[line - 1][column - 1 : end_column - 1]
        else:
            middle = lines[line : end_line - 1]
            span = "\n".join([lines[line - 1][column - 1 :], *middle, lines[end_line - 1][: end_column - 1]])
        if _rule == "CP1031" or (_rule == "CP1033" and "<<<" in span):  # a launch: name and <<<...>>>
            assert span.startswith(symbol) and span[len(symbol) :].lstrip().startswith("<<<"), (entry, span)
            assert span.rstrip().endswith(">>>"), (entry, span)
        elif symbol == "asm":
            assert span.startswith(("asm", "__asm")) and span.rstrip().endswith(")"), (entry, span)
        elif _rule == "CP1009":  # an operator: its name, shown with the vector type it takes
            assert symbol.startswith(span + "(") and span.startswith("operator"), (entry, span)
        elif _rule in ("CP1021", "CP1023"):  # a call's name, shown with the arguments that matter
            assert symbol.startswith(span + "("), (entry, span)
        elif _rule == "CP1035":  # the arithmetic expression around the device address
            assert symbol in span and span != symbol, (entry, span)
        elif _rule == "CP1034":  # launch bounds with their arguments
            assert span.startswith(symbol + "(") and span.endswith(")"), (entry, span)
        elif "::" in symbol:  # a qualified namespace row: the span is its last component
            assert span == symbol.rsplit("::", 1)[1], (entry, span)
        else:
            assert " ".join(span.split()) == symbol, (entry, span)


def test_prose_comments_strings_and_own_identifiers_are_never_findings(cli: Cli) -> None:
    result = cli("check", "prose_only.cpp", "--format", "json", "--show-portable", cwd=FIXTURES)
    # The file's one CUDA construct is its own kernel (a portable CP1030 hint on HIP); nothing in its comments,
    # strings or the user's helpers that share CUDA's names is a finding.
    found = [(d["rule"], d["symbol"], d["difficulty"]) for d in result.json()["diagnostics"]]
    assert found == [("CP1030", "clamp", "portable")]
    assert result.code == 0


def test_messages_name_the_construct_and_the_counterpart(cli: Cli) -> None:
    names = [
        "runtime_check.cu",
        "cudnn_conv.cpp",
        "driver_module.cpp",
        "dual_stack.cu",
        "uses_compat.cu",
        "nvml_nvtx.cpp",
        "warp_reduce.cu",
        "inline_ptx.cu",
        "tensor_core.cu",
        "device_intrinsics.cu",
    ]
    report = cli("check", *names, "--format", "json", cwd=FIXTURES).json()
    messages = {(d["path"], d["line"], d["symbol"]): d["message"] for d in report["diagnostics"]}
    assert messages["runtime_check.cu", 70, "cudaThreadSynchronize"] == (
        "CUDA runtime function `cudaThreadSynchronize` → `hipDeviceSynchronize` on HIP; deprecated since CUDA 10.0"
    )
    assert messages["cudnn_conv.cpp", 31, "cudnnConvolutionForward"] == (
        "cuDNN function `cudnnConvolutionForward` has no drop-in on HIP: port it to MIOpen, whose API differs; "
        "deprecated since cuDNN 9.0.0"
    )
    assert messages["driver_module.cpp", 35, "cuModuleLoad"].startswith(
        "CUDA module loading `cuModuleLoad` loads an NVIDIA binary (.ptx/.cubin/.fatbin); HIP has `hipModuleLoad`"
    )
    assert messages["dual_stack.cu", 13, "cudaStream_t"].endswith(
        "already dual-stack: the HIP path is chosen by `USE_ROCM` (line 8)"
    )
    assert messages["uses_compat.cu", 12, "cudaMalloc"].endswith(
        "already mapped to `hipMalloc` by vendors/gpu_compat.h"
    )
    assert messages["nvml_nvtx.cpp", 11, "nvmlDevice_t"] == (
        "NVML construct `nvmlDevice_t` has no direct counterpart; on HIP query ROCm SMI (rocm_smi/rocm_smi.h, rsmi_*)"
    )
    assert messages["warp_reduce.cu", 5, "32"] == (
        "`WARP_SIZE` hard-codes a warp size of 32; HIP wavefronts have 64 lanes (use warpSize)"
    )
    assert messages["warp_reduce.cu", 41, "__ballot_sync"] == (
        "warp vote `__ballot_sync` returns a 64-bit lane mask on HIP; code that stores it in 32 bits loses lanes; "
        "needs ROCm ≥ 6.2; the build must define HIP_ENABLE_WARP_SYNC_BUILTINS"
    )
    assert messages["inline_ptx.cu", 7, "asm"] == "inline PTX `mov.u32 %0, %%laneid;`: %laneid → `__lane_id()`"
    assert messages["inline_ptx.cu", 25, "asm"] == (
        "inline PTX `dp4a.u32.u32 %0, %1, %2, %3;` (`dp4a.u32.u32`) must be rewritten for HIP: "
        "a builtin, plain C++ or AMDGCN assembly"
    )
    assert "wgmma" in messages["tensor_core.cu", 34, "asm"]
    assert messages["device_intrinsics.cu", 17, "__CUDA_ARCH__"] == (
        "CUDA preprocessor macro `__CUDA_ARCH__`: its closest HIP macro is `__HIP_DEVICE_COMPILE__`, "
        "but the values are not comparable"
    )


def test_severity_follows_difficulty(cli: Cli) -> None:
    report = cli("check", "warp_reduce.cu", "tensor_core.cu", "--format", "json", cwd=FIXTURES).json()
    pairs = {(d["difficulty"], d["severity"]) for d in report["diagnostics"]}
    assert pairs == {
        ("portable", "hint"),
        ("mechanical", "information"),
        ("manual", "warning"),
        ("blocker", "error"),
    }


def test_the_installed_console_script_gives_the_same_report(cli: Cli) -> None:
    in_process = cli("check", "runtime_check.cu", "--format", "json", cwd=FIXTURES)
    installed = run_subprocess("check", "runtime_check.cu", "--format", "json", cwd=FIXTURES)
    assert installed.code == in_process.code == 1
    assert installed.json() == in_process.json()


def test_binary_file_is_skipped_with_a_message(cli: Cli) -> None:
    result = cli("check", "binary_blob.cu", "--format", "json", cwd=FIXTURES)
    assert result.code == 0
    assert result.json()["files_scanned"] == 0
    assert "cudaport: skipped binary_blob.cu: binary file (contains NUL bytes)" in result.err


def test_oversized_file_is_skipped_with_a_message(cli: Cli, workdir: Path) -> None:
    big = workdir / "generated_tables.cu"
    line = b"__device__ const float table_entry[] = {1.0f, 2.0f, 3.0f};  // cudaMalloc in a comment\n"
    big.write_bytes(b"#include <cuda_runtime.h>\n" + line * (5 * 1024 * 1024 // len(line) + 10))
    result = cli("check", "generated_tables.cu", cwd=workdir)
    assert result.code == 0
    assert "cudaport: skipped generated_tables.cu: file is " in result.err
    assert "over the 5,242,880-byte limit (max-file-size)" in result.err
    # a configured limit applies the same way
    (workdir / "cudaport.toml").write_text("max-file-size = 40\n")
    (workdir / "small.cu").write_text("#include <cuda_runtime.h>\nvoid f() { cudaDeviceSynchronize(); }\n")
    result = cli("check", "small.cu", cwd=workdir)
    assert "cudaport: skipped small.cu: file is 64 bytes, over the 40-byte limit (max-file-size)" in result.err


def test_portability_header_reached_through_another_header(cli: Cli, workdir: Path) -> None:
    """llama.cpp's layout: kernels include common.cuh, which includes the vendor header on ROCm."""
    (workdir / "vendors").mkdir()
    (workdir / "vendors" / "hip.h").write_text(
        "#pragma once\n#include <hip/hip_runtime.h>\n#define cudaStream_t hipStream_t\n#define cudaFree hipFree\n"
    )
    (workdir / "common.cuh").write_text(
        '#pragma once\n#if defined(GGML_USE_HIP)\n#include "vendors/hip.h"\n#else\n#include <cuda_runtime.h>\n#endif\n'
    )
    (workdir / "ops").mkdir()
    (workdir / "ops" / "scale.cu").write_text(
        '#include "../common.cuh"\nvoid release(float* p, cudaStream_t s) { cudaFree(p); cudaStreamSynchronize(s); }\n'
    )
    report = cli("check", "ops", "--format", "json", cwd=workdir).json()
    rows = [(d["symbol"], d["difficulty"]) for d in report["diagnostics"]]
    assert rows == [("cudaStream_t", "portable"), ("cudaFree", "portable"), ("cudaStreamSynchronize", "mechanical")]
    assert report["diagnostics"][0]["path"] == "ops/scale.cu"


def test_worker_processes_give_the_same_report(cli: Cli) -> None:
    single = cli("check", ".", "--format", "json", "--jobs", "1", cwd=FIXTURES)
    pooled = cli("check", ".", "--format", "json", "--jobs", "2", cwd=FIXTURES)
    assert pooled.code == single.code == 1
    assert pooled.json() == single.json()
    assert single.json()["files_scanned"] == len(fixture_files())
