"""Regenerate rules/operators/<target>-<release>.csv: the ATen operators a PyTorch device plugin has kernels for.

    python tools/import_plugin_ops.py \\
        --npu torch_npu-2.14.0-cp311-cp311-manylinux_2_28_x86_64.whl --npu torch_npu-2.13.0-...whl \\
        --mlu /work/.mirror/Cambricon+torch_mlu/repo --mlu-ref r2.4_develop \\
        --musa /work/.mirror/MooreThreads+torch_musa/repo

Sources, each given only for the files to regenerate:
    --npu   a torch_npu wheel (Huawei Ascend): torch_npu/csrc/aten/npu_native_functions_by_codegen.yaml, the
            op-plugin list the wheel was generated from, and npu_native_functions.yaml; the release from
            torch_npu/version.py
    --mlu   Cambricon torch_mlu: a fetched mirror (a git directory; --mlu-ref picks the branch) holding
            codegen/mlu_functions.yaml, tools/autogen_torch_api/api_support_lists/torch_api.yaml and
            scripts/release/build.property (the release), or mlu_functions.yaml itself with --mlu-version and
            optionally --mlu-api
    --musa  Moore Threads torch_musa: a fetched mirror holding torch_musa/csrc/aten/ops/musa_functions.yaml and
            version.txt, or the yaml itself with --musa-version

Each file has `op` (name or name.overload) and `section`: the plugin's own grouping of the entry (npu: supported,
autograd, custom, quant, symint; mlu: aten, vision, audio, custom; musa: the dispatch keys it registers, the
structured default being PrivateUse1). An operator listed in more than one section has them joined by `|`. Names
are matched exactly against the overloads of rules/operators/aten.csv (run tools/import_torch_ops.py first):
the plugin's own operators and entries for overloads this PyTorch release does not have are left out, and the
importer prints them. mlu-<release>-api.csv is torch_mlu's table of Python APIs (`api` spelled as python.csv
spells it, `supported` 1/0, `limited` 1 where the table notes a limitation: its note itself is torch_mlu's prose,
which is not copied; cudaport points at the table instead).
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import subprocess
import sys
import zipfile
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from import_torch_ops import op_name, write_csv
from operator_yaml import load_yaml

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "rules" / "operators"

NPU_YAMLS = (
    "torch_npu/csrc/aten/npu_native_functions_by_codegen.yaml",
    "torch_npu/csrc/aten/npu_native_functions.yaml",
)
NPU_SKIP = {"backend", "cpp_namespace"}  # top-level keys of the npu yaml that are settings, not sections
MLU_YAML = "codegen/mlu_functions.yaml"
MLU_API = "tools/autogen_torch_api/api_support_lists/torch_api.yaml"
MLU_VERSION = "scripts/release/build.property"
MUSA_YAML = "torch_musa/csrc/aten/ops/musa_functions.yaml"
MUSA_VERSION = "version.txt"
MUSA_DEFAULT_KEY = "PrivateUse1"  # torch_musa's codegen registers entries without `dispatch` (structured) there


@dataclass
class Listing:
    """What one plugin release lists: operator -> sections, and the entries that match no operator."""

    target: str
    release: str
    sections: dict[str, list[str]] = field(default_factory=lambda: defaultdict(list))
    schemas: dict[str, str] = field(default_factory=dict)  # operator -> the schema the plugin wrote, if any

    def add(self, func: str, section: str) -> None:
        name = op_name(func)
        if section not in self.sections[name]:
            self.sections[name].append(section)
        if "(" in func:
            self.schemas.setdefault(name, func)


# ---- reading the sources -------------------------------------------------------------------------------------


class Tree:
    """Files of a source: a directory, or a git directory (a fetched mirror has no work tree) at `ref`."""

    def __init__(self, path: Path, ref: str = "HEAD") -> None:
        self.path = path
        self.ref = ref
        self.git = (path / "HEAD").is_file() and (path / "objects").is_dir()

    def read(self, name: str) -> bytes:
        if not self.git:
            return (self.path / name).read_bytes()
        return subprocess.run(
            ["git", f"--git-dir={self.path}", "show", f"{self.ref}:{name}"], check=True, capture_output=True
        ).stdout

    def commit(self) -> str:
        if not self.git:
            return ""
        return subprocess.run(
            ["git", f"--git-dir={self.path}", "rev-parse", self.ref], check=True, capture_output=True, text=True
        ).stdout.strip()


def read_npu(wheel_path: Path) -> Listing:
    with zipfile.ZipFile(wheel_path) as wheel:
        version = re.search(r"__version__\s*=\s*['\"]([^'\"+]+)", wheel.read("torch_npu/version.py").decode())
        listing = Listing("npu", version.group(1) if version else "?")
        for name in NPU_YAMLS:
            if name not in wheel.namelist():
                continue
            data = load_yaml(wheel.read(name)) or {}
            for section, entries in data.items():
                if section in NPU_SKIP or not isinstance(entries, list):
                    continue
                for entry in entries:
                    listing.add(entry if isinstance(entry, str) else entry["func"], section)
    return listing


def read_mlu(data: bytes, release: str) -> Listing:
    listing = Listing("mlu", release)
    for section, entries in (load_yaml(data) or {}).items():
        for entry in entries or []:
            listing.add(entry["func"], section)
    return listing


def read_musa(data: bytes, release: str) -> Listing:
    listing = Listing("musa", release)
    for entry in load_yaml(data) or []:
        dispatch = entry.get("dispatch") or {MUSA_DEFAULT_KEY: ""}
        for keys in dispatch:
            for key in keys.split(","):
                listing.add(entry["func"], key.strip())
    return listing


def mlu_release(data: bytes) -> str:
    """build.property's "1.25.0-torch2.4.1" -> "1.25.0"."""
    return str(json.loads(data)["version"]).split("-")[0]


