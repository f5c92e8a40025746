"""Does `fix` do exactly what `check` promised, and does it never break a program? Measured on real trees.

    .venv/bin/python bench/fix_trust.py [--target npu] [--only deepspeed] [--tree /work/corpora/cuda-samples]

For each tree (the PyPI sdists of bench/corpus.py, and any --tree given) and target, on a copy of the tree:
- `check --format json`: findings, how many are fixable, how many blockers;
- `fix`: the count it says it fixed and the files it changed;
- `check` again: the findings left. Exact means: left = before - fixed, none new, none harder (findings are
  matched by file, rule and symbol; positions move with the edits);
- each changed file judged independently of cudaport: Python must still compile (`ast`), gain no ruff F-error
  (the `import torch_npu`/`torch_mlu` a fix adds is not counted) and read no `self.X` its class no longer
  defines; C/C++/CUDA must gain no tree-sitter ERROR or MISSING node.
Printed per tree and target, then totals per target; --show N prints up to N broken files with the reason.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import shutil
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import C_SUFFIXES, CORPUS, pypi_sdist, sdist

TREES = {
    "accelerate": ("pypi", "accelerate", "1.15.0"),
    "mmengine": ("pypi", "mmengine", "0.10.7"),
    "lightning": ("pypi", "lightning", "2.6.6"),
    "deepspeed": ("pypi", "deepspeed", "0.19.8"),
    "colossalai": ("pypi", "colossalai", "0.5.0"),
    "causal-conv1d": ("pypi", "causal-conv1d", "1.7.0"),
    "mamba-ssm": ("pypi", "mamba-ssm", "2.3.2.post1"),
    "torch-scatter": ("pypi", "torch-scatter", "2.1.2"),
    "llama-cpp-python": ("pip", "llama-cpp-python==0.3.36", ""),
}
ADDED_IMPORTS = {"import torch_npu", "import torch_mlu", "import torch_musa"}


def cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cudaport", *args], cwd=root, capture_output=True, text=True)


def findings(root: Path, target: str) -> list[dict[str, object]]:
    result = cli(root, "check", ".", "--target", target, "--format", "json", "--exit-zero", "--no-progress")
    if result.returncode != 0:
        raise SystemExit(f"cudaport check failed in {root}: {result.stderr[-2000:]}")
    return list(json.loads(result.stdout)["diagnostics"])


def snapshot(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes() for p in root.rglob("*") if p.is_file() and ".git" not in p.parts
    }


# ---- independent judges ------------------------------------------------------------------------------------------
def ruff_f(root: Path, names: list[str]) -> dict[str, Counter[str]]:
    """ruff's F-errors per file (the import a fix adds, unused by name, left out)."""
    if not names:
        return {}
    command = [sys.executable, "-m", "ruff", "check", "--isolated", "--select", "F", "--output-format", "json"]
    result = subprocess.run([*command, "--no-cache", *names], cwd=root, capture_output=True, text=True)
    out: dict[str, Counter[str]] = {name: Counter() for name in names}
    for error in json.loads(result.stdout or "[]"):
        name = Path(error["filename"]).resolve().relative_to(root.resolve()).as_posix()
        lines = (root / name).read_text(encoding="utf-8", errors="replace").splitlines()
        row = error["location"]["row"] - 1
        if error["code"] == "F401" and 0 <= row < len(lines) and lines[row].strip() in ADDED_IMPORTS:
            continue
        out.setdefault(name, Counter())[error["code"]] += 1
    return out


