"""Regenerate rules/versions/hip.csv: the ROCm release that added (deprecated, removed) each HIP counterpart.

    python tools/import_hip_versions.py ../shared/reference/cuda-hip-api-versions.csv [header-facts.csv]
        [--present 5.2=/usr/include/hip ...]

The first file holds HIPIFY's version columns (MIT, see rules/NOTICE). HIPIFY's tables lag HIP's own headers;
the optional second file (cuda_name,hip_name,rocm_added,header,condition) records names read from the HIP
headers at each ROCm release tag (a different counterpart than HIPIFY's replaces it from that release on, as
`__hip_bfloat16` does `hip_bfloat16` in 5.7). Those rows are written with `source = headers`, and rows already in
rules/versions/hip.csv with that source are kept when no second file is given. Names defined only under a macro
no build defines (`OCML_BASIC_ROUNDED_OPERATIONS`) are left out.

`--present VERSION=DIR` corrects HIPIFY's dates with a release's installed headers: a counterpart HIPIFY dates
after VERSION that a header under DIR declares is dated VERSION (HIPIFY dates `HIP_R_32F` 5.7, when hipBLAS
took it up; Debian's HIP 5.2 declares it in library_types.h). Those rows say `source = hipify+headers`.
"""

from __future__ import annotations

import argparse
import csv
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))

from cudaport.knowledge.ruleset import load_ruleset, version_key  # noqa: E402

OUT = ROOT / "rules" / "versions" / "hip.csv"
COLUMNS = ["name", "counterpart", "difficulty", "added", "deprecated", "removed", "condition", "note", "source"]
UNUSABLE_CONDITIONS = {"OCML_BASIC_ROUNDED_OPERATIONS"}
# What the headers say beyond the name, per condition macro.
CONDITION_NOTES = {
    "HIP_ENABLE_WARP_SYNC_BUILTINS": ("manual", ""),  # the warp rules already say that masks are 64-bit
}


def main(hipify_versions: Path, header_facts: Path | None, present: list[tuple[str, Path]]) -> int:
    ruleset = load_ruleset()
    declared = [(version, _declared_words(folder)) for version, folder in present]
    rows: dict[str, dict[str, str]] = {}
    with hipify_versions.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            symbol = ruleset.symbols.get(row["cuda_name"])
            mapping = symbol.targets.get("hip") if symbol is not None else None
            if mapping is None or mapping.replacement != row["hip_name"]:
                continue  # only dates for the counterpart cudaport's tables give
            dates = {k: row[f"hip_{k}"] for k in ("added", "deprecated", "removed")}
            if not any(dates.values()):
                continue
            source = "hipify"
            for version, words in declared:
                if (
                    dates["added"]
                    and (version_key(dates["added"]) or ()) > (version_key(version) or ())
                    and row["hip_name"] in words
                ):
                    dates["added"], source = version, "hipify+headers"
            rows[row["cuda_name"]] = {"name": row["cuda_name"], **dates, "source": source}
    header_rows = _header_rows(header_facts) if header_facts else _kept_header_rows()
    for row in header_rows:
        symbol = ruleset.symbols.get(row["name"]) or ruleset.headers.get(row["name"])
        if symbol is None:
            continue
        mapping = symbol.targets.get("hip")
        if row["name"] not in rows or (mapping is not None and mapping.replacement != row["counterpart"]):
            rows[row["name"]] = row  # what the headers add, or a newer counterpart than HIPIFY's table names
    OUT.parent.mkdir(parents=True, exist_ok=True)
    with OUT.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows[name] for name in sorted(rows))
    print(f"hip: {len(rows)} dated counterparts ({sum(r['source'] == 'headers' for r in rows.values())} from headers)")
    return 0


def _declared_words(folder: Path) -> set[str]:
    words: set[str] = set()
    for header in folder.rglob("*.h*"):
        if "nvidia_detail" in header.parts or "nvcc_detail" in header.parts or header.stem.endswith("_nvcc"):
            # HIP on NVIDIA's platform wraps CUDA (hiprand_kernel_nvcc.h declares Sobol64 states that AMD's
            # hiprand 5.2 lacks): what it declares says nothing about AMD's
            continue
        words.update(re.findall(r"\b[A-Za-z_]\w*\b", header.read_text(encoding="utf-8", errors="replace")))
    return words


def _header_rows(path: Path) -> list[dict[str, str]]:
    out = []
    with path.open(encoding="utf-8", newline="") as handle:
        for row in csv.DictReader(handle):
            condition = row.get("condition", "")
            if condition in UNUSABLE_CONDITIONS:
                continue
            difficulty, note = CONDITION_NOTES.get(condition, ("", ""))
            out.append(
                {
                    "name": row["cuda_name"],
                    "counterpart": row["hip_name"],
                    "difficulty": difficulty,
                    "added": row["rocm_added"],
                    "condition": condition,
                    "note": note,
                    "source": "headers",
                }
            )
    return out


def _kept_header_rows() -> list[dict[str, str]]:
    if not OUT.is_file():
        return []
    with OUT.open(encoding="utf-8", newline="") as handle:
        return [row for row in csv.DictReader(handle) if row.get("source") == "headers"]


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("hipify_versions", type=Path)
    parser.add_argument("header_facts", type=Path, nargs="?")
    parser.add_argument("--present", action="append", default=[], metavar="VERSION=DIR")
    args = parser.parse_args()
    present = [(v, Path(d)) for v, _, d in (p.partition("=") for p in args.present)]
    sys.exit(main(args.hipify_versions, args.header_facts, present))
