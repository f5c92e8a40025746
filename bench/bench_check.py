"""`cudaport check` against bare tree-sitter parsing of the same C files, side by side in one run.

    .venv/bin/python bench/bench_check.py [--rounds 5] [--corpus deepspeed,llama-cpp-python] [--tree DIR]...

Prints, per corpus: bare parsing (read + parse of the C/C++/CUDA files with tree-sitter-cuda, one thread), the
engine's check of those files (read + decode + parse + analyse + filter, single process, rules already loaded), and
the whole CLI run (`check ROOT --target T --format json`, start-up and output included) with --jobs 1 and with the
default jobs, each as wall time and CPU time (user + system, worker processes included) and as ratios to bare
parsing. Goals: CPU ≤ 2.0x bare parsing, wall ≤ 1.1x with the default jobs. A tree given with --tree is checked
whole, every kind of file in it (cuda-samples: its CMake and JSON files too); a PyPI corpus without its Python files.
`hipify-perl --examine` is timed when one is on PATH.

Rounds alternate between the contenders and the best time of each is kept, so load from other processes hurts both.
Run it with the package to measure first on PYTHONPATH (PYTHONPATH=/path/to/checkout/server) to compare checkouts.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from tree_sitter import Parser

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import SDISTS, c_files, check_command, fetch
from cudaport.analyzers.c.language import CUDA_LANGUAGE
from cudaport.engine.engine import Engine
from cudaport.project.config import load_settings
from cudaport.project.files import SourcePath
from cudaport.project.includes import ProjectIndex


@dataclass
class Best:
    """The best wall and CPU seconds of a contender over the rounds (each kept on its own)."""

    wall: float = float("inf")
    cpu: float = float("inf")

    def add(self, wall: float, cpu: float) -> None:
        self.wall = min(self.wall, wall)
        self.cpu = min(self.cpu, cpu)


def _process_cpu() -> float:
    return time.process_time()


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def bare_parse(files: list[Path]) -> tuple[float, float]:
    parser = Parser(CUDA_LANGUAGE)
    cpu, start = _process_cpu(), time.perf_counter()
    for path in files:
        parser.parse(path.read_bytes())
    return time.perf_counter() - start, _process_cpu() - cpu


def engine_check(engine: Engine, files: list[Path], root: Path) -> tuple[float, float, int]:
    """What `check --jobs 1` does per C file, include graph (portability headers) and all; a fresh index each
    round, so no header is read from a previous round's cache."""
    engine.project = ProjectIndex(engine.ruleset, [root])
    jobs = [SourcePath(str(p), p, "c") for p in files]
    findings = 0
    cpu, start = _process_cpu(), time.perf_counter()
    for job in jobs:
        findings += len(engine.check_path(job).findings)
    return time.perf_counter() - start, _process_cpu() - cpu, findings


def cli_run(root: Path, jobs: int, target: str, whole: bool) -> tuple[float, float]:
    """One CLI run; `jobs` 0 is the default (automatic)."""
    command = check_command(str(root), target)  # cold runs: never the results cache
    if jobs:
        command += ["--jobs", str(jobs)]
    if not whole:
        command += ["--extend-exclude", "*.py"]
    cpu, start = _children_cpu(), time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start, _children_cpu() - cpu


def hipify_run(files: list[Path]) -> float | None:
    hipify = shutil.which("hipify-perl")
    if hipify is None:
        return None
    start = time.perf_counter()
    subprocess.run([hipify, "--examine", *map(str, files)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def _row(label: str, best: Best, parse: Best, files: int) -> str:
    return (
        f"  {label:<22} wall {best.wall:7.3f} s ({best.wall / parse.wall:5.2f}x)"
        f"   CPU {best.cpu:7.3f} s ({best.cpu / parse.cpu:5.2f}x)   {files / best.wall:6.0f} files/s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--corpus", default=",".join(SDISTS), help="PyPI corpora (bench/corpus.py); '' for none")
    parser.add_argument("--tree", action="append", default=[], type=Path, help="a folder to check whole")
    parser.add_argument("--target", default="hip")
    args = parser.parse_args()

    engine = Engine(load_settings(overrides={"target": args.target}))
    engine.analyzer("c")  # rules and parser loaded once, outside the timings
    cores = os.cpu_count()
    print(f"cudaport check --target {args.target} vs bare tree-sitter parsing of the C files; best of {args.rounds}")
    print(f"alternating rounds; {cores} cores; ratios to bare parsing (goals: CPU ≤ 2.00x, default jobs wall ≤ 1.10x)")
    trees = [(name, fetch(name), False) for name in args.corpus.split(",") if name]
    trees += [(str(tree), tree.resolve(), True) for tree in args.tree]
    for name, root, whole in trees:
        files = c_files(root)
        size = sum(p.stat().st_size for p in files) / 1e6
        parse, check, cli_1, cli_n = Best(), Best(), Best(), Best()
        findings = 0
        for _ in range(args.rounds):
            parse.add(*bare_parse(files))
            wall, cpu, findings = engine_check(engine, files, root)
            check.add(wall, cpu)
            cli_1.add(*cli_run(root, 1, args.target, whole))
            cli_n.add(*cli_run(root, 0, args.target, whole))
        scope = "the whole tree" if whole else "without its Python files"
        print(f"\n{name}: {len(files)} C files, {size:.1f} MB, {findings} findings in them; the CLI checks {scope}")
        print(f"  {'bare parse':<22} wall {parse.wall:7.3f} s            CPU {parse.cpu:7.3f} s")
        print(_row("check (engine, C files)", check, parse, len(files)))
        print(_row("CLI --jobs 1", cli_1, parse, len(files)))
        print(_row("CLI default jobs", cli_n, parse, len(files)) + f"   speed-up {cli_1.wall / cli_n.wall:.2f}x")
        hipify = hipify_run(files)
        if hipify is None:
            print("  hipify-perl            not on PATH: not compared")
        else:
            print(f"  hipify-perl            wall {hipify:7.3f} s ({hipify / parse.wall:5.2f}x)")


if __name__ == "__main__":
    main()
