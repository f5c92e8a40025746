"""The results cache: `cudaport check` over a tree cold (--no-cache, and with an empty cache folder, which the run
fills), warm (nothing changed) and with one file changed, side by side in one run. Target: a warm re-check costs at
most 10% of the cold run.

    .venv/bin/python bench/bench_cache.py [--tree DIR ...] [--rounds 3] [--format json] [--jobs 0]

Default trees: NVIDIA's cuda-samples (/work/corpora/cuda-samples, when there) and transformers' sdist
(bench/.corpus/transformers-4.52.4, see corpus.py). Each tree is copied to a temporary folder first (a changed file
must not change the corpus). The compiled rule data is kept in a cache folder of this run, written before any
timing, so every contender starts alike. Warm and one-file-changed rounds keep their best time; the cold ones run
once each (each fills or skips the cache). The output of every run is compared with the --no-cache run's: a cache
that changed a byte would be a bug, and the benchmark stops on one.

Then the language server's `workspace/diagnostic` scan of the same tree: with an empty results cache, and with the
cache the command line's runs left (the server reads the same records). Both scans must report the same number of
diagnostics.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from corpus import CORPUS

ROOT = Path(__file__).resolve().parents[1]
DEFAULT_TREES = [Path("/work/corpora/cuda-samples"), CORPUS / "transformers-4.52.4"]
TARGET = 0.10
_SOURCES = (".cu", ".py")


def _env(rules: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("CUDAPORT_NO_CACHE", "CUDAPORT_CACHE_DIR")}
    env["XDG_CACHE_HOME"] = str(rules)  # the rule data's cache, apart from the results cache measured
    env["PYTHONPATH"] = os.pathsep.join([str(ROOT / "server"), env.get("PYTHONPATH", "")])
    return env


def timed(tree: Path, extra: list[str], args: argparse.Namespace, env: dict[str, str]) -> tuple[float, bytes, str]:
    command = [sys.executable, "-m", "cudaport", "check", ".", "--format", args.format, "--exit-zero", "-v"]
    command += ["--jobs", str(args.jobs), *extra]
    start = time.perf_counter()
    done = subprocess.run(command, cwd=tree, env=env, capture_output=True)
    elapsed = time.perf_counter() - start
    if done.returncode != 0 or b"Traceback" in done.stderr:
        raise SystemExit(f"{' '.join(command)} failed ({done.returncode}): {done.stderr.decode()}")
    said = [line for line in done.stderr.decode().splitlines() if "cache:" in line]
    return elapsed, done.stdout, said[-1].removeprefix("cudaport: ") if said else ""


def changed_file(tree: Path) -> Path:
    """The file a one-file change edits: the CUDA (else Python) source in the middle of the tree's sorted list."""
    for suffix in _SOURCES:
        found = sorted(p for p in tree.rglob(f"*{suffix}") if ".cudaport_cache" not in p.parts)
        if found:
            return found[len(found) // 2]
    raise SystemExit(f"{tree}: no .cu or .py file to change")


def bench_tree(source: Path, args: argparse.Namespace, env: dict[str, str], scratch: Path) -> None:
    tree = scratch / source.name
    shutil.copytree(source, tree, symlinks=True)
    cache = scratch / f"{source.name}-cache"
    option = ["--cache-dir", str(cache)]
    files = sum(1 for _ in tree.rglob("*") if _.is_file())
    print(f"\n{source} ({files} files; check --format {args.format} --jobs {args.jobs})")

    uncached, expected, _ = timed(tree, ["--no-cache"], args, env)
    empty, output, said_cold = timed(tree, option, args, env)
    assert output == expected, "the first run with the cache said something else than --no-cache"
    warm: list[float] = []
    said_warm = ""
    for _ in range(args.rounds):
        elapsed, output, said_warm = timed(tree, option, args, env)
        assert output == expected, "a warm run said something else than the cold one"
        warm.append(elapsed)
    target = changed_file(tree)
    original = target.read_bytes()
    changed: list[float] = []
    said_changed = ""
    for round_number in range(args.rounds):
        comment = "#" if target.suffix == ".py" else "//"
        target.write_bytes(original + f"\n{comment} cudaport bench_cache round {round_number}\n".encode())
        elapsed, output, said_changed = timed(tree, option, args, env)
        _, fresh, _ = timed(tree, ["--no-cache"], args, env) if round_number == 0 else (0.0, output, "")
        assert output == fresh, "a run with one file changed said something else than --no-cache"
        changed.append(elapsed)
    target.write_bytes(original)

    size = sum(p.stat().st_size for p in cache.rglob("*") if p.is_file())
    rows = [
        ("cold, --no-cache", uncached, ""),
        ("cold, empty cache", empty, said_cold),
        ("warm (best)", min(warm), said_warm),
        (f"one file changed (best; {target.relative_to(tree)})", min(changed), said_changed),
    ]
    for name, seconds, said in rows:
        print(f"  {name:<60} {seconds:7.2f} s  {seconds / uncached:6.1%}  {said}")
    ratio = min(warm) / uncached
    verdict = "met" if ratio <= TARGET else "NOT met"
    print(f"  warm / cold: {ratio:.1%} (target <= {TARGET:.0%}: {verdict}); cache folder {size / 1e6:.1f} MB")
    cold_scan, cold_count, cold_said = workspace_scan(tree, scratch / f"{source.name}-server-cache", env)
    warm_scan, warm_count, warm_said = workspace_scan(tree, cache, env)
    assert cold_count == warm_count, f"the server's scans disagree: {cold_count} and {warm_count} diagnostics"
    print(f"  language server, workspace/diagnostic ({warm_count} diagnostics):")
    print(f"    {'empty results cache':<58} {cold_scan:7.2f} s  {cold_said}")
    print(f"    {'the command line cache':<58} {warm_scan:7.2f} s  {warm_scan / cold_scan:6.1%}  {warm_said}")


def workspace_scan(tree: Path, cache: Path, env: dict[str, str]) -> tuple[float, int, str]:
    """One server's workspace/diagnostic over `tree` with its results cache in `cache`: the seconds it took, the
    diagnostics it reported, and what the server logged about the cache."""
    from bench_lsp import Server

    server = Server(tree, {"logLevel": "info"}, environment={**env, "CUDAPORT_RESULTS_CACHE_DIR": str(cache)})
    try:
        start = time.perf_counter()
        answer = server.request("workspace/diagnostic", {"previousResultIds": []})
        elapsed = time.perf_counter() - start
        items = answer["result"]["items"]
        said = [m for m in server.logs if "cache:" in m]
    finally:
        server.close()
    return elapsed, sum(len(item.get("items", [])) for item in items), said[-1].split(": ", 2)[-1] if said else ""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--tree", action="append", type=Path, help="a tree to check (repeat; default: see above)")
    parser.add_argument("--rounds", type=int, default=3, help="warm and one-file-changed rounds (best kept)")
    parser.add_argument("--format", default="json", help="check's output format (default json)")
    parser.add_argument("--jobs", type=int, default=0, help="check's --jobs (default 0: automatic)")
    args = parser.parse_args()
    trees = args.tree or [t for t in DEFAULT_TREES if t.is_dir()]
    if not trees:
        raise SystemExit("no tree: give --tree DIR (and see bench/corpus.py)")
    with tempfile.TemporaryDirectory(prefix="cudaport-bench-cache-") as folder:
        scratch = Path(folder)
        env = _env(scratch / "rules")
        # the rule data compiled once, before any timing
        subprocess.run([sys.executable, "-m", "cudaport", "check", "--no-cache", str(ROOT / "examples")], env=env,
                       capture_output=True)  # fmt: skip
        for tree in trees:
            bench_tree(tree, args, env, scratch)


if __name__ == "__main__":
    main()
