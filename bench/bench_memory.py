"""Peak memory of `cudaport check` (each format) over 1, 2, 4 and 8 copies of a real tree, so that growth with the
tree shows. Target: check <= 250 MB for 8 copies of cuda-samples, in every format. (The report's memory, against
its own target and a baseline checkout, is bench/bench_report.py --memory.)

    .venv/bin/python bench/bench_memory.py                                  # /work/corpora/cuda-samples
    .venv/bin/python bench/bench_memory.py TREE --copies 1,8 --formats json --jobs 1,0

The copies are hard links (made once under the system's temporary folder, or --work DIR), named c1 ... c8, and a
run over n copies is given c1 ... cn. Each command runs as a user runs it (the `cudaport` CLI in a fresh process,
output to a file). Columns:
  main     the peak resident set of the `cudaport` process itself (with --jobs 1 it does all the work);
  largest  the peak of the largest single process (a worker, with --jobs > 1), from the kernel's accounting;
  tree     the largest sum over the process and its workers, sampled every 20 ms (so a short peak can be missed);
  growth   `largest` over the one-copy figure.
Other processes on the machine do not change these figures much (unlike times), so they are comparable across runs.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

DEFAULT_TREE = Path("/work/corpora/cuda-samples")
CHECK_LIMIT_MB = 250.0
PAGE = os.sysconf("SC_PAGE_SIZE")


@dataclass
class Peak:
    main_mb: float
    largest_mb: float
    tree_mb: float
    seconds: float
    code: int


def copies_of(tree: Path, work: Path, count: int) -> list[Path]:
    """c1 ... c<count> under `work`: hard-linked copies of `tree` (a full copy where links are not possible)."""
    made = []
    for number in range(1, count + 1):
        copy = work / f"c{number}"
        if not copy.exists():
            partial = work / f".c{number}.partial"
            shutil.rmtree(partial, ignore_errors=True)
            try:
                shutil.copytree(tree, partial, copy_function=os.link, symlinks=True)
            except OSError:
                shutil.rmtree(partial, ignore_errors=True)
                shutil.copytree(tree, partial, symlinks=True)
            partial.rename(copy)
        made.append(copy)
    return made


def _children(pid: int) -> list[int]:
    """Every live descendant of `pid` (from /proc/*/stat)."""
    parents: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat", "rb") as handle:
                fields = handle.read().rsplit(b")", 1)[1].split()
        except OSError:
            continue
        parents.setdefault(int(fields[1]), []).append(int(entry))
    found, todo = [], [pid]
    while todo:
        for child in parents.get(todo.pop(), []):
            found.append(child)
            todo.append(child)
    return found


def _rss_mb(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/statm", "rb") as handle:
            return int(handle.read().split()[1]) * PAGE / 1e6
    except (OSError, IndexError, ValueError):
        return 0.0


def measure(command: list[str], cwd: Path) -> Peak:
    """Run `command`, sampling its process tree's resident memory until it exits."""
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    tree_peak = 0.0
    main_peak = 0.0
    done = threading.Event()

    def sample() -> None:
        nonlocal tree_peak, main_peak
        while not done.is_set():
            main = _rss_mb(process.pid)
            total = main + sum(_rss_mb(child) for child in _children(process.pid))
            main_peak = max(main_peak, main)
            tree_peak = max(tree_peak, total)
            time.sleep(0.02)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    assert process.stderr is not None
    errors = process.stderr.read()  # read while it runs: a full pipe would block it
    _, status, usage = os.wait4(process.pid, 0)
    done.set()
    sampler.join()
    process.returncode = os.waitstatus_to_exitcode(status)
    seconds = time.perf_counter() - start
    if process.returncode not in (0, 1) or b"Traceback" in errors:
        raise SystemExit(f"{' '.join(command)} failed ({process.returncode}):\n{errors.decode(errors='replace')}")
    largest = usage.ru_maxrss * 1024 / 1e6  # KiB (Linux): the largest of the process and the children it reaped
    return Peak(main_peak, largest, tree_peak, seconds, process.returncode)


def check_command(paths: list[Path], fmt: str, jobs: int, output: Path) -> list[str]:
    command = [
        sys.executable,
        "-m",
        "cudaport",
        "check",
        *map(str, paths),
        "--exit-zero",
        "--no-progress",
        "--no-cache",
    ]
    if fmt == "statistics":
        command += ["--statistics"]
    else:
        command += ["--format", fmt]
    return [*command, "--jobs", str(jobs), "-o", str(output)]


def findings_in(json_output: Path) -> int:
    """The number of findings a `check --format json` output holds (its last line has the summary)."""
    with json_output.open("rb") as handle:
        handle.seek(max(0, json_output.stat().st_size - 4096))
        tail = handle.read().decode("utf-8", "replace")
    summary = json.loads(tail[tail.rindex('"summary": ') + len('"summary": ') : tail.rindex(', "excluded"')])
    return sum(summary.values())


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", nargs="?", type=Path, default=DEFAULT_TREE)
    parser.add_argument("--copies", default="1,2,4,8")
    parser.add_argument("--formats", default="text,json,sarif,github,statistics")
    parser.add_argument("--jobs", default="1,0", help="comma-separated --jobs values (0: automatic)")
    parser.add_argument("--work", type=Path, help="where the copies are made (kept for the next run)")
    args = parser.parse_args()
    if not args.tree.is_dir():
        raise SystemExit(f"{args.tree}: not a folder")
    counts = [int(c) for c in args.copies.split(",")]
    formats = args.formats.split(",")
    jobs_values = [int(j) for j in args.jobs.split(",")]
    work = args.work or Path(tempfile.gettempdir()) / f"cudaport-bench-memory-{args.tree.name}"
    work.mkdir(parents=True, exist_ok=True)
    copies = copies_of(args.tree, work, max(counts))
    from cudaport.project.includes import checkout_root

    above = checkout_root(work)
    if above is not None:  # its whole checkout would be searched for headers: another tree than the one measured
        print(f"warning: {work} is inside the checkout {above}; give --work a folder outside any checkout")
    load = os.getloadavg()
    print(f"tree {args.tree} (copies under {work}); {os.cpu_count()} CPUs, load {load[0]:.1f} {load[1]:.1f}")
    header = f"{'command':<34} {'copies':>6} {'findings':>9} {'main MB':>8} {'largest':>8} {'tree MB':>8}"
    print(f"{header} {'growth':>7} {'seconds':>8}")
    failed = []
    with tempfile.TemporaryDirectory() as scratch:
        output = Path(scratch) / "out"
        for jobs in jobs_values:
            for fmt in formats:
                base: float | None = None
                for count in counts:
                    output.unlink(missing_ok=True)
                    peak = measure(check_command(copies[:count], fmt, jobs, output), work)
                    if not output.is_file() or not output.stat().st_size:
                        raise SystemExit(f"check --format {fmt} over {count} copies wrote nothing")
                    findings = findings_in(output) if fmt == "json" else None
                    working = peak.largest_mb
                    base = base or working
                    label = f"check --format {fmt} -j{jobs or 'auto'}"
                    _row(label, count, findings, peak, working / base)
                    if count == 8 and max(peak.main_mb, peak.largest_mb) > CHECK_LIMIT_MB:
                        failed.append(f"{label} over 8 copies: {max(peak.main_mb, peak.largest_mb):.0f} MB")
    for line in failed:
        print(f"over the {CHECK_LIMIT_MB:.0f} MB target: {line}")
    return 1 if failed else 0


def _row(label: str, count: int, findings: int | None, peak: Peak, growth: float) -> None:
    shown = f"{findings:>9,}" if findings is not None else f"{'':>9}"
    print(
        f"{label:<34} {count:>6} {shown} {peak.main_mb:>8.0f} {peak.largest_mb:>8.0f} {peak.tree_mb:>8.0f}"
        f" {growth:>6.2f}x {peak.seconds:>8.1f}",
        flush=True,
    )


if __name__ == "__main__":
    raise SystemExit(main())
