"""Regenerate rules/symbols/<library>.csv and the HIPIFY part of rules/headers.csv from the shared CUDA→HIP maps.

    python tools/import_hipify_map.py ../shared/reference

The shared CSVs are facts taken from HIPIFY's documentation (MIT, see rules/NOTICE). This script turns them into
cudaport's own tables: it assigns each name the rule that explains it, marks names that user code could also
define (`generic`) or that are plain C math (`quiet`), and rates unmapped enums and macros `manual` rather than
`blocker`. Columns for other targets (npu_*, mlu_*, or any a table gains) already present are kept as they are.
Hand-written tables (nccl.csv, nvtx.csv, nvml.csv, cuda_extra.csv) are not touched.
"""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

RULES = Path(__file__).resolve().parents[1] / "rules"
COLUMNS = [
    "name",
    "kind",
    "rule",
    "flags",
    "hip",
    "hip_difficulty",
    "hip_note",
    "npu",
    "npu_difficulty",
    "npu_note",
    "mlu",
    "mlu_difficulty",
    "mlu_note",
    "deprecated",
    "removed",
    "note",
]
HEADER_COLUMNS = [
    "header",
    "rule",
    "hip",
    "hip_difficulty",
    "hip_note",
    "npu",
    "npu_difficulty",
    "npu_note",
    "mlu",
    "mlu_difficulty",
    "mlu_note",
    "flags",
    "note",
    "origin",
]

LIBRARY_RULES = {
    "cuda_runtime": "CP1001",
    "cuda_driver": "CP1002",
    "cuda_device": "CP1003",
    "nvrtc": "CP1004",
    "cucomplex": "CP1005",
    "cublas": "CP1010",
    "curand": "CP1011",
    "cufft": "CP1012",
    "cusparse": "CP1013",
    "cusolver": "CP1014",
    "cub": "CP1015",
    "cudnn": "CP1016",
}

# Names that also belong to a more specific rule than their library's.
WARP_SHUFFLE = {"__shfl_sync", "__shfl_up_sync", "__shfl_down_sync", "__shfl_xor_sync"}
WARP_VOTE = {"__ballot"}
MODULE_LOADING = {
    "cuModuleLoad",
    "cuModuleLoadData",
    "cuModuleLoadDataEx",
    "cuModuleLoadFatBinary",
    "cuLibraryLoadData",
    "cuLibraryLoadFromFile",
    "cudaLibraryLoadData",
    "cudaLibraryLoadFromFile",
    "cuLinkCreate",
    "cuLinkAddData",
    "cuLinkAddFile",
    "cuLinkComplete",
    "cuLinkDestroy",
}
HALF = re.compile(
    r"half|bfloat|bf16|^__h(?!iloint)|^h2[a-z]|^h(sqrt|exp|exp2|exp10|log|log2|log10|cos|sin|ceil|"
    r"floor|rint|trunc|rcp|rsqrt)$"
)

# A name is distinctive when user code is unlikely to define it; other names only count in CUDA positions.
DISTINCTIVE = re.compile(r"^(_*(cu|CU|Cu|nv|NV|Nv|nccl|NCCL|cub|CUB)|make_cu|__)")
C_MATH = set(
    [
        "acos",
        "asin",
        "atan",
        "atan2",
        "cos",
        "sin",
        "tan",
        "acosh",
        "asinh",
        "atanh",
        "cosh",
        "sinh",
        "tanh",
        "exp",
        "exp2",
        "expm1",
        "log",
        "log10",
        "log1p",
        "log2",
        "logb",
        "ilogb",
        "frexp",
        "ldexp",
        "modf",
        "scalbn",
        "scalbln",
        "cbrt",
        "fabs",
        "hypot",
        "pow",
        "sqrt",
        "erf",
        "erfc",
        "lgamma",
        "tgamma",
        "ceil",
        "floor",
        "nearbyint",
        "rint",
        "lrint",
        "llrint",
        "round",
        "lround",
        "llround",
        "trunc",
        "fmod",
        "remainder",
        "remquo",
        "copysign",
        "nan",
        "nextafter",
        "fdim",
        "fmax",
        "fmin",
        "fma",
        "j0",
        "j1",
        "jn",
        "y0",
        "y1",
        "yn",
    ]
)
C_STD = (
    C_MATH
    | {name + "f" for name in C_MATH}
    | {
        "abs",
        "labs",
        "llabs",
        "max",
        "min",
        "isfinite",
        "isinf",
        "isnan",
        "signbit",
        "sincos",
        "sincosf",
        "exp10",
        "exp10f",
    }
)
NOT_CUDA = {"GLenum", "GLuint"}  # OpenGL types listed for the interop API


def rule_for(library: str, name: str) -> str:
    if name in WARP_SHUFFLE:
        return "CP2001"
    if name in WARP_VOTE:
        return "CP2002"
    if name in MODULE_LOADING:
        return "CP5020"
    if library == "cuda_device" and HALF.search(name):
        return "CP1020"
    return LIBRARY_RULES[library]


# CUDA's integer min/max helpers are __host__ __device__: nvcc code calls them on the host too.
HOST_AND_DEVICE = {"umin", "umax", "llmin", "llmax", "ullmin", "ullmax"}


