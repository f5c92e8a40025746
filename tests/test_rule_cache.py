"""The compiled rule cache (cudaport.rulecache), through the `cudaport` command in processes of its own: written on
the first run and used after, rebuilt when a rule file changes, never the reason a run fails (corrupt, truncated,
unwritable), safe under concurrent runs, and never changing what a run finds."""

from __future__ import annotations

import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from conftest import FIXTURES, cudaport_executable
from cudaport.knowledge import rulecache
from cudaport.knowledge.ruleset import bundled_rules_dir
from cudaport.resources import cache as cache_folder

HOUSE_RULES = """
[[rule]]
code = "CP9901"
name = "house-allocator"
subject = "house allocator"
summary = "Our own allocator wraps cudaMalloc"
difficulty.default = "manual"
unmapped.default = "blocker"
message.unmapped = "house allocator `{symbol}`: {word}"

[[symbol]]
name = "houseAlloc"
kind = "function"
rule = "CP9901"
"""


def _run(cache: Path | None, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CUDAPORT_CACHE_DIR", "CUDAPORT_NO_CACHE", "NO_COLOR")}
    if cache is None:
        env["CUDAPORT_NO_CACHE"] = "1"
    else:
        env["CUDAPORT_CACHE_DIR"] = str(cache)
    # the rule cache alone: the results cache is test_results_cache.py's
    results = ["--no-cache"] if args and args[0] in ("check", "fix", "report") else []
    command = [cudaport_executable(), *args, *results]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def _leftovers(cache: Path) -> list[str]:
    """The cache folder's files but the compiled methods of model.records (kept beside the rule data)."""
    return sorted(p.name for p in cache.iterdir() if not p.name.startswith("records-"))


def _cache_files(cache: Path) -> list[Path]:
    return sorted(cache.glob("rules-*.pickle"))


def _tree(workdir: Path) -> Path:
    for name in ("runtime_check.cu", "warp_reduce.cu", "inline_ptx.cu", "gbk_comments.cu"):
        shutil.copy2(FIXTURES / name, workdir / name)
    (workdir / "house.cu").write_text("void f() { void* p = houseAlloc(16); cudaFree(p); }\n", encoding="utf-8")
    return workdir


def test_first_run_writes_the_cache_later_runs_read_it_and_nothing_changes(workdir: Path, tmp_path: Path) -> None:
    _tree(workdir)
    cache = tmp_path / "cache"
    without = _run(None, "check", ".", "--format", "json", cwd=workdir)
    assert not cache.exists()
    cold = _run(cache, "check", ".", "--format", "json", cwd=workdir)
    [written] = _cache_files(cache)
    identity = written.stat().st_ino, written.stat().st_mtime_ns
    warm = _run(cache, "check", ".", "--format", "json", cwd=workdir)
    assert (written.stat().st_ino, written.stat().st_mtime_ns) == identity  # read, not rebuilt
    assert without.returncode == cold.returncode == warm.returncode == 1
    assert without.stdout == cold.stdout == warm.stdout
    assert cold.stderr == warm.stderr == without.stderr
    assert '"rule": "CP3001"' in warm.stdout  # inline PTX: the table compiled on first use in a warm run
    assert _leftovers(cache) == [written.name]  # no temporary file left


def test_a_changed_extra_rule_file_rebuilds_the_cache(workdir: Path, tmp_path: Path) -> None:
    _tree(workdir)
    cache = tmp_path / "cache"
    bundled_only = _run(cache, "check", "house.cu", "--format", "concise", cwd=workdir)
    assert "houseAlloc" not in bundled_only.stdout
    [bundled] = _cache_files(cache)
    rules = workdir / "house.toml"
    rules.write_text(HOUSE_RULES.replace("{word}", "replace it"), encoding="utf-8")
    first = _run(cache, "check", "house.cu", "--format", "concise", "--extra-rules", "house.toml", cwd=workdir)
    assert "house allocator `houseAlloc`: replace it" in first.stdout
    [written] = [p for p in _cache_files(cache) if p != bundled]  # a cache of its own for this set of rule files
    before = written.stat().st_ino

    rules.write_text(HOUSE_RULES.replace("{word}", "port it by hand"), encoding="utf-8")
    second = _run(cache, "check", "house.cu", "--format", "concise", "--extra-rules", "house.toml", cwd=workdir)
    assert "house allocator `houseAlloc`: port it by hand" in second.stdout
    assert "replace it" not in second.stdout
    assert _cache_files(cache) == sorted([bundled, written]) and written.stat().st_ino != before  # written anew

    rules.write_text("[[rule]\n", encoding="utf-8")  # broken now: the error, never the stale cache
    broken = _run(cache, "check", "house.cu", "--format", "concise", "--extra-rules", "house.toml", cwd=workdir)
    assert broken.returncode == 2
    assert "house.toml" in broken.stderr and "invalid TOML" in broken.stderr


def test_the_fingerprint_covers_every_bundled_rule_file(tmp_path: Path) -> None:
    rules = tmp_path / "rules"
    shutil.copytree(bundled_rules_dir(), rules)
    original = rulecache.fingerprint(rules, ())
    assert rulecache.fingerprint(rules, ()) == original
    for name in ("rules.toml", "symbols/cuda_runtime.csv", "versions/hip.csv", "files.toml"):
        path = rules / name
        stat = path.stat()
        os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns + 1_000_000))
        changed = rulecache.fingerprint(rules, ())
        assert changed != original, name
        original = changed
    (rules / "symbols" / "house.csv").write_text("name,rule\nhouseAlloc,CP1001\n", encoding="utf-8")
    assert rulecache.fingerprint(rules, ()) != original  # a new table


