"""Does `cudaport fix --target hip` leave real CUDA code that compiles? Side by side with hipify-perl, in one run.

    .venv/bin/python bench/compile_after_fix.py TREE [-I Common] [--jobs N] [--show N] [--keep DIR]

TREE is copied twice (never edited): one copy gets `cudaport fix --target hip`, the other `hipify-perl -inplace`
(when hipify-perl is on PATH). Every `.cu` of TREE whose headers Debian's HIP 5.2 has is then compiled in both
copies with hipcc (`-fsyntax-only`, gfx906, `-D__HIP_PLATFORM_AMD__=1`). A `.cu` qualifies when every header it
includes exists on this machine, or is a CUDA header whose HIP counterpart (from cudaport's rule data) does: the
includes are listed by the preprocessor itself (`hipcc -M -MG` on the original file), so `#ifdef _WIN32` includes
do not count.

Printed: the compile rate of each tool, then every error hipcc reports in cudaport's output, classified:
- explained by a finding: cudaport left a `manual` or `blocker` finding on that line (of that file);
- HIP 5.2 lacks it: the error names an API of `HIP52_GAPS` (newer ROCm has it; cudaport rates it for the newest);
- unexplained: the rewrite broke something silently. The goal is none.
The rates count files; an error in a shared header (cuda-samples' Common/helper_cuda.h) fails every file using it.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from cudaport.ruleset import load_ruleset

C_SUFFIXES = {".cu", ".cuh", ".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx", ".inl"}
HIP_INCLUDE_ROOTS = [Path("/usr/include")]
# APIs Debian's HIP 5.2 does not have that newer ROCm releases do (../shared/notes/compile-checking-hip.md): an
# error naming one of them is the old compiler's, not the rewrite's.
HIP52_GAPS = {
    "__shfl_sync": "mask-taking shuffles arrived after HIP 5.2",
    "__shfl_up_sync": "mask-taking shuffles arrived after HIP 5.2",
    "__shfl_down_sync": "mask-taking shuffles arrived after HIP 5.2",
    "__shfl_xor_sync": "mask-taking shuffles arrived after HIP 5.2",
    "__ballot_sync": "mask-taking votes arrived after HIP 5.2",
    "__any_sync": "mask-taking votes arrived after HIP 5.2",
    "__all_sync": "mask-taking votes arrived after HIP 5.2",
    "__activemask": "arrived after HIP 5.2",
    "__syncwarp": "arrived after HIP 5.2",
    "meta_group_rank": "thread_block_tile::meta_group_rank arrived after HIP 5.2",
    "meta_group_size": "thread_block_tile::meta_group_size arrived after HIP 5.2",
    "hip_bf16.h": "the __hip_bfloat16 header arrived after HIP 5.2",
    "__hip_bfloat16": "arrived after HIP 5.2",
    "hipDrvGetErrorString": "arrived after HIP 5.2",
    "hipDrvGetErrorName": "arrived after HIP 5.2",
    "hipGraphAddMemAllocNode": "graph memory nodes arrived after HIP 5.2",
    "hipGraphAddMemFreeNode": "graph memory nodes arrived after HIP 5.2",
    "hipDeviceGraphMemTrim": "graph memory nodes arrived after HIP 5.2",
}
_ERROR = re.compile(r"^(?P<path>[^\s:][^:\n]*):(?P<line>\d+):(?P<col>\d+): (?:fatal )?error: (?P<message>.*)$", re.M)


@dataclass
class Outcome:
    path: str  # relative to the tree
    ok: bool
    errors: list[tuple[str, int, str]] = field(default_factory=list)  # (file relative to the tree, line, message)


def hip_env() -> dict[str, str]:
    return {**os.environ, "HIP_PLATFORM": "amd"}  # these machines also have nvcc, which hipcc would pick


def compile_flags(includes: list[str]) -> list[str]:
    flags = ["-std=c++17", "--offload-arch=gfx906", "-x", "hip", "-D__HIP_PLATFORM_AMD__=1"]
    return flags + [f"-I{i}" for i in includes]


def dependencies(hipcc: str, root: Path, source: Path, includes: list[str]) -> list[str]:
    """What `source` includes, as the preprocessor finds it; missing headers are listed as written."""
    command = [hipcc, *compile_flags(includes), "-M", "-MG", str(source)]
    result = subprocess.run(command, capture_output=True, text=True, env=hip_env(), cwd=root, timeout=300)
    listed = result.stdout.replace("\\\n", " ").split()
    return [name for name in listed[1:] if not name.endswith(":")]


def qualifies(
    hipcc: str, root: Path, source: Path, includes: list[str], hip_headers: dict[str, str]
) -> tuple[bool, str]:
    """Whether every header `source` needs exists here, after the CUDA ones are mapped to their HIP names."""
    for name in dependencies(hipcc, root, source, includes):
        if os.path.isabs(name) or (root / name).exists() or (source.parent / name).exists():
            continue
        if any((root / inc / name).exists() for inc in includes):
            continue
        replacement = hip_headers.get(name)
        if replacement is None:
            return False, f"needs <{name}>, which is neither on this machine nor a CUDA header"
        if not replacement:
            return False, f"needs <{name}>, which has no HIP counterpart"
        if not any((base / replacement).exists() for base in HIP_INCLUDE_ROOTS):
            return False, f"needs <{name}> → <{replacement}>, which Debian's HIP 5.2 lacks"
    return True, ""


def cuda_to_hip_headers() -> dict[str, str]:
    ruleset = load_ruleset()
    table: dict[str, str] = {}
    for name, symbol in ruleset.headers.items():
        mapping = symbol.targets.get("hip")
        table[name] = mapping.replacement if mapping is not None else ""
    return table


def compile_one(hipcc: str, root: Path, relative: str, includes: list[str]) -> Outcome:
    command = [hipcc, *compile_flags(includes), "-fsyntax-only", "-ferror-limit=0", relative]
    result = subprocess.run(command, capture_output=True, text=True, env=hip_env(), cwd=root, timeout=900)
    errors = []
    for match in _ERROR.finditer(result.stderr):
        path = Path(match["path"])
        shown = os.path.relpath(path if path.is_absolute() else root / path, root)
        errors.append((shown, int(match["line"]), match["message"]))
    return Outcome(relative, result.returncode == 0, errors)


def compile_all(hipcc: str, root: Path, files: list[str], includes: list[str], jobs: int) -> dict[str, Outcome]:
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        outcomes = pool.map(lambda rel: compile_one(hipcc, root, rel, includes), files)
        return {o.path: o for o in outcomes}


def run_cudaport_fix(tree: Path) -> None:
    command = [sys.executable, "-m", "cudaport", "fix", ".", "--target", "hip", "--fail-on", "never"]
    subprocess.run(command, cwd=tree, check=True, stdout=subprocess.DEVNULL)


def run_hipify(hipify: str, tree: Path) -> None:
    files = [str(p) for p in sorted(tree.rglob("*")) if p.suffix.lower() in C_SUFFIXES and p.is_file()]
    for chunk in range(0, len(files), 200):
        subprocess.run(
            ["perl", hipify, "-inplace", "-quiet-warnings", *files[chunk : chunk + 200]],
            cwd=tree,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )


def person_lines(tree: Path) -> set[tuple[str, int]]:
    """(file, line) of every manual or blocker finding cudaport leaves in the fixed tree."""
    command = [sys.executable, "-m", "cudaport", "check", ".", "--target", "hip", "--format", "json", "--exit-zero"]
    result = subprocess.run(command, cwd=tree, check=True, capture_output=True, text=True)
    document = json.loads(result.stdout)
    return {
        (os.path.normpath(d["path"]), d["line"])
        for d in document["diagnostics"]
        if d["difficulty"] in ("manual", "blocker")
    }


def gap_of(message: str) -> str | None:
    for name in HIP52_GAPS:
        if re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", message):
            return name
    return None


def classify(outcomes: Iterable[Outcome], flagged: set[tuple[str, int]]) -> dict[str, list[tuple[str, int, str]]]:
    """Each distinct error (file, line, message) once, under why it is there."""
    seen: set[tuple[str, int, str]] = set()
    kinds: dict[str, list[tuple[str, int, str]]] = {"finding": [], "gap": [], "unexplained": []}
    for outcome in outcomes:
        for error in outcome.errors:
            if error in seen:
                continue
            seen.add(error)
            path, line, message = error
            if (os.path.normpath(path), line) in flagged:
                kinds["finding"].append(error)
            elif gap_of(message) is not None:
                kinds["gap"].append(error)
            else:
                kinds["unexplained"].append(error)
    return kinds


def _shape(message: str) -> str:
    """An error message with the quoted names kept and numbers dropped: errors of one cause group together."""
    return re.sub(r"\d+", "N", message)[:140]


def _rate(outcomes: dict[str, Outcome]) -> str:
    good = sum(o.ok for o in outcomes.values())
    return f"{good:4d} / {len(outcomes):<4d} ({100 * good / max(1, len(outcomes)):5.1f}%)"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("tree", type=Path, help="a CUDA source tree (never modified)")
    parser.add_argument("-I", dest="includes", action="append", default=[], help="include folder, relative to TREE")
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--show", type=int, default=40, help="unexplained errors to print (default 40)")
    parser.add_argument("--keep", type=Path, help="keep the fixed copies in this folder")
    parser.add_argument("--no-hipify", action="store_true", help="measure cudaport only (quicker while iterating)")
    args = parser.parse_args()

    hipcc = shutil.which("hipcc")
    if hipcc is None:
        print("hipcc is not on PATH: apt-get install hipcc (Debian's ROCm 5.2)", file=sys.stderr)
        return 2
    hipify = None if args.no_hipify else shutil.which("hipify-perl")
    source = args.tree.resolve()
    work = Path(tempfile.mkdtemp(prefix="compile-after-fix-")) if args.keep is None else args.keep.resolve()
    try:
        return _run(hipcc, hipify, source, work, args)
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


def _run(hipcc: str, hipify: str | None, source: Path, work: Path, args: argparse.Namespace) -> int:
    candidates = sorted(str(p.relative_to(source)) for p in source.rglob("*.cu") if p.is_file())
    hip_headers = cuda_to_hip_headers()
    with ThreadPoolExecutor(max_workers=args.jobs) as pool:
        verdicts = list(
            pool.map(lambda rel: qualifies(hipcc, source, source / rel, args.includes, hip_headers), candidates)
        )
    chosen = [rel for rel, (ok, _) in zip(candidates, verdicts, strict=True) if ok]
    reasons = Counter(why for ok, why in verdicts if not ok)
    print(f"{source}: {len(candidates)} .cu files, {len(chosen)} with every header in Debian's HIP 5.2")
    for why, count in reasons.most_common(8):
        print(f"  left out {count:4d}: {why}")

    fixed = work / "cudaport"
    shutil.copytree(source, fixed, dirs_exist_ok=True)
    run_cudaport_fix(fixed)
    ours = compile_all(hipcc, fixed, chosen, args.includes, args.jobs)
    theirs: dict[str, Outcome] | None = None
    if hipify is not None:
        hipified = work / "hipify-perl"
        shutil.copytree(source, hipified, dirs_exist_ok=True)
        run_hipify(hipify, hipified)
        theirs = compile_all(hipcc, hipified, chosen, args.includes, args.jobs)

    print("\ncompiles with hipcc 5.2 after the rewrite (-fsyntax-only, gfx906)")
    print(f"  cudaport fix --target hip   {_rate(ours)}")
    if theirs is not None:
        print(f"  hipify-perl -inplace        {_rate(theirs)}")
        both = sum(ours[f].ok and theirs[f].ok for f in chosen)
        only_ours = sum(ours[f].ok and not theirs[f].ok for f in chosen)
        only_theirs = sum(theirs[f].ok and not ours[f].ok for f in chosen)
        print(f"  both {both}, only cudaport {only_ours}, only hipify-perl {only_theirs}")
    else:
        print("  hipify-perl                 not on PATH: not compared")

    kinds = classify(ours.values(), person_lines(fixed))
    total = sum(len(v) for v in kinds.values())
    print(f"\nerrors in cudaport's output: {total} distinct")
    print(f"  on a line with a manual/blocker finding  {len(kinds['finding']):5d}")
    gaps = Counter(gap_of(m) for _, _, m in kinds["gap"])
    print(f"  an API HIP 5.2 lacks                     {len(kinds['gap']):5d}  " + ", ".join(
        f"{name} ×{n}" for name, n in gaps.most_common()))  # fmt: skip
    print(f"  unexplained                              {len(kinds['unexplained']):5d}")
    shapes = Counter(_shape(message) for _, _, message in kinds["unexplained"])
    for shape, count in shapes.most_common(args.show):
        example = next(e for e in kinds["unexplained"] if _shape(e[2]) == shape)
        print(f"    {count:5d}  {shape}   e.g. {example[0]}:{example[1]}")
    failing = [o.path for o in ours.values() if not o.ok]
    if failing:
        print(f"\nfiles that fail after cudaport fix ({len(failing)}):")
        for path in failing[: args.show]:
            print(f"  {path}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
