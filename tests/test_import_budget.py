"""What a run imports, through the installed `cudaport` command in a process of its own (python -X importtime
lists every module a process loads): `--version` loads no more than the command's entry point, and a one-file
check loads neither the report, the rewriting, the language server (lsprotocol, pygls) nor the analyzer and grammar
of the other file kind, nor the formats it does not write. An import budget, not a timing: the figures are in
bench/bench_startup.py."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import cudaport_executable

CUDA = """#include <cuda_runtime.h>
__global__ void scale(float* x) { x[threadIdx.x] *= 2.0f; }
int main() { float* x; cudaMalloc(&x, 64); scale<<<1, 16>>>(x); cudaFree(x); return 0; }
"""
PYTHON = """import torch
x = torch.ones(4).cuda()
torch.cuda.synchronize()
"""

# never in a check of one file: the other front ends, the report, fixing, and what only they or other formats use
# hashlib is not here: the results cache keys its records by a digest of the file.
NOT_IN_A_CHECK = (
    "cudaport.lsp",
    "cudaport.report",
    "cudaport.rewrite",
    "cudaport.cli.fix",
    "cudaport.cli.report_command",
    "cudaport.cli.rule",
    "cudaport.cli.serve",
    "cudaport.cli.ci_formats",
    "lsprotocol",
    "pygls",
    "cattrs",
    "importlib.metadata",
    "xml",
    "http",
    "email",
    "urllib.request",
    "difflib",
    "multiprocessing",
    "concurrent",
    "logging",
    "asyncio",
    "shutil",  # argparse's help formatter asks it for the terminal's width; a check writes no help
)


def _imported(tmp_path: Path, *args: str, cache: Path) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    env = {k: v for k, v in os.environ.items() if k not in ("CUDAPORT_NO_CACHE", "PYTHONDONTWRITEBYTECODE")}
    env["CUDAPORT_CACHE_DIR"] = str(cache)
    command = [sys.executable, "-X", "importtime", cudaport_executable(), *args]
    proc = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    modules = {
        line.rpartition("|")[2].strip()
        for line in proc.stderr.splitlines()
        if line.startswith("import time:") and "self [us]" not in line
    }
    return proc, modules


def _launcher_imports() -> tuple[str, ...]:
    """What the console script itself imports before it calls cudaport: pip writes the launcher, and its older
    releases (23.x, the one `python -m venv` bundles) import `re` there to strip an `.exe` suffix. Those are pip's
    imports, not cudaport's."""
    text = Path(cudaport_executable()).read_text(encoding="utf-8", errors="replace")
    names = []
    for line in text.splitlines():
        if line.startswith("import "):
            names.extend(part.strip().split(" ")[0] for part in line[len("import ") :].split(","))
    return tuple(names)


def _within(modules: set[str], packages: tuple[str, ...]) -> list[str]:
    return sorted(m for m in modules if any(m == p or m.startswith(p + ".") for p in packages))


def test_version_imports_nothing_but_the_entry_point(tmp_path: Path) -> None:
    proc, modules = _imported(tmp_path, "--version", cache=tmp_path / "cache")
    assert proc.returncode == 0 and proc.stdout == "cudaport 0.1.0\n"
    assert modules, "python -X importtime reported nothing"
    assert sorted(m for m in modules if m.startswith("cudaport")) == ["cudaport", "cudaport.cli", "cudaport.cli.main"]
    launcher = _launcher_imports()
    budget = tuple(m for m in ("argparse", "tree_sitter", "pickle", "json", "tomllib", "re") if m not in launcher)
    assert _within(modules, (*budget, *NOT_IN_A_CHECK)) == []


@pytest.mark.parametrize(
    ("name", "text", "other_kind"),
    [
        ("kernel.cu", CUDA, ("cudaport.analyzers.python", "tree_sitter_python", "cudaport.knowledge.operators")),
        # the grammar's compiled module only: its package's __init__ would load importlib.resources and tempfile
        ("train.py", PYTHON, ("cudaport.analyzers.c", "tree_sitter_cuda", "importlib.resources", "tempfile")),
    ],
)
def test_a_one_file_check_imports_only_what_it_uses(
    tmp_path: Path, name: str, text: str, other_kind: tuple[str, ...]
) -> None:
    (tmp_path / name).write_text(text, encoding="utf-8")
    cache = tmp_path / "cache"
    first, _ = _imported(tmp_path, "check", name, "--target", "npu", cache=cache)  # builds and writes the caches
    proc, modules = _imported(tmp_path, "check", name, "--target", "npu", "--no-cache", cache=cache)
    assert proc.returncode == first.returncode == 1 and proc.stdout == first.stdout and "CP" in proc.stdout
    assert "cudaport.engine.engine" in modules  # the check did run, and importtime saw it
    assert _within(modules, (*NOT_IN_A_CHECK, *other_kind)) == []
    # a warm start with no configuration file parses no TOML and no CSV: the cache holds the rule data compiled
    assert _within(modules, ("tomllib", "tomli", "csv")) == []
    # the results cache answers the file: no analysis, no grammar, no parser is loaded
    answered, answered_modules = _imported(tmp_path, "check", name, "--target", "npu", cache=cache)
    assert answered.stdout == first.stdout
    analysis = ("cudaport.engine.engine", "cudaport.analyzers.c", "cudaport.analyzers.python", "tree_sitter")
    assert _within(answered_modules, (*NOT_IN_A_CHECK, *analysis, "json", "threading")) == []
    # and with no target named, not even the rule data: its pickle is never read
    filled, _ = _imported(tmp_path, "check", name, cache=cache)
    plain, plain_modules = _imported(tmp_path, "check", name, cache=cache)
    assert plain.returncode == filled.returncode and plain.stdout == filled.stdout and plain.stdout, plain.stderr
    assert _within(plain_modules, (*analysis, "pickle")) == []


def test_the_json_format_does_not_load_the_ci_formats(tmp_path: Path) -> None:
    (tmp_path / "kernel.cu").write_text(CUDA, encoding="utf-8")
    proc, modules = _imported(tmp_path, "check", "kernel.cu", "--format", "json", cache=tmp_path / "cache")
    assert proc.returncode == 1 and proc.stdout.startswith("{")
    assert _within(modules, ("cudaport.cli.ci_formats", "xml", "cudaport.report", "cudaport.lsp")) == []
