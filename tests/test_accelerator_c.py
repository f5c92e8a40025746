"""C/C++/CUDA for the Ascend (npu) and Cambricon (mlu) targets, through the `cudaport` command: every finding,
the rewritten files with their rearranged arguments, a compile check of the rewrites against the documented
ACL/HCCL/CNRT/CNCL signatures (tests/stubs), and the blockers for kernels, launches and vendor libraries."""

from __future__ import annotations

import csv
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import cudaport_module, require_shared_reference, target_finding_lines
from cudaport.cli import main as cli
from tooling import require_tool

HERE = Path(__file__).parent
FIXTURES = HERE / "fixtures" / "accelerators"
STUBS = HERE / "stubs"
SOURCES = sorted(p.name for p in FIXTURES.iterdir() if p.is_file())
TARGETS = ("npu", "mlu")


def copy_fixtures(tmp_path: Path) -> Path:
    folder = tmp_path / "src"
    folder.mkdir()
    for name in SOURCES:
        shutil.copy(FIXTURES / name, folder / name)
    return folder


@pytest.fixture
def gxx() -> str:
    return require_tool("g++", "g++")


def compile_errors(gxx: str, source: Path) -> list[str]:
    result = subprocess.run(
        [gxx, "-std=c++17", "-fsyntax-only", "-I", str(STUBS), str(source)], capture_output=True, text=True
    )
    return [line for line in result.stderr.splitlines() if ": error:" in line]


@pytest.mark.parametrize("target", TARGETS)
def test_every_finding_and_difficulty(tmp_path: Path, target: str) -> None:
    project = copy_fixtures(tmp_path)
    result = cudaport_module("check", "--format", "json", "--target", target, str(project))
    assert result.returncode == 1, result.stderr
    expected = (FIXTURES / "expected" / target / "findings.txt").read_text(encoding="utf-8").splitlines()
    assert target_finding_lines(json.loads(result.stdout)) == expected


@pytest.mark.parametrize("target", TARGETS)
def test_fix_rearranges_arguments_exactly_and_is_idempotent(tmp_path: Path, target: str) -> None:
    project = copy_fixtures(tmp_path)
    assert cudaport_module("fix", "--target", target, "--fail-on", "never", str(project)).returncode == 0
    for name in SOURCES:
        expected = (FIXTURES / "expected" / target / name).read_bytes()
        assert (project / name).read_bytes() == expected, name
    again = cudaport_module("fix", "--target", target, "--fail-on", "never", str(project))
    assert "Fixed 0 findings in 0 files" in again.stdout
    for name in SOURCES:
        assert (project / name).read_bytes() == (FIXTURES / "expected" / target / name).read_bytes()


@pytest.mark.parametrize("target", TARGETS)
def test_rewritten_host_code_compiles_against_the_vendor_signatures(gxx: str, tmp_path: Path, target: str) -> None:
    project = copy_fixtures(tmp_path)
    cudaport_module("fix", "--target", target, "--fail-on", "never", str(project))
    assert compile_errors(gxx, project / "host_pipeline.cpp") == []
    # collectives.cpp keeps the calls a person must rewrite; they are the only lines that do not compile
    errors = compile_errors(gxx, project / "collectives.cpp")
    error_lines = {int(line.split(":")[1]) for line in errors}
    left = json.loads(
        cudaport_module("check", "--format", "json", "--target", target, str(project / "collectives.cpp")).stdout
    )
    manual_calls = {d["line"] for d in left["diagnostics"] if d["difficulty"] == "manual" and d["rule"] == "CP1017"}
    assert error_lines == manual_calls and manual_calls


