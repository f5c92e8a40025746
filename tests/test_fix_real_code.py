"""The fix properties on real code nobody here wrote: random files of PyPI sdists (PyTorch frameworks and CUDA
extensions, downloaded into bench/.corpus/, never committed), fixed for each target through the CLI and judged
independently of cudaport (bench/fix_trust.py: ruff, Python's ast, tree-sitter).

- `fix` applies exactly what `check` counted, and a check afterwards finds the findings before less the fixed
  ones: none new, none harder;
- every file still parses (Python compiles, C/C++/CUDA has no new ERROR node), gains no ruff F-error but the
  `import torch_npu` a fix adds and an import a rewrite leaves unused (F401: the program still runs), and reads no
  `self.X` its class no longer defines.

CUDAPORT_TEST_SEED picks another sample (the default is fixed, so that a failure can be run again)."""

from __future__ import annotations

import os
import random
import shutil
import sys
from pathlib import Path

import pytest

from conftest import REPO

sys.path.insert(0, str(REPO / "bench"))
import fix_trust
from corpus import C_SUFFIXES
from tooling import REAL_CODE, real_code

SAMPLE = 60


@pytest.fixture(scope="module")
def sample(tmp_path_factory: pytest.TempPathFactory) -> Path:
    seed = int(os.environ.get("CUDAPORT_TEST_SEED", "27"))
    rng = random.Random(seed)
    candidates: list[tuple[str, Path, Path]] = []
    for name in REAL_CODE:
        root = real_code(name)
        for path in sorted(root.rglob("*")):
            if path.suffix not in (".py", *C_SUFFIXES) or not path.is_file() or path.is_symlink():
                continue
            text = path.read_bytes()
            if b"cuda" in text.lower() or b"nccl" in text:  # files with something to port
                candidates.append((name, root, path))
    chosen = rng.sample(candidates, min(SAMPLE, len(candidates)))
    out = tmp_path_factory.mktemp("real") / "sample"
    for name, root, path in chosen:
        destination = out / name / path.relative_to(root)
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, destination)
        # the headers beside a C file come along: what it includes decides some of its findings
        if path.suffix in C_SUFFIXES:
            for header in path.parent.glob("*.h*"):
                if header.is_file() and not (destination.parent / header.name).exists():
                    shutil.copy2(header, destination.parent / header.name)
    return out


@pytest.mark.parametrize("target", ["hip", "npu", "mlu"])
def test_fix_keeps_every_promise_on_random_real_files(sample: Path, target: str) -> None:
    outcome = fix_trust.measure(sample, target)
    assert outcome.fixable > 0, "the sample holds nothing to fix"
    assert outcome.fixed == outcome.fixable, "fix applied another number of fixes than check counted"
    assert outcome.left == outcome.findings - outcome.fixed
    assert outcome.new == 0 and outcome.harder == 0 and outcome.unfixed == 0
    broken = [
        (file, reason)
        for file, why in outcome.broken
        for reason in why.split("; ")
        if not reason.startswith("new ruff F401")  # an import the rewrite leaves unused: the program still runs
    ]
    assert broken == []
