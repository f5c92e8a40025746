"""`cudaport check` against bare tree-sitter parsing of the same files, side by side in one run.

    .venv/bin/python bench/bench_check.py [--rounds 5] [--corpus deepspeed,llama-cpp-python]

Prints, per corpus: files/s and MB/s of bare parsing (read + parse with tree-sitter-cuda), of the engine's check
(read + decode + parse + analyse + filter, single process, rules already loaded), the ratio between them (target: ≤ 2),
the whole CLI run with --jobs 1 and --jobs N (start-up included), and `hipify-perl --examine` when one is on PATH.
Rounds alternate between the contenders and the best time of each is kept, so load from other processes hurts both.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

from tree_sitter import Parser

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import SDISTS, c_files, fetch
from cudaport.analyzers.c.language import CUDA_LANGUAGE
from cudaport.engine.engine import Engine
from cudaport.project.config import load_settings
from cudaport.project.files import SourcePath
from cudaport.project.includes import ProjectIndex


def bare_parse(files: list[Path]) -> float:
    parser = Parser(CUDA_LANGUAGE)
    start = time.perf_counter()
    for path in files:
        parser.parse(path.read_bytes())
    return time.perf_counter() - start


def engine_check(engine: Engine, files: list[Path], root: Path) -> tuple[float, int]:
    """What `check --jobs 1` does per file, include graph (portability headers) and all; a fresh index each round,
    so no header is read from a previous round's cache."""
    engine.project = ProjectIndex(engine.ruleset, [root])
    jobs = [SourcePath(str(p), p, "c") for p in files]
    start = time.perf_counter()
    findings = 0
    for job in jobs:
        findings += len(engine.check_path(job).findings)
    return time.perf_counter() - start, findings


def cli_run(root: Path, jobs: int) -> float:
    command = [sys.executable, "-m", "cudaport", "check", str(root), "--format", "json", "--jobs", str(jobs),
               "--exit-zero", "--extend-exclude", "*.py"]  # fmt: skip
    start = time.perf_counter()
    subprocess.run(command, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - start


def hipify_run(files: list[Path]) -> float | None:
    hipify = shutil.which("hipify-perl")
    if hipify is None:
        return None
    start = time.perf_counter()
    subprocess.run([hipify, "--examine", *map(str, files)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - start


def _row(label: str, seconds: float, files: int, megabytes: float | None = None) -> str:
    text = f"  {label:<17} {seconds:7.3f} s  {files / seconds:8.0f} files/s"
    return text + (f"  {megabytes / seconds:6.1f} MB/s" if megabytes is not None else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--corpus", default=",".join(SDISTS))
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2, help="workers for the parallel CLI run")
    args = parser.parse_args()

    engine = Engine(load_settings())
    engine.analyzer("c")  # rules and parser loaded once, outside the timings
    cores = os.cpu_count()
    print(f"cudaport check vs bare tree-sitter parsing; best of {args.rounds} alternating rounds; {cores} cores")
    for name in args.corpus.split(","):
        root = fetch(name)
        files = c_files(root)
        size = sum(p.stat().st_size for p in files) / 1e6
        parse_best = check_best = float("inf")
        findings = 0
        for _ in range(args.rounds):
            parse_best = min(parse_best, bare_parse(files))
            elapsed, findings = engine_check(engine, files, root)
            check_best = min(check_best, elapsed)
        cli_1 = min(cli_run(root, 1) for _ in range(2))
        cli_n = min(cli_run(root, args.jobs) for _ in range(2))
        print(f"\n{name}: {len(files)} files, {size:.1f} MB, {findings} findings")
        print(_row("bare parse", parse_best, len(files), size))
        print(_row("check (engine)", check_best, len(files), size))
        print(f"  ratio check/parse {check_best / parse_best:7.2f}   (target ≤ 2.00)")
        print(_row("CLI --jobs 1", cli_1, len(files)) + "  (start-up and output included)")
        print(_row(f"CLI --jobs {args.jobs}", cli_n, len(files)) + f"  speed-up {cli_1 / cli_n:.2f}x")
        hipify = hipify_run(files)
        if hipify is None:
            print("  hipify-perl       not on PATH: not compared")
        else:
            print(f"  hipify-perl       {hipify:7.3f} s  {len(files) / hipify:8.0f} files/s  ratio check/hipify "
                  f"{check_best / hipify:.2f}")  # fmt: skip


if __name__ == "__main__":
    main()
