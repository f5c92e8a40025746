"""Whole runs answered by the results cache (engine/runanswers.py), through the command line: a run whose every
file has a record that holds writes the output kept from the last such run, and any change that could change the
output (a file's bytes, a file added or removed, an option, the working folder) makes it an ordinary run whose
output is that of an uncached one."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import REPO, copy_fixtures
from test_results_cache import counts, run

C_FILES = ["uses_compat.cu", "blas_gemm.cu", "warp_reduce.cu", "dual_stack.cu"]


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    project = copy_fixtures(tmp_path / "project", C_FILES)
    shutil.copytree(REPO / "tests" / "fixtures" / "python", project / "py", ignore=shutil.ignore_patterns("expected"))
    return project


def _answers(cache: Path) -> list[Path]:
    return sorted((cache / "runs").glob("*")) if (cache / "runs").is_dir() else []


def test_a_warm_run_writes_the_answer_kept_by_the_last_one(tree: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cold = run("check", ".", "--format", "json", "--cache-dir", str(cache), cwd=tree)
    [kept] = _answers(cache)
    # the kept output is what the warm run writes: a change of the same length in its text shows in the output
    raw = kept.read_bytes()
    assert raw.count(b'"uses_compat.cu"') >= 1
    kept.write_bytes(raw.replace(b'"uses_compat.cu"', b'"USES_COMPAT.CU"'))
    warm = run("check", ".", "--format", "json", "--cache-dir", str(cache), "-v", cwd=tree)
    files = counts(warm)[0]
    assert counts(warm) == (files, 0) and files > len(C_FILES)
    assert '"USES_COMPAT.CU"' in warm.stdout and warm.returncode == cold.returncode == 1
    # damaged (cut short): not used, and the run's own output is written and kept again
    kept.write_bytes(raw[:-10])
    again = run("check", ".", "--format", "json", "--cache-dir", str(cache), cwd=tree)
    assert again.stdout == cold.stdout == run("check", ".", "--format", "json", "--no-cache", cwd=tree).stdout
    assert kept.read_bytes() == raw


@pytest.mark.parametrize(
    "change",
    ["edit", "add", "remove", "ignore"],
)
def test_a_change_to_the_tree_makes_an_ordinary_run(tree: Path, tmp_path: Path, change: str) -> None:
    cache = str(tmp_path / "cache")
    first = run("check", ".", "--format", "json", "--cache-dir", cache, cwd=tree)
    run("check", ".", "--format", "json", "--cache-dir", cache, cwd=tree)  # answered whole
    if change == "edit":
        kernel = tree / "warp_reduce.cu"
        kernel.write_bytes(kernel.read_bytes() + b"\nvoid more() { cudaDeviceSynchronize(); }\n")
    elif change == "add":
        (tree / "added.cu").write_text("void f() { cudaMalloc(0, 0); }\n", encoding="utf-8")
    elif change == "remove":
        (tree / "blas_gemm.cu").unlink()
    else:
        (tree / ".ignore").write_text("dual_stack.cu\n", encoding="utf-8")
    after = run("check", ".", "--format", "json", "--cache-dir", cache, cwd=tree)
    assert after.stdout == run("check", ".", "--format", "json", "--no-cache", cwd=tree).stdout
    assert after.stdout != first.stdout
    paths = {d["path"] for d in json.loads(after.stdout)["diagnostics"]}
    expected = {"add": "added.cu" in paths, "remove": "blas_gemm.cu" not in paths, "ignore": "dual_stack.cu" not in paths}
    assert expected.get(change, True)


def test_options_and_the_working_folder_have_answers_of_their_own(tree: Path, tmp_path: Path) -> None:
    cache = str(tmp_path / "cache")
    variants = [
        ("--format", "json"),
        ("--format", "concise"),
        ("--format", "concise", "--show-portable"),
        ("--format", "concise", "--quiet"),
        ("--format", "json", "--statistics"),
        ("--format", "sarif", "--target", "hip,npu"),
    ]
    for options in variants * 2:  # the second round is answered whole
        warm = run("check", ".", *options, "--cache-dir", cache, cwd=tree)
        assert warm.stdout == run("check", ".", *options, "--no-cache", cwd=tree).stdout, options
    assert len(_answers(Path(cache))) == len(variants)
    # from another folder the labels differ
    inner = run("check", "..", "--format", "json", "--cache-dir", cache, cwd=tree / "py")
    assert inner.stdout == run("check", "..", "--format", "json", "--no-cache", cwd=tree / "py").stdout
    assert len(_answers(Path(cache))) == len(variants) + 1


def test_the_exit_code_of_an_answered_run_follows_fail_on_now(tree: Path, tmp_path: Path) -> None:
    cache = str(tmp_path / "cache")
    run("check", ".", "--format", "json", "--cache-dir", cache, cwd=tree)
    for fail_on in ("portable", "mechanical", "manual", "blocker", "never"):
        options = ("--format", "json", "--fail-on", fail_on)
        answered = run("check", ".", *options, "--cache-dir", cache, cwd=tree)
        assert answered.returncode == run("check", ".", *options, "--no-cache", cwd=tree).returncode, fail_on
    assert len(_answers(Path(cache))) == 1  # fail-on changes the exit code, never the output


def test_an_answered_run_writes_the_output_file(tree: Path, tmp_path: Path) -> None:
    cache = str(tmp_path / "cache")
    out = tmp_path / "out.sarif"
    run("check", ".", "--format", "sarif", "-o", str(out), "--cache-dir", cache, cwd=tree)
    first = out.read_bytes()
    out.unlink()
    answered = run("check", ".", "--format", "sarif", "-o", str(out), "--cache-dir", cache, "-v", cwd=tree)
    assert counts(answered)[1] == 0 and answered.stdout == ""
    assert out.read_bytes() == first
