"""`check --statistics=api`: how often each API is used and what it becomes, per file and in all (hipify-perl's
`--print-stats`), for people and as JSON."""

from __future__ import annotations

from collections import Counter
from typing import TextIO

from ..i18n import t
from ..model.results import FileFindings, RunTotals


class ApiStatisticsSection:
    """Counts of (name, what it becomes) per file and over the run."""

    def __init__(self, as_json: bool, compact: bool = False) -> None:
        self.as_json = as_json
        self.compact = compact
        self.per_file: dict[str, Counter[tuple[str, str]]] = {}
        self.total: Counter[tuple[str, str]] = Counter()

    def add(self, result: FileFindings) -> None:
        if not result.diagnostics:
            return
        counts = self.per_file.setdefault(result.path, Counter())
        for diag in result.diagnostics:
            key = (diag.finding.symbol, diag.finding.replacement or "")
            counts[key] += 1
            self.total[key] += 1

    def write(self, totals: RunTotals, out: TextIO) -> None:
        if self.as_json:
            import json  # the JSON form only

            data = {
                "target": totals.target,
                "files": {path: _rows(counts) for path, counts in self.per_file.items()},
                "total": _rows(self.total),
            }
            out.write(
                json.dumps(data, ensure_ascii=False)
                if self.compact
                else json.dumps(data, indent=2, ensure_ascii=False) + "\n"
            )
            return
        for path, counts in self.per_file.items():
            out.write(f"{path}:\n")
            out.write(_lines(counts))
        out.write(t("All files:") + "\n")
        out.write(_lines(self.total))

    def close(self) -> None:
        pass


def _rows(counts: Counter[tuple[str, str]]) -> list[dict[str, object]]:
    return [
        {"name": name, "becomes": becomes or None, "count": count}
        for (name, becomes), count in sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    ]


def _lines(counts: Counter[tuple[str, str]]) -> str:
    out = []
    for (name, becomes), count in sorted(counts.items(), key=lambda item: (-item[1], item[0])):
        arrow = f" → {becomes}" if becomes else ""
        out.append(f"  {name}{arrow}: {count}\n")
    return "".join(out)
