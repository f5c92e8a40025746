"""Compile check with the real HIP compiler (Debian's ROCm 5.2 hipcc, ../shared/notes/compile-checking-hip.md):
after `cudaport fix --target hip@5.2`, the fixtures that use only APIs HIP 5.2 has must build for gfx906 (a 64-wide
wavefront like Hygon DCU). The fixtures that need libraries Debian lacks (hipBLAS, hipFFT, hipSOLVER, hipCUB,
RCCL, MIOpen, rocThrust, ...) are checked textually instead, by tests/test_fix.py and tests/expected/c/fixed/."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIXTURE_HEADERS, REPO, Cli, copy_fixtures
from tooling import require_file, require_tool

# fixture -> extra compiler flags. Include paths stand for the build system: HIPIFY's header names
# (hipsparse.h) sit one folder down in Debian's packages.
COMPILED = {
    "runtime_check.cu": [],
    "rand_dropout.cu": [],
    "sparse_spmv.cu": ["-I/usr/include/hipsparse"],
    "coop_groups.cu": [],
    "half_math.cu": [],
    "nvrtc_complex.cpp": [],
    "gbk_comments.cu": [],
    "utf8_bom.cu": [],
    "crlf_endings.cu": [],
    "dual_stack.cu": ["-DUSE_ROCM"],  # the build selects the ROCm branch, as PyTorch's does
    "uses_compat.cu": [],
    "launch_config.cu": [],
    "tile_scan.cu": [],  # cooperative groups before any runtime include, and "cuda_fp16.h" in quotes
    "guarded_helpers.cu": [],  # its helpers vanish unless the CUDA guards they test are rewritten too
    "helpers_first.cu": [],  # the helpers come before the runtime include, which nvcc puts first on its own
    "host_mapped.cu": [],  # void ** casts and flags HIP 5.x wants, CUDART_CB, __grid_constant__, CUDA 12 graphs
    "index_bounds.cu": [],  # min/max of built-in indices, ambiguous on HIP until cast to CUDA's type
}


@pytest.fixture(scope="module")
def hipcc() -> str:
    compiler = require_tool("hipcc", "hipcc")
    require_file("/usr/include/hiprand/hiprand.h", "libhiprand-dev")
    require_file("/usr/include/rocrand/rocrand.h", "librocrand-dev")
    require_file("/usr/include/hipsparse/hipsparse.h", "libhipsparse-dev")
    return compiler


def _compile(hipcc: str, source: Path, flags: list[str]) -> subprocess.CompletedProcess[str]:
    command = [hipcc, "-std=c++17", "--offload-arch=gfx906", "-x", "hip", "-c", str(source)]
    command += ["-o", str(source.with_suffix(".o")), *flags]
    env = {**os.environ, "HIP_PLATFORM": "amd"}  # this machine also has nvcc, which hipcc would pick
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=600, cwd=source.parent)


@pytest.mark.parametrize("name", sorted(COMPILED))
def test_fixed_fixture_compiles_with_hipcc(cli: Cli, hipcc: str, workdir: Path, name: str) -> None:
    copy_fixtures(workdir, [name])
    source = workdir / name
    if name != "dual_stack.cu":  # already dual-stack: it builds for ROCm as it is
        before = _compile(hipcc, source, COMPILED[name])
        assert before.returncode != 0, f"{name} compiled with hipcc before the fix: the check proves nothing"
    # a fixture with headers of its own is fixed as a tree, as a user fixes a project
    cli("fix", "." if name in FIXTURE_HEADERS else name, "--target", "hip@5.2", cwd=workdir)
    result = _compile(hipcc, source, COMPILED[name])
    assert result.returncode == 0, result.stderr
    assert source.with_suffix(".o").stat().st_size > 0


# fixture -> the lines hipcc rejects after the fix; each error must carry a manual or blocker finding, on its own
# line or on the line of a candidate hipcc names for it (an ambiguous operator is caused by the definition).
LEFT_FOR_A_PERSON = {
    "device_intrinsics.cu": {16, 20, 26},  # `umin`, `__trap` and `CUDART_VERSION`, which HIP 5.2 lacks
    "nested_launch.cu": {9, 13, 14, 15, 16},  # a system-scope atomicInc, and launches and streams in device code
    "device_report.cu": {8, 14},  # the second of two overloads HIP merges, fields hipDeviceProp_t lacks
    "vector_math.cu": {23},  # `sum += ...` is ambiguous: the project's operator+= and HIP's own
    "driver_offsets.cpp": {22, 23},  # byte arithmetic on CUdeviceptr, which is void * on HIP
    "newer_toolkit.cu": {10, 11, 14, 20, 21},  # CUDA 12-13 APIs HIPIFY lacks, CUDA 13 prefetching
    "texture_handles.cu": {11, 15, 35},  # texture and surface objects packed and summed as integers: pointers on HIP
    "tile_meta_groups.cu": {18, 21, 22},  # a tile's meta_group_rank/size, which arrived in ROCm 5.7
}


def _errors(stderr: str, name: str) -> list[tuple[int, set[int]]]:
    """(line, lines of the notes that follow it) for every error hipcc reports in `name`."""
    errors: list[tuple[int, set[int]]] = []
    for match in re.finditer(r"^(\S+?):(\d+):\d+: (error|note): ", stderr, re.M):
        if match.group(3) == "error" and match.group(1).endswith(name):
            errors.append((int(match.group(2)), set()))
        elif match.group(3) == "note" and errors and match.group(1).endswith(name):
            errors[-1][1].add(int(match.group(2)))
    return errors


@pytest.mark.parametrize("name", sorted(LEFT_FOR_A_PERSON))
def test_what_does_not_compile_after_the_fix_is_what_the_findings_left_for_a_person(
    cli: Cli, hipcc: str, workdir: Path, name: str
) -> None:
    """Nothing breaks silently: every error hipcc reports after the fix is explained by a finding left for a
    person, on the failing line or on a candidate hipcc names for it. Fixed and checked for the ROCm release of the
    compiler (5.2), as a user with that compiler would."""
    copy_fixtures(workdir, [name])
    cli("fix", name, "--target", "hip@5.2", cwd=workdir)
    left = cli("check", name, "--target", "hip@5.2", "--format", "json", cwd=workdir).json()["diagnostics"]
    manual_lines = {d["line"] for d in left if d["difficulty"] in ("manual", "blocker")}
    result = _compile(hipcc, workdir / name, [])
    assert result.returncode != 0
    errors = _errors(result.stderr, name)
    assert {line for line, _ in errors} == LEFT_FOR_A_PERSON[name], result.stderr
    for line, notes in errors:
        assert line in manual_lines or notes & manual_lines, (line, result.stderr)


def test_the_compile_bench_counts_what_no_finding_explains(hipcc: str, workdir: Path) -> None:
    """bench/compile_after_fix.py is how real trees are judged: an error with no finding behind it must come out
    unexplained, and the errors hipcc prints inside HIP's own header for a tile shuffle of a vector (the first with
    the instantiation note, the second with only 'candidate' notes in other headers) at the finding's cause."""
    tree = workdir / "tree"
    copy_fixtures(tree, ["clang_rejects.cu", "texture_handles.cu"])
    (tree / "forgot.cu").write_text(
        "#include <cuda_runtime.h>\n\nvoid start(float *p) {\n    cudaMemset(p, 0, 4);\n    warm_up_pool(p);\n}\n",
        encoding="utf-8",
    )
    command = [sys.executable, str(REPO / "bench" / "compile_after_fix.py"), str(tree), "--no-hipify"]
    result = subprocess.run(
        command,
        capture_output=True,
        text=True,
        timeout=600,
        env={**os.environ, "PATH": os.path.dirname(hipcc) + os.pathsep + os.environ["PATH"]},
    )
    assert result.returncode == 0, result.stderr
    counts = dict(re.findall(r"^  (\S[^\n]*?)\s+(\d+)(?:  \(.*)?$", result.stdout, re.M))
    assert counts["a manual/blocker finding on the line"] == "5", result.stdout  # the VLA and texture arithmetic
    assert counts["a manual/blocker finding at the cause"] == "2", result.stdout  # the shuffle's two header errors
    assert counts["unexplained"] == "1", result.stdout
    assert "use of undeclared identifier 'warm_up_pool'   e.g. forgot.cu:5" in result.stdout
    assert (tree / "forgot.cu").read_text(encoding="utf-8").startswith("#include <cuda_runtime.h>")  # never edited
