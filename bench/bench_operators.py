"""What the operator-coverage analysis (CP7100) adds to `check` on a Python tree, side by side in one run.

    .venv/bin/python bench/bench_operators.py                   # npu, mlu and musa, the default corpus
    .venv/bin/python bench/bench_operators.py --target npu --repeat 7

The corpus is real PyTorch code written by others (PyPI source distributions in bench/.corpus/: Pyro, BoTorch,
torchmetrics, kornia, transformers, timm, accelerate). For each target the same files go through the engine's whole
check twice per round, alternating: once as cudaport ships, once with the operator pass switched off (the words it
looks for emptied, so it never runs and adds nothing to the vocabulary). It prints the median CPU time of each, their
ratio (the goal: at most 1.10) and the CP7100 findings found.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import pypi_sdist
from cudaport.analyzers.python.operators import OperatorFindings
from cudaport.engine.engine import Engine
from cudaport.project.config import Settings

PACKAGES = {
    "pyro-ppl": "1.9.1",
    "botorch": "0.14.0",
    "torchmetrics": "1.7.3",
    "kornia": "0.8.1",
    "transformers": "4.52.4",
    "timm": "1.0.15",
    "accelerate": "1.15.0",
}


def corpus() -> list[tuple[Path, bytes]]:
    files = []
    for name, version in PACKAGES.items():
        for path in sorted(pypi_sdist(name, version).rglob("*.py")):
            files.append((path, path.read_bytes()))
    return files


def run(engine: Engine, files: list[tuple[Path, bytes]]) -> tuple[float, int]:
    """The CPU seconds this process spent checking `files` (CPU, not wall: other processes on a loaded machine do
    not count), and the CP7100 findings."""
    found = 0
    start = time.process_time()
    for path, data in files:
        result, _tree = engine.check_data(data, "python", path)
        found += sum(1 for f in result if f.rule == "CP7100")
    return time.process_time() - start, found


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", action="append", help="npu, mlu or musa (repeatable; default: all three)")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    files = corpus()
    size = sum(len(d) for _, d in files)
    print(f"{len(files)} Python files, {size / 1e6:.1f} MB, {args.repeat} rounds")
    real_words = OperatorFindings.words
    for target in args.target or ["npu", "mlu", "musa"]:
        engine = Engine(Settings(target=target))
        run(engine, files[:50])  # warm: the rule data, the analyzers
        on: list[float] = []
        off: list[float] = []
        found = 0
        for _ in range(args.repeat):
            seconds, found = run(engine, files)
            on.append(seconds)
            OperatorFindings.words = lambda self, target: frozenset()  # type: ignore[method-assign]
            fresh = Engine(Settings(target=target))
            run(fresh, files[:50])
            seconds, _ = run(fresh, files)
            off.append(seconds)
            OperatorFindings.words = real_words  # type: ignore[method-assign]
        with_pass, without = statistics.median(on), statistics.median(off)
        paired = statistics.median(a / b for a, b in zip(on, off, strict=True))
        print(
            f"{target:5} with the operator pass {with_pass:6.2f} s CPU   without {without:6.2f} s CPU   "
            f"ratio {with_pass / without:5.3f} (median of paired rounds {paired:5.3f})   CP7100 findings {found}"
        )


if __name__ == "__main__":
    main()
