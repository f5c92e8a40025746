"""What checking every fix's result whole costs: `fix` (and `check`) with the consistency check and without it,
side by side in one run. Target: the check costs at most 10% of `fix`'s time.

    .venv/bin/python bench/bench_consistency.py [--rounds 3] [--tree DIR ...] [--target npu]

In process, single thread, rules loaded: every file of each tree (the PyPI sdists of bench/corpus.py by default,
plus any --tree) is planned as `cudaport fix` plans it (Engine.plan_fix: check, apply, check the result) and
checked as `cudaport check` does, once with the consistency check (cudaport.consistency, the fix selection's
conflicts and the result's findings compared with the findings before) and once with it switched off. Rounds
alternate and the best time of each is kept, so load from other processes hurts both.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import pypi_sdist
from cudaport.engine import consistency, fixing, judging
from cudaport.engine.engine import Engine
from cudaport.model.source import SkipFile
from cudaport.project.config import load_settings
from cudaport.project.files import SourcePath, discover
from cudaport.project.includes import ProjectIndex

TREES = {"deepspeed": "0.19.8", "colossalai": "0.5.0", "mamba-ssm": "2.3.2.post1"}


@contextmanager
def without_check() -> Iterator[None]:
    """The engine with the consistency check switched off: no judging, no comparing of the result's findings."""
    judge, unexpected, select_judge = consistency.judge, fixing.unexpected, judging.Judge.judge_findings
    consistency.judge = lambda *a, **k: consistency.Verdict([], False)  # type: ignore[assignment]
    fixing.unexpected = lambda *a, **k: []  # type: ignore[assignment]
    judging.Judge.judge_findings = lambda *a, **k: None  # type: ignore[assignment,method-assign]
    try:
        yield
    finally:
        consistency.judge, fixing.unexpected = judge, unexpected  # type: ignore[assignment]
        judging.Judge.judge_findings = select_judge  # type: ignore[method-assign]


def sources(root: Path, settings: Any) -> list[tuple[SourcePath, bytes]]:
    out = []
    for item in discover([str(root)], settings):
        if not isinstance(item, SourcePath) or item.language not in ("c", "python"):
            continue
        try:
            out.append((item, Engine(settings).read(item).data))
        except SkipFile:
            continue
    return out


def timed(root: Path, target: str, files: list[tuple[SourcePath, bytes]]) -> tuple[float, float, int]:
    settings = load_settings(start=root, overrides={"target": target})
    instance = Engine(settings)
    instance.project = ProjectIndex(instance.ruleset, [root])
    started = time.perf_counter()
    for item, data in files:
        instance.check_data(data, item.language, item.path)
    checked = time.perf_counter() - started
    applied = 0
    started = time.perf_counter()
    for item, data in files:
        applied += fixing.plan_fix(instance, data, item.language, item.path).applied
    return checked, time.perf_counter() - started, applied


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--tree", action="append", default=[])
    parser.add_argument("--target", action="append")
    args = parser.parse_args()
    roots = {name: pypi_sdist(name, version) for name, version in TREES.items()}
    roots.update({Path(t).name: Path(t).resolve() for t in args.tree})
    for target in args.target or ["hip", "npu"]:
        for name, root in roots.items():
            files = sources(root, load_settings(start=root, overrides={"target": target}))
            best = {"with": [1e9, 1e9], "without": [1e9, 1e9]}
            applied = {}
            for _ in range(args.rounds):
                for mode in ("with", "without"):
                    if mode == "without":
                        with without_check():
                            check, fix, count = timed(root, target, files)
                    else:
                        check, fix, count = timed(root, target, files)
                    best[mode] = [min(best[mode][0], check), min(best[mode][1], fix)]
                    applied[mode] = count
            (cw, fw), (co, fo) = best["with"], best["without"]
            print(
                f"{name:12} {target:4} {len(files):5} files  check {co:6.2f}s -> {cw:6.2f}s ({cw / co - 1:+6.1%})  "
                f"fix {fo:6.2f}s -> {fw:6.2f}s ({fw / fo - 1:+6.1%})  fixes applied {applied['without']} -> "
                f"{applied['with']}"
            )


if __name__ == "__main__":
    main()
