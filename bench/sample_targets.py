"""Read what cudaport says about a real tree, target by target: totals per difficulty side by side, then a seeded
random sample of findings per target with the source line they sit on, to be read by a person.

    .venv/bin/python bench/sample_targets.py TREE [TREE ...] [--target hip,maca,musa,corex] [--sample 20] [--seed 7]
    .venv/bin/python bench/sample_targets.py bench/.corpus/* --target npu,mlu,musa --rule CP7100 --sample 50

Each TREE is only read (`cudaport check --format json`, one process per tree and target). Given several trees, the
totals are summed and the sample is drawn from all their findings together. `--rule` keeps the findings whose rule
code starts with it (the operator-coverage sample reads CP7100 alone). The sample leaves out `portable` findings
unless --portable is given: those are the ones nothing needs to be done about.
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import check_command

DIFFICULTIES = ("portable", "mechanical", "manual", "blocker")


def check(tree: Path, target: str) -> tuple[dict[str, object], float]:
    command = check_command(".", target)
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
    parser.add_argument("trees", type=Path, nargs="+", metavar="tree")
    parser.add_argument("--target", default="hip,maca,musa,corex")
    parser.add_argument("--sample", type=int, default=20)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--portable", action="store_true", help="sample portable findings too")
    parser.add_argument("--rule", default="", help="keep the findings whose rule code starts with this")
    args = parser.parse_args()
    trees = [tree.resolve() for tree in args.trees if tree.is_dir()]
    targets = [t.strip() for t in args.target.split(",") if t.strip()]
    found: dict[str, list[tuple[Path, dict[str, object]]]] = {}
    print(
        f"{'target':10} {'files':>6} " + " ".join(f"{d:>11}" for d in DIFFICULTIES) + f" {'fixable':>8} {'seconds':>8}"
    )
    for target in targets:
        found[target] = []
        files = 0
        elapsed = 0.0
        for tree in trees:
            document, seconds = check(tree, target)
            elapsed += seconds
            files += int(document["files_scanned"])  # type: ignore[call-overload]
            diagnostics = document["diagnostics"]
            assert isinstance(diagnostics, list)
            found[target] += [(tree, d) for d in diagnostics if str(d["rule"]).startswith(args.rule)]
        counts = Counter(d["difficulty"] for _, d in found[target])
        fixable = sum(1 for _, d in found[target] if d["fixable"])
        print(
            f"{target:10} {files:>6} "
            + " ".join(f"{counts.get(d, 0):>11}" for d in DIFFICULTIES)
            + f" {fixable:>8} {elapsed:>8.1f}"
        )
    for target, pairs in found.items():
        shown = [(tree, d) for tree, d in pairs if args.portable or d["difficulty"] != "portable"]
        chosen = random.Random(args.seed).sample(shown, min(args.sample, len(shown)))
        print(f"\n== {target}: {len(chosen)} of {len(shown)} findings (seed {args.seed})")
        for tree, d in sorted(chosen, key=lambda pair: (pair[0].name, pair[1]["path"], pair[1]["line"])):
            where = f"{tree.name}/{d['path']}" if len(trees) > 1 else d["path"]
            print(f"{where}:{d['line']}: {d['rule']} [{d['difficulty']}] {d['message']}")
            print(f"    | {source_line(tree, str(d['path']), int(d['line']))}")  # type: ignore[call-overload]
    return 0


if __name__ == "__main__":
    sys.exit(main())
