"""`check` streams each file's results to its output as it goes: the output is what the whole-run renderers wrote
before streaming (tests/expected/stream/, written by them), byte for byte, in every format, for one target and for
several, with one worker or several.

The tree mixes kinds (CUDA, a GBK file, Python, CMake, a notebook with cells, a broken YAML file, a binary skipped,
a default-excluded folder with sources) and lays files out so that the order folders are walked in (a folder's
files before its subfolders) differs from the order of the output (sorted by path).

To rewrite the expectations after a deliberate change of findings or format:
    .venv/bin/python tests/test_check_stream.py --write
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES, REPO, Cli

EXPECTED = REPO / "tests" / "expected" / "stream"
FIXTURE_ROOT = FIXTURES.parent

# (place in the tree, fixture it is a copy of)
TREE = [
    ("top.cu", "c/runtime_check.cu"),
    ("src/main.cu", "c/warp_reduce.cu"),
    ("src/kernels/gbk.cu", "c/gbk_comments.cu"),
    ("src/kernels/blob.cu", "c/binary_blob.cu"),
    ("src/kernels/crlf.cu", "c/crlf_endings.cu"),
    ("CMakeLists.txt", "inventory/CMakeLists.txt"),
    ("notebooks/explore.ipynb", "inventory/explore.ipynb"),
    ("conf/broken.yaml", "inventory-bad/broken.yaml"),
    ("py/train_ddp.py", "python/train_ddp.py"),
    ("dist/generated.cu", "c/half_math.cu"),
    ("lib/half.cu", "c/half_math.cu"),
]

# name of the expectation -> the command line after `check .`
CASES = {
    "text": ["--format", "concise", "--color", "never"],
    "text-portable-color": ["--format", "concise", "--show-portable", "--color", "always"],
    "full": ["--color", "never"],
    "full-portable-color": ["--show-portable", "--color", "always"],
    "json": ["--format", "json"],
    "sarif": ["--format", "sarif"],
    "github": ["--format", "github", "--show-portable"],
    "statistics": ["--statistics"],
    "statistics-json": ["--statistics", "--format", "json"],
    "targets-text": ["--target", "hip,npu", "--format", "concise", "--color", "never"],
    "targets-full": ["--target", "hip,npu", "--color", "never"],
    "targets-json": ["--target", "hip@5.2,npu,mlu", "--format", "json"],
    "targets-sarif": ["--target", "hip,npu", "--format", "sarif"],
    "targets-github": ["--target", "npu,hip", "--format", "github"],
}


def build_tree(root: Path) -> Path:
    for place, fixture in TREE:
        destination = root / place
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(FIXTURE_ROOT / fixture, destination)
    return root


@pytest.mark.parametrize("jobs", ["1", "2"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_streamed_output_is_byte_identical_to_the_whole_run_output(
    cli: Cli, workdir: Path, case: str, jobs: str
) -> None:
    build_tree(workdir)
    result = cli("check", ".", *CASES[case], "--jobs", jobs, "--exit-zero", cwd=workdir)
    assert result.code == 2  # the broken YAML file is an error of the run, whatever the format
    expected = (EXPECTED / f"{case}.out").read_text(encoding="utf-8")
    assert result.out == expected
    assert "error in conf/broken.yaml" in result.err


def _many_files(root: Path, count: int = 120) -> None:
    """Files spread over folders so that chunks of work end out of order under several workers; each file has
    findings that differ (its own line count), so any reordering shows."""
    for number in range(count):
        folder = root / f"d{number % 7}" / ("deep" if number % 3 else "")
        folder.mkdir(parents=True, exist_ok=True)
        padding = "\n" * (number % 11)
        body = f"void f{number}() {{ cudaMalloc(0, {number}); cudaDeviceSynchronize(); }}"
        (folder / f"f{number:03}.cu").write_text(f"#include <cuda_runtime.h>{padding}\n{body}\n", encoding="utf-8")


@pytest.mark.parametrize("fmt", ["text", "json", "sarif", "github"])
def test_several_workers_write_what_one_writes_in_path_order(cli: Cli, workdir: Path, fmt: str) -> None:
    _many_files(workdir)
    one = cli("check", ".", "--format", fmt, "--jobs", "1", "--show-portable", cwd=workdir)
    several = cli("check", ".", "--format", fmt, "--jobs", "3", "--show-portable", cwd=workdir)
    assert one.code == several.code == 1
    assert several.out == one.out
    if fmt == "json":
        paths = [d["path"] for d in one.json()["diagnostics"]]
        assert paths == sorted(paths) and len(set(paths)) == 120
        assert paths[0] == "d0/deep/f007.cu"  # a subfolder's file before its folder's own (d0/f000.cu)


def test_output_file_holds_what_stdout_would_and_appears_whole(cli: Cli, workdir: Path) -> None:
    build_tree(workdir)
    printed = cli("check", ".", "--format", "sarif", "--exit-zero", cwd=workdir)
    written = cli("check", ".", "--format", "sarif", "--exit-zero", "-o", "out.sarif", cwd=workdir)
    assert written.out == ""
    assert (workdir / "out.sarif").read_text(encoding="utf-8") == printed.out
    mode = (workdir / "out.sarif").stat().st_mode & 0o777
    assert mode & 0o644 == 0o644  # a file others may read, as `open(path, "w")` makes it (not a private temp file)
    assert sorted(p.name for p in workdir.iterdir() if p.name.startswith(".out")) == []  # no temporary file left

    missing = cli("check", ".", "-o", "no/such/folder/out.txt", cwd=workdir)
    assert missing.code == 2
    assert "cannot write no/such/folder/out.txt" in missing.err
    assert "Found" not in missing.out + missing.err


def test_fix_diff_comes_in_path_order_with_several_workers(cli: Cli, workdir: Path) -> None:
    _many_files(workdir, 60)
    one = cli("fix", ".", "--diff", "--jobs", "1", cwd=workdir)
    several = cli("fix", ".", "--diff", "--jobs", "3", cwd=workdir)
    assert several.out == one.out and several.err == one.err
    names = [line[len("--- a/") :] for line in one.out.splitlines() if line.startswith("--- a/")]
    assert names == sorted(names) and len(names) == 60
    assert "Would fix 180 findings in 60 files." in one.err
    fixed = cli("fix", ".", "--jobs", "3", cwd=workdir)
    assert "Fixed 180 findings in 60 files" in fixed.out
    assert cli("fix", ".", "--diff", cwd=workdir).out == ""


def _write_expectations() -> None:
    """Run each case in a fresh tree and keep its output (see the module docstring)."""
    import contextlib
    import io
    import os
    import tempfile

    from cudaport.cli.main import main

    EXPECTED.mkdir(parents=True, exist_ok=True)
    for case, arguments in CASES.items():
        with tempfile.TemporaryDirectory() as folder:
            build_tree(Path(folder))
            here = os.getcwd()
            os.chdir(folder)
            out = io.StringIO()
            try:
                with contextlib.redirect_stdout(out):
                    main(["check", ".", *arguments, "--jobs", "1", "--exit-zero"])
            finally:
                os.chdir(here)
        (EXPECTED / f"{case}.out").write_text(out.getvalue(), encoding="utf-8")
        print(f"wrote {EXPECTED / f'{case}.out'}")


if __name__ == "__main__":
    if sys.argv[1:] != ["--write"]:
        raise SystemExit(__doc__)
    _write_expectations()


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_reader_that_stops_early_ends_the_run_quietly(workdir: Path, jobs: str) -> None:
    """`cudaport check src | head -1`: the pipe closes after the first line; the run stops with SIGPIPE's exit
    status and says nothing on stderr (it printed a BrokenPipeError traceback)."""
    import subprocess

    calls = "\n".join(f"  cudaMalloc(0, {n});" for n in range(400))
    for number in range(40):  # megabytes of findings: far more than a pipe holds before its reader takes them
        (workdir / f"f{number:02}.cu").write_text(f"#include <cuda_runtime.h>\nvoid f() {{\n{calls}\n}}\n")
    command = [str(Path(sys.executable).with_name("cudaport")), "check", ".", "--jobs", jobs, "--no-progress"]
    process = subprocess.Popen(command, cwd=workdir, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert process.stdout is not None and process.stderr is not None
    first = process.stdout.readline()
    process.stdout.close()
    errors = process.stderr.read().decode("utf-8", "replace")
    assert process.wait(timeout=120) == 141, errors
    assert b"CP1001" in first
    assert "Traceback" not in errors and "BrokenPipe" not in errors
