"""Start-up: `cudaport --version` and a one-file `cudaport check` (a C++ file and a Python file) against `python -c
pass` on the same machine, with cudaport's bytecode written (warm) and without it (cold: a copy of the package
without __pycache__, run with PYTHONDONTWRITEBYTECODE, as a checkout on a machine that sets it), the console script
against `python -m cudaport`, and what the compiled rule cache does (cold: an empty cache folder, so the run builds
and writes it; warm: the cache written; off: CUDAPORT_NO_CACHE=1), side by side in one run, and a check in Chinese
(--lang zh-CN: the compiled catalogue read from the same cache). Also the language server: process start to the
first diagnostics of one opened file, pushed and pulled, with the cache warm (the rule cache and the server's answer
to `initialize` kept from the last start, so the prelude serves them before pygls loads: cudaport.lsp.prelude), with
the answer not kept (the server starts whole first, as before the prelude) and cold. Target: <= 150 ms with the
cache warm, for the check in either language and for the server's first diagnostics; the issue's targets:
`--version` <= 30 ms, a one-file check <= 60 ms (bytecode and rule cache warm). "caches warm": the rule cache and
the results cache (the file checked before, unchanged: its results read back); "--no-cache, rule cache warm": the
file analysed (as after an edit). Each line also gives its median as a multiple of `python -c pass`.

    .venv/bin/python bench/bench_startup.py [--rounds 15] [--file examples/cuda/saxpy.cu] [--no-server]

Rounds alternate between the contenders, so load from other processes falls on all of them; each prints its
best and median wall-clock time, the check's time less the interpreter's own start-up (`python -c pass`), and its
median processor time (user + system), which other processes on a busy machine inflate much less than the wall
clock (on an idle machine the two agree for a one-file check, which neither waits nor runs in parallel).
The import breakdown of one warm run (python -X importtime) follows: the modules that cost the most.
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

ROOT = Path(__file__).resolve().parents[1]
CUDAPORT = Path(sys.executable).with_name("cudaport")
TARGET_MS = 150.0
VERSION_TARGET_MS = 30.0
CHECK_TARGET_MS = 60.0


def _env(cache: Path | None, source: Path | None = None) -> dict[str, str]:
    # PYTHONDONTWRITEBYTECODE (set on some CI machines) would compile every module from source on every start: an
    # installed cudaport has its bytecode (pip compiles it), so the runs here may write and use it too. `source`: a
    # copy of the package without bytecode, imported first and never compiled to disk (the cold-bytecode runs).
    dropped = ("CUDAPORT_NO_CACHE", "CUDAPORT_CACHE_DIR", "PYTHONDONTWRITEBYTECODE")
    env = {k: v for k, v in os.environ.items() if k not in dropped}
    if source is not None:
        env["PYTHONPATH"] = os.pathsep.join([str(source), *filter(None, [os.environ.get("PYTHONPATH")])])
        env["PYTHONDONTWRITEBYTECODE"] = "1"
    if cache is None:
        env["CUDAPORT_NO_CACHE"] = "1"
    else:
        env["CUDAPORT_CACHE_DIR"] = str(cache)
    return env


def timed(command: list[str], env: dict[str, str]) -> float:
    start = time.perf_counter()
    result = subprocess.run(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = (time.perf_counter() - start) * 1000
    if result.returncode not in (0, 1) or b"Traceback" in result.stderr:
        raise SystemExit(f"{' '.join(command)} failed ({result.returncode}): {result.stderr.decode()}")
    return elapsed


def server_first_diagnostics(path: Path, env: dict[str, str], pull: bool = False, forget: bool = False) -> float:
    """Milliseconds from starting `cudaport serve` to the diagnostics of `path`, opened right after initialize:
    published (push), or asked for (pull, as VS Code and Neovim do). `forget`: without the initialize answer the
    server kept from the last start (so without the prelude, cudaport.lsp.prelude), the rule cache still warm."""
    from bench_lsp import Server

    if forget:
        for record in Path(env["CUDAPORT_CACHE_DIR"]).glob("lsp-initialize-*.json"):
            record.unlink()
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)  # Server starts the process with this environment
    try:
        server = Server(path.resolve().parent, {}, capabilities={"textDocument": {"diagnostic": {}}} if pull else None)
    finally:
        os.environ.clear()
        os.environ.update(saved)
    uri = path.resolve().as_uri()
    language = "python" if path.suffix == ".py" else "cuda-cpp"
    text = path.read_text(encoding="utf-8", errors="replace")
    server.notify(
        "textDocument/didOpen", {"textDocument": {"uri": uri, "languageId": language, "version": 1, "text": text}}
    )
    if pull:
        server.request("textDocument/diagnostic", {"textDocument": {"uri": uri}})
    else:
        server.diagnostics(uri, 1)
    elapsed = (time.perf_counter() - server.started) * 1000
    server.close()
    return elapsed


def import_breakdown(arguments: list[str], env: dict[str, str], top: int = 12) -> list[tuple[int, int, str]]:
    """(self µs, cumulative µs, module) of the most expensive imports of one `cudaport` run."""
    command = [sys.executable, "-X", "importtime", "-m", "cudaport", *arguments]
    result = subprocess.run(command, env=env, capture_output=True, text=True)
    rows = []
    for line in result.stderr.splitlines():
        if not line.startswith("import time:") or "self [us]" in line:
            continue
        own, total, name = line[len("import time:") :].split("|")
        rows.append((int(own), int(total), name.rstrip()))
    return sorted(rows, reverse=True)[:top]


def _bytecode_free_copy(scratch: Path) -> Path:
    """A copy of the cudaport being measured without its __pycache__ folders, next to a link to its rule data (as
    a checkout lays them out: server/cudaport, rules/); the folder to put first on PYTHONPATH."""
    import cudaport

    package = Path(cudaport.__file__).resolve().parent
    copy = scratch / "checkout"
    shutil.copytree(package, copy / "server" / "cudaport", ignore=shutil.ignore_patterns("__pycache__"))
    rules = next(p for p in (package / "_rules", package.parents[1] / "rules") if p.is_dir())
    (copy / "rules").symlink_to(rules, target_is_directory=True)
    return copy / "server"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=15)
    parser.add_argument("--file", type=Path, action="append", help="files to check one at a time (repeatable)")
    parser.add_argument("--no-server", action="store_true", help="leave out the language server")
    args = parser.parse_args()
    files = args.file or [ROOT / "examples" / "cuda" / "saxpy.cu", ROOT / "examples" / "pytorch" / "train.py"]
    program = [str(CUDAPORT)] if CUDAPORT.exists() else [sys.executable, "-m", "cudaport"]
    module = [sys.executable, "-m", "cudaport"]
    scratch = Path(tempfile.mkdtemp(prefix="cudaport-bench-startup-"))
    warm = scratch / "warm"
    source = _bytecode_free_copy(scratch)
    for path in files:
        timed([*program, "check", str(path), "--exit-zero"], _env(warm))  # writes the warm cache and the bytecode
    copied = scratch / "warm-copy"  # the copy's own rule cache (its rules folder is another)
    timed([*program, "check", str(files[0]), "--exit-zero"], _env(copied, source))
    timed([*program, "check", str(files[0]), "--exit-zero", "--lang", "zh-CN"], _env(warm))  # and the catalogue
    cold_count = 0

    def cold_env() -> dict[str, str]:
        nonlocal cold_count
        cold_count += 1
        return _env(scratch / f"cold{cold_count}")  # a new, empty folder each time

    contenders: list[tuple[str, Callable[[], float]]] = [
        ("python -c pass", lambda: timed([sys.executable, "-c", "pass"], _env(None))),
        ("--version", lambda: timed([*program, "--version"], _env(warm))),
        ("--version, python -m cudaport", lambda: timed([*module, "--version"], _env(warm))),
        ("--version, bytecode cold", lambda: timed([*program, "--version"], _env(copied, source))),
    ]
    for path in files:
        command = [*program, "check", str(path), "--exit-zero"]
        name = path.name
        contenders += [
            (f"check {name}, caches warm", lambda c=command: timed(c, _env(warm))),
            (f"check {name}, --no-cache, rule cache warm", lambda c=[*command, "--no-cache"]: timed(c, _env(warm))),
            (f"check {name}, python -m, cache warm", lambda p=path: timed([*module, "check", str(p)], _env(warm))),
            (f"check {name}, bytecode cold, cache warm", lambda c=command: timed(c, _env(copied, source))),
            (f"check {name}, cache cold", lambda c=command: timed(c, cold_env())),
            (f"check {name}, no cache", lambda c=command: timed(c, _env(None))),
        ]
    chinese = [*program, "check", str(files[0]), "--exit-zero", "--lang", "zh-CN"]
    contenders.append((f"check {files[0].name}, zh-CN, caches warm", lambda: timed(chinese, _env(warm))))
    if not args.no_server:
        unkept = scratch / "unkept"  # the rule cache warm, the initialize answer forgotten before each start
        for path in files:
            for pull in (False, True):
                server_first_diagnostics(path, _env(warm), pull)  # keeps the initialize answer
                server_first_diagnostics(path, _env(unkept), pull)  # writes this folder's rule cache
            contenders += [
                (f"serve {path.name}: push, warm", lambda p=path: server_first_diagnostics(p, _env(warm))),
                (f"serve {path.name}: pull, warm", lambda p=path: server_first_diagnostics(p, _env(warm), True)),
                (
                    f"serve {path.name}: push, answer not kept",
                    lambda p=path: server_first_diagnostics(p, _env(unkept), forget=True),
                ),
                (f"serve {path.name}: push, cache cold", lambda p=path: server_first_diagnostics(p, cold_env())),
            ]
    times: dict[str, list[float]] = {label: [] for label, _ in contenders}
    cpu: dict[str, list[float]] = {label: [] for label, _ in contenders}
    for _ in range(args.rounds):
        for label, run in contenders:
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            times[label].append(run())
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu[label].append((after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000)

    load = os.getloadavg()
    print(f"{os.cpu_count()} CPUs, load {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}; {args.rounds} rounds; {program[0]}")
    python_best = min(times["python -c pass"])
    python_median = statistics.median(times["python -c pass"])
    heading = "wall-clock and processor time, ms"
    print(f"{heading:<50} {'best':>6} {'median':>7} {'best-python':>12} {'cpu med':>8} {'x python':>9}")
    verdicts = []
    for label, _ in contenders:
        best, median = min(times[label]), statistics.median(times[label])
        spent = statistics.median(cpu[label]) if not label.startswith("serve") else float("nan")
        ratio = median / python_median
        print(f"{label:<50} {best:>6.0f} {median:>7.0f} {best - python_best:>12.0f} {spent:>8.0f} {ratio:>8.1f}x")
        if label == "--version":
            verdicts.append((label, median, VERSION_TARGET_MS))
        elif label.startswith("check") and label.endswith(("caches warm", "rule cache warm")) and "-m" not in label:
            verdicts.append((label, median, CHECK_TARGET_MS if "zh-CN" not in label else TARGET_MS))
        elif label.endswith(", warm"):
            verdicts.append((label, median, TARGET_MS))
    for label, median, target in verdicts:
        status = "met" if median <= target else "NOT met"
        print(f"target <= {target:.0f} ms, {label}: median {median:.0f} ms, {status}")

    print("\nmost expensive imports of one warm run (self / cumulative ms):")
    for own, total, module in import_breakdown(["check", str(files[0]), "--exit-zero"], _env(warm)):
        print(f"  {own / 1000:6.1f} {total / 1000:7.1f}  {module}")
    shutil.rmtree(scratch, ignore_errors=True)  # after the breakdown, which reads the warm cache
    return 0 if all(median <= target for _, median, target in verdicts) else 1


if __name__ == "__main__":
    raise SystemExit(main())
