"""`cudaport fix --style dual-stack` on Python (tests/fixtures/dualstack_py): the fixed scripts compile, name no
"cuda" device, import the target's package only where it is installed, and their device selection, run against
stand-ins for torch, torch.accelerator and torch_npu/torch_mlu (tests/stubs/python*), picks cuda, npu, mlu or cpu
as the stand-in machine has them, with the helper module (older PyTorch) and with torch.accelerator (2.6+)."""

from __future__ import annotations

import ast
import os
import py_compile
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import Cli

FIXTURE = Path(__file__).parent / "fixtures" / "dualstack_py"
STUBS = Path(__file__).parent / "stubs"
DEVICE_STRING = re.compile(r"""["']cuda(?::[^"']*)?["']""")


def _project(workdir: Path, torch_requirement: str | None) -> Path:
    root = workdir / "project"
    shutil.copytree(FIXTURE, root)
    if torch_requirement is not None:
        (root / "requirements.txt").write_text(f"numpy\n{torch_requirement}\n")
    return root


def _report(root: Path, accelerators: str, vendor: str | None) -> dict[str, object]:
    """train.report() on a stand-in machine with `accelerators`, the vendor package `vendor` installed or not."""
    paths = [str(STUBS / "python"), *([str(STUBS / f"python_{vendor}")] if vendor else []), str(root)]
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(paths), "STUB_ACCELERATORS": accelerators}
    command = [sys.executable, "-c", "import train; print(repr(train.report()))"]
    result = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
    value = ast.literal_eval(result.stdout.strip())
    assert isinstance(value, dict)
    return value


def _sources(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8") for p in sorted(root.rglob("*.py"))}


@pytest.mark.parametrize("requirement", [None, "torch>=2.6"], ids=["helper", "accelerator"])
@pytest.mark.parametrize("target", ["npu", "mlu"])
def test_fixed_scripts_pick_the_device_the_machine_has(
    cli: Cli, workdir: Path, target: str, requirement: str | None
) -> None:
    root = _project(workdir, requirement)
    # as written, the script only knows CUDA: on an NPU machine it falls back to the CPU
    assert _report(root, target, target)["device"] == "cpu"
    result = cli("fix", ".", "--style", "dual-stack", "--target", target, cwd=root)
    assert result.code == 0, result.out + result.err
    assert result.out.endswith("left for a person: 0 mechanical, 0 manual, 0 blocker.\n"), result.out
    for name, text in _sources(root).items():
        py_compile.compile(str(root / name), doraise=True)
        if "cudaport_device" not in name:
            assert not DEVICE_STRING.search(text), (name, text)
    backend = {"npu": "hccl", "mlu": "cncl"}[target]
    expected = {"device": target, "first": f"{target}:0", "rank1": f"{target}:1", "devices": 1, "backend": backend}
    assert _report(root, target, target) == expected
    # a CUDA machine has no torch_npu/torch_mlu: the guarded import lets the same script run there
    on_cuda = {"device": "cuda", "first": "cuda:0", "rank1": "cuda:1", "devices": 1, "backend": "nccl"}
    assert _report(root, "cuda", None) == on_cuda
    on_cpu = {"device": "cpu", "first": "cpu", "rank1": "cpu", "devices": 0, "backend": "gloo"}
    assert _report(root, "", target) == on_cpu
    train = (root / "train.py").read_text()
    assert f"try:\n    import torch_{target}  # registers the device" in train
    assert "except ImportError:" in train
    if requirement is None:
        assert "cudaport_device.is_available()" in train and "torch.accelerator" not in train
    else:
        assert "torch.accelerator.is_available()" in train and "torch.accelerator.synchronize()" in train
    # a package imports the helper module relatively from its top, where it is written once
    group = (root / "trainer/parallel/group.py").read_text()
    assert "from .. import cudaport_device" in group
    assert (root / "trainer/cudaport_device.py").is_file() and (root / "cudaport_device.py").is_file()
    before = _sources(root)
    again = cli("fix", ".", "--style", "dual-stack", "--target", target, cwd=root)
    assert again.out.startswith("Fixed 0 findings in 0 files;") and _sources(root) == before


def test_the_helper_module_has_no_findings_and_is_extended_not_rewritten(cli: Cli, workdir: Path) -> None:
    root = _project(workdir, None)
    cli("fix", ".", "--style", "dual-stack", "--target", "npu", cwd=root)
    helper = root / "cudaport_device.py"
    report = cli("check", "cudaport_device.py", "--target", "npu", "--format", "json", cwd=root).json()
    assert [d for d in report["diagnostics"] if d["difficulty"] != "portable"] == []
    # a person removes a function they do not want; a later fix that needs it adds it back, and nothing else
    text = helper.read_text()
    trimmed = re.sub(r"\n\ndef dist_backend\(\).*?(?=\n\n\ndef |\Z)", "", text, flags=re.S)
    assert "dist_backend" not in trimmed
    helper.write_text(trimmed.replace("# The torch.distributed backend", "# Our backends"))
    script = root / "extra.py"
    script.write_text('import torch.distributed as dist\n\ndist.init_process_group("nccl")\n')
    result = cli("fix", "extra.py", "cudaport_device.py", "--style", "dual-stack", "--target", "npu", cwd=root)
    assert "Extended cudaport_device.py (1 entry)." in result.out, result.out
    extended = helper.read_text()
    assert extended.startswith(trimmed.replace("# The torch.distributed backend", "# Our backends").rstrip())
    assert "def dist_backend() -> str:" in extended
    assert "dist.init_process_group(cudaport_device.dist_backend())" in script.read_text()


def test_what_cannot_be_made_device_neutral_stays_a_finding(cli: Cli, workdir: Path) -> None:
    root = workdir / "odd"
    root.mkdir()
    (root / "graphs.py").write_text(
        "import torch\n"
        "from torch.cuda import synchronize\n\n"
        "g = torch.cuda.CUDAGraph()\n"  # torch.npu.NPUGraph: another name, and manual on npu
        "x = torch.zeros(2).cuda(1)\n"  # an argument to carry over by hand
        "synchronize()\n"
    )
    report = cli("check", ".", "--target", "npu", "--format", "json", cwd=root).json()
    dual = {d["symbol"]: d["dual_stack_fixable"] for d in report["diagnostics"]}
    assert dual.get("torch.cuda.CUDAGraph") is False
    cli("fix", ".", "--style", "dual-stack", "--target", "npu", cwd=root)
    text = (root / "graphs.py").read_text()
    assert "torch.cuda.CUDAGraph()" in text and ".cuda(1)" in text and "from torch.cuda import synchronize" in text
