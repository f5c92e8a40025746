"""Targets are data: the six bundled targets through the CLI, a seventh added from an extra rule file written
here, and HIP rated against the release the user builds with (`--target hip@5.2`)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import Cli
from cudaport.knowledge.ruleset import load_ruleset

KERNEL = """#include <cuda_runtime.h>
__global__ void scale(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  int lane = threadIdx.x % 32;
  if (lane == 0 && i < n) x[i] *= 2.0f;
}
void run(float* host, int n) {
  float* device = nullptr;
  cudaMalloc(&device, n * sizeof(float));
  cudaMemcpy(device, host, n * sizeof(float), cudaMemcpyHostToDevice);
  scale<<<1, 256>>>(device, n);
  cudaFree(device);
}
"""

TRAINING = """import torch
import torch.distributed as dist

model = torch.nn.Linear(4, 4).cuda()
dist.init_process_group("nccl")
torch.cuda.synchronize()
"""

WARP = """#include <cuda_runtime.h>
#include <cuda_bf16.h>
__global__ void k(float* x) {
  float v = x[threadIdx.x];
  v += __shfl_down_sync(0xffffffffu, v, 1);
  x[0] = __bfloat162float(__float2bfloat16(v));
}
"""


def _findings(cli: Cli, folder: Path, *args: str) -> dict[tuple[str, str], dict[str, object]]:
    report = cli("check", ".", "--format", "json", "--exit-zero", *args, cwd=folder).json()
    return {(Path(d["path"]).name, d["symbol"]): d for d in report["diagnostics"]}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "scale.cu").write_text(KERNEL, encoding="utf-8")
    (tmp_path / "train.py").write_text(TRAINING, encoding="utf-8")
    return tmp_path


# ---- the bundled targets ---------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    ("given", "target", "malloc", "device_call"),
    [
        ("metax", "maca", "mcMalloc", None),
        ("MACA", "maca", "mcMalloc", None),
        ("moorethreads", "musa", "musaMalloc", ".musa()"),
        ("iluvatar", "corex", None, None),
    ],
)
def test_new_targets_rate_and_fix_c_and_python(
    cli: Cli, project: Path, given: str, target: str, malloc: str | None, device_call: str | None
) -> None:
    report = cli("check", ".", "--format", "json", "--exit-zero", "--target", given, cwd=project).json()
    assert report["target"] == target
    found = {(Path(d["path"]).name, d["symbol"]): d for d in report["diagnostics"]}
    runtime = found["scale.cu", "cudaMalloc"]
    kernel = found["scale.cu", "scale"]
    assert kernel["difficulty"] == "portable"  # all three compile CUDA-style kernels
    if malloc is None:  # CoreX keeps the CUDA names
        assert runtime["difficulty"] == "portable" and runtime["replacement"] is None
    else:
        assert (runtime["difficulty"], runtime["replacement"]) == ("mechanical", malloc)
    # 64 lanes on MACA and CoreX, 128 on most MUSA chips: `i % 32` is a 32-lane assumption on all three
    assert any(d["rule"] == "CP2005" for d in report["diagnostics"])
    cuda_call = found["train.py", ".cuda()"]
    nccl = found["train.py", '"nccl"']
    if device_call is None:  # mcPytorch and Iluvatar's PyTorch keep torch.cuda, "cuda" and "nccl"
        assert cuda_call["difficulty"] == "portable" and nccl["difficulty"] == "portable"
    else:
        assert (cuda_call["difficulty"], cuda_call["replacement"]) == ("mechanical", device_call)
        assert nccl["replacement"] == '"mccl"'
    assert cli("fix", ".", "--target", given, "--fail-on", "never", cwd=project).code == 0
    fixed = (project / "scale.cu").read_text(encoding="utf-8")
    if malloc is not None:
        assert malloc in fixed and "cudaMalloc" not in fixed
    else:
        assert fixed == KERNEL
    again = cli("fix", ".", "--target", given, "--fail-on", "never", "--diff", cwd=project)
    assert again.out == "", "a second fix changes nothing"


def test_musa_names_come_from_musify_and_its_libraries_say_what_is_unverified(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "blas.cu").write_text(
        "#include <cublas_v2.h>\n#include <nccl.h>\n#include <cudnn.h>\n"
        "void f(cublasHandle_t h, cudnnHandle_t d, ncclComm_t c) {\n"
        "  cublasCreate(&h);\n  cudnnCreate(&d);\n  ncclCommDestroy(c);\n}\n",
        encoding="utf-8",
    )
    found = _findings(cli, tmp_path, "--target", "musa")
    assert found["blas.cu", "cublasCreate"]["replacement"] == "mublasCreate"
    assert found["blas.cu", "cublas_v2.h"]["replacement"] == "mublas.h"
    cudnn = found["blas.cu", "cudnnCreate"]
    assert cudnn["difficulty"] == "manual" and "muDNN" in str(cudnn["message"])
    nccl = found["blas.cu", "ncclCommDestroy"]
    assert nccl["difficulty"] == "manual" and "MCCL" in str(nccl["message"])


def test_a_32_lane_target_hears_nothing_about_32_lane_warps(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "lanes.cu").write_text(KERNEL, encoding="utf-8")
    extra = tmp_path / "warp32.toml"
    extra.write_text(
        '[target.w32]\nlabel = "Warp32"\nlanes = 32\nkernels = "unchanged"\nlike = "hip"\n'
        '[python.target.w32]\ndevice = "cuda"\n',
        encoding="utf-8",
    )
    found = _findings(cli, tmp_path, "--target", "w32", "--extra-rules", str(extra))
    assert not [key for key, d in found.items() if str(d["rule"]).startswith("CP200")]
    hip = _findings(cli, tmp_path, "--target", "hip")
    assert any(str(d["rule"]).startswith("CP200") for d in hip.values())


# ---- a target from an extra rule file -----------------------------------------------------------------------------
ACME = """
[target.acme]
aliases = ["acmexpu"]
label = "Acme XPU"
platform = "Acme's in-house accelerator"
markers = ["__ACME__", "USE_ACME"]
shim-prefixes = ["acme"]
runtime-include = "acme/runtime.h"
lanes = 64
kernels = "rename"
like = { default = "hip", CP7 = "mlu" }

