"""Regenerate rules/counterparts/musa.csv and musa_headers.csv from torch_musa's musify mapping files.

    python tools/import_musify_map.py <torch_musa>/torch_musa/utils/mapping

musify (Moore Threads' CUDA-to-MUSA text converter, BSD-3-Clause) ships JSON tables of CUDA name -> MUSA name:
general.json (runtime, driver and the math libraries), dnn-naming.json (cuDNN -> muDNN) and include.json
(headers). Only the names cudaport's own tables declare are written, as MUSA counterparts of those symbols. The
cuDNN renames are rated `manual`: muDNN is a C++ API, not a drop-in cuDNN, and musify only applies
them on request.
"""

from __future__ import annotations

import csv
import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))

from cudaport.knowledge.ruleset import load_ruleset  # noqa: E402

OUT = ROOT / "rules" / "counterparts"
DNN_NOTE = "musify renames the names only"


def main(mapping_dir: Path) -> int:
    general = json.loads((mapping_dir / "general.json").read_text(encoding="utf-8"))
    dnn = json.loads((mapping_dir / "dnn-naming.json").read_text(encoding="utf-8"))
    include = json.loads((mapping_dir / "include.json").read_text(encoding="utf-8"))
    include.update(json.loads((mapping_dir / "dnn-header.json").read_text(encoding="utf-8")))
    ruleset = load_ruleset()
    rows = []
    for name in sorted(ruleset.symbols):
        symbol = ruleset.symbols[name]
        if name in general:
            rows.append({"name": name, "musa": general[name]})
        elif symbol.library == "cudnn" and name in dnn:
            rows.append({"name": name, "musa": dnn[name], "musa_difficulty": "manual", "musa_note": DNN_NOTE})
    headers = [{"header": h, "musa": include[h]} for h in sorted(ruleset.headers) if h in include]
    OUT.mkdir(parents=True, exist_ok=True)
    _write(OUT / "musa.csv", ["name", "musa", "musa_difficulty", "musa_note"], rows)
    _write(OUT / "musa_headers.csv", ["header", "musa"], headers)
    print(f"musa: {len(rows)} symbols, {len(headers)} headers")
    return 0


def _write(path: Path, columns: list[str], rows: list[dict[str, str]]) -> None:
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, columns, lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    sys.exit(main(Path(sys.argv[1])))
