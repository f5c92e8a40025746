"""Time the Python analysis against bare tree-sitter-python parsing of the same files, side by side in one run.

    .venv/bin/python bench/bench_python.py                 # all three targets, the default corpus
    .venv/bin/python bench/bench_python.py --target npu --repeat 5

The corpus is real training code written by others: the source distributions of DeepSpeed, Accelerate, timm and
TRL, downloaded from PyPI with pip at the first run into bench/.corpus/ (git-ignored). For each target it prints
files/s for bare parsing and for cudaport's analysis (parse + analysis + suppressions and severities, the engine's
`check_data`), and their ratio; the goal is a ratio within 2x. Runs alternate between the two so that machine
noise hits both alike, and the median of the repeats is reported.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import tree_sitter_python
from tree_sitter import Language, Parser

from corpus import sdist
from cudaport.engine.engine import Engine
from cudaport.project.config import Settings

HERE = Path(__file__).resolve().parent
PACKAGES = (
    ("deepspeed", "0.19.8"),
    ("accelerate", "1.15.0"),
    ("timm", "1.0.31"),
    ("trl", "1.16.0"),
)


def fetch(name: str, version: str) -> Path:
    return sdist(f"{name}=={version}")


def corpus_files(limit: int | None) -> list[tuple[Path, bytes]]:
    files = []
    for name, version in PACKAGES:
        for path in sorted(fetch(name, version).rglob("*.py")):
            files.append((path, path.read_bytes()))
    return files[:limit] if limit else files


def time_parse(parser: Parser, files: list[tuple[Path, bytes]]) -> float:
    start = time.perf_counter()
    for _, data in files:
        parser.parse(data)
    return time.perf_counter() - start


def time_check(engine: Engine, files: list[tuple[Path, bytes]]) -> tuple[float, int]:
    findings = 0
    start = time.perf_counter()
    for path, data in files:
        found, _ = engine.check_data(data, "python", path)
        findings += len(found)
    return time.perf_counter() - start, findings


def main() -> int:
    options = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    options.add_argument("--target", action="append", choices=("hip", "npu", "mlu"), help="default: all three")
    options.add_argument("--repeat", type=int, default=3, help="alternating runs per target (median reported)")
    options.add_argument("--limit", type=int, help="only the first N files")
    args = options.parse_args()
    targets = args.target or ["hip", "npu", "mlu"]

    files = corpus_files(args.limit)
    size = sum(len(data) for _, data in files)
    print(f"corpus: {len(files)} Python files, {size / 1e6:.1f} MB ({', '.join(f'{n} {v}' for n, v in PACKAGES)})")
    parser = Parser(Language(tree_sitter_python.language()))
    worst = 0.0
    for target in targets:
        engine = Engine(Settings(target=target))
        time_check(engine, files[:20])  # load the rule data and compile the scanners outside the timing
        parses, checks = [], []
        findings = 0
        for _ in range(args.repeat):
            parses.append(time_parse(parser, files))
            elapsed, findings = time_check(engine, files)
            checks.append(elapsed)
        parse, check = statistics.median(parses), statistics.median(checks)
        ratio = check / parse
        worst = max(worst, ratio)
        print(
            f"{target}: bare parsing {len(files) / parse:8.0f} files/s | cudaport check {len(files) / check:8.0f} "
            f"files/s | ratio {ratio:.2f}x | {findings} findings"
        )
    print(f"worst ratio {worst:.2f}x (target: within 2x): {'met' if worst <= 2.0 else 'NOT met'}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
