"""Real PyTorch projects' patterns, in a package written for the tests (tests/fixtures/dualstack/): code that
already runs on the target is left alone, probes of CUDA-only paths are never flipped, a line keeps one device,
optional imports are no blockers, a package's own `dist/` module is analysed, and what an exclude hides is said.
Checked through the CLI for every target against tests/expected/dualstack/<target>/ (its findings, and the files
that fix rewrites)."""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import cudaport_module

FIXTURE = Path(__file__).parent / "fixtures" / "dualstack"
EXPECTED = Path(__file__).parent / "expected" / "dualstack"
TARGETS = ("hip", "npu", "mlu")
TARGET_WORDS = {"hip": {"hip", "rocm"}, "npu": {"npu", "hccl", "ascend"}, "mlu": {"mlu", "cncl"}}


def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    shutil.copytree(FIXTURE, folder)
    return folder


def sources(root: Path) -> dict[str, str]:
    return {p.relative_to(root).as_posix(): p.read_text(encoding="utf-8") for p in sorted(root.rglob("*.py"))}


def finding_lines(document: dict) -> list[str]:
    out = []
    for d in document["diagnostics"]:
        replacement = f" -> {d['replacement']}" if d["replacement"] else ""
        fixable = " (fixable)" if d["fixable"] else ""
        out.append(
            f"{d['path']}:{d['line']}:{d['column']} {d['rule']} {d['difficulty']} {d['symbol']}{replacement}{fixable}"
        )
    return out


def names_target(line: str, target: str) -> bool:
    words = {w.lower() for w in re.split(r"[^A-Za-z0-9]+|_", line) if w}
    return bool(words & TARGET_WORDS[target])


@pytest.mark.parametrize("target", TARGETS)
def test_findings_and_difficulties(tmp_path: Path, target: str) -> None:
    root = project(tmp_path)
    result = cudaport_module("check", ".", "--format", "json", "--target", target, cwd=root)
    assert result.returncode in (0, 1), result.stderr
    document = json.loads(result.stdout)
    expected = (EXPECTED / target / "findings.txt").read_text(encoding="utf-8").splitlines()
    assert finding_lines(document) == expected
    # the package's own dist/ module is analysed; the top-level build output dist/ is not, and is listed
    assert any(d["path"] == "pkg/dist/core.py" for d in document["diagnostics"])
    assert not any(d["path"].startswith("dist/") for d in document["diagnostics"])
    assert document["excluded"] == [
        {"path": "dist/", "reason": "excluded by `dist` (a default exclude); it holds sources"}
    ]


@pytest.mark.parametrize("target", TARGETS)
def test_fix_leaves_dual_stack_code_alone_and_is_idempotent(tmp_path: Path, target: str) -> None:
    root = project(tmp_path)
    before = sources(root)
    lint_before = ruff_errors(root)
    first = cudaport_module("fix", ".", "--target", target, "--fail-on", "never", cwd=root)
    assert first.returncode == 0, first.stderr
    after = sources(root)
    for name, text in after.items():
        # tests/expected/dualstack/<target>/ holds the files fix rewrites; every other file must stay as it was
        expected = EXPECTED / target / name
        assert text == (expected.read_text(encoding="utf-8") if expected.exists() else before[name]), name
        ast.parse(text, filename=name)
        # every line that named the target before the fix is still there, unchanged
        kept = set(text.splitlines())
        for line in before[name].splitlines():
            if names_target(line, target):
                assert line in kept, (name, line)
    assert ruff_errors(root) == lint_before  # `import torch_npu  # noqa: F401`: the project configures ruff
    second = cudaport_module("fix", ".", "--target", target, "--fail-on", "never", cwd=root)
    assert "Fixed 0 findings in 0 files" in second.stdout
    assert sources(root) == after


def ruff_errors(root: Path) -> list[str]:
    command = [sys.executable, "-m", "ruff", "check", "--select", "F,E9", "--output-format", "concise", "--no-cache"]
    result = subprocess.run([*command, "."], cwd=root, capture_output=True, text=True)
    return sorted(line for line in result.stdout.splitlines() if line.endswith(tuple("0123456789")) or ": F" in line)


def test_the_summary_and_the_report_list_excluded_directories_with_sources(tmp_path: Path) -> None:
    root = project(tmp_path)
    text = cudaport_module("check", ".", "--target", "npu", cwd=root)
    assert "Excluded, although they hold sources: dist/" in text.stdout
    report = cudaport_module("report", ".", "--target", "npu", "--format", "md", cwd=root)
    assert "directories with sources that were excluded (1):" in report.stdout
    assert "`dist/`: excluded by `dist` (a default exclude)" in report.stdout
    configured = cudaport_module("check", ".", "--target", "npu", "--extend-exclude", "pkg/dist", cwd=root)
    assert "Excluded, although they hold sources: dist/, pkg/dist/" in configured.stdout


def test_without_a_linter_configuration_the_added_import_has_no_noqa(tmp_path: Path) -> None:
    root = project(tmp_path)
    (root / "pyproject.toml").write_text("[project]\nname = 'pkg'\n")
    cudaport_module("fix", ".", "--target", "npu", "--fail-on", "never", cwd=root)
    lines = (root / "pkg" / "mixed.py").read_text(encoding="utf-8").splitlines()
    assert "import torch_npu" in lines
    assert not any("noqa" in line for line in lines)
