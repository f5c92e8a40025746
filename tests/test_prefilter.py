"""The C-family prefilter (analyzers/c/prefilter.py): a file with none of the words any finder starts from is not
parsed, and it is reported exactly as the full analysis reports it. Every fixture is checked for every target."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import REPO, Cli
from cudaport.engine.engine import Engine
from cudaport.knowledge.filekinds import language_for
from cudaport.model.source import SkipFile
from cudaport.project.config import load_settings
from cudaport.project.files import SourcePath

FIXTURES = REPO / "tests" / "fixtures"
PREFILTER = FIXTURES / "prefilter"
TARGETS = sorted(Engine(load_settings(use_files=False)).ruleset.targets)


def _c_fixtures() -> list[Path]:
    return sorted(p for p in FIXTURES.rglob("*") if p.is_file() and language_for(p.name) == "c")


def _parsed(engine: Engine, path: Path, target: str) -> bool:
    analyzer = engine.analyzer("c")
    parsed = []
    parse = analyzer.parse
    analyzer.parse = lambda data, old_tree=None: parsed.append(1) or parse(data, old_tree)  # type: ignore[method-assign]
    try:
        engine.check_path_targets(SourcePath(str(path), path, "c"), [target])
    finally:
        del analyzer.parse
    return bool(parsed)


def test_a_file_without_cuda_words_is_not_parsed() -> None:
    engine = Engine(load_settings(use_files=False))
    assert not _parsed(engine, PREFILTER / "plain_host.cpp", "hip")
    # a project's device macro, warp arithmetic, a variable-length array: each keeps its file
    assert _parsed(engine, PREFILTER / "device_macro.h", "hip")
    assert _parsed(engine, PREFILTER / "kept_words.hpp", "hip")
    assert _parsed(engine, FIXTURES / "c" / "runtime_check.cu", "hip")  # a .cu file always is


@pytest.mark.parametrize("target", TARGETS)
def test_a_file_the_prefilter_skips_has_no_finding(target: str) -> None:
    """Every C-family fixture the prefilter skips has no finding at all when analysed in full."""
    engine = Engine(load_settings(use_files=False, overrides={"target": target}))
    analyzer = engine.analyzer("c")
    full = Engine(load_settings(use_files=False, overrides={"target": target}))
    full.prefilter = False
    skipped = []
    for path in _c_fixtures():
        job = SourcePath(str(path), path, "c")
        try:
            data = engine.read(job).data
        except SkipFile:
            continue  # a binary fixture: never analysed
        if analyzer.skips(data, str(path), target):  # type: ignore[attr-defined]
            skipped.append(path.name)
            result = full.check_path_targets(job, [target])[target]
            assert result.findings == [] and result.error is None, path
        assert engine.check_path_targets(job, [target]) == full.check_path_targets(job, [target]), path
    assert "plain_host.cpp" in skipped


@pytest.mark.parametrize("arguments", [["--format", "json"], ["--format", "concise", "--show-portable"]])
def test_check_reports_a_skipped_file_as_the_full_analysis_does(
    cli: Cli, workdir: Path, monkeypatch: pytest.MonkeyPatch, arguments: list[str]
) -> None:
    shutil.copytree(PREFILTER, workdir / "src")
    shutil.copy2(FIXTURES / "c" / "runtime_check.cu", workdir / "src")
    command = ["check", ".", "--target", "hip,npu", "--exit-zero", *arguments]
    with_prefilter = cli(*command, cwd=workdir)
    monkeypatch.setattr(Engine, "prefilter", False)
    without = cli(*command, cwd=workdir)
    assert with_prefilter.out == without.out and with_prefilter.code == without.code == 0
    if arguments[1] == "json":
        assert all(document["files_scanned"] == 4 for document in with_prefilter.json()["runs"])
