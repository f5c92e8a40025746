"""Python sources for every target, through the `cudaport` command: realistic training, inference, setup and
pre/post-processing scripts, their findings with difficulties and exact ranges, the rewritten files, and the
properties every rewrite must keep (the file parses, `import torch_npu`/`torch_mlu` appears once, a second `fix`
changes nothing, prose and user names are never touched)."""

from __future__ import annotations

import ast
import json
import shutil
from pathlib import Path

import pytest

from conftest import cudaport_module, target_finding_lines
from cudaport.cli import main as cli

FIXTURES = Path(__file__).parent / "fixtures" / "python"
SOURCES = sorted(p.name for p in FIXTURES.glob("*.py"))
TARGETS = ("hip", "npu", "mlu")
DEVICE_MODULES = {"npu": "torch_npu", "mlu": "torch_mlu"}


def copy_fixtures(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    for name in SOURCES:
        shutil.copy(FIXTURES / name, folder / name)
    return folder


@pytest.mark.parametrize("target", TARGETS)
def test_every_finding_and_difficulty(tmp_path: Path, target: str) -> None:
    project = copy_fixtures(tmp_path)
    result = cudaport_module("check", "--format", "json", "--target", target, str(project))
    assert result.returncode in (0, 1), result.stderr
    document = json.loads(result.stdout)
    assert document["target"] == target
    assert document["files_scanned"] == len(SOURCES)
    expected = (FIXTURES / "expected" / target / "findings.txt").read_text(encoding="utf-8").splitlines()
    assert target_finding_lines(document) == expected
    assert sum(document["summary"].values()) == len(expected)
    assert {line.split()[2] for line in expected} <= {"portable", "mechanical", "manual", "blocker"}


@pytest.mark.parametrize("target", TARGETS)
def test_fix_rewrites_exactly_and_is_idempotent(tmp_path: Path, target: str) -> None:
    project = copy_fixtures(tmp_path)
    first = cudaport_module("fix", "--target", target, "--fail-on", "never", str(project))
    assert first.returncode == 0, first.stderr
    for name in SOURCES:
        rewritten = (project / name).read_text(encoding="utf-8")
        if target == "hip":
            # PyTorch on ROCm keeps torch.cuda, "cuda" and "nccl": nothing in Python is rewritten for HIP.
            assert rewritten == (FIXTURES / name).read_text(encoding="utf-8"), name
        else:
            assert rewritten == (FIXTURES / "expected" / target / name).read_text(encoding="utf-8"), name
        ast.parse(rewritten, filename=name)
        module = DEVICE_MODULES.get(target)
        if module is not None:
            imports = [line for line in rewritten.splitlines() if line.strip() == f"import {module}"]
            changed = rewritten != (FIXTURES / name).read_text(encoding="utf-8")
            assert len(imports) == (1 if changed else 0), name
    snapshot = {name: (project / name).read_bytes() for name in SOURCES}
    second = cudaport_module("fix", "--target", target, "--fail-on", "never", str(project))
    assert second.returncode == 0, second.stderr
    assert "Fixed 0 findings in 0 files" in second.stdout
    assert {name: (project / name).read_bytes() for name in SOURCES} == snapshot


@pytest.mark.parametrize("target", TARGETS)
def test_left_for_a_person_after_fix(tmp_path: Path, target: str) -> None:
    """Fixing removes exactly the fixable findings: what needs a person is still reported afterwards."""
    project = copy_fixtures(tmp_path)
    before = json.loads(cudaport_module("check", "--format", "json", "--target", target, str(project)).stdout)
    cudaport_module("fix", "--target", target, "--fail-on", "never", str(project))
    after = json.loads(cudaport_module("check", "--format", "json", "--target", target, str(project)).stdout)

    def people(document: dict) -> list[tuple[str, str, str]]:
        return sorted(
            (Path(d["path"]).name, d["rule"], d["symbol"])
            for d in document["diagnostics"]
            if d["difficulty"] in ("manual", "blocker")
        )

    assert people(after) == people(before)
    assert not any(d["fixable"] for d in after["diagnostics"])
    assert after["summary"]["mechanical"] == 0


@pytest.mark.parametrize("target", TARGETS)
def test_prose_messages_user_names_and_flags_are_not_findings(tmp_path: Path, target: str) -> None:
    source = FIXTURES / "prose_only.py"
    result = cudaport_module("check", "--format", "json", "--target", target, str(source))
    assert result.returncode == 0, result.stdout
    assert json.loads(result.stdout)["diagnostics"] == []
    copy = tmp_path / "prose_only.py"
    shutil.copy(source, copy)
    fixed = cudaport_module("fix", "--target", target, str(copy))
    assert fixed.returncode == 0
    assert copy.read_bytes() == source.read_bytes()


def run_check(tmp_path: Path, source: str, target: str, name: str = "snippet.py") -> list[dict]:
    path = tmp_path / name
    path.write_text(source, encoding="utf-8")
    out = tmp_path / f"{target}.json"
    code = cli.main(["check", "--format", "json", "--target", target, "-o", str(out), str(path)])
    assert code in (0, 1)
    return json.loads(out.read_text(encoding="utf-8"))["diagnostics"]


def run_fix(tmp_path: Path, source: str, target: str, name: str = "snippet.py") -> str:
    path = tmp_path / name
    path.write_text(source, encoding="utf-8")
    assert cli.main(["fix", "--target", target, "--fail-on", "never", str(path)]) == 0
    return path.read_text(encoding="utf-8")


def test_aliases_resolve_to_torch_cuda(tmp_path: Path) -> None:
    source = (
        "import torch as t\n"
        "import torch.cuda as tc\n"
        "from torch import cuda\n"
        "from numba import cuda as ncuda\n"
        "t.cuda.synchronize()\n"
        "tc.synchronize()\n"
        "cuda.synchronize()\n"
        "ncuda.synchronize()\n"
    )
    found = run_check(tmp_path, source, "npu")
    symbols = [(d["line"], d["symbol"]) for d in found]
    assert (5, "torch.cuda.synchronize") in symbols
    assert (6, "torch.cuda.synchronize") in symbols
    assert (7, "torch.cuda.synchronize") in symbols
    assert (4, "numba.cuda") in symbols
    assert not any(line == 8 for line, _ in symbols)  # numba's own API: one finding, at its import
    assert run_fix(tmp_path, source, "npu") == (
        "import torch as t\n"
        "import torch_npu\n"
        "import torch.npu as tc\n"
        "from torch import npu as cuda\n"
        "from numba import cuda as ncuda\n"
        "t.npu.synchronize()\n"
        "tc.synchronize()\n"
        "cuda.synchronize()\n"
        "ncuda.synchronize()\n"
    )


def test_an_alias_with_uses_that_need_a_person_keeps_its_import(tmp_path: Path) -> None:
    source = "import torch\nimport torch.cuda as tc\ns = tc.Stream()\ng = tc.CUDAGraph()\n"
    found = {d["line"]: d for d in run_check(tmp_path, source, "npu")}
    assert found[4]["difficulty"] == "manual"  # NPUGraph: inference only
    assert found[2]["difficulty"] == "manual" and not found[2]["fixable"]
    assert found[3]["difficulty"] == "manual"
    fixed = run_fix(tmp_path, source, "npu")
    assert "import torch.cuda as tc" in fixed and "tc.CUDAGraph()" in fixed
    found = {d["line"]: d for d in run_check(tmp_path, fixed, "npu")}
    assert any(d["symbol"] == "torch.cuda.CUDAGraph" for d in found.values())  # still visible after the fix
    assert run_fix(tmp_path, source, "mlu").splitlines()[2:] == [
        "import torch.mlu as tc",
        "s = tc.Stream()",
        "g = tc.MLUGraph()",
    ]


def test_from_import_is_rewritten_whole_or_not_at_all(tmp_path: Path) -> None:
    source = "import torch\nfrom torch.cuda import synchronize, memory_usage\nsynchronize()\n"
    found = run_check(tmp_path, source, "npu")
    by_symbol = {d["symbol"]: d for d in found}
    assert by_symbol["torch.cuda.memory_usage"]["difficulty"] == "blocker"
    assert by_symbol["torch.cuda.synchronize"]["difficulty"] == "manual"
    assert run_fix(tmp_path, source, "npu") == source
    amp = "import torch\nfrom torch.cuda.amp import autocast, GradScaler as Scaler\n"
    assert run_fix(tmp_path, amp, "npu") == (
        "import torch\nimport torch_npu\nfrom torch_npu.npu.amp import autocast, GradScaler as Scaler\n"
    )
    assert run_fix(tmp_path, amp, "mlu") == (
        "import torch\nimport torch_mlu\nfrom torch_mlu.mlu.amp import autocast, GradScaler as Scaler\n"
    )


@pytest.mark.parametrize(
    ("line", "npu"),
    [
        ('x = torch.zeros(3, device="cuda")', 'x = torch.zeros(3, device="npu")'),
        ('d = torch.device("cuda", rank)', 'd = torch.device("npu", rank)'),
        ('d = torch.device(f"cuda:{rank}")', 'd = torch.device(f"npu:{rank}")'),
        ('d = torch.device("cuda:%d" % rank)', 'd = torch.device("npu:%d" % rank)'),
        ('d = torch.device("cuda:{}".format(rank))', 'd = torch.device("npu:{}".format(rank))'),
        ('y = x.to("cuda", non_blocking=True)', 'y = x.to("npu", non_blocking=True)'),
        ('s = torch.load(p, map_location={"cuda:1": "cuda:0"})', 's = torch.load(p, map_location={"npu:1": "npu:0"})'),
        ('s = torch.load(p, "cuda:0")', 's = torch.load(p, "npu:0")'),
        ('ok = x.device.type == "cuda"', 'ok = x.device.type == "npu"'),
        (
            'device = "cuda" if torch.cuda.is_available() else "cpu"',
            'device = "npu" if torch.npu.is_available() else "cpu"',
        ),
        ('devices = [f"cuda:{i}" for i in range(n)]', 'devices = [f"npu:{i}" for i in range(n)]'),
        ('cfg = {"device": "cuda"}', 'cfg = {"device": "npu"}'),
        ('with torch.autocast("cuda"): pass', 'with torch.autocast("npu"): pass'),
        ('dist.init_process_group("nccl")', 'dist.init_process_group("hccl")'),
        (
            'dist.init_process_group(backend="cuda:nccl,cpu:gloo")',
            'dist.init_process_group(backend="npu:hccl,cpu:gloo")',
        ),
        ('same = dist.get_backend() == "nccl"', 'same = dist.get_backend() == "hccl"'),
        ('os.environ["CUDA_VISIBLE_DEVICES"] = "0,1"', 'os.environ["ASCEND_RT_VISIBLE_DEVICES"] = "0,1"'),
        ('v = os.getenv("PYTORCH_CUDA_ALLOC_CONF")', 'v = os.getenv("PYTORCH_NPU_ALLOC_CONF")'),
        ('has = "CUDA_VISIBLE_DEVICES" in os.environ', 'has = "ASCEND_RT_VISIBLE_DEVICES" in os.environ'),
        (
            'subprocess.run(cmd, env={**os.environ, "CUDA_VISIBLE_DEVICES": "0"})',
            'subprocess.run(cmd, env={**os.environ, "ASCEND_RT_VISIBLE_DEVICES": "0"})',
        ),
        ("ok = batch.is_cuda", "ok = batch.is_npu"),
        ("m = model.cuda(rank)", "m = model.npu(rank)"),
        ("a = dist.is_nccl_available()", "a = torch_npu.distributed.is_hccl_available()"),
    ],
)
def test_device_positions_are_rewritten_on_the_exact_node(tmp_path: Path, line: str, npu: str) -> None:
    header = "import os\nimport subprocess\nimport torch\nimport torch.distributed as dist\n"
    fixed = run_fix(tmp_path, header + line + "\n", "npu")
    environment_only = "environ" in line or "getenv" in line  # renaming a variable needs no torch_npu
    imported = header if environment_only else header.replace("import torch\n", "import torch\nimport torch_npu\n")
    assert fixed == imported + npu + "\n"
    ast.parse(fixed)


@pytest.mark.parametrize(
    "line",
    [
        'print("moving the model to cuda")',
        'log.info("cuda:0 is busy")',
        'parser.add_argument("--cuda", action="store_true", help="use cuda")',
        'parser.add_argument("--backend-doc", default="see the nccl docs")',
        "cuda_enabled = torch_available and use_cuda",
        'name = "cuda"',
        'mode = "nccl"',
        'raise RuntimeError("cuda")',
        'key = f"cuda:{rank}" + suffix',
        'msg = "cuda" if verbose else "quiet"',
        "def cuda(self): return self",
        '"""Run on cuda with nccl."""',
        "x = self.cuda",
        "flags.cuda = True",
    ],
)
def test_cuda_outside_device_positions_is_never_a_finding(tmp_path: Path, line: str) -> None:
    source = "import torch\n" + line + "\n"
    for target in TARGETS:
        assert run_check(tmp_path, source, target) == [], (target, line)
        assert run_fix(tmp_path, source, target) == source


def test_visible_devices_value_that_ascend_cannot_parse_is_manual(tmp_path: Path) -> None:
    found = run_check(tmp_path, 'import os\nos.environ["CUDA_VISIBLE_DEVICES"] = "1, 0"\n', "npu")
    assert [(d["rule"], d["difficulty"]) for d in found] == [("CP7030", "manual")]
    assert "ascending" in found[0]["message"]
    found = run_check(tmp_path, 'import os\nos.environ.get("CUDA_VISIBLE_DEVICES", "")\n', "npu")
    assert [(d["rule"], d["difficulty"]) for d in found] == [("CP7030", "mechanical")]


def test_suppression_comment_works_in_python(tmp_path: Path) -> None:
    source = "import torch\nx = y.cuda()  # cudaport: ignore[CP7011]\nz = y.cuda()\n"
    found = run_check(tmp_path, source, "npu")
    assert [(d["line"], d["rule"]) for d in found] == [(3, "CP7011")]
    fixed = run_fix(tmp_path, source, "npu")
    assert fixed == "import torch\nimport torch_npu\nx = y.cuda()  # cudaport: ignore[CP7011]\nz = y.npu()\n"
    ignored = "# cudaport: ignore-file[CP70]\nimport torch\nx = y.cuda()\n"
    assert run_check(tmp_path, ignored, "mlu") == []


def test_import_goes_before_a_from_import_of_torch_and_keeps_line_endings(tmp_path: Path) -> None:
    source = "from torch import nn\r\nimport torch\r\nx = torch.zeros(1).cuda()\r\n"
    path = tmp_path / "crlf.py"
    path.write_bytes(source.encode())
    assert cli.main(["fix", "--target", "mlu", "--fail-on", "never", str(path)]) == 0
    assert (
        path.read_bytes() == b"import torch_mlu\r\nfrom torch import nn\r\nimport torch\r\nx = torch.zeros(1).mlu()\r\n"
    )
    no_torch = run_fix(tmp_path, "def f(x):\n    return x.cuda()\n", "npu")
    # a file that never imports torch gets the import too: `x.npu()` needs torch_npu loaded wherever it runs
    assert no_torch == "import torch_npu\ndef f(x):\n    return x.npu()\n"


def test_extensions_and_libraries_per_target(tmp_path: Path) -> None:
    source = (
        "from setuptools import Extension\n"
        "from torch.utils.cpp_extension import load, load_inline\n"
        "a = load(name='a', sources=['a.cpp', 'a.cu'])\n"
        "b = load(name='b', sources=['b.cpp'])\n"
        "c = load_inline(name='c', cpp_sources=s, cuda_sources=k)\n"
        "d = Extension('d', sources=['d.cu'])\n"
        "import pycuda.autoinit\n"
        "import triton\n"
    )
    levels = {t: [(d["line"], d["rule"], d["difficulty"]) for d in run_check(tmp_path, source, t)] for t in TARGETS}
    assert levels["hip"] == [
        (3, "CP7040", "portable"),
        (5, "CP7040", "portable"),
        (6, "CP7040", "manual"),
        (7, "CP7050", "blocker"),
        (8, "CP7050", "portable"),
    ]
    assert levels["npu"] == [
        (3, "CP7040", "blocker"),
        (4, "CP7090", "manual"),  # torch.utils.cpp_extension.load is on Ascend's unsupported list
        (5, "CP7040", "blocker"),
        (6, "CP7040", "blocker"),
        (7, "CP7050", "blocker"),
        (8, "CP7050", "manual"),
    ]
    assert levels["mlu"] == [
        (3, "CP7040", "blocker"),
        (5, "CP7040", "blocker"),
        (6, "CP7040", "blocker"),
        (7, "CP7050", "blocker"),
        (8, "CP7050", "blocker"),
    ]


def test_ascend_unsupported_apis_are_reported_for_npu_only(tmp_path: Path) -> None:
    source = "import torch\nfrom torch import nn\nm = nn.DataParallel(model)\ns = x.to_sparse()\n"
    found = run_check(tmp_path, source, "npu")
    assert [(d["line"], d["rule"], d["symbol"]) for d in found] == [
        (3, "CP7090", "torch.nn.DataParallel"),
        (4, "CP7090", "Tensor.to_sparse"),
    ]
    assert "DistributedDataParallel" in found[0]["message"]
    fsdp = (
        "from torch.distributed.fsdp import FullyShardedDataParallel as FSDP\n"
        "with FSDP.summon_full_params(model):\n    pass\n"
    )
    assert [(d["line"], d["symbol"]) for d in run_check(tmp_path, fsdp, "npu")] == [
        (2, "torch.distributed.fsdp.FullyShardedDataParallel.summon_full_params")
    ]
    assert run_check(tmp_path, source, "hip") == []
    assert run_check(tmp_path, source, "mlu") == []


def test_half_typed_python_is_analysed_without_crashing(tmp_path: Path) -> None:
    source = "import torch\nx = torch.cuda.synchronize(\ny = model.cuda(\nif device == 'cuda'\n"
    found = run_check(tmp_path, source, "npu")
    assert any(d["symbol"] == "torch.cuda.synchronize" for d in found)
    fixed = run_fix(tmp_path, source, "npu")
    assert "torch.npu.synchronize(" in fixed


@pytest.mark.parametrize("target", ["npu", "mlu"])
def test_the_amp_module_itself_imported_from_torch_cuda(tmp_path: Path, target: str) -> None:
    """`from torch.cuda import amp` names the module, not a member of it: it becomes `from torch.<device> import
    amp` (not `...amp.amp`), and uses through the alias stay as they are."""
    script = tmp_path / "amp_train.py"
    script.write_text(
        "import torch\nfrom torch.cuda import amp\nfrom torch.cuda.amp import GradScaler\nscaler = amp.GradScaler()\n",
        encoding="utf-8",
    )
    assert cudaport_module("fix", "--target", target, str(script)).returncode == 0
    assert script.read_text(encoding="utf-8") == (
        f"import torch\nimport torch_{target}\nfrom torch.{target} import amp\n"
        f"from torch_{target}.{target}.amp import GradScaler\nscaler = amp.GradScaler()\n"
    )