def self_attributes(tree: ast.AST) -> set[tuple[str, str]]:
    """(class, attribute) pairs read as `self.X` in a class that neither assigns `self.X` nor defines X."""
    missing: set[tuple[str, str]] = set()
    for node in ast.walk(tree):
        if not isinstance(node, ast.ClassDef):
            continue
        defined = {n.name for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))}
        for statement in node.body:
            for target in getattr(statement, "targets", [getattr(statement, "target", None)]):
                if isinstance(target, ast.Name):
                    defined.add(target.id)
        reads: set[str] = set()
        for inner in ast.walk(node):
            if isinstance(inner, ast.Attribute) and isinstance(inner.value, ast.Name) and inner.value.id == "self":
                (defined if isinstance(inner.ctx, (ast.Store, ast.Del)) else reads).add(inner.attr)
            elif isinstance(inner, ast.Call) and getattr(inner.func, "id", "") in ("setattr", "getattr"):
                defined.add("*")  # attributes set by name: nothing can be said
        if "*" not in defined:
            missing.update((node.name, attr) for attr in reads - defined)
    return missing


def python_problems(before: bytes, after: bytes) -> list[str]:
    try:
        old = ast.parse(before)
    except (SyntaxError, ValueError):
        return []  # nothing to compare against (Python 2, a template)
    try:
        new = ast.parse(after)
    except (SyntaxError, ValueError) as exc:
        return [f"no longer compiles: {exc}"]
    lost = self_attributes(new) - self_attributes(old)
    return [f"reads self.{attr} that class {cls} no longer defines" for cls, attr in sorted(lost)]


_C_PARSER = None


def c_errors(data: bytes) -> int:
    global _C_PARSER
    if _C_PARSER is None:
        import tree_sitter
        import tree_sitter_cuda

        _C_PARSER = tree_sitter.Parser(tree_sitter.Language(tree_sitter_cuda.language()))
    tree = _C_PARSER.parse(data)
    count = 0
    cursor = [tree.root_node]
    while cursor:
        node = cursor.pop()
        if node.is_error or node.is_missing:
            count += 1
        elif node.has_error:
            cursor.extend(node.children)
    return count


# ---- one tree, one target ----------------------------------------------------------------------------------------
@dataclass
class Outcome:
    findings: int = 0
    fixable: int = 0
    fixed: int = 0
    left: int = 0
    blockers_before: int = 0
    blockers_after: int = 0
    new: int = 0
    harder: int = 0
    unfixed: int = 0  # fixable findings still there after the fix
    files_changed: int = 0
    broken: list[tuple[str, str]] = field(default_factory=list)
    seconds: float = 0.0


_FIXED = re.compile(r"Fixed (\d+) findings?")


def key(finding: dict[str, object]) -> tuple[str, str]:
    """Findings are matched by file and rule: positions move with the edits, and a finding placed by the whole
    file (CP1032 at the first runtime call) names the call's new spelling after the fix."""
    return (str(finding["path"]), str(finding["rule"]))