@pytest.mark.parametrize("target", TARGETS)
def test_a_rewritten_extension_binding_compiles_but_for_what_a_person_adapts(
    gxx: str, tmp_path: Path, target: str
) -> None:
    """The host side of a PyTorch extension after the fix builds against torch_npu's or torch_mlu's C++ API, except
    the statement left for a person (the stream pool takes other arguments), which keeps its CUDA spelling whole."""
    project = copy_fixtures(tmp_path)
    cudaport_module("fix", "--target", target, "--fail-on", "never", str(project))
    fixed = (project / "ext_binding.cpp").read_text(encoding="utf-8")
    assert "at::cuda::getCurrentCUDAStream" not in fixed and "cudaStream_t" not in fixed
    errors = compile_errors(gxx, project / "ext_binding.cpp")
    left = json.loads(
        cudaport_module("check", "--format", "json", "--target", target, str(project / "ext_binding.cpp")).stdout
    )
    manual = {d["line"] for d in left["diagnostics"] if d["difficulty"] == "manual"}
    assert {int(line.split(":")[1]) for line in errors} == manual == {22}


def test_the_extension_api_is_portable_on_hip_where_pytorch_hipifies_it(tmp_path: Path) -> None:
    project = copy_fixtures(tmp_path)
    report = json.loads(
        cudaport_module("check", "--format", "json", "--target", "hip", "--select", "CP1040", str(project)).stdout
    )
    npu = json.loads(
        cudaport_module("check", "--format", "json", "--target", "npu", "--select", "CP1040", str(project)).stdout
    )
    # every extension-API use the npu port names is seen on HIP too, as portable
    seen = [(Path(d["path"]).name, d["line"], d["column"]) for d in report["diagnostics"]]
    assert seen == [(Path(d["path"]).name, d["line"], d["column"]) for d in npu["diagnostics"]] and len(seen) == 13
    assert {d["difficulty"] for d in report["diagnostics"]} == {"portable"}
    assert all("hipifying" in d["message"] for d in report["diagnostics"])


@pytest.mark.parametrize(
    ("header", "naive"),
    [
        ("acl/acl.h", "float* p; aclrtMalloc(&p, 64);"),
        ("acl/acl.h", "float* d; const float* h = 0; aclrtMemcpy(d, h, 64, ACL_MEMCPY_HOST_TO_DEVICE);"),
        ("acl/acl.h", "void* d; aclrtMemset(d, 0, 64);"),
        ("acl/acl.h", "int n; aclrtGetDeviceCount(&n);"),
        ("cnrt.h", "float* d; const float* h = 0; cnrtMemcpy(d, h, 64, cnrtMemcpyHostToDev);"),
        ("cnrt.h", "float* d; float* h; cnrtQueue_t q; cnrtMemcpyAsync(d, h, 64, cnrtMemcpyHostToDev, q);"),
        ("cnrt.h", "cnrtNotifier_t a, b; float ms; cnrtNotifierElapsedTime(&ms, a, b);"),
        (
            "hccl/hccl.h",
            "const float* s = 0; float* r; HcclComm c; aclrtStream st;"
            " HcclAllReduce(s, r, 4, HCCL_DATA_TYPE_FP32, HCCL_REDUCE_SUM, c, st);",
        ),
        ("hccl/hccl.h", "HcclComm c; HcclRootInfo id; HcclCommInitRootInfo(&c, 2, id, 0);"),
        ("cncl.h", "const float* s = 0; cnclComm_t c; cnrtQueue_t q; cnclSend(s, 4, cnclFloat, 1, c, q);"),
    ],
)
def test_a_bare_rename_would_not_compile(gxx: str, tmp_path: Path, header: str, naive: str) -> None:
    """The stubs have teeth: renaming without rearranging the arguments is rejected, which is why those calls
    are rewritten whole (or left to a person)."""
    source = tmp_path / "naive.cpp"
    source.write_text(f"#include <{header}>\nvoid f() {{ {naive} }}\n", encoding="utf-8")
    assert compile_errors(gxx, source)


