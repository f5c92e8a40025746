"""Read what cudaport says about a real tree, target by target: totals per difficulty side by side, then a seeded
random sample of findings per target with the source line they sit on, to be read by a person.

    .venv/bin/python bench/sample_targets.py TREE [--target hip,maca,musa,corex] [--sample 20] [--seed 7]

TREE is only read (`cudaport check --format json`, one process per target). The sample leaves out `portable`
findings unless --portable is given: those are the ones nothing needs to be done about.
"""

from __future__ import annotations

import argparse
import json
import random
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

DIFFICULTIES = ("portable", "mechanical", "manual", "blocker")


def check(tree: Path, target: str) -> tuple[dict[str, object], float]:
    command = [sys.executable, "-m", "cudaport", "check", ".", "--target", target, "--format", "json", "--exit-zero"]
    started = time.perf_counter()
    result = subprocess.run(command, cwd=tree, capture_output=True, text=True, check=False)
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        raise SystemExit(f"cudaport check --target {target} failed ({result.returncode}): {result.stderr.strip()}")
    return json.loads(result.stdout), elapsed


def source_line(tree: Path, path: str, line: int) -> str:
    try:
        lines = (tree / path).read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return ""
    return lines[line - 1].strip()[:140] if 0 < line <= len(lines) else ""


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", type=Path)
    parser.add_argument("--target", default="hip,maca,musa,corex")
    parser.add_argument("--sample", type=int, default=20)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--portable", action="store_true", help="sample portable findings too")
    args = parser.parse_args()
    tree = args.tree.resolve()
    targets = [t.strip() for t in args.target.split(",") if t.strip()]
    documents = {}
    print(
        f"{'target':10} {'files':>6} " + " ".join(f"{d:>11}" for d in DIFFICULTIES) + f" {'fixable':>8} {'seconds':>8}"
    )
    for target in targets:
        document, elapsed = check(tree, target)
        documents[target] = document
        diagnostics = document["diagnostics"]
        assert isinstance(diagnostics, list)
        counts = Counter(d["difficulty"] for d in diagnostics)
        fixable = sum(1 for d in diagnostics if d["fixable"])
        print(
            f"{target:10} {document['files_scanned']:>6} "
            + " ".join(f"{counts.get(d, 0):>11}" for d in DIFFICULTIES)
            + f" {fixable:>8} {elapsed:>8.1f}"
        )
    for target, document in documents.items():
        diagnostics = [d for d in document["diagnostics"] if args.portable or d["difficulty"] != "portable"]
        chosen = random.Random(args.seed).sample(diagnostics, min(args.sample, len(diagnostics)))
        print(f"\n== {target}: {len(chosen)} of {len(diagnostics)} findings (seed {args.seed})")
        for d in sorted(chosen, key=lambda d: (d["path"], d["line"])):
            print(f"{d['path']}:{d['line']}: {d['rule']} [{d['difficulty']}] {d['message']}")
            print(f"    | {source_line(tree, d['path'], d['line'])}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
