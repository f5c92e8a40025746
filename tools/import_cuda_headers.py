"""Add the CUDA runtime and driver names that HIPIFY's tables do not list yet, read from a CUDA toolkit's headers.

    python tools/import_cuda_headers.py /usr/local/cuda/include HIP_INCLUDE [HIP_INCLUDE ...]

HIPIFY's tables (tools/import_hipify_map.py) stop at the CUDA release they were made for, so names that newer
toolkits added (`cudaGraphCondTypeSwitch`, `cudaStreamBeginCaptureToGraph`'s siblings, ...) were no finding at all:
`fix` left them in place and the file stopped compiling with no word from cudaport. This script lists every
`cuda*`/`cu*`/`CU*` name the toolkit's runtime and driver headers declare, keeps those no rule table knows, and
writes them to rules/symbols/cuda_newer.csv with their kind, rated `manual` on HIP (a person checks the ROCm
release in use), never `blocker`: no counterpart is known, and where the HIP headers given declare the same
spelling (`hip` + the rest) the note names it for that person to compare.

The names are facts of NVIDIA's and AMD's public headers; no header text is copied.
"""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

RULES = Path(__file__).resolve().parents[1] / "rules"
sys.path.insert(0, str(RULES.parent / "server"))

from cudaport.knowledge.ruleset import load_ruleset  # noqa: E402

COLUMNS = ["name", "kind", "rule", "flags", "hip", "hip_difficulty", "hip_note", "npu", "npu_difficulty",
           "npu_note", "mlu", "mlu_difficulty", "mlu_note", "deprecated", "removed", "note"]  # fmt: skip
RUNTIME_HEADERS = ["cuda_runtime_api.h", "driver_types.h", "surface_types.h", "texture_types.h", "library_types.h"]
DRIVER_HEADERS = ["cuda.h"]
_NAME = re.compile(r"\b(cuda[A-Z]\w*|cu[A-Z]\w*|CU[a-z]\w*|CU_[A-Z0-9_]+)\b")
# Internal spellings: per-thread-stream variants, placeholders, struct tags and versioned aliases of known names.
_INTERNAL = re.compile(r"(_ptsz|_ptds|_enum|_st|_v\d+)$|Reserved|^cudaGetExportTable$|^cuGetExportTable$")
_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def declared(text: str) -> dict[str, str]:
    """name -> kind (function, type, enum_value, define) of every CUDA name a header declares."""
    text = _COMMENT.sub(" ", text)
    kinds: dict[str, str] = {}
    for body in re.findall(r"\benum\b[^{;]*\{([^}]*)\}", text):
        for name in re.findall(r"(?:^|,)\s*(\w+)\s*(?:=|,|$)", body):
            kinds.setdefault(name, "enum_value")
    for name in re.findall(r"\b(\w+)\s*\(", text):
        kinds.setdefault(name, "function")
    for name in re.findall(r"\b(?:struct|enum|union)\s+(?:__device_builtin__\s+)?(\w+)", text):
        kinds.setdefault(name, "type")
    for name in re.findall(r"\btypedef\b[^;]*?\b(\w+)\s*;", text):
        kinds.setdefault(name, "type")
    for name in re.findall(r"^\s*#\s*define\s+(\w+)", text, re.M):  # last: a function may also be a macro
        kinds.setdefault(name, "define")
    return {name: kind for name, kind in kinds.items() if _NAME.fullmatch(name) and not _INTERNAL.search(name)}


def hip_names(folders: list[Path]) -> set[str]:
    names: set[str] = set()
    for folder in folders:
        for header in folder.rglob("*.h"):
            names.update(re.findall(r"\bhip[A-Z]\w*", header.read_text(encoding="utf-8", errors="replace")))
    return names


def main() -> None:
    cuda = Path(sys.argv[1])
    hip = hip_names([Path(p) for p in sys.argv[2:]])
    known = load_ruleset()
    out_stem = "cuda_newer"
    rows = []
    for headers, rule in ((RUNTIME_HEADERS, "CP1001"), (DRIVER_HEADERS, "CP1002")):
        for header in headers:
            for name, kind in sorted(declared((cuda / header).read_text(encoding="utf-8", errors="replace")).items()):
                entry = known.symbol(name)
                if (entry is not None and entry.library != out_stem) or any(row["name"] == name for row in rows):
                    continue
                counterpart = "hip" + name[4:] if name.startswith("cuda") else ""
                row = dict.fromkeys(COLUMNS, "")
                row.update(name=name, kind=kind, rule=rule, note=f"declared by {header}; newer than HIPIFY's table")
                row["hip_difficulty"] = "manual"
                if counterpart in hip:  # the same spelling is not proof of the same API: a person compares them
                    row["hip_note"] = f"HIP declares `{counterpart}`: check that it is the same API"
                else:
                    row["hip_note"] = "no HIP counterpart known: check the ROCm release in use"
                rows.append(row)
    out = RULES / "symbols" / f"{out_stem}.csv"
    with out.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=COLUMNS, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    spelled = sum(1 for row in rows if "HIP declares" in row["hip_note"])
    print(f"{out.relative_to(RULES.parent)}: {len(rows)} names, {spelled} with a HIP name of the same spelling")


if __name__ == "__main__":
    main()