# ---- torch_mlu's API table -----------------------------------------------------------------------------------


def mlu_api_rows(data: bytes) -> tuple[list[dict[str, str]], list[str]]:
    """One row per API of torch_api.yaml, and notes on entries listed more than once."""
    entries: list[dict[str, Any]] = []
    for section in load_yaml(data) or []:
        for listed in section.values():
            entries.extend(listed or [])
    listed_names = {e["api"] for e in entries}
    merged: dict[str, dict[str, str]] = {}
    notes = []
    for entry in entries:
        api = normalise_api(entry["api"], listed_names)
        row = {
            "api": api,
            "supported": "1" if entry.get("supported") is True else "0",
            "limited": "1" if str(entry.get("limitations") or "").strip() else "0",
        }
        seen = merged.get(api)
        if seen is None:
            merged[api] = row
            continue
        if seen["supported"] != row["supported"]:
            notes.append(f"{api}: listed as supported and as not supported; kept as not supported")
            seen["supported"] = "0"
        if row["limited"] == "1":
            seen["limited"] = "1"
    return [merged[api] for api in sorted(merged)], notes


def normalise_api(api: str, listed: set[str]) -> str:
    """torch_api.yaml's spelling -> python.csv's: Tensor.X for torch.Tensor.X; torch.nn.X for a module class
    the table also lists as torch.nn.X (torch.nn.modules.normalization.RMSNorm -> torch.nn.RMSNorm)."""
    if api == "torch.Tensor" or api.startswith("torch.Tensor."):
        return api[len("torch.") :]
    match = re.match(r"torch\.nn\.modules\.\w+\.([A-Za-z]\w*)(\..*)?$", api)
    if match and f"torch.nn.{match.group(1)}" in listed:
        return f"torch.nn.{match.group(1)}{match.group(2) or ''}"
    return api


# ---- matching and writing ------------------------------------------------------------------------------------


def load_overloads(path: Path) -> set[str]:
    with path.open(encoding="utf-8", newline="") as handle:
        return {row["op"] for row in csv.DictReader(handle)}


def signature(schema: str) -> tuple[str, ...]:
    """A schema's argument and return types, SymInt read as int: what makes it the same operator."""
    head, _, returns = schema.partition("->")
    args = head.partition("(")[2].rpartition(")")[0]
    types = []
    for part in re.split(r",(?![^\[(]*[\])])", args + "," + returns.strip().strip("()")):
        part = part.strip()
        if part:
            types.append(re.sub(r"SymInt", "int", part.split()[0] if part != "*" else "*"))
    return tuple(types)