[[target.acme.derive]]
libraries = ["cuda_runtime"]
renames = { cuda = "acme" }
note = "Acme's runtime renames CUDA's one to one"

[python.target.acme]
module = "torch_acme"
device = "acme"
backend = "accl"
ported-words = ["acme"]
like = "mlu"
renames = { mlu = "acme", MLU = "ACME", cncl = "accl", torch_mlu = "torch_acme" }
"""


def test_a_target_added_by_an_extra_rule_file(cli: Cli, project: Path) -> None:
    (project / "acme.toml").write_text(ACME, encoding="utf-8")
    (project / "acme-headers.csv").write_text(
        "header,acme,acme_note\ncuda_runtime.h,acme/runtime.h,\n", encoding="utf-8"
    )
    (project / "cudaport.toml").write_text(
        'target = "AcmeXPU"\nextra-rules = ["acme.toml", "acme-headers.csv"]\n', encoding="utf-8"
    )
    report = cli("check", ".", "--format", "json", "--exit-zero", cwd=project).json()
    assert report["target"] == "acme"
    found = {(Path(d["path"]).name, d["symbol"]): d for d in report["diagnostics"]}
    assert found["scale.cu", "cudaMalloc"]["replacement"] == "acmeMalloc"
    assert "Acme XPU" in str(found["scale.cu", "cudaMalloc"]["message"])
    assert found["scale.cu", "cuda_runtime.h"]["replacement"] == "acme/runtime.h"
    assert found["scale.cu", "scale"]["difficulty"] == "portable"
    assert found["train.py", ".cuda()"]["replacement"] == ".acme()"
    assert found["train.py", '"nccl"']["replacement"] == '"accl"'
    assert cli("fix", ".", "--fail-on", "never", cwd=project).code == 0
    assert "acmeMemcpy(device, host, n * sizeof(float), acmeMemcpyHostToDevice)" in (project / "scale.cu").read_text()
    python = (project / "train.py").read_text(encoding="utf-8")
    assert ".acme()" in python and '"accl"' in python and "import torch_acme" in python
    # the report and `rule` know the new target too
    document = cli("report", ".", "--format", "json", cwd=project).json()
    assert [t["name"] for t in document["targets"]] == ["acme"]
    explained = cli("rule", "CP1001", "--format", "json", "--extra-rules", str(project / "acme.toml"), cwd=project)
    assert "acme" in json.loads(explained.out)["difficulty"]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        ('[target.x1]\nlabel = "X"\nlanes = "many"\n', "lanes"),
        ('[target.x1]\nlabel = "X"\nkernels = "sometimes"\n', "kernels"),
        ('[target.x1]\nlabel = "X"\nbogus = 1\n', "unknown key(s) bogus"),
        ('[target.x1]\nlabel = "X"\nlike = "nowhere"\n', "unknown target 'nowhere'"),
        ('[target.x1]\nlabel = "X"\n[python.target.x1]\ndevice = "x1"\n', "gives no 'difficulty' for target 'x1'"),
        ('[target.x1]\nlabel = "X"\nlike = "hip"\n', "no [target.x1]"),
    ],
)
def test_a_broken_target_is_a_clear_error_naming_the_file(
    cli: Cli, tmp_path: Path, content: str, expected: str
) -> None:
    (tmp_path / "a.cu").write_text(KERNEL, encoding="utf-8")
    (tmp_path / "bad.toml").write_text(content, encoding="utf-8")
    result = cli("check", "a.cu", "--extra-rules", "bad.toml", cwd=tmp_path)
    assert result.code == 2
    assert expected in result.err, result.err


def test_an_unknown_target_column_is_a_clear_error(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "a.cu").write_text(KERNEL, encoding="utf-8")
    (tmp_path / "cols.csv").write_text("name,rule,tpu\ncudaMalloc,CP1001,tpuMalloc\n", encoding="utf-8")
    result = cli("check", "a.cu", "--extra-rules", "cols.csv", cwd=tmp_path)
    assert result.code == 2
    assert "cols.csv" in result.err and "unknown column 'tpu'" in result.err


# ---- versions ---------------------------------------------------------------------------------------------------
def test_hip_versions_rate_each_api_against_the_release(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "warp.cu").write_text(WARP, encoding="utf-8")
    old = _findings(cli, tmp_path, "--target", "hip@5.2")
    shfl = old["warp.cu", "__shfl_down_sync"]
    assert shfl["difficulty"] == "manual" and "needs ROCm ≥ 6.2" in str(shfl["message"])
    bf16 = old["warp.cu", "__float2bfloat16"]
    assert bf16["difficulty"] == "manual" and "needs ROCm ≥ 5.7" in str(bf16["message"])
    assert old["warp.cu", "cuda_bf16.h"]["replacement"] == "hip/hip_bfloat16.h"

    new = _findings(cli, tmp_path, "--target", "hip@6.4")
    assert new["warp.cu", "__float2bfloat16"]["difficulty"] in ("portable", "mechanical")
    assert new["warp.cu", "cuda_bf16.h"]["replacement"] == "hip/hip_bf16.h"
    shfl = new["warp.cu", "__shfl_down_sync"]
    assert shfl["difficulty"] == "manual"  # the 32-bit mask, not a missing API
    assert "has no" not in str(shfl["message"]) and "HIP_ENABLE_WARP_SYNC_BUILTINS" in str(shfl["message"])
    # without a version: the newest release the data knows
    assert _findings(cli, tmp_path, "--target", "hip") == new


def test_the_version_comes_from_the_configuration_and_the_report_says_it(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "warp.cu").write_text(WARP, encoding="utf-8")
    (tmp_path / "cudaport.toml").write_text('target = "rocm@5.2"\n', encoding="utf-8")
    found = _findings(cli, tmp_path)
    assert found["warp.cu", "__float2bfloat16"]["difficulty"] == "manual"
    report = cli("report", ".", "--target", "hip@5.2,npu", "--format", "json", cwd=tmp_path).json()
    assumes = {t["name"]: t["assumes"] for t in report["targets"]}
    assert assumes == {"hip": "ROCm 5.2", "npu": ""}
    newest = cli("report", ".", "--target", "hip", "--format", "md", cwd=tmp_path).out
    assert "rated for ROCm 6.4 (the newest cudaport knows)" in newest


@pytest.mark.parametrize(
    ("spec", "expected"),
    [
        ("hip@six", "a version is numbers separated by dots"),
        ("maca@1.0", "has no version data"),
        ("npu@X9", "Ascend generations are A2, A3, 950DT"),  # a release number names a torch_npu release
    ],
)
def test_a_bad_version_is_a_clear_error(cli: Cli, tmp_path: Path, spec: str, expected: str) -> None:
    (tmp_path / "a.cu").write_text(KERNEL, encoding="utf-8")
    result = cli("check", "a.cu", "--target", spec, cwd=tmp_path)
    assert result.code == 2 and expected in result.err, result.err


def test_an_ascend_generation_rates_what_it_lacks(cli: Cli, tmp_path: Path) -> None:
    """torch_npu's tables mark some torch.cuda APIs for Atlas A2/A3 only: `npu@950DT` leaves them to a person."""
    (tmp_path / "mem.py").write_text("import torch\ntorch.cuda.memory_summary()\ntorch.cuda.set_device(0)\n")
    every = _findings(cli, tmp_path, "--target", "npu")
    assert every["mem.py", "torch.cuda.memory_summary"]["difficulty"] == "mechanical"
    newest = _findings(cli, tmp_path, "--target", "ascend@950dt")
    summary = newest["mem.py", "torch.cuda.memory_summary"]
    assert summary["difficulty"] == "manual" and summary["fixable"] is False
    assert "only on Ascend A2/A3, not on the 950DT" in str(summary["message"])
    assert newest["mem.py", "torch.cuda.set_device"]["difficulty"] == "mechanical"
    assert _findings(cli, tmp_path, "--target", "npu@A2") == every


