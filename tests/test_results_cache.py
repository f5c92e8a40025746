"""The results cache (engine/resultcache.py), through the command line: a warm run says exactly what a cold one
says in every format, a changed file (or a header it includes) is analysed again and nothing else is, and a cache
that is corrupt, foreign, shared by two runs at once or impossible to write never changes a result."""

from __future__ import annotations

import json
import marshal
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from conftest import REPO, copy_fixtures

C_FILES = ["uses_compat.cu", "blas_gemm.cu", "warp_reduce.cu", "thrust_sort.cu", "dual_stack.cu", "gbk_comments.cu"]
PYTHON = REPO / "tests" / "fixtures" / "python"
SUMMARY = re.compile(r"cache: (\d+) hits, (\d+) misses")


def _env(**changes: str | None) -> dict[str, str]:
    env = dict(os.environ)
    env.pop("NO_COLOR", None)
    for key, value in changes.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def run(*args: str, cwd: Path, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m cudaport ...`, the worktree's package first, as a user runs it."""
    environment = env if env is not None else _env()
    environment["PYTHONPATH"] = os.pathsep.join([str(REPO / "server"), environment.get("PYTHONPATH", "")])
    command = [sys.executable, "-m", "cudaport", *args]
    return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=300, env=environment)


def counts(proc: subprocess.CompletedProcess[str]) -> tuple[int, int]:
    found = SUMMARY.search(proc.stderr)
    assert found, proc.stderr
    return int(found.group(1)), int(found.group(2))


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    """A small project: CUDA files (one including a portability header of its own) and a Python package."""
    project = copy_fixtures(tmp_path / "project", C_FILES)
    shutil.copytree(PYTHON, project / "py", ignore=shutil.ignore_patterns("expected"))
    return project


def _report_json(text: str) -> dict[str, object]:
    document = json.loads(text)
    document.pop("generated", None)  # the report's own time
    return document


@pytest.mark.parametrize("fmt", ["json", "sarif", "full", "concise"])
def test_warm_check_says_what_a_cold_one_says(tree: Path, tmp_path: Path, fmt: str) -> None:
    cache = str(tmp_path / "cache")
    uncached = run("check", ".", "--format", fmt, "--no-cache", "-v", cwd=tree)
    assert "cache: off" in uncached.stderr
    cold = run("check", ".", "--format", fmt, "--cache-dir", cache, "-v", "--target", "hip,npu", cwd=tree)
    warm = run("check", ".", "--format", fmt, "--cache-dir", cache, "-v", "--target", "hip,npu", cwd=tree)
    again = run("check", ".", "--format", fmt, "--no-cache", "--target", "hip,npu", cwd=tree)
    files = counts(cold)[1]
    assert files > len(C_FILES) and counts(cold) == (0, files)
    assert counts(warm) == (files, 0)
    assert warm.stdout == cold.stdout == again.stdout
    assert warm.returncode == cold.returncode == again.returncode == 1
    # one target of the two recorded: read back as well
    single = run("check", ".", "--format", fmt, "--cache-dir", cache, "-v", cwd=tree)
    assert counts(single) == (files, 0)
    assert single.stdout == uncached.stdout


def test_warm_report_and_fix_say_what_cold_ones_say(tree: Path, tmp_path: Path) -> None:
    cache = str(tmp_path / "cache")
    args = ("report", ".", "--format", "json", "--target", "hip,npu,mlu")
    cold = run(*args, "--cache-dir", cache, "-v", cwd=tree)
    warm = run(*args, "--cache-dir", cache, "-v", cwd=tree)
    uncached = run(*args, "--no-cache", cwd=tree)
    files = counts(cold)[1]
    assert counts(warm) == (files, 0)
    assert _report_json(warm.stdout) == _report_json(cold.stdout) == _report_json(uncached.stdout)

    fix_cold = run("fix", "--diff", ".", "--cache-dir", cache, "-v", cwd=tree)
    fix_warm = run("fix", "--diff", ".", "--cache-dir", cache, "-v", cwd=tree)
    fix_uncached = run("fix", "--diff", ".", "--no-cache", cwd=tree)
    assert fix_warm.stdout == fix_cold.stdout == fix_uncached.stdout and "+++ b/" in fix_uncached.stdout
    assert fix_warm.returncode == fix_uncached.returncode
    # the files with something to fix are planned again from what they hold; the others are answered
    changed = fix_uncached.stdout.count("+++ b/")
    assert counts(fix_warm) == (files - changed, changed)
    assert counts(fix_cold) == (files - changed, changed)  # report's records hold the configured target's results


def test_fix_in_place_after_a_warm_check(tree: Path, tmp_path: Path) -> None:
    twin = tmp_path / "twin"
    shutil.copytree(tree, twin)
    cache = str(tmp_path / "cache")
    run("check", ".", "--cache-dir", cache, cwd=tree)
    fixed = run("fix", ".", "--cache-dir", cache, "-v", cwd=tree)
    plain = run("fix", ".", "--no-cache", cwd=twin)
    assert fixed.returncode == plain.returncode and fixed.stdout == plain.stdout
    for path in sorted(p for p in twin.rglob("*") if p.is_file()):
        assert (tree / path.relative_to(twin)).read_bytes() == path.read_bytes(), path
    # what fix rewrote is analysed again by the next check, and the results are the fixed files'
    after = run("check", ".", "--format", "json", "--cache-dir", cache, "-v", cwd=tree)
    assert counts(after)[1] >= 1
    assert after.stdout == run("check", ".", "--format", "json", "--no-cache", cwd=twin).stdout


def test_only_a_changed_file_is_analysed_again(tree: Path, tmp_path: Path) -> None:
    cache = str(tmp_path / "cache")
    files = counts(run("check", ".", "--format", "json", "--cache-dir", cache, "-v", cwd=tree))[1]
    kernel = tree / "warp_reduce.cu"
    kernel.write_bytes(kernel.read_bytes() + b"\nvoid more() { cudaDeviceSynchronize(); }\n")
    warm = run("check", ".", "--format", "json", "--cache-dir", cache, "-v", cwd=tree)
    assert counts(warm) == (files - 1, 1)
    assert warm.stdout == run("check", ".", "--format", "json", "--no-cache", cwd=tree).stdout
    assert any(d["path"].endswith("warp_reduce.cu") and d["line"] > 1 for d in json.loads(warm.stdout)["diagnostics"])
    assert counts(run("check", ".", "--cache-dir", cache, "-v", cwd=tree)) == (files, 0)


def test_a_changed_header_is_analysed_with_the_files_that_include_it(tree: Path, tmp_path: Path) -> None:
    """uses_compat.cu's findings depend on what vendors/gpu_compat.h maps: a change there misses both."""
    cache = str(tmp_path / "cache")
    before = run("check", ".", "--format", "json", "--cache-dir", cache, "-v", cwd=tree)
    files = counts(before)[1]
    header = tree / "vendors" / "gpu_compat.h"
    text = header.read_text()
    assert "#define" in text
    header.write_text("\n".join(line for line in text.splitlines() if "#define" not in line) + "\n")
    warm = run("check", ".", "--format", "json", "--cache-dir", cache, "-v", cwd=tree)
    uncached = run("check", ".", "--format", "json", "--no-cache", cwd=tree)
    assert warm.stdout == uncached.stdout != before.stdout
    assert counts(warm) == (files - 2, 2)


def test_settings_language_and_paths_are_part_of_the_key(tree: Path, tmp_path: Path) -> None:
    cache = str(tmp_path / "cache")
    files = counts(run("check", ".", "--cache-dir", cache, "-v", cwd=tree))[1]
    assert counts(run("check", ".", "--cache-dir", cache, "-v", "--ignore", "CP1", cwd=tree)) == (0, files)
    assert counts(run("check", ".", "--cache-dir", cache, "-v", "--target", "hip@5.7", cwd=tree)) == (0, files)
    chinese = run("check", ".", "--format", "json", "--cache-dir", cache, "-v", "--lang", "zh-CN", cwd=tree)
    assert SUMMARY.search(chinese.stderr) is None  # said in Chinese, and every file analysed again
    assert chinese.stdout == run("check", ".", "--format", "json", "--no-cache", "--lang", "zh-CN", cwd=tree).stdout
    # a record is the file's, not its label's: checked from above, the files are read back under their labels
    above = run("check", "project", "--format", "json", "--cache-dir", cache, "-v", cwd=tree.parent)
    assert counts(above) == (files, 0)
    assert above.stdout == run("check", "project", "--format", "json", "--no-cache", cwd=tree.parent).stdout
    assert '"project/warp_reduce.cu"' in above.stdout
    (tree / "cudaport.toml").write_text('select = ["CP2"]\n')
    assert counts(run("check", ".", "--cache-dir", cache, "-v", cwd=tree)) == (0, files)


def test_default_folder_its_tags_and_overrides(tree: Path, tmp_path: Path) -> None:
    env = _env(CUDAPORT_CACHE_DIR=None, CUDAPORT_RESULTS_CACHE_DIR=None)
    env["XDG_CACHE_HOME"] = str(tmp_path / "xdg")  # the rule data's cache, kept out of the home folder
    (tree / "cudaport.toml").write_text('target = "hip"\n')
    first = run("check", ".", "-v", cwd=tree / "py", env=env)  # the configuration's folder is the root
    folder = tree / ".cudaport_cache"
    assert counts(first)[0] == 0 and folder.is_dir()
    assert (folder / ".gitignore").read_text().splitlines()[-1] == "*"
    assert (folder / "CACHEDIR.TAG").read_bytes().startswith(b"Signature: 8a477f597d28d172789f06886806bc55")
    assert counts(run("check", ".", "-v", cwd=tree / "py", env=env))[1] == 0
    shown = run("check", ".", "--show-files", cwd=tree, env=env).stdout
    assert ".cudaport_cache" not in shown and "warp_reduce.cu" in shown
    # cache-dir of the configuration, relative to its file; the environment over it; --cache-dir over both
    (tree / "cudaport.toml").write_text('target = "hip"\ncache-dir = "build/.c"\n')
    run("check", ".", cwd=tree, env=env)
    assert (tree / "build" / ".c" / "CACHEDIR.TAG").is_file()
    env["CUDAPORT_RESULTS_CACHE_DIR"] = str(tmp_path / "from-env")
    run("check", ".", cwd=tree, env=env)
    assert (tmp_path / "from-env" / "CACHEDIR.TAG").is_file()
    run("check", ".", "--cache-dir", str(tmp_path / "from-option"), cwd=tree, env=env)
    assert (tmp_path / "from-option" / "CACHEDIR.TAG").is_file()
    off = run("check", ".", "-v", cwd=tree, env={**env, "CUDAPORT_NO_CACHE": "1"})
    assert "cache: off" in off.stderr
    (tree / "cudaport.toml").write_text("cache-dir = 3\n")
    wrong = run("check", ".", cwd=tree, env=env)
    assert wrong.returncode == 2 and "'cache-dir' must be a folder's path" in wrong.stderr


def test_corrupt_truncated_and_foreign_records_are_rewritten(tree: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    cold = run("check", ".", "--format", "json", "--cache-dir", str(cache), "-v", cwd=tree)
    files = counts(cold)[1]
    records = sorted(p for p in (cache / "results").rglob("*") if p.is_file())
    assert len(records) == files
    for number, record in enumerate(records):
        data = record.read_bytes()
        if number % 3 == 0:
            record.write_bytes(data[: len(data) // 2])  # truncated
        elif number % 3 == 1:
            record.write_bytes(b"cudaport results 999\n" + data.split(b"\n", 1)[1])  # another version's
        else:
            record.write_bytes(os.urandom(64))  # not a record at all
    damaged = run("check", ".", "--format", "json", "--cache-dir", str(cache), "-v", cwd=tree)
    assert damaged.stdout == cold.stdout and counts(damaged) == (0, files)
    assert counts(run("check", ".", "--cache-dir", str(cache), "-v", cwd=tree)) == (files, 0)


def test_a_cache_folder_that_cannot_be_written_is_a_warning(tree: Path, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder\n")
    result = run("check", ".", "--format", "json", "--cache-dir", str(blocker / "cache"), "-v", cwd=tree)
    assert "cannot use the cache folder" in result.stderr and "running without the cache" in result.stderr
    assert result.stdout == run("check", ".", "--format", "json", "--no-cache", cwd=tree).stdout
    assert result.returncode == 1


def test_two_runs_at_once_share_a_cache(tree: Path, tmp_path: Path) -> None:
    cache = str(tmp_path / "cache")
    environment = _env()
    environment["PYTHONPATH"] = os.pathsep.join([str(REPO / "server"), environment.get("PYTHONPATH", "")])
    command = [sys.executable, "-m", "cudaport", "check", ".", "--format", "json", "--cache-dir", cache, "--jobs", "2"]
    both = [
        subprocess.Popen(command, cwd=tree, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment)
        for _ in range(2)
    ]
    outputs = [process.communicate(timeout=300)[0] for process in both]
    expected = run("check", ".", "--format", "json", "--no-cache", cwd=tree).stdout.encode()
    assert outputs == [expected, expected]
    warm = run("check", ".", "--format", "json", "--cache-dir", cache, "-v", cwd=tree)
    assert counts(warm)[1] == 0 and warm.stdout.encode() == expected


def test_a_settled_file_is_known_by_its_status_and_a_rewrite_that_keeps_size_and_time_is_still_seen(
    tmp_path: Path,
) -> None:
    """A file whose status (size, times, inode) is the one its record holds is not read again; a file rewritten
    with the same size and its modification time put back (`touch -r`, an archive's times) is still analysed
    again: the status-change time moved. A file recorded moments after it was written holds no status (it may
    change again within a clock tick) and is compared by its bytes, then recorded with its status."""
    project = tmp_path / "project"
    project.mkdir()
    kernel = project / "a.cu"
    kernel.write_text("void f(void **p) { cudaMalloc(p, 4); }\n")
    (project / "b.cu").write_text("void g(void *p) { cudaFree(p); }\n")
    cache = tmp_path / "cache"
    args = ("check", ".", "--format", "json", "--exit-zero", "-v", "--cache-dir", str(cache))

    def rules() -> list[str]:
        done = run(*args, cwd=project)
        assert done.returncode == 0, done.stderr
        return sorted(d["symbol"] for d in json.loads(done.stdout)["diagnostics"])

    def statuses() -> list[object]:
        records = sorted(p for p in (cache / "results").rglob("*") if p.is_file())
        heads = [p.read_bytes().split(b"\n", 1)[1] for p in records]  # the head's length, the head, the results
        return [marshal.loads(h[8 : 8 + int.from_bytes(h[:8], "little")])[2] for h in heads]

    first = rules()
    assert first and statuses() == [None, None]  # written just now: racy, so compared by their bytes
    time.sleep(2.2)
    assert rules() == first
    assert all(isinstance(s, tuple) for s in statuses())  # the same bytes, now settled: their status recorded
    before = kernel.stat()
    kernel.write_text("void f(void **p) { cudaMallok(p, 4); }\n")  # same size
    os.utime(kernel, ns=(before.st_atime_ns, before.st_mtime_ns))
    assert kernel.stat().st_size == before.st_size and kernel.stat().st_mtime_ns == before.st_mtime_ns
    done = run(*args, cwd=project)
    assert counts(done) == (1, 1)
    assert len(json.loads(done.stdout)["diagnostics"]) < len(first)
