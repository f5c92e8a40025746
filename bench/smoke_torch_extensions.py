"""Smoke run on real PyTorch CUDA extensions from PyPI: is every line that uses the extension API flagged on npu and
mlu, and does `fix --target hip` leave dual-stack code (the `namespace cub = hipcub;` aliases) alone?

    .venv/bin/python bench/smoke_torch_extensions.py [--show 20]

The sdists are downloaded into bench/.corpus/ (never committed). An extension-API line is found independently of
cudaport, by a plain pattern over the C++ sources with comments and strings blanked out: `at::cuda::`/
`c10::cuda::` names, the CUDA guards, streams and checks, `.is_cuda()`, `kCUDA`, and the ATen/c10 CUDA includes.
Printed per project: those lines and how many carry a CP1040 finding on npu and on mlu (the goal: all), the
findings per rule and difficulty for each target, and, after `fix --target hip` on a copy, the files whose `cub::`
and `hipcub::` spellings changed (under an alias they must not).
"""

from __future__ import annotations

import argparse
import json
import re
import shutil
import subprocess
import sys
import tempfile
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from corpus import C_SUFFIXES, check_command, pypi_sdist

PROJECTS = {  # name: version, each with .cu sources that use the extension API
    "causal-conv1d": "1.7.0",  # dual-stack: namespace cub = hipcub under USE_ROCM
    "mamba-ssm": "2.3.2.post1",  # dual-stack the same way, in shared .cuh headers
    "torch-scatter": "2.1.2",  # csrc/cuda/*.h local headers beside the .cu files
    "torch-cluster": "1.6.3",
}
EXTENSION_API = re.compile(
    r"\b(?:at|c10)::cuda::\w+|\b(?:Optional)?CUDA(?:Stream)?Guard\b|\bgetCurrentCUDAStream\b|\bC10_CUDA_CHECK\b"
    r"|\bAT_CUDA_CHECK\b|\bC10_CUDA_KERNEL_LAUNCH_CHECK\b|\.is_cuda\(\)|\bkCUDA\b|DeviceType::CUDA\b"
    r"|#\s*include\s*[<\"](?:ATen|c10)/cuda/"
)
_COMMENT_OR_STRING = re.compile(r'//[^\n]*|/\*.*?\*/|"(?:\\.|[^"\\\n])*"', re.S)


def blank(text: str) -> str:
    """Comments and string literals replaced by spaces (newlines kept), includes kept as they are."""

    def keep_lines(match: re.Match[str]) -> str:
        value = match.group(0)
        line_start = text.rfind("\n", 0, match.start()) + 1
        if value.startswith('"') and text[line_start : match.start()].lstrip().startswith("#"):
            return value  # `#include "..."`
        return re.sub(r"[^\n]", " ", value)

    return _COMMENT_OR_STRING.sub(keep_lines, text)


def extension_lines(root: Path) -> set[tuple[str, int]]:
    lines: set[tuple[str, int]] = set()
    for path in sorted(root.rglob("*")):
        if path.suffix.lower() not in C_SUFFIXES or not path.is_file():
            continue
        text = blank(path.read_text(encoding="utf-8", errors="replace"))
        for number, line in enumerate(text.splitlines(), start=1):
            if EXTENSION_API.search(line):
                lines.add((path.relative_to(root).as_posix(), number))
    return lines


def check(root: Path, target: str) -> list[dict[str, object]]:
    command = check_command(".", target)
    result = subprocess.run(command, cwd=root, capture_output=True, text=True, check=True)
    return list(json.loads(result.stdout)["diagnostics"])


def spellings(root: Path) -> dict[str, tuple[int, int]]:
    """file -> (cub:: uses, hipcub:: uses) outside comments."""
    counts = {}
    for path in sorted(root.rglob("*")):
        if path.suffix.lower() not in C_SUFFIXES or not path.is_file():
            continue
        text = blank(path.read_text(encoding="utf-8", errors="replace"))
        counts[path.relative_to(root).as_posix()] = (
            len(re.findall(r"(?<![\w:])cub::", text)),
            len(re.findall(r"\bhipcub::", text)),
        )
    return counts


def aliased(root: Path) -> set[str]:
    return {
        p.relative_to(root).as_posix()
        for p in root.rglob("*")
        if p.suffix.lower() in C_SUFFIXES and p.is_file() and "namespace cub = hipcub" in p.read_text(errors="replace")
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--show", type=int, default=20, help="missed lines to print per project")
    args = parser.parse_args()
    totals = Counter()
    for name, version in PROJECTS.items():
        root = pypi_sdist(name, version)
        wanted = extension_lines(root)
        print(f"\n{name} {version}: {len(wanted)} lines use the PyTorch C++ extension API")
        for target in ("hip", "npu", "mlu"):
            found = check(root, target)
            per_rule = Counter((d["rule"], d["difficulty"]) for d in found)
            summary = ", ".join(f"{rule} {difficulty} {n}" for (rule, difficulty), n in sorted(per_rule.items()))
            print(f"  {target}: {len(found)} findings ({summary})")
            if target == "hip":
                continue
            flagged = {(str(d["path"]), int(d["line"])) for d in found if d["rule"] == "CP1040"}  # type: ignore[call-overload]
            missed = sorted(wanted - flagged)
            totals[f"{target} lines"] += len(wanted)
            totals[f"{target} flagged"] += len(wanted) - len(missed)
            print(f"    extension-API lines with a CP1040 finding: {len(wanted) - len(missed)} / {len(wanted)}")
            for path, line in missed[: args.show]:
                print(f"      missed {path}:{line}")
        with tempfile.TemporaryDirectory() as tmp:
            copy = Path(tmp) / name
            shutil.copytree(root, copy)
            before = spellings(copy)
            subprocess.run(
                [sys.executable, "-m", "cudaport", "fix", ".", "--target", "hip", "--fail-on", "never"],
                cwd=copy,
                check=True,
                stdout=subprocess.DEVNULL,
            )
            after = spellings(copy)
            alias_files = aliased(root)
            changed = [f for f in before if before[f] != after[f]]
            listed = ": " + ", ".join(changed) if changed else ""
            print(
                f"  fix --target hip: {len(alias_files)} files alias cub to hipcub; "
                f"cub::/hipcub:: spellings changed in {len(changed)} files{listed}"
            )
            totals["cub spellings changed"] += len(changed)
    print("\ntotal")
    for target in ("npu", "mlu"):
        print(f"  {target}: {totals[f'{target} flagged']} / {totals[f'{target} lines']} extension-API lines flagged")
    print(f"  hip: files whose cub::/hipcub:: spellings fix changed: {totals['cub spellings changed']} (goal: 0)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
