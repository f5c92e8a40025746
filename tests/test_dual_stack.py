"""`cudaport fix --style dual-stack` on C, C++ and CUDA: the fixed tree builds with nvcc (CUDA 13) and with hipcc
(Debian's ROCm 5.2), a second run changes nothing, an existing portability header (ours or the project's own) is
extended and never duplicated, and what cannot be made dual-stack stays a finding. Fixtures: tests/fixtures/
dualstack_c (a small project with a header folder) and dualstack_own (one that has its own platform header)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import FIXTURES, Cli, copy_fixtures, cudaport_executable
from tooling import require_nvcc, require_tool

DUAL = Path(__file__).parent / "fixtures" / "dualstack_c"
OWN = Path(__file__).parent / "fixtures" / "dualstack_own"
SOURCES = sorted(p.relative_to(DUAL).as_posix() for p in DUAL.rglob("*.cu"))


@pytest.fixture(scope="module")
def hipcc() -> str:
    return require_tool("hipcc", "hipcc")


@pytest.fixture(scope="module")
def nvcc() -> str:
    return require_nvcc()


def _hipcc(hipcc: str, source: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    command = [hipcc, "-std=c++17", "--offload-arch=gfx906", "-x", "hip", "-c", str(source), "-o", os.devnull, *flags]
    env = {**os.environ, "HIP_PLATFORM": "amd"}  # this machine also has nvcc, which hipcc would pick
    return subprocess.run(command, capture_output=True, text=True, env=env, timeout=600, cwd=source.parent)


def _nvcc(nvcc: str, source: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    command = [nvcc, "-std=c++17", "-arch=sm_80", "-x", "cu", "-c", str(source), "-o", os.devnull, *flags]
    return subprocess.run(command, capture_output=True, text=True, timeout=600, cwd=source.parent)


def _tree(workdir: Path, fixture: Path = DUAL) -> Path:
    root = workdir / fixture.name
    shutil.copytree(fixture, root)
    return root


def _files(root: Path) -> dict[str, bytes]:
    return {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}


@pytest.fixture(scope="module")
def fixed_tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """dualstack_c after `fix --style dual-stack --target hip@5.2`, through the console script."""
    root = _tree(tmp_path_factory.mktemp("dual"))
    result = subprocess.run(
        [cudaport_executable(), "fix", ".", "--style", "dual-stack", "--target", "hip@5.2"],
        cwd=root,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 0, result.stdout + result.stderr
    return root


@pytest.mark.parametrize("name", SOURCES)
def test_the_fixed_tree_builds_for_cuda_and_for_hip(
    fixed_tree: Path, nvcc: str, hipcc: str, tmp_path: Path, name: str
) -> None:
    original = _tree(tmp_path) / name
    assert _hipcc(hipcc, original).returncode != 0, f"{name} built with hipcc before the fix: this proves nothing"
    assert _nvcc(nvcc, original).returncode == 0, "the fixture must build with nvcc as written"
    source = fixed_tree / name
    built = _nvcc(nvcc, source)
    assert built.returncode == 0, built.stderr
    built = _hipcc(hipcc, source)
    assert built.returncode == 0, built.stderr


def test_the_code_keeps_its_cuda_names_and_the_header_maps_them(fixed_tree: Path) -> None:
    pipeline = (fixed_tree / "src/kernels/pipeline.cu").read_text()
    assert "cudaStreamWaitEvent(work_stream, copied);" in pipeline  # CUDA's call, as written
    assert "hip" not in pipeline.lower()
    # a template's argument list is parenthesised: the header's macro would split it at its comma
    assert "cudaFuncSetAttribute((scale_rows<float, 4>), cudaFuncAttributeMaxDynamicSharedMemorySize, 0);" in pipeline
    # each CUDA include is the header's once; library headers through their macros, in their place
    assert pipeline.count('#include "../../cudaport_compat.h"') == 1
    assert "#include CUDAPORT_COOPERATIVE_GROUPS_H\n#include CUDAPORT_CUDA_FP16_H\n" in pipeline
    assert "<cuda_runtime.h>" not in pipeline
    # warp arithmetic with no 32-lane shuffle in sight takes the target's width
    assert "threadIdx.x / warpSize" in (fixed_tree / "src/common/grid_math.cuh").read_text()
    assert "blockDim.x / warpSize" in (fixed_tree / "src/kernels/histogram.cu").read_text()
    # the header's guard test also tests HIP's
    status = (fixed_tree / "src/host/status.h").read_text()
    assert "#if defined(__DRIVER_TYPES_H__) || defined(HIP_INCLUDE_HIP_DRIVER_TYPES_H)" in status

    header = (fixed_tree / "cudaport_compat.h").read_text()
    target, cuda = header.split("#else  // CUDA")
    assert target.count("#if defined(__HIPCC__) || defined(__HIP_PLATFORM_AMD__) || defined(USE_ROCM)") == 1
    names = re.findall(r"^#define (cuda\w+) (hip\w+)$", target, re.M)
    assert ("cudaMalloc", "hipMalloc") in names and ("cudaDeviceProp", "hipDeviceProp_t") in names
    assert [n for n, _ in names] == sorted(n for n, _ in names), "the names are sorted"
    # exactly the names the tree uses
    used = set(re.findall(r"\bcuda[A-Z]\w*", "".join(p.read_text() for p in fixed_tree.rglob("*.cu*"))))
    used |= set(re.findall(r"\bcuda[A-Z]\w*", status))
    defined = {n for n, _ in names} | set(re.findall(r"^#define (cuda\w+)\(", target, re.M))
    assert defined == used - {"cudaport_compat"}
    assert "#define cudaEventCreate(...) CUDAPORT_BY_COUNT(cudaEventCreate, __VA_ARGS__)" in target
    assert "#define CUDAPORT_cudaEventCreate_2(a1, a2) hipEventCreateWithFlags(a1, a2)" in target
    assert "#define CUDAPORT_COOPERATIVE_GROUPS_H <hip/hip_cooperative_groups.h>" in target
    assert "#include <cuda_runtime.h>" in cuda and "#define CUDAPORT_CUDA_FP16_H <cuda_fp16.h>" in cuda


def test_a_second_run_changes_nothing(cli: Cli, workdir: Path) -> None:
    root = _tree(workdir)
    first = cli("fix", ".", "--style", "dual-stack", cwd=root)
    assert "Created cudaport_compat.h" in first.out
    after = _files(root)
    second = cli("fix", ".", "--style", "dual-stack", cwd=root)
    assert second.out == "Fixed 0 findings in 0 files; left for a person: 0 mechanical, 0 manual, 0 blocker.\n"
    assert _files(root) == after
    report = cli("check", ".", "--format", "json", cwd=root).json()
    assert [d for d in report["diagnostics"] if d["difficulty"] != "portable"] == []


def test_a_later_run_adds_new_names_in_order_and_keeps_edits(cli: Cli, workdir: Path) -> None:
    root = _tree(workdir)
    cli("fix", ".", "--style", "dual-stack", cwd=root)
    header = root / "cudaport_compat.h"
    edited = header.read_text().replace(
        "#define cudaFree hipFree", "#define cudaFree hipFree  // freed on the device that allocated it"
    )
    header.write_text(edited)
    devices = root / "src/host/devices.cu"
    added = devices.read_text().replace("cudaSetDevice(best);", "cudaSetDevice(best);\n  cudaDeviceReset();")
    devices.write_text(added)
    result = cli("fix", ".", "--style", "dual-stack", cwd=root)
    assert "Extended cudaport_compat.h (1 entry)." in result.out
    text = header.read_text()
    assert text.replace("#define cudaDeviceReset hipDeviceReset\n", "", 1) == edited
    lines = text.splitlines()
    index = lines.index("#define cudaDeviceReset hipDeviceReset")
    assert lines[index - 1] == "#define cudaDeviceProp hipDeviceProp_t"  # in its sorted place


def test_the_projects_own_platform_header_is_extended(cli: Cli, nvcc: str, hipcc: str, workdir: Path) -> None:
    root = _tree(workdir, OWN)
    original = (root / "include/gpu_platform.h").read_text()
    result = cli("fix", ".", "--style", "dual-stack", cwd=root)
    assert result.out.startswith("Extended include/gpu_platform.h (2 entries).\n"), result.out
    assert not (root / "cudaport_compat.h").exists(), "never a second header beside the project's"
    text = (root / "include/gpu_platform.h").read_text()
    rocm, cuda = text.split("#else")
    assert "#define cudaMemsetAsync hipMemsetAsync\n#define cudaStreamSynchronize hipStreamSynchronize\n" in rocm
    assert "cudaMemsetAsync" not in cuda
    for line in original.splitlines():
        assert line in text.splitlines()  # nothing of the project's is changed
    assert (root / "src/fill.cu").read_bytes() == (OWN / "src/fill.cu").read_bytes()
    assert _nvcc(nvcc, root / "src/fill.cu").returncode == 0
    built = _hipcc(hipcc, root / "src/fill.cu", "-DUSE_ROCM")  # the project selects ROCm with USE_ROCM
    assert built.returncode == 0, built.stderr
    before = _files(root)
    again = cli("fix", ".", "--style", "dual-stack", cwd=root)
    assert again.out.startswith("Fixed 0 findings") and _files(root) == before


def test_diff_shows_the_header_and_writes_nothing(cli: Cli, workdir: Path) -> None:
    root = _tree(workdir)
    before = _files(root)
    result = cli("fix", ".", "--style", "dual-stack", "--diff", cwd=root)
    assert result.code == 0  # as after the fix: nothing is left for a person
    assert _files(root) == before
    assert "--- /dev/null\n+++ b/cudaport_compat.h\n" in result.out
    assert "+#define cudaMalloc hipMalloc\n" in result.out
    assert '+#include "../../cudaport_compat.h"\n' in result.out
    assert result.out.index("b/src/") < result.out.index("b/cudaport_compat.h"), "the header comes last"
    assert "Would create cudaport_compat.h" in result.err


def test_output_dir_gets_the_header_and_the_original_stays(cli: Cli, workdir: Path) -> None:
    root = _tree(workdir)
    before = _files(root)
    result = cli("fix", "dualstack_c", "--style", "dual-stack", "--output-dir", "ported", cwd=workdir)
    assert result.code == 0, result.err
    assert _files(root) == before
    ported = workdir / "ported" / "dualstack_c"
    assert (ported / "cudaport_compat.h").is_file()
    assert '#include "../../cudaport_compat.h"' in (ported / "src/kernels/pipeline.cu").read_text()


def test_encodings_and_line_endings_are_kept(cli: Cli, workdir: Path) -> None:
    names = ["gbk_comments.cu", "crlf_endings.cu", "utf8_bom.cu"]
    copy_fixtures(workdir, names)
    cli("fix", ".", "--style", "dual-stack", cwd=workdir)
    gbk = (workdir / "gbk_comments.cu").read_bytes()
    assert gbk.decode("gbk") and b'#include "cudaport_compat.h"' in gbk
    original = (FIXTURES / "gbk_comments.cu").read_bytes()
    assert original.decode("gbk").split("\n")[0] == gbk.decode("gbk").split("\n")[0]  # the Chinese comment kept
    crlf = (workdir / "crlf_endings.cu").read_bytes()
    assert b'#include "cudaport_compat.h"\r\n' in crlf and b"\n" not in crlf.replace(b"\r\n", b"")
    assert (workdir / "utf8_bom.cu").read_bytes().startswith(b"\xef\xbb\xbf")


def test_a_header_outside_the_paths_given_is_refused(cli: Cli, workdir: Path) -> None:
    root = _tree(workdir)
    (root / "cudaport.toml").write_text('target = "hip"\n')
    before = _files(root)
    result = cli("fix", "src/kernels", "--style", "dual-stack", cwd=root)
    assert result.code == 2
    assert "outside the paths given" in result.err and "cudaport_compat.h" in result.err
    assert _files(root) == before


def test_fix_style_comes_from_the_configuration(cli: Cli, workdir: Path) -> None:
    root = _tree(workdir)
    (root / "cudaport.toml").write_text('fix-style = "dual-stack"\ncompat-header = "src/platform.h"\n')
    cli("fix", ".", cwd=root)
    assert (root / "src/platform.h").is_file() and not (root / "cudaport_compat.h").exists()
    assert '#include "../platform.h"' in (root / "src/kernels/pipeline.cu").read_text()
    (root / "cudaport.toml").write_text('fix-style = "both"\n')
    broken = cli("fix", ".", cwd=root)
    assert broken.code == 2 and "fix-style" in broken.err and "dual-stack" in broken.err


def test_what_cannot_be_dual_stack_stays_a_finding(cli: Cli, workdir: Path) -> None:
    """Mask-dropping shuffles (unsafe on HIP), warp code written for 32 lanes, and a call that fits no
    template: they stay for a person, in the report as not dual-stack-fixable."""
    copy_fixtures(workdir, ["warp_reduce.cu", "newer_toolkit.cu"])
    report = cli("check", ".", "--format", "json", "--target", "hip@5.2", cwd=workdir).json()
    by_symbol = {(d["path"], d["symbol"]): d for d in report["diagnostics"]}
    assert by_symbol[("warp_reduce.cu", "cuda_runtime.h")]["dual_stack_fixable"]
    assert not by_symbol[("warp_reduce.cu", "__shfl_down_sync")]["dual_stack_fixable"]
    assert not by_symbol[("warp_reduce.cu", "threadIdx.x % 32")]["dual_stack_fixable"]  # beside __shfl_*
    cli("fix", ".", "--style", "dual-stack", "--target", "hip@5.2", cwd=workdir)
    left = cli("check", ".", "--format", "json", "--target", "hip@5.2", cwd=workdir).json()["diagnostics"]
    kept = {(d["path"], d["symbol"]) for d in left if d["difficulty"] in ("manual", "blocker")}
    assert ("warp_reduce.cu", "__shfl_down_sync") in kept
    assert ("warp_reduce.cu", "threadIdx.x % 32") in kept
    assert ("newer_toolkit.cu", "cudaMemPrefetchAsync") in kept  # CUDA 13's form fits no HIP template
    header = (workdir / "cudaport_compat.h").read_text()
    assert "__shfl_down_sync" not in header


@pytest.mark.parametrize(("target", "condition", "name"), [
    ("musa", "defined(__MUSACC__) || defined(USE_MUSA)", "#define cudaMalloc musaMalloc"),
    ("maca", "defined(__MACA__) || defined(USE_MACA)", "#define cudaMalloc mcMalloc"),
])  # fmt: skip
def test_other_rename_targets_get_their_own_condition(
    cli: Cli, workdir: Path, target: str, condition: str, name: str
) -> None:
    root = _tree(workdir)
    cli("fix", ".", "--style", "dual-stack", "--target", target, cwd=root)
    header = (root / "cudaport_compat.h").read_text()
    assert f"#if {condition}\n" in header and name in header


def test_targets_whose_port_is_no_rename_get_no_header(cli: Cli, workdir: Path) -> None:
    root = _tree(workdir)
    for target in ("npu", "corex"):
        cli("fix", ".", "--style", "dual-stack", "--target", target, cwd=root)
        assert not (root / "cudaport_compat.h").exists()
    assert _files(root) == _files(DUAL)