def check_json(tmp_path: Path, source: str, target: str, name: str = "k.cu") -> list[dict]:
    path = tmp_path / name
    path.write_text(source, encoding="utf-8")
    out = tmp_path / "out.json"
    cli.main(["check", "--format", "json", "--target", target, "-o", str(out), str(path)])
    return json.loads(out.read_text(encoding="utf-8"))["diagnostics"]


def fix_text(tmp_path: Path, source: str, target: str, name: str = "k.cu") -> str:
    path = tmp_path / name
    path.write_text(source, encoding="utf-8")
    cli.main(["fix", "--target", target, "--fail-on", "never", str(path)])
    return path.read_text(encoding="utf-8")


KERNEL = """\
#include <cublas_v2.h>
__global__ void add(float* y, const float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) y[i] += x[i];
}
void launch(cublasHandle_t h, float* y, const float* x, int n) {
  add<<<(n + 255) / 256, 256>>>(y, x, n);
  cublasSaxpy(h, n, nullptr, x, 1, y, 1);
}
"""


def test_kernels_launches_and_libraries_per_target(tmp_path: Path) -> None:
    rated = {
        t: {d["rule"]: (d["difficulty"], d["message"]) for d in check_json(tmp_path, KERNEL, t)}
        for t in ("hip", "npu", "mlu")
    }
    assert rated["hip"]["CP1030"][0] == "portable" and rated["hip"]["CP1031"][0] == "portable"
    assert rated["hip"]["CP1010"][0] == "mechanical"
    for target, words in (("npu", ("Ascend C", "aclnn")), ("mlu", ("BANG C", "CNNL"))):
        for rule in ("CP1030", "CP1031", "CP1010"):
            difficulty, message = rated[target][rule]
            assert difficulty == "blocker", (target, rule)
            assert any(word in message for word in words), (target, rule, message)
    assert fix_text(tmp_path, KERNEL, "npu") == KERNEL  # nothing here can be rewritten for Ascend


def test_calls_that_do_not_fit_their_rewrite_are_left_manual(tmp_path: Path) -> None:
    source = """\
#include <cuda_runtime.h>
#define UPLOAD(d, h, n) cudaMemcpy(d, h, n, cudaMemcpyHostToDevice)
void f(float* d, const float* h, size_t n, cudaStream_t s, cudaEvent_t e) {
  cudaMemcpy(d, h, n++, cudaMemcpyHostToDevice);
  cudaMemcpyAsync(d, h, n, cudaMemcpyHostToDevice);
  cudaEventRecord(e);
  cudaStreamWaitEvent(s, e, cudaEventWaitExternal);
}
"""
    found = {(d["line"], d["symbol"]): d for d in check_json(tmp_path, source, "npu") if d["rule"] == "CP1001"}
    for key in (
        (2, "cudaMemcpy"),
        (4, "cudaMemcpy"),
        (5, "cudaMemcpyAsync"),
        (6, "cudaEventRecord"),
        (7, "cudaStreamWaitEvent"),
    ):
        assert found[key]["difficulty"] == "manual", key
        assert not found[key]["fixable"], key
        assert "rewrite this call by hand" in found[key]["message"], key
    # a call left for a person is left whole: its copy direction is not renamed on its own, in code or in a macro
    directions = [d for d in check_json(tmp_path, source, "npu") if d["symbol"] == "cudaMemcpyHostToDevice"]
    assert {d["line"]: (d["difficulty"], d["fixable"]) for d in directions} == {
        2: ("manual", False),
        4: ("manual", False),
        5: ("manual", False),
    }
    assert all("which a person rewrites" in d["message"] for d in directions)
    fixed = fix_text(tmp_path, source, "npu")
    assert "cudaMemcpy(d, h, n++, cudaMemcpyHostToDevice)" in fixed  # n++ would run twice as the capacity
    assert "#define UPLOAD(d, h, n) cudaMemcpy(d, h, n, cudaMemcpyHostToDevice)" in fixed
    assert "cudaMemcpyAsync(d, h, n, cudaMemcpyHostToDevice)" in fixed  # no stream: ACL's needs one
    assert "cudaEventRecord(e)" in fixed  # ACL needs the stream explicitly


