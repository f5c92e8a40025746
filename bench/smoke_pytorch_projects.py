"""Smoke run on real multi-device PyTorch training frameworks from PyPI: what cudaport finds in their Python code per
target, and whether `fix` leaves code that already runs on the target alone.

    .venv/bin/python bench/smoke_pytorch_projects.py [--sample 60] [--seed 1] [--only accelerate]

The sdists are downloaded into bench/.corpus/ (never committed). For each project and target (hip, npu, mlu):
- the findings of its `.py` files per rule and difficulty;
- after `fix --target T` on a copy: the changed lines that already named the target before the fix (a word `npu`,
  `hccl`, `torch_npu`, `is_npu_available`, ... for npu) — the goal is 0;
- the changed lines with an `is_available()` probe inside a CUDA-only path (a def or class whose name says CUDA,
  Triton, TensorRT, flash-attn, apex or an extension, or a condition or the next lines naming nvcc, CUDA_HOME,
  CUDAExtension, ...) — the goal is 0. Both are found by plain patterns here, independently of cudaport;
- the errors `ruff check --select F,E9` reports after the fix that it did not before, and whether a second `fix`
  changes anything (it must not).
With --sample N, N findings per target drawn at random over all projects are printed with their line, to be read.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import pypi_sdist
from cudaport.knowledge.ruleset import load_ruleset

PROJECTS = {  # multi-device training frameworks: CUDA beside NPU, MLU, XPU, ... code paths
    "accelerate": "1.15.0",
    "mmengine": "0.10.7",
    "lightning": "2.6.6",
    "deepspeed": "0.19.8",
    "colossalai": "0.5.0",
}
# the words that name each target in code: the rule data's own (`ported-words` in rules/python.toml)
TARGET_WORDS = {
    name: {str(word).lower() for word in entry.get("ported-words", [])}
    for name, entry in load_ruleset().tables["python"]["target"].items()
}
# what the issue calls a CUDA-only path: a CUDA extension, nvcc, CUDA_HOME, Triton, TensorRT, flash-attn, apex
CUDA_ONLY = re.compile(
    r"cuda_?home|nvcc|cudaextension|cpp_extension|triton|tensorrt|\btrt\b|flash_?attn|\bapex\b", re.I
)
CUDA_ONLY_NAME = re.compile(r"cuda|triton|tensorrt|\btrt|flash|apex|nvcc", re.I)  # CudaExtension, load_cuda, ...
_DEFINITION = re.compile(r"^(\s*)(?:async\s+)?(def|class)\s+(\w+)(\([^)]*\))?")


def tokens(line: str) -> set[str]:
    """Words of a line, also split at underscores and at lower-to-upper case changes."""
    out: set[str] = set()
    for word in re.findall(r"[A-Za-z0-9_]+", line):
        spaced = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", word)
        out.update(part.lower() for part in spaced.split("_") if part)
    return out


def names_target(line: str, target: str) -> bool:
    return bool(tokens(line) & TARGET_WORDS[target])


def enclosing_names(lines: list[str], index: int) -> list[str]:
    """The names of the defs and classes around line `index` (0-based), innermost first (a class with its bases)."""
    names = []
    indent = len(lines[index]) - len(lines[index].lstrip())
    for number in range(index - 1, -1, -1):
        match = _DEFINITION.match(lines[number])
        if match and len(match.group(1)) < indent:
            names.append(match.group(3) + (match.group(4) or "" if match.group(2) == "class" else ""))
            indent = len(match.group(1))
    return names


def cuda_only_probe(lines: list[str], index: int) -> bool:
    line = lines[index]
    if "is_available" not in line:
        return False
    if any(CUDA_ONLY_NAME.search(name) for name in enclosing_names(lines, index)):
        return True
    return bool(CUDA_ONLY.search(" ".join(lines[index : index + 4])))


def python_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.py") if p.is_file())


def cli(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "cudaport", *args], cwd=root, capture_output=True, text=True)


def check(root: Path, target: str) -> list[dict[str, object]]:
    result = cli(root, "check", ".", "--target", target, "--format", "json", "--exit-zero", "--select", "CP7")
    if result.returncode != 0:
        raise SystemExit(f"cudaport check failed in {root}: {result.stderr}")
    return list(json.loads(result.stdout)["diagnostics"])


def ruff_errors(root: Path) -> Counter[str]:
    command = [sys.executable, "-m", "ruff", "check", "--select", "F,E9", "--output-format", "json", "--no-cache"]
    result = subprocess.run([*command, "--isolated", "."], cwd=root, capture_output=True, text=True)
    found = json.loads(result.stdout or "[]")
    out: Counter[str] = Counter()
    for error in found:
        name = Path(error["filename"]).relative_to(root.resolve())
        line = (root / name).read_text(encoding="utf-8", errors="replace").splitlines()[error["location"]["row"] - 1]
        # the `import torch_npu` a fix adds is unused by name; without a ruff/flake8 configuration it gets no noqa
        added = error["code"] == "F401" and line.strip() in ("import torch_npu", "import torch_mlu")
        out[f"{name}:{'added-import-F401' if added else error['code']}"] += 1
    return out


def read_lines(root: Path) -> dict[str, list[str]]:
    return {
        p.relative_to(root).as_posix(): p.read_text(encoding="utf-8", errors="replace").splitlines()
        for p in python_files(root)
    }


def changed_lines(before: dict[str, list[str]], after: dict[str, list[str]]) -> list[tuple[str, int, str, str]]:
    """(file, 0-based line, before, after) for lines a fix changed in place (it never adds lines but imports)."""
    out = []
    for name, old in before.items():
        new = after.get(name, old)
        if new == old:
            continue
        shift = len(new) - len(old)  # an inserted `import torch_npu` moves the lines below it
        for index, line in enumerate(old):
            candidates = [new[i] for i in (index, index + shift) if 0 <= i < len(new)]
            if line not in candidates:
                out.append((name, index, line, candidates[-1] if candidates else ""))
    return out


def project_run(name: str, root: Path, targets: list[str], samples: dict[str, list[tuple[str, dict[str, object]]]]):
    source = read_lines(root)
    print(f"\n{name}: {len(source)} Python files")
    totals: Counter[str] = Counter()
    for target in targets:
        findings = check(root, target)
        for finding in findings:
            samples[target].append((name, finding))
        kinds = Counter(f"{f['rule']} {f['difficulty']}" for f in findings)
        print(f"  {target}: {len(findings)} findings ({', '.join(f'{k} {v}' for k, v in sorted(kinds.items()))})")
        with tempfile.TemporaryDirectory() as tmp:
            copy = Path(tmp) / name
            shutil.copytree(root, copy, symlinks=True)
            errors_before = ruff_errors(copy)
            first = cli(copy, "fix", ".", "--target", target, "--select", "CP7", "--fail-on", "never")
            if first.returncode != 0:
                raise SystemExit(f"cudaport fix failed in {copy}: {first.stderr}")
            fixed = read_lines(copy)
            second = cli(copy, "fix", ".", "--target", target, "--select", "CP7", "--diff", "--fail-on", "never")
            errors_after = ruff_errors(copy)
        changes = changed_lines(source, fixed)
        ported = [c for c in changes if names_target(c[2], target)]
        probes = [c for c in changes if cuda_only_probe(source[c[0]], c[1])]
        new_errors = Counter({k: v for k, v in (errors_after - errors_before).items() if "added-import" not in k})
        added_imports = sum(v for k, v in errors_after.items() if "added-import" in k)
        print(
            f"    fix: {len(changes)} lines changed; already naming {target}: {len(ported)} (goal 0); CUDA-only "
            f"probes: {len(probes)} (goal 0); new ruff F/E9 errors: {sum(new_errors.values())} (and {added_imports} "
            "F401 on an added `import torch_npu`/`torch_mlu` in a project that configures no ruff or flake8); "
            f"second fix changes: {'yes' if second.stdout.strip() else 'none'}"
        )
        for file, index, old, new in [*ported, *probes][:8]:
            print(f"      {file}:{index + 1}: {old.strip()}  ->  {new.strip()}")
        codes = Counter(error.rsplit(":", 1)[1] for error in new_errors.elements())
        if codes:
            print(f"      new ruff errors by code: {dict(codes)}; e.g. {', '.join(list(new_errors)[:3])}")
        if second.stdout.strip():
            print("      second fix: " + " | ".join(second.stdout.strip().splitlines()[:6]))
        totals[f"{target} ported lines changed"] += len(ported)
        totals[f"{target} probes changed"] += len(probes)
        totals[f"{target} new ruff errors"] += sum(new_errors.values())
    return totals


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sample", type=int, default=0, help="print this many random findings per target")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--only", action="append", help="only these projects")
    parser.add_argument("--target", action="append", help="only these targets")
    args = parser.parse_args()
    targets = args.target or ["hip", "npu", "mlu"]
    samples: dict[str, list[tuple[str, dict[str, object]]]] = {t: [] for t in targets}
    totals: Counter[str] = Counter()
    roots = {}
    for name, version in PROJECTS.items():
        if args.only and name not in args.only:
            continue
        roots[name] = pypi_sdist(name, version)
        totals += project_run(name, roots[name], targets, samples)
    print("\ntotal")
    for key in sorted(totals):
        print(f"  {key}: {totals[key]}")
    if args.sample:
        rng = random.Random(args.seed)
        for target in targets:
            pool = samples[target]
            print(f"\nsample of {min(args.sample, len(pool))} {target} findings out of {len(pool)}")
            for index, (name, finding) in enumerate(rng.sample(pool, min(args.sample, len(pool))), start=1):
                path = roots[name] / str(finding["path"])
                lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
                line = lines[int(str(finding["line"])) - 1].strip()
                print(
                    f"{index:3}. {name}/{finding['path']}:{finding['line']} {finding['rule']} {finding['difficulty']}"
                )
                print(f"     {line[:150]}")
                print(f"     {finding['message']}")


if __name__ == "__main__":
    main()