def measure(root: Path, target: str) -> Outcome:
    out = Outcome()
    with tempfile.TemporaryDirectory() as tmp:
        # checked where it is fixed: a tree inside another checkout (this one's bench/.corpus) resolves includes
        # through that checkout too
        copy = Path(tmp) / root.name
        shutil.copytree(root, copy, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        before = findings(copy, target)
        out.findings = len(before)
        out.fixable = sum(1 for f in before if f["fixable"])
        out.blockers_before = sum(1 for f in before if f["difficulty"] == "blocker")
        original = snapshot(copy)
        started = time.perf_counter()
        result = cli(copy, "fix", ".", "--target", target, "--fail-on", "never", "--no-progress")
        out.seconds = time.perf_counter() - started
        if result.returncode != 0:
            raise SystemExit(f"cudaport fix failed in {copy}: {result.stderr[-2000:]}")
        match = _FIXED.search(result.stdout)
        out.fixed = int(match.group(1)) if match else 0
        fixed = snapshot(copy)
        changed = [name for name, data in fixed.items() if original.get(name) != data and name in original]
        out.files_changed = len(changed)
        after = findings(copy, target)
        py = [n for n in changed if n.endswith(".py")]
        errors_after = ruff_f(copy, py)
        for name in py:
            (copy / name).write_bytes(original[name])
        errors_before = ruff_f(copy, py)
        for name in changed:
            problems: list[str] = []
            if name.endswith(".py"):
                gained = errors_after.get(name, Counter()) - errors_before.get(name, Counter())
                problems += [f"new ruff {code} x{n}" for code, n in sorted(gained.items())]
                problems += python_problems(original[name], fixed[name])
            elif Path(name).suffix.lower() in C_SUFFIXES and c_errors(fixed[name]) > c_errors(original[name]):
                problems.append("new tree-sitter ERROR/MISSING nodes")
            if problems:
                out.broken.append((name, "; ".join(problems)))
    out.left = len(after)
    out.blockers_after = sum(1 for f in after if f["difficulty"] == "blocker")
    expected = Counter(key(f) for f in before if not f["fixable"])
    got = Counter(key(f) for f in after)
    extra = got - expected
    fixable = Counter(key(f) for f in before if f["fixable"])
    out.unfixed = sum(min(n, fixable[k]) for k, n in extra.items())
    out.new = sum(extra.values()) - out.unfixed
    levels = {"portable": 0, "mechanical": 1, "manual": 2, "blocker": 3}
    hardest_before: dict[tuple[str, str], int] = {}
    for f in before:
        hardest_before[key(f)] = max(hardest_before.get(key(f), -1), levels[str(f["difficulty"])])
    out.harder = sum(1 for f in after if levels[str(f["difficulty"])] > hardest_before.get(key(f), 9))
    return out


def tree_roots(only: list[str] | None, extra: list[str]) -> dict[str, Path]:
    roots: dict[str, Path] = {}
    for name, (kind, spec, version) in TREES.items():
        if only and name not in only:
            continue
        roots[name] = pypi_sdist(spec, version) if kind == "pypi" else sdist(spec)
    for given in extra:
        roots[Path(given).name] = Path(given).resolve()
    return roots


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--target", action="append", help="targets (default: hip, npu, mlu)")
    parser.add_argument("--only", action="append", help="only these PyPI trees (names above)")
    parser.add_argument("--tree", action="append", default=[], help="another tree to measure (a folder)")
    parser.add_argument("--show", type=int, default=10, help="broken files to print per tree and target")
    args = parser.parse_args()
    targets = args.target or ["hip", "npu", "mlu"]
    totals: dict[str, Counter[str]] = {t: Counter() for t in targets}
    print(f"corpus: {CORPUS}")
    for name, root in tree_roots(args.only, args.tree).items():
        for target in targets:
            o = measure(root, target)
            exact = o.left == o.findings - o.fixed and not o.new and not o.harder
            print(
                f"{name:18} {target:4} findings {o.findings:6}  fixable {o.fixable:5}  fixed {o.fixed:5}  "
                f"left {o.left:6} (expected {o.findings - o.fixed})  new {o.new:4}  harder {o.harder:3}  "
                f"still-fixable-left {o.unfixed:4}  blockers {o.blockers_before}->{o.blockers_after}  "
                f"files changed {o.files_changed:4}  broken {len(o.broken):3}  fix {o.seconds:.1f}s"
                f"  {'exact' if exact else 'NOT EXACT'}"
            )
            for file, why in o.broken[: args.show]:
                print(f"    broken: {file}: {why}")
            t = totals[target]
            for field_name in ("findings", "fixable", "fixed", "left", "new", "harder", "files_changed"):
                t[field_name] += getattr(o, field_name)
            t["blockers_before"] += o.blockers_before
            t["blockers_after"] += o.blockers_after
            t["broken"] += len(o.broken)
    print("\ntotal")
    for target, t in totals.items():
        print(
            f"  {target}: findings {t['findings']}, fixable {t['fixable']}, fixed {t['fixed']}, left {t['left']} "
            f"(expected {t['findings'] - t['fixed']}), new {t['new']}, harder {t['harder']}, blockers "
            f"{t['blockers_before']} -> {t['blockers_after']}, files changed {t['files_changed']}, "
            f"files broken {t['broken']}"
        )


if __name__ == "__main__":
    main()
