"""The inventory analyzers on real trees: what they find per file kind, a random sample to read for false positives,
and what they cost a `check` of a source tree (the same tree with and without them, side by side in one run).

    python bench/bench_inventory.py TREE [TREE ...] [--target hip] [--sample 30] [--rounds 3]
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))

from cudaport.engine.engine import Engine
from cudaport.model.source import LineIndex
from cudaport.project.config import Settings
from cudaport.project.files import SourcePath, discover, file_kind


def files_of(trees: list[Path], settings: Settings) -> list[SourcePath]:
    return [item for item in discover([str(t) for t in trees], settings) if isinstance(item, SourcePath)]


def is_source(path: SourcePath) -> bool:
    kind = file_kind(path.language)
    return kind is not None and kind.group == "sources"


def timed(engine: Engine, files: list[SourcePath]) -> float:
    start = time.perf_counter()
    for path in files:
        engine.check_path(path)
    return time.perf_counter() - start


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="+", type=Path)
    parser.add_argument("--target", default="hip")
    parser.add_argument("--sample", type=int, default=30, help="findings to print at random (default 30)")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--seed", type=int, default=7)
    args = parser.parse_args()

    settings = Settings(target=args.target)
    engine = Engine(settings)
    files = files_of(args.trees, settings)
    sources = [f for f in files if is_source(f)]
    inventory = [f for f in files if not is_source(f)]
    print(f"{len(files)} files: {len(sources)} sources, {len(inventory)} inventory files")

    per_kind: Counter[str] = Counter()
    per_rule: Counter[tuple[str, str]] = Counter()
    errors: list[str] = []
    found = []
    for path in inventory:
        result = engine.check_path(path)
        if result.error:
            errors.append(f"{path.label}: {result.error}")
        per_kind[path.language] += 0
        for finding in result.findings:
            per_kind[path.language] += 1
            per_rule[(finding.rule, finding.difficulty.label)] += 1
            found.append((path, result, finding))
    print(f"\ninventory findings for {args.target}, per file kind:")
    kinds = Counter(f.language for f in inventory)
    for kind, count in sorted(per_kind.items(), key=lambda kv: -kv[1]):
        print(f"  {kind:14s} {count:6d} in {kinds[kind]} files")
    print("\nper rule and difficulty:")
    for (rule, difficulty), count in sorted(per_rule.items()):
        print(f"  {rule} {difficulty:10s} {count:6d}")
    if errors:
        print(f"\nfiles reported as unreadable ({len(errors)}):")
        for line in errors[:20]:
            print("  " + line)
    print(f"\na random sample of {min(args.sample, len(found))} findings (read them for false positives):")
    for path, result, finding in random.Random(args.seed).sample(found, min(args.sample, len(found))):
        data = result.source.data if result.source is not None else b""
        line, _column = LineIndex(data).position(finding.start) if data else (0, 0)
        text = data.splitlines()[line].decode("utf-8", "replace").strip()[:100] if data else "(binary)"
        print(f"  {path.label}:{line + 1}: {finding.rule} [{finding.difficulty.label}] `{finding.symbol}`  | {text}")

    # Cost: the tree's sources alone, then sources and inventory files, alternating, best of the rounds.
    alone, together = [], []
    timed(engine, files)  # warm: grammars loaded, caches filled
    for _ in range(args.rounds):
        alone.append(timed(engine, sources))
        together.append(timed(engine, files))
    best_alone, best_together = min(alone), min(together)
    print(f"\ncheck cost, best of {args.rounds} (one process, in-process engine):")
    print(f"  sources only          {best_alone:8.2f} s  ({len(sources)} files)")
    print(f"  sources + inventory   {best_together:8.2f} s  ({len(files)} files)")
    print(f"  ratio                 {best_together / max(best_alone, 1e-9):8.3f}x  (target: at most 1.10x)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