def write_listing(listing: Listing, overloads: set[str], torch_schemas: dict[str, str]) -> None:
    bases = {o.partition(".")[0] for o in overloads}
    rows = []
    own = 0
    notes: list[str] = []
    missing: list[str] = []
    differing: list[str] = []
    for name in sorted(listing.sections):
        sections = listing.sections[name]
        schema, torch_schema = listing.schemas.get(name), torch_schemas.get(name)
        different = bool(schema and torch_schema and signature(schema) != signature(torch_schema))
        if name not in overloads:
            if name.partition(".")[0] in bases and "custom" not in sections:
                missing.append(f"{name} ({'|'.join(sections)})")
            else:
                own += 1
            continue
        if different and "custom" in sections:
            own += 1
            notes.append(f"the plugin's own {name} is not ATen's (another schema; left out): {schema}")
            continue
        if different:
            differing.append(name)
        if "custom" in sections:
            notes.append(f"listed as the plugin's own but ATen's (kept): {name} ({'|'.join(sections)})")
        rows.append({"op": name, "section": "|".join(sections)})
    path = OUT / f"{listing.target}-{listing.release}.csv"
    count = write_csv(path, ["op", "section"], rows)
    print(f"{path.relative_to(ROOT)}: {count} operators ({own} names of the plugin's own operators left out)")
    if missing:
        notes.append(f"overloads this torch does not have (left out): {', '.join(missing)}")
    if differing:
        notes.append(f"argument types differ from this torch's ({len(differing)}, kept): {', '.join(differing)}")
    for note in notes:
        print(f"  {note}")


def torch_schemas(wheel: Path) -> dict[str, str]:
    """Operator -> schema, from the torch wheel aten.csv was made from, to compare the plugins' schemas with."""
    with zipfile.ZipFile(wheel) as archive:
        entries = load_yaml(archive.read("torchgen/packaged/ATen/native/native_functions.yaml"))
    return {op_name(e["func"]): e["func"] for e in entries}


def main(args: argparse.Namespace) -> int:
    aten = OUT / "aten.csv"
    if not aten.is_file():
        print("rules/operators/aten.csv is missing: run tools/import_torch_ops.py first", file=sys.stderr)
        return 1
    overloads = load_overloads(aten)
    schemas = torch_schemas(args.torch)
    for wheel in args.npu:
        write_listing(read_npu(wheel), overloads, schemas)
    if args.mlu:
        tree = Tree(args.mlu.parent if args.mlu.is_file() else args.mlu, args.mlu_ref)
        functions = args.mlu.read_bytes() if args.mlu.is_file() else tree.read(MLU_YAML)
        release = args.mlu_version or mlu_release(tree.read(MLU_VERSION))
        write_listing(read_mlu(functions, release), overloads, schemas)
        api_data = args.mlu_api.read_bytes() if args.mlu_api else None if args.mlu.is_file() else tree.read(MLU_API)
        if api_data is not None:
            rows, notes = mlu_api_rows(api_data)
            path = OUT / f"mlu-{release}-api.csv"
            print(f"{path.relative_to(ROOT)}: {write_csv(path, ['api', 'supported', 'limited'], rows)} APIs")
            for note in notes:
                print(f"  {note}")
    if args.musa:
        tree = Tree(args.musa.parent if args.musa.is_file() else args.musa, args.musa_ref)
        functions = args.musa.read_bytes() if args.musa.is_file() else tree.read(MUSA_YAML)
        release = args.musa_version or tree.read(MUSA_VERSION).decode().strip()
        write_listing(read_musa(functions, release), overloads, schemas)
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--npu", type=Path, action="append", default=[], metavar="WHEEL")
    parser.add_argument("--mlu", type=Path, metavar="MIRROR|YAML")
    parser.add_argument("--mlu-ref", default="HEAD", metavar="BRANCH")
    parser.add_argument("--mlu-version", metavar="RELEASE")
    parser.add_argument("--mlu-api", type=Path, metavar="YAML", help="torch_api.yaml, when --mlu is a yaml file")
    parser.add_argument("--musa", type=Path, metavar="MIRROR|YAML")
    parser.add_argument("--musa-ref", default="HEAD", metavar="BRANCH")
    parser.add_argument("--musa-version", metavar="RELEASE")
    parser.add_argument("--torch", type=Path, metavar="WHEEL", required=True, help="the wheel aten.csv is made from")
    arguments = parser.parse_args()
    if arguments.mlu and arguments.mlu.is_file() and not arguments.mlu_version:
        parser.error("--mlu-version is needed when --mlu is a yaml file")
    if arguments.musa and arguments.musa.is_file() and not arguments.musa_version:
        parser.error("--musa-version is needed when --musa is a yaml file")
    sys.exit(main(arguments))