def test_the_editor_settings_offer_every_bundled_target() -> None:
    """The extension has no target list of its own (the server's `cudaport.server.targets` labels them); the
    setting's examples, the one static place, name every target the rule data declares."""
    manifest = json.loads((Path(__file__).parents[1] / "vscode-extension" / "package.json").read_text("utf-8"))
    setting = manifest["contributes"]["configuration"]["properties"]["cudaport.target"]
    examples = {example.partition("@")[0] for example in setting["examples"]}
    assert examples == set(load_ruleset().targets)
    assert setting["default"] == ""


def test_the_report_puts_all_six_targets_side_by_side(cli: Cli, project: Path) -> None:
    every = ",".join(load_ruleset().targets)
    document = cli("report", ".", "--target", every, "--format", "json", cwd=project).json()
    assert [t["name"] for t in document["targets"]] == list(load_ruleset().targets)
    markdown = cli("report", ".", "--target", every, "--format", "md", cwd=project).out
    for target in load_ruleset().targets.values():
        assert target.label in markdown


def test_facts_borrowed_from_another_target_are_not_claimed(cli: Cli, tmp_path: Path) -> None:
    """MACA and CoreX take PyTorch-for-ROCm's counterparts, MUSA torch_mlu's, but never their notes: CuPy's ROCm
    build is no MACA build, and Cambricon's BANG C is not Moore Threads' advice."""
    (tmp_path / "libs.py").write_text("import cupy\nimport numba.cuda\n", encoding="utf-8")
    maca = _findings(cli, tmp_path, "--target", "maca")["libs.py", "cupy"]
    assert maca["difficulty"] == "manual" and "not verified" in str(maca["message"])
    musa = _findings(cli, tmp_path, "--target", "musa")["libs.py", "numba.cuda"]
    assert "BANG" not in str(musa["message"]) and "Cambricon" not in str(musa["message"])
