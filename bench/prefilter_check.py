"""The C-family prefilter (analyzers/c/prefilter.py) against no prefilter: every file's results, for every target,
compared whole over real trees; prints how many files it spared from parsing and any file whose results differ.

    .venv/bin/python bench/prefilter_check.py [--target hip,npu,...] TREE...

The trees are checked in one process, once with the prefilter and once without (Engine.prefilter); the exit code is
1 when any result differs.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

from cudaport.analyzers.c.analyzer import CFamilyAnalyzer
from cudaport.engine.engine import Engine
from cudaport.engine.runner import scan
from cudaport.knowledge.ruleset import load_ruleset
from cudaport.model.results import FileFindings
from cudaport.project.config import load_settings


def results(tree: Path, targets: list[str], prefilter: bool) -> tuple[list[FileFindings], float]:
    Engine.prefilter = prefilter
    settings = load_settings(start=tree, overrides={"target": targets[0]})
    start = time.process_time()
    found = list(scan([str(tree)], settings, targets, jobs=1))
    return found, time.process_time() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--target", default="", help="comma-separated (default: every target of the rule data)")
    args = parser.parse_args()
    targets = args.target.split(",") if args.target else sorted(load_ruleset().targets)
    skipped = 0
    original = CFamilyAnalyzer.skips

    def counting(self: CFamilyAnalyzer, data: bytes, path: str, target: str) -> bool:
        nonlocal skipped
        skips = original(self, data, path, target)
        skipped += skips
        return skips

    CFamilyAnalyzer.skips = counting  # type: ignore[method-assign]
    differences = 0
    fixtures = Path(__file__).resolve().parent.parent / "tests" / "fixtures" / "c"
    results(fixtures, targets, True)  # rules decoded, analyzers built: outside the timings
    for tree in args.trees:
        skipped = 0
        with_it, fast = results(tree, targets, True)
        without, slow = results(tree, targets, False)
        c_files = sum(1 for r in without if r.language == "c" and r.target == targets[0])
        print(f"{tree}: {c_files} C files × {len(targets)} targets; the prefilter spared {skipped} analyses; "
              f"CPU {fast:.2f} s with it, {slow:.2f} s without")  # fmt: skip
        for a, b in zip(with_it, without, strict=True):
            if a != b:
                differences += 1
                print(f"  DIFFERS: {a.path} ({a.target}): {len(a.diagnostics)} against {len(b.diagnostics)}")
    print("identical" if not differences else f"{differences} results differ")
    return 1 if differences else 0


if __name__ == "__main__":
    sys.exit(main())
