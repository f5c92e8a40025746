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
    "text": ["--color", "never"],
    "text-portable-color": ["--show-portable", "--color", "always"],
    "json": ["--format", "json"],
    "sarif": ["--format", "sarif"],
    "github": ["--format", "github", "--show-portable"],
    "statistics": ["--statistics"],
    "statistics-json": ["--statistics", "--format", "json"],
    "targets-text": ["--target", "hip,npu", "--color", "never"],
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


def _write_expectations() -> None:
    """Run each case in a fresh tree and keep its output (see the module docstring)."""
    import contextlib
    import io
    import os
    import tempfile

    from cudaport.cli import main

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