def test_a_corrupt_or_truncated_cache_is_rebuilt_without_a_word(workdir: Path, tmp_path: Path) -> None:
    _tree(workdir)
    cache = tmp_path / "cache"
    expected = _run(cache, "check", ".", "--format", "json", cwd=workdir)
    [written] = _cache_files(cache)
    good = written.read_bytes()
    header_end = good.index(b"\n", good.index(b"\n") + 1) + 1  # the magic line, then the fingerprint line
    damaged = {
        "garbage": b"\x00\xffnot a cache at all",
        "empty": b"",
        "truncated payload": good[: header_end + 1000],
        "payload of another kind": good[:header_end] + b"\x80\x05K\x07.",  # a pickled 7
        "flipped bytes": good[: len(good) // 2]
        + bytes(b ^ 0xFF for b in good[len(good) // 2 : len(good) // 2 + 64])
        + good[len(good) // 2 + 64 :],
    }
    for what, content in damaged.items():
        written.write_bytes(content)
        result = _run(cache, "check", ".", "--format", "json", cwd=workdir)
        assert result.returncode == expected.returncode, what
        assert result.stdout == expected.stdout, what
        assert result.stderr == expected.stderr, what  # nothing said about the cache
        assert written.read_bytes()[:header_end] == good[:header_end], what  # rebuilt, for the same rule files
        identity = written.stat().st_ino
        assert _run(cache, "check", ".", "--format", "json", cwd=workdir).stdout == expected.stdout
        assert written.stat().st_ino == identity, what  # whole: read as it is by the next run


def test_a_cache_folder_that_cannot_be_written_never_breaks_a_run(workdir: Path, tmp_path: Path) -> None:
    _tree(workdir)
    expected = _run(None, "check", ".", cwd=workdir)
    blocker = tmp_path / "a-file"
    blocker.write_text("where the cache folder should be", encoding="utf-8")
    for cache in (blocker, blocker / "below"):
        result = _run(cache, "check", ".", cwd=workdir)
        assert (result.returncode, result.stdout, result.stderr) == (
            expected.returncode,
            expected.stdout,
            expected.stderr,
        )
    assert blocker.read_text(encoding="utf-8") == "where the cache folder should be"


def test_concurrent_cold_runs_agree_and_leave_one_whole_cache(workdir: Path, tmp_path: Path) -> None:
    _tree(workdir)
    cache = tmp_path / "cache"
    expected = _run(None, "check", ".", "--format", "sarif", cwd=workdir)
    with ThreadPoolExecutor(max_workers=4) as pool:
        results = list(pool.map(lambda _: _run(cache, "check", ".", "--format", "sarif", cwd=workdir), range(4)))
    assert all(r.stdout == expected.stdout and r.returncode == expected.returncode for r in results)
    [written] = _cache_files(cache)
    assert _leftovers(cache) == [written.name]  # every temporary file renamed or removed
    identity = written.stat().st_ino
    again = _run(cache, "check", ".", "--format", "sarif", cwd=workdir)
    assert again.stdout == expected.stdout and written.stat().st_ino == identity  # what they left is read as it is


def test_a_compiled_table_is_built_once_and_again_when_its_files_change(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The compiled message catalogue: read from the cache while its PO files are as they were; rebuilt when one
    changes, and when the cached file is corrupt."""
    monkeypatch.setenv("CUDAPORT_CACHE_DIR", str(tmp_path / "cache"))
    po = tmp_path / "a.po"
    po.write_text('msgid "x"\nmsgstr "叉"\n', encoding="utf-8")
    builds: list[int] = []

    def build() -> dict[str, str]:
        builds.append(1)
        return {"x": po.read_text(encoding="utf-8").split('msgstr "')[1].rstrip('"\n')}

    assert cache_folder.cached_table("catalogue-test", [po], build) == {"x": "叉"}
    assert cache_folder.cached_table("catalogue-test", [po], build) == {"x": "叉"}
    assert len(builds) == 1
    po.write_text('msgid "x"\nmsgstr "叉叉"\n', encoding="utf-8")
    assert cache_folder.cached_table("catalogue-test", [po], build) == {"x": "叉叉"}
    assert len(builds) == 2
    cached = tmp_path / "cache" / "catalogue-test.marshal"
    cached.write_bytes(cached.read_bytes()[:-3])  # cut short
    assert cache_folder.cached_table("catalogue-test", [po], build) == {"x": "叉叉"}
    assert len(builds) == 3
