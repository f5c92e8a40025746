"""`cudaport report` against `cudaport check` on a real corpus, timed side by side in one run.

The corpus is a source distribution from PyPI, downloaded at run time into bench/.corpus/ (git-ignored):
DeepSpeed (about 430 C/C++/CUDA files) by default, llama-cpp-python (llama.cpp's ggml-cuda, larger) on request.
Both commands run as the user runs them (the `cudaport` CLI in a fresh process), alternately, several times; the
best time of each is compared. Target: the report (any format) within 2x of `check` for the same tree and target,
and a multi-target report within 2x of `check` run once per target.

    .venv/bin/python bench/bench_report.py                       # DeepSpeed, every target, 3 rounds
    .venv/bin/python bench/bench_report.py --corpus llama-cpp-python --rounds 5 --jobs 1

Prints the figures and exits 1 when a ratio misses the target.

With --memory TREE it measures instead the peak resident memory of a report over 1, 2, 4 and 8 copies of TREE
(hard links in a temporary folder), so the growth with the tree is visible; target: at most 250 MB for a
3-target report over 8 copies. --baseline CHECKOUT runs another checkout's cudaport (PYTHONPATH=CHECKOUT/server)
side by side in the same run:

    .venv/bin/python bench/bench_report.py --memory /work/corpora/cuda-samples --baseline ../main"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import sdist

ROOT = Path(__file__).resolve().parent
CORPORA = {
    "deepspeed": "deepspeed==0.19.8",
    "llama-cpp-python": "llama-cpp-python==0.3.36",
}
LIMIT = 2.0
MEMORY_LIMIT_MB = 250.0


def fetch(name: str) -> Path:
    return sdist(CORPORA[name])


def python_supported() -> bool:
    from cudaport.engine.engine import Engine
    from cudaport.project.config import Settings

    return Engine(Settings()).supports("python")


def timed(command: list[str], cwd: Path) -> float:
    start = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True)
    elapsed = time.perf_counter() - start
    if result.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(command)} failed ({result.returncode}):\n{result.stderr}")
    return elapsed


# ---- peak memory over copies of a tree -----------------------------------------------------------------------------
def peak_rss(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[float, float]:
    """Seconds and peak resident memory (MB) of `command`: the largest process of its tree (the report's own, or a
    worker's when --jobs runs several), as the kernel reports it to wait4."""
    start = time.perf_counter()
    process = subprocess.Popen(command, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _, status, usage = os.wait4(process.pid, 0)
    elapsed = time.perf_counter() - start
    stderr = process.stderr.read().decode("utf-8", "replace") if process.stderr else ""
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"{' '.join(command)} failed:\n{stderr}")
    return elapsed, usage.ru_maxrss / 1024


def counted(report: Path) -> tuple[str, str]:
    """Files scanned and the first target's findings of a JSON report, read in a process of its own: parsed here,
    a large report would grow this process, and a child started from it inherits its peak (Linux counts the
    parent's pages in a child's maximum resident set until the child's exec)."""
    script = (
        "import json, sys; d = json.load(open(sys.argv[1], encoding='utf-8')); "
        "print(d['scanned']['files'], next(iter(d['verdicts'].values()))['findings']['total'])"
    )
    result = subprocess.run([sys.executable, "-c", script, str(report)], capture_output=True, text=True, check=True)
    files, findings = result.stdout.split()
    return files, findings


def copies_of(tree: Path, count: int, under: Path) -> Path:
    """`count` copies of `tree` as hard links (no disk space, the same bytes to read), alone in their own folder:
    the report searches the folder it runs in for headers, which must hold these copies and nothing else."""
    folder = under / f"copies-{count}" / "tree"
    for index in range(count):
        shutil.copytree(tree, folder / f"copy{index}", copy_function=os.link, symlinks=True)
    return folder


def scratch_folder() -> Path:
    """A temporary folder outside any version-control checkout: inside one (a /tmp that someone made a git
    repository, a checkout's bench/), the report would search the whole checkout for headers and the figures
    would measure that."""
    from cudaport.project.includes import checkout_root

    for candidate in (os.environ.get("TMPDIR"), "/var/tmp", tempfile.gettempdir(), "/dev/shm"):
        if candidate and Path(candidate).is_dir() and checkout_root(Path(candidate)) is None:
            return Path(tempfile.mkdtemp(prefix="bench-report-memory-", dir=candidate))
    raise SystemExit("every temporary folder is inside a version-control checkout: set TMPDIR to one that is not")


def report_memory(
    tree: Path, counts: list[int], targets: str, formats: list[str], jobs: str, baseline: Path | None
) -> int:
    """Peak RSS of `cudaport report` over 1, 2, 4, 8 copies of `tree`, per format, and of a baseline checkout."""
    work = scratch_folder()
    runs = {"this": dict(os.environ)}
    if baseline is not None:
        runs["baseline"] = {**os.environ, "PYTHONPATH": str(baseline.resolve() / "server")}
    print(f"tree: {tree} ({sum(1 for p in tree.rglob('*') if p.is_file())} files); targets {targets}; jobs={jobs}")
    columns = ("copies", "format", "run", "files", "findings", "seconds", "peak MB", "out MB")
    print(" ".join(f"{c:>{w}}" for c, w in zip(columns, (6, 6, 9, 6, 9, 8, 8, 7), strict=True)))
    worst = 0.0
    print(f"copies under {work}")
    try:
        for count in counts:
            folder = copies_of(tree, count, work)
            for fmt in formats:
                for name, env in runs.items():
                    out = work / f"{name}-{count}.{fmt}"
                    command = [sys.executable, "-m", "cudaport", "report", folder.name, "--target", targets,
                               "-o", str(out), "--jobs", jobs, "--no-progress", "--no-cache"]  # fmt: skip
                    seconds, peak = peak_rss(command, folder.parent, env)
                    size = out.stat().st_size / 1e6
                    files, findings = counted(out) if fmt == "json" else ("-", "-")
                    out.unlink()
                    if name == "this":
                        worst = max(worst, peak) if count == max(counts) else worst
                    figures = f"{seconds:>8.1f} {peak:>8.1f} {size:>7.1f}"
                    print(f"{count:>6} {fmt:>6} {name:>9} {files:>6} {findings:>9} {figures}", flush=True)
            shutil.rmtree(folder.parent)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    met = worst <= MEMORY_LIMIT_MB
    print(
        f"target: <= {MEMORY_LIMIT_MB:.0f} MB over {max(counts)} copies — {'met' if met else 'MISSED'} ({worst:.1f} MB)"
    )
    return 0 if met else 1


def main() -> int:
    from cudaport.knowledge.ruleset import load_ruleset

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", choices=sorted(CORPORA), default="deepspeed")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--jobs", default="0", help="--jobs for both commands (0: automatic, as users run them)")
    parser.add_argument("--memory", type=Path, metavar="TREE", help="measure peak memory over copies of TREE")
    parser.add_argument("--copies", default="1,2,4,8", help="--memory: how many copies, comma-separated")
    parser.add_argument("--targets", default="hip,npu,mlu", help="--memory: the report's targets")
    parser.add_argument("--formats", default="json,html,md", help="--memory: the report's formats")
    parser.add_argument("--baseline", type=Path, metavar="CHECKOUT", help="--memory: also run this checkout's cudaport")
    args = parser.parse_args()
    if args.memory is not None:
        counts = [int(c) for c in args.copies.split(",")]
        return report_memory(args.memory, counts, args.targets, args.formats.split(","), args.jobs, args.baseline)

    tree = fetch(args.corpus)
    targets = list(load_ruleset().targets)
    cli = [sys.executable, "-m", "cudaport"]
    common = ["--jobs", args.jobs, "--no-cache"]  # each run analyses: never answered by the results cache
    if not python_supported():  # until the Python analyzer lands, `check` reports .py files as errors
        common += ["--extend-exclude", "*.py,*.pyi"]
    out = Path(tempfile.mkdtemp(prefix="bench-report-"))

    # what the tree holds, and one check of each kind to be sure both commands agree on it
    probe = out / "probe.json"
    subprocess.run(
        [*cli, "report", str(tree), "--target", targets[0], "-o", str(probe), *common], check=True, capture_output=True
    )
    document = json.loads(probe.read_text(encoding="utf-8"))
    files, lines = document["scanned"]["files"], document["scanned"]["lines"]
    findings = document["verdicts"][targets[0]]["findings"]["total"]
    print(
        f"corpus: {tree.relative_to(ROOT.parent)} — {files} files, {lines} lines, {findings} findings for "
        f"{targets[0]}; jobs={args.jobs}; best of {args.rounds} rounds"
    )

    commands: dict[str, list[str]] = {}
    for target in targets:
        commands[f"check {target}"] = [
            *cli,
            "check",
            str(tree),
            "--target",
            target,
            "--format",
            "json",
            "-o",
            str(out / f"check-{target}.json"),
            "--exit-zero",
            *common,
        ]
        for fmt in ("json", "md", "html"):
            commands[f"report {target} {fmt}"] = [
                *cli,
                "report",
                str(tree),
                "--target",
                target,
                "-o",
                str(out / f"report-{target}.{fmt}"),
                *common,
            ]
    if len(targets) > 1:
        commands["report all html"] = [
            *cli,
            "report",
            str(tree),
            "--target",
            ",".join(targets),
            "-o",
            str(out / "report-all.html"),
            *common,
        ]
    best = {name: float("inf") for name in commands}
    for _ in range(args.rounds):
        for name, command in commands.items():  # alternating, so load on the machine hits every command alike
            best[name] = min(best[name], timed(command, ROOT.parent))

    failed = False
    print(f"{'command':<26}{'seconds':>9}{'files/s':>10}{'vs check':>10}")
    for target in targets:
        base = best[f"check {target}"]
        print(f"{'check ' + target:<26}{base:>9.2f}{files / base:>10.0f}{1.0:>10.2f}")
        for fmt in ("json", "md", "html"):
            seconds = best[f"report {target} {fmt}"]
            ratio = seconds / base
            failed |= ratio > LIMIT
            print(f"{'report ' + target + ' ' + fmt:<26}{seconds:>9.2f}{files / seconds:>10.0f}{ratio:>10.2f}")
    if len(targets) > 1:
        base = sum(best[f"check {t}"] for t in targets)
        seconds = best["report all html"]
        ratio = seconds / base
        failed |= ratio > LIMIT
        print(
            f"{'report ' + ','.join(targets) + ' html':<26}{seconds:>9.2f}{files / seconds:>10.0f}{ratio:>10.2f}"
            "  (vs check once per target)"
        )
    print(f"target: report within {LIMIT:.0f}x of check — {'MISSED' if failed else 'met'}")
    return 1 if failed else 0


if __name__ == "__main__":
    raise SystemExit(main())