def flags_for(library: str, name: str, hip: str) -> str:
    flags = []
    if not DISTINCTIVE.match(name):
        flags.append("generic")
        if name in HOST_AND_DEVICE:
            flags.append("host")
        if name in NOT_CUDA or (library == "cuda_device" and name in C_STD and hip == name):
            flags.append("quiet")
    return "|".join(flags)


def hip_difficulty(row: dict[str, str], rule: str) -> str:
    if rule == "CP2002" and row["hip_name"] == row["cuda_name"]:
        return "manual"  # __ballot: same name, 64-bit result
    if not row["hip_name"] and row["kind"] in ("enum_value", "define") and rule not in ("CP2001", "CP2002"):
        return "manual"  # a constant without a counterpart is worked around, not redesigned
    return ""


def read_existing(path: Path, key: str) -> dict[str, dict[str, str]]:
    if not path.exists():
        return {}
    with path.open(encoding="utf-8", newline="") as handle:
        return {row[key]: row for row in csv.DictReader(handle)}


def _with_kept_columns(columns: list[str], existing: dict[str, dict[str, str]]) -> list[str]:
    """The importer's columns, then any other a table already has (another target's, added by hand)."""
    present = next(iter(existing.values()), {})
    return columns + [c for c in present if c not in columns]


def import_api_map(reference: Path) -> None:
    by_library: dict[str, list[dict[str, str]]] = {}
    with (reference / "cuda-hip-api-map.csv").open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            by_library.setdefault(row["library"], []).append(row)
    for library, rows in sorted(by_library.items()):
        out_path = RULES / "symbols" / f"{library}.csv"
        existing = read_existing(out_path, "name")
        out_rows = []
        seen = set()
        columns = _with_kept_columns(COLUMNS, existing)
        for row in rows:
            name = row["cuda_name"]
            if name in seen:
                continue
            seen.add(name)
            rule = rule_for(library, name)
            kept = existing.get(name, {})
            out = {col: kept.get(col, "") for col in columns}
            out.update(
                name=name,
                kind=row["kind"],
                rule=rule,
                flags=flags_for(library, name, row["hip_name"]),
                hip=row["hip_name"],
                hip_difficulty=hip_difficulty(row, rule),
                deprecated=row["cuda_deprecated"],
                removed=row["cuda_removed"],
            )
            if row["hip_experimental"] == "1":
                out["hip_note"] = "experimental in HIP"
            out_rows.append(out)
        write_csv(out_path, columns, out_rows)
        print(f"{out_path.relative_to(RULES.parent)}: {len(out_rows)} names")


HEADER_RULES = [
    (re.compile(r"^cublas"), "CP1010"),
    (re.compile(r"^curand"), "CP1011"),
    (re.compile(r"^cufft"), "CP1012"),
    (re.compile(r"^cusparse"), "CP1013"),
    (re.compile(r"^cusolver"), "CP1014"),
    (re.compile(r"^cub/"), "CP1015"),
    (re.compile(r"cudnn"), "CP1016"),
    (re.compile(r"^nvrtc"), "CP1004"),
    (re.compile(r"^cuComplex"), "CP1005"),
    (re.compile(r"^cooperative_groups"), "CP1019"),
    (re.compile(r"^cuda_(fp16|bf16)"), "CP1020"),
    (re.compile(r"^cuda\.h$"), "CP1002"),
    (re.compile(r"^caffe2/"), "CP1016"),
]


# Where HIPIFY's header table names a path that HIP does not install: HIP ships hipRTC as hip/hiprtc.h (the
# table's bare hiprtc.h only builds with -I.../include/hip).
HEADER_CORRECTIONS = {"nvrtc.h": "hip/hiprtc.h"}


def import_header_map(reference: Path) -> None:
    out_path = RULES / "headers.csv"
    existing = read_existing(out_path, "header")
    hand_written = [row for row in existing.values() if row.get("origin") != "hipify"]
    rows = []
    columns = _with_kept_columns(HEADER_COLUMNS, existing)
    with (reference / "cuda-hip-header-map.csv").open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            header = row["cuda_header"]
            rule = next((code for pattern, code in HEADER_RULES if pattern.search(header)), "CP1001")
            kept = existing.get(header, {})
            out = {col: kept.get(col, "") for col in columns}
            out.update(header=header, rule=rule, hip=HEADER_CORRECTIONS.get(header, row["hip_header"]), origin="hipify")
            if not row["hip_header"]:
                out["hip_difficulty"] = "manual"
                out["hip_note"] = out["hip_note"] or "hipcc does not need it: remove the include"
            rows.append(out)
    names = {row["header"] for row in rows}
    rows.extend(row for row in hand_written if row["header"] not in names)
    write_csv(out_path, columns, rows)
    print(f"{out_path.relative_to(RULES.parent)}: {len(rows)} headers")


def write_csv(path: Path, columns: list[str], rows: list[dict[str, str]]) -> None:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


def main() -> None:
    reference = Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/reference")
    import_api_map(reference)
    import_header_map(reference)


if __name__ == "__main__":
    main()
