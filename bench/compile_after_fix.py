"""Does `cudaport fix --target hip@5.2` leave real CUDA code that compiles? Both styles and hipify-perl, in one run.

    .venv/bin/python bench/compile_after_fix.py TREE [-I Common] [--jobs N] [--show N] [--keep DIR] [--no-nvcc]

TREE is copied (never edited): one copy gets `cudaport fix --target hip@5.2` (the rename style), one
`cudaport fix --style dual-stack --target hip@5.2`, one `hipify-perl -inplace` (when hipify-perl is on PATH). Every
`.cu` of TREE whose headers Debian's HIP 5.2 has is then compiled in each copy with hipcc (`-fsyntax-only`, gfx906,
`-D__HIP_PLATFORM_AMD__=1`), and with nvcc (CUDA 13, `-c` for sm_80) as written and in both cudaport copies: the
dual-stack copy must still build for CUDA. A `.cu` qualifies when every header it includes exists on this machine,
or is a CUDA header whose HIP counterpart (from cudaport's rule data) does: the includes are listed by the
preprocessor itself (`hipcc -M -MG` on the original file), so `#ifdef _WIN32` includes do not count.

Printed: the compile rate of each tool, then every error hipcc reports in cudaport's output, classified:
- a finding on the line: cudaport left a `manual` or `blocker` finding on that line (of that file);
- a finding at the cause: on a candidate hipcc names in a note (an ambiguous operator's other definition), on the
  `#if` that selects the failing code, or, for a name hipcc does not know, on the `#if` around its declaration or
  around the include that brings it (an error inside a header with no note in the tree takes the instantiation
  note of the error printed just before it, when both sit in one function body of that header);
- HIP 5.2 lacks it: the error names a HIP API that cudaport's rule data gives as a counterpart (or that the newer
  HIP headers of --newer-hip declare) but Debian's HIP 5.2 headers do not, or one of `HIP52_GAPS`; listed by name;
- after a gap: later errors of a file that already fails on such a gap (hipcc goes on with what the missing
  declaration left undefined);
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

from cudaport.knowledge.ruleset import load_ruleset

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import check_command

C_SUFFIXES = {".cu", ".cuh", ".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx", ".inl"}
HIP_INCLUDE_ROOTS = [Path("/usr/include")]
# Where Debian's HIP 5.2 and its libraries put their headers.
HIP_52_HEADERS = [Path(p) for p in ("/usr/include/hip", "/usr/include/hiprand", "/usr/include/rocrand",
                                     "/usr/include/hipsparse", "/usr/include/rocsparse")]  # fmt: skip
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
_DIAGNOSTIC = re.compile(
    r"^(?P<path>[^\s:][^:\n]*):(?P<line>\d+):(?P<col>\d+): (?P<kind>(?:fatal )?error|note): (?P<message>.*)$", re.M
)
_C_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_QUOTED = re.compile(r"'([A-Za-z_]\w*)'")
_DIRECTIVE = re.compile(r"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|else|endif)\b")
# Messages of a name the compiler does not know (its declaration may sit under an #if the rewrite left false).
_UNKNOWN_NAME = re.compile(r"undeclared identifier|unknown type name|no (?:member|template|type) named")
_INCLUDE = re.compile(r'^[ \t]*#[ \t]*include[ \t]*[<"]([^>"]+)[>"]')


Error = tuple[str, int, str]  # (file relative to the tree, line, message)


@dataclass
class Outcome:
    path: str  # relative to the tree
    ok: bool
    errors: list[Error] = field(default_factory=list)
    notes: dict[Error, list[tuple[str, int]]] = field(default_factory=dict)  # the notes hipcc prints after each


def hip_env() -> dict[str, str]:
    return {**os.environ, "HIP_PLATFORM": "amd"}  # these machines also have nvcc, which hipcc would pick


# Macros a project's ROCm build defines (DeepSpeed's op builder passes -DROCM_WAVEFRONT_SIZE=64): --hip-define.
HIP_DEFINES: list[str] = []


def compile_flags(includes: list[str]) -> list[str]:
    flags = ["-std=c++17", "--offload-arch=gfx906", "-x", "hip", "-D__HIP_PLATFORM_AMD__=1"]
    flags += [f"-D{define}" for define in HIP_DEFINES]
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
    own = str(Path(relative).parent)  # the sample's own folder, as its build puts it on the include path
    command = [hipcc, *compile_flags([*includes, own]), "-fsyntax-only", "-ferror-limit=0", relative]
    result = subprocess.run(command, capture_output=True, text=True, env=hip_env(), cwd=root, timeout=900)
    outcome = Outcome(relative, result.returncode == 0)
    current: Error | None = None
    for match in _DIAGNOSTIC.finditer(result.stderr):
        path = Path(match["path"])
        shown = os.path.relpath(path if path.is_absolute() else root / path, root)
        if match["kind"] == "note":
            if current is not None:
                outcome.notes.setdefault(current, []).append((shown, int(match["line"])))
            continue
        current = (shown, int(match["line"]), match["message"])
        outcome.errors.append(current)
    return outcome


def compile_all(hipcc: str, root: Path, files: list[str], includes: list[str], jobs: int) -> dict[str, Outcome]:
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        outcomes = pool.map(lambda rel: compile_one(hipcc, root, rel, includes), files)
        return {o.path: o for o in outcomes}


# Debian's hipcc is ROCm 5.2: the rule data rates each API against that release.
TARGET = "hip@5.2"


def run_cudaport_fix(tree: Path, style: str = "rename") -> None:
    command = [sys.executable, "-m", "cudaport", "fix", ".", "--target", TARGET, "--fail-on", "never"]
    subprocess.run([*command, "--style", style], cwd=tree, check=True, stdout=subprocess.DEVNULL)


def nvcc_compile_one(nvcc: str, root: Path, relative: str, includes: list[str]) -> Outcome:
    """Whether `relative` builds with nvcc (device code for sm_80 as well as the host side)."""
    own = str(Path(relative).parent)
    flags = ["-std=c++17", "-arch=sm_80", "-x", "cu", "-c", "-o", os.devnull, *[f"-I{i}" for i in [*includes, own]]]
    result = subprocess.run([nvcc, *flags, relative], capture_output=True, text=True, cwd=root, timeout=900)
    return Outcome(relative, result.returncode == 0)


def nvcc_compile_all(nvcc: str, root: Path, files: list[str], includes: list[str], jobs: int) -> dict[str, Outcome]:
    with ThreadPoolExecutor(max_workers=jobs) as pool:
        return {o.path: o for o in pool.map(lambda rel: nvcc_compile_one(nvcc, root, rel, includes), files)}


def find_nvcc() -> str | None:
    for candidate in (shutil.which("nvcc"), "/usr/local/cuda/bin/nvcc"):
        if candidate and Path(candidate).is_file():
            return candidate
    return None


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
    command = check_command(".", TARGET)
    result = subprocess.run(command, cwd=tree, check=True, capture_output=True, text=True)
    document = json.loads(result.stdout)
    return {
        (os.path.normpath(d["path"]), d["line"])
        for d in document["diagnostics"]
        if d["difficulty"] in ("manual", "blocker")
    }


class Explainer:
    """Why an error is there: the findings cudaport left in the fixed tree, followed to the cause."""

    def __init__(self, tree: Path, flagged: set[tuple[str, int]], gaps: dict[str, str]) -> None:
        self.tree = tree
        self.flagged = flagged
        self.gaps = gaps
        self._lines: dict[str, list[str]] = {}
        self._chains: dict[str, list[tuple[int, int, list[int]]]] = {}
        self._declared: dict[str, list[tuple[str, int]]] | None = None
        self._by_name: dict[str, list[str]] | None = None  # file name -> the tree's files of that name
        self._included: dict[str, set[str]] = {}

    def lines(self, path: str) -> list[str]:
        if path not in self._lines:
            try:
                text = (self.tree / path).read_text(encoding="utf-8", errors="replace")
            except OSError:
                text = ""
            self._lines[path] = text.splitlines()
        return self._lines[path]

    def chains(self, path: str) -> list[tuple[int, int, list[int]]]:
        """(first line, last line, lines of its #if/#elif) of every conditional chain of a file."""
        if path not in self._chains:
            chains: list[tuple[int, int, list[int]]] = []
            stack: list[tuple[int, list[int]]] = []
            for number, line in enumerate(self.lines(path), start=1):
                match = _DIRECTIVE.match(line)
                if match is None:
                    continue
                keyword = match.group(1)
                if keyword.startswith("if"):
                    stack.append((number, [number]))
                elif keyword == "elif" and stack:
                    stack[-1][1].append(number)
                elif keyword == "endif" and stack:
                    start, tests = stack.pop()
                    chains.append((start, number, tests))
            chains.extend((start, len(self.lines(path)), tests) for start, tests in stack)
            self._chains[path] = chains
        return self._chains[path]

    def same_body(self, path: str, first: int, later: int) -> bool:
        """Line `later` of a header is still inside the innermost block that holds line `first` (one function body):
        no brace between them closes more than it opens."""
        if later < first:
            return False  # clang reports one body's errors in source order
        text = _C_COMMENT.sub(" ", "\n".join(self.lines(path)[first - 1 : later - 1]))
        text = re.sub(r'"(?:[^"\\\n]|\\.)*"|\'(?:[^\'\\\n]|\\.)*\'', " ", text)  # braces in literals
        depth = 0
        for char in text:
            if char == "{":
                depth += 1
            elif char == "}":
                depth -= 1
                if depth < 0:
                    return False
        return True

    def selected_by_finding(self, path: str, line: int) -> bool:
        """The line sits in a conditional chain whose test carries a finding (`#if CUDART_VERSION >= 2020`)."""
        normal = os.path.normpath(path)
        return any(
            start <= line <= end and any((normal, test) in self.flagged for test in tests)
            for start, end, tests in self.chains(path)
        )

    def declarations(self, name: str) -> list[tuple[str, int]]:
        if self._declared is None:
            self._declared = {}
            for source in self.tree.rglob("*"):
                if source.suffix.lower() not in C_SUFFIXES or not source.is_file():
                    continue
                relative = str(source.relative_to(self.tree))
                for number, line in enumerate(self.lines(relative), start=1):
                    for word in set(re.findall(r"[A-Za-z_]\w*", line)):
                        self._declared.setdefault(word, []).append((relative, number))
        return self._declared.get(name, [])

    def why(self, error: Error, notes: list[tuple[str, int]], source: str) -> str:
        """`source` is the file compiled (the error may sit in a header it includes)."""
        path, line, message = error
        if (os.path.normpath(path), line) in self.flagged:
            return "finding"
        if any((os.path.normpath(p), n) in self.flagged for p, n in notes) or self.selected_by_finding(path, line):
            return "cause"
        names = _QUOTED.findall(message)
        if _UNKNOWN_NAME.search(message):
            for name in names[:1]:  # the unknown name; later quotes name the class it was looked up in
                if self._declared_under_finding(source, path, name):
                    return "cause"
        if any(name in self.gaps for name in names):
            return "gap"
        return "unexplained"

    def included(self, source: str) -> set[str]:
        """`source` and every file of the tree it includes, directly or not (an include found by its name, as the
        build's -I folders would)."""
        if source not in self._included:
            if self._by_name is None:
                self._by_name = {}
                for found in self.tree.rglob("*"):
                    if found.suffix.lower() in C_SUFFIXES and found.is_file():
                        relative = str(found.relative_to(self.tree))
                        self._by_name.setdefault(found.name, []).append(relative)
            seen = {os.path.normpath(source)}
            pending = [source]
            while pending:
                current = pending.pop()
                for text in self.lines(current):
                    match = _INCLUDE.match(text)
                    for header in self._by_name.get(os.path.basename(match.group(1)), []) if match else ():
                        if os.path.normpath(header) not in seen:
                            seen.add(os.path.normpath(header))
                            pending.append(header)
            self._included[source] = seen
        return self._included[source]

    def _declared_under_finding(self, source: str, path: str, name: str) -> bool:
        """A name hipcc does not know, written in the compiled file or a header it includes where a flagged `#if`
        leaves it out, or in a header whose include a flagged `#if` of the failing file leaves out. (A word counts
        as a declaration wherever it is written: this is why it is limited to what the compile reads.)"""
        reachable = self.included(source)
        for where, number in self.declarations(name):
            if os.path.normpath(where) not in reachable:
                continue
            if self.selected_by_finding(where, number):
                return True
            basename = os.path.basename(where)
            for include_line, text in enumerate(self.lines(path), start=1):
                match = _INCLUDE.match(text)
                if (
                    match
                    and os.path.basename(match.group(1)) == basename
                    and self.selected_by_finding(path, include_line)
                ):
                    return True
        return False


def hip52_gaps(ruleset_hip_names: set[str], newer: list[Path]) -> dict[str, str]:
    """HIP names that newer ROCm has and Debian's HIP 5.2 headers do not declare: name -> where it comes from."""
    declared: set[str] = set()
    for folder in HIP_52_HEADERS:
        for header in folder.rglob("*.h*"):
            if {"nvidia_detail", "nvcc_detail"} & set(header.parts):
                continue  # HIP's NVIDIA platform maps to CUDA's names: not what the AMD build declares
            text = _C_COMMENT.sub(" ", header.read_text(encoding="utf-8", errors="replace"))
            declared.update(re.findall(r"[A-Za-z_]\w*", text))
    gaps = {name: why for name, why in HIP52_GAPS.items()}
    gaps.update({n: "a HIP counterpart in cudaport's rule data" for n in ruleset_hip_names - declared})
    for folder in newer:
        for header in folder.rglob("*.h*"):
            for name in set(re.findall(r"[A-Za-z_]\w*", header.read_text(encoding="utf-8", errors="replace"))):
                if name not in declared and name not in gaps:
                    gaps[name] = f"declared by {folder.name}'s newer HIP headers"
    return gaps


def rule_data_hip_names() -> set[str]:
    ruleset = load_ruleset()
    names = set()
    for symbol in ruleset.symbols.values():
        mapping = symbol.targets.get("hip")
        if mapping is not None and mapping.replacement and mapping.replacement != symbol.name:
            names.add(mapping.replacement)
    return names


def classify(outcomes: Iterable[Outcome], explainer: Explainer) -> dict[str, list[Error]]:
    """Each distinct error (file, line, message) once, under why it is there."""
    seen: set[Error] = set()
    kinds: dict[str, list[Error]] = {"finding": [], "cause": [], "gap": [], "after-gap": [], "unexplained": []}
    for outcome in outcomes:
        first_gap: dict[str, int] = {}
        previous: tuple[Error, list[tuple[str, int]]] | None = None  # the error before, with the notes it counted
        for error in outcome.errors:
            notes = outcome.notes.get(error, [])
            if _outside_tree(error[0]) and not any(not _outside_tree(p) for p, _ in notes) and previous is not None:
                # clang prints the instantiation that leads into a header once, with the first error of that
                # instantiation: the next errors of the same function body follow it at once and have no note
                # inside the tree (at most "candidate" notes in other headers). Only those inherit its notes: an
                # error further on in the header, or after another error, may have another cause.
                (before, before_notes) = previous
                if before[0] == error[0] and explainer.same_body(error[0], before[1], error[1]):
                    notes = notes + [n for n in before_notes if not _outside_tree(n[0])]
            previous = (error, notes)
            why = explainer.why(error, notes, outcome.path)
            if why == "gap":
                first_gap.setdefault(error[0], error[1])
            elif why == "unexplained" and error[0] in first_gap and error[1] >= first_gap[error[0]]:
                why = "after-gap"  # hipcc goes on with what the missing declaration left undefined
            if error not in seen:
                seen.add(error)
                kinds[why].append(error)
    return kinds


def _outside_tree(path: str) -> bool:
    return os.path.isabs(path) or path.startswith("..")


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
    parser.add_argument("--no-nvcc", action="store_true", help="skip the nvcc builds (hipcc only)")
    parser.add_argument(
        "--hip-define",
        action="append",
        default=[],
        metavar="NAME=VALUE",
        help="a macro the project's ROCm build defines (DeepSpeed: ROCM_WAVEFRONT_SIZE=64)",
    )
    parser.add_argument(
        "--newer-hip",
        action="append",
        default=[],
        metavar="DIR",
        help="headers of a newer HIP (ROCm/HIP's include/, say): what they declare and 5.2 lacks counts as a gap",
    )
    args = parser.parse_args()
    HIP_DEFINES.extend(args.hip_define)

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
    dual = work / "cudaport-dual-stack"
    shutil.copytree(source, dual, dirs_exist_ok=True)
    run_cudaport_fix(dual, "dual-stack")
    dual_hip = compile_all(hipcc, dual, chosen, args.includes, args.jobs)
    theirs: dict[str, Outcome] | None = None
    if hipify is not None:
        hipified = work / "hipify-perl"
        shutil.copytree(source, hipified, dirs_exist_ok=True)
        run_hipify(hipify, hipified)
        theirs = compile_all(hipcc, hipified, chosen, args.includes, args.jobs)

    print("\ncompiles with hipcc 5.2 after the rewrite (-fsyntax-only, gfx906)")
    print(f"  cudaport fix --target {TARGET}                      {_rate(ours)}")
    print(f"  cudaport fix --style dual-stack --target {TARGET}   {_rate(dual_hip)}")
    if theirs is not None:
        print(f"  hipify-perl -inplace                                 {_rate(theirs)}")
        both = sum(ours[f].ok and theirs[f].ok for f in chosen)
        only_ours = sum(ours[f].ok and not theirs[f].ok for f in chosen)
        only_theirs = sum(theirs[f].ok and not ours[f].ok for f in chosen)
        print(f"  rename and hipify-perl: both {both}, only cudaport {only_ours}, only hipify-perl {only_theirs}")
    else:
        print("  hipify-perl                 not on PATH: not compared")
    nvcc = None if args.no_nvcc else find_nvcc()
    if nvcc is not None:
        as_written = nvcc_compile_all(nvcc, source, chosen, args.includes, args.jobs)
        renamed = nvcc_compile_all(nvcc, fixed, chosen, args.includes, args.jobs)
        dual_cuda = nvcc_compile_all(nvcc, dual, chosen, args.includes, args.jobs)
        print(f"\ncompiles with nvcc ({nvcc}, -c, sm_80)")
        print(f"  as written                                           {_rate(as_written)}")
        print(f"  cudaport fix --target {TARGET}                      {_rate(renamed)}")
        print(f"  cudaport fix --style dual-stack --target {TARGET}   {_rate(dual_cuda)}")
        built = [f for f in chosen if as_written[f].ok]
        kept = sum(dual_cuda[f].ok for f in built)
        both = sum(dual_cuda[f].ok and dual_hip[f].ok for f in chosen)
        print(f"  of the {len(built)} that build with nvcc as written, the dual-stack copy still builds {kept}")
        print(f"  dual-stack copy builds with both nvcc and hipcc: {both} / {len(chosen)}")
        lost = [f for f in built if not dual_cuda[f].ok]
        for path in lost[: args.show]:
            print(f"    no longer builds with nvcc: {path}")
    else:
        print("\nnvcc: not measured (--no-nvcc, or no nvcc on PATH or in /usr/local/cuda)")

    gaps = hip52_gaps(rule_data_hip_names(), [Path(p) for p in args.newer_hip])
    for label, tree, outcomes in (("rename", fixed, ours), ("dual-stack", dual, dual_hip)):
        _explain(label, tree, outcomes, gaps, args.show)
    return 0


def _explain(label: str, fixed: Path, ours: dict[str, Outcome], gaps: dict[str, str], show: int) -> None:
    explainer = Explainer(fixed, person_lines(fixed), gaps)
    kinds = classify(ours.values(), explainer)
    total = sum(len(v) for v in kinds.values())
    print(f"\nhipcc errors in cudaport's output ({label}): {total} distinct")
    print(f"  a manual/blocker finding on the line     {len(kinds['finding']):5d}")
    print(f"  a manual/blocker finding at the cause    {len(kinds['cause']):5d}  (a note's candidate, the #if around)")
    missing = Counter(next(n for n in _QUOTED.findall(m) if n in gaps) for _, _, m in kinds["gap"])
    print(f"  an API HIP 5.2 lacks                     {len(kinds['gap']):5d}")
    for name, count in missing.most_common():
        print(f"    {name} ×{count}: {gaps[name]}")
    print(
        f"  after such a gap in the same file        {len(kinds['after-gap']):5d}  (what the missing declaration left)"
    )
    print(f"  unexplained                              {len(kinds['unexplained']):5d}")
    shapes = Counter(_shape(message) for _, _, message in kinds["unexplained"])
    for shape, count in shapes.most_common(show):
        example = next(e for e in kinds["unexplained"] if _shape(e[2]) == shape)
        print(f"    {count:5d}  {shape}   e.g. {example[0]}:{example[1]}")
    failing = [o.path for o in ours.values() if not o.ok]
    if failing:
        print(f"\nfiles that fail with hipcc after cudaport fix ({label}, {len(failing)}):")
        for path in failing[:show]:
            print(f"  {path}")


if __name__ == "__main__":
    raise SystemExit(main())