def test_acl_initialisation_is_reported_once_until_the_file_calls_acl_init(tmp_path: Path) -> None:
    source = "#include <cuda_runtime.h>\nvoid f(float** p) { cudaSetDevice(0); cudaMalloc(p, 4); }\n"
    init = [d for d in check_json(tmp_path, source, "npu") if d["rule"] == "CP1032"]
    assert [(d["line"], d["column"], d["difficulty"]) for d in init] == [(2, 21, "manual")]
    fixed = fix_text(tmp_path, source, "npu")
    assert [d["rule"] for d in check_json(tmp_path, fixed, "npu")] == ["CP1032"]  # still there after the fix
    done = fixed.replace("{ aclrtSetDevice", "{ aclInit(nullptr); aclrtSetDevice")
    assert check_json(tmp_path, done, "npu") == []
    assert not [d for d in check_json(tmp_path, source, "mlu") if d["rule"] == "CP1032"]


def test_dual_stack_code_for_ascend_and_cambricon_is_already_ported(tmp_path: Path) -> None:
    source = """\
#if defined(__CCE_AICORE__) || defined(__BANG__)
#include "vendor_kernels.h"
#else
__global__ void k(float* x) { __syncthreads(); }
#endif
"""
    for target in ("npu", "mlu"):
        found = check_json(tmp_path, source, target)
        assert found and all(d["difficulty"] == "portable" for d in found), target
        assert all("already dual-stack" in d["message"] for d in found)


def test_targets_everywhere(tmp_path: Path) -> None:
    (tmp_path / "cudaport.toml").write_text('target = "mlu"\n', encoding="utf-8")
    (tmp_path / "a.cu").write_text("#include <cuda_runtime.h>\n", encoding="utf-8")
    result = subprocess.run(
        [sys.executable, "-m", "cudaport", "check", "--format", "json", "a.cu"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    document = json.loads(result.stdout)
    assert document["target"] == "mlu"
    assert document["diagnostics"][0]["replacement"] == "cnrt.h"
    bad = cudaport_module("check", "--target", "tpu", str(tmp_path / "a.cu"))
    assert bad.returncode == 2
    assert "hip, npu, mlu" in bad.stderr
    helped = cudaport_module("check", "--help")
    assert "npu" in helped.stdout and "mlu" in helped.stdout
    rules = json.loads(cudaport_module("rule", "--all", "--format", "json").stdout)
    every = {"hip", "npu", "mlu", "maca", "corex", "musa"}
    for rule in rules:
        assert set(rule["difficulty"]) == every, rule["code"]
        assert set(rule["unmapped"]) == every, rule["code"]
        assert all(rule["docs"][part] for part in ("what", "why", "example", "fix")), rule["code"]


def test_hipify_import_keeps_the_npu_and_mlu_columns(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    reference = require_shared_reference()
    monkeypatch.syspath_prepend(str(HERE.parent / "tools"))
    import import_hipify_map

    rules = tmp_path / "rules"
    shutil.copytree(HERE.parent / "rules", rules)
    monkeypatch.setattr(import_hipify_map, "RULES", rules)
    import_hipify_map.import_api_map(reference)
    import_hipify_map.import_header_map(reference)

    def columns(path: Path, key: str) -> dict[str, tuple[str, ...]]:
        with path.open(encoding="utf-8", newline="") as handle:
            return {
                row[key]: tuple(row[c] for c in row if re.match(r"^(npu|mlu)", c or ""))
                for row in csv.DictReader(handle)
            }

    for relative, key in (("symbols/cuda_runtime.csv", "name"), ("headers.csv", "header")):
        before = columns(HERE.parent / "rules" / relative, key)
        after = columns(rules / relative, key)
        assert after == before
        assert any(any(values) for values in after.values())
