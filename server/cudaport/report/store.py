"""Every finding of a report, kept compactly: the report shows its details (the JSON lists them all, the HTML loads
them when a reader opens a group) without keeping one Python object per finding.

A finding found for several targets at the same place is one row, with a difficulty, message, replacement and
flags per target. Rows are added one file at a time, so a file's rows are contiguous."""

from __future__ import annotations

from array import array
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from ..knowledge.effort import Hours, Kind
from ..model.findings import Difficulty, Severity
from ..model.results import Diagnostic

ABSENT = -1  # the target has no finding on this row
_FIXABLE = 1
_DUAL_FIXABLE = 2  # `fix --style dual-stack` fixes it
_SEVERITY_SHIFT = 2


class Strings:
    """Each distinct string once; rows hold its index."""

    __slots__ = ("_index", "values")

    def __init__(self) -> None:
        self._index: dict[str, int] = {}
        self.values: list[str] = []

    def add(self, value: str) -> int:
        index = self._index.get(value)
        if index is None:
            index = len(self.values)
            self._index[value] = index
            self.values.append(value)
        return index

    def __getitem__(self, index: int) -> str:
        return self.values[index]

    def __len__(self) -> int:
        return len(self.values)


class FindingStore:
    def __init__(self, targets: Sequence[str]) -> None:
        self.targets = tuple(targets)
        self.strings = Strings()  # symbols, messages, replacements, rule codes
        self.paths: list[str] = []  # files with findings, in the order they were added
        self._starts = array("l")  # first row of each file; the next file's start ends it
        self._line, self._column, self._end_line, self._end_column = (array("l") for _ in range(4))
        self._rule, self._symbol, self._group = array("l"), array("l"), array("l")
        self._cell, self._cell_line = array("l"), array("l")  # notebook findings: 1-based cell and line, else 0
        self._text = array("l")  # the text of the row's line (a string), ABSENT when the run did not give it
        self._difficulty = {t: array("b") for t in self.targets}
        self._message = {t: array("l") for t in self.targets}
        self._replacement = {t: array("l") for t in self.targets}  # ABSENT when there is none
        self._flags = {t: array("B") for t in self.targets}
        self._kind = {t: array("b") for t in self.targets}  # the effort kind's index, ABSENT for none
        self._low = {t: array("f") for t in self.targets}  # the hours the estimate counts for the finding
        self._high = {t: array("f") for t in self.targets}
        self.kinds: list[str] = []  # effort kind names, by index

    # ---- adding ---------------------------------------------------------------------------------------------------
    def add_file(
        self,
        label: str,
        per_target: Mapping[str, Sequence[Diagnostic]],
        group: Mapping[int, int],
        effort: Mapping[str, Sequence[tuple[Kind, Hours] | None]],
        texts: Mapping[int, str] | None = None,
    ) -> int:
        """Store one file's findings (`group` maps id(diagnostic) to its group, `effort` gives each target's
        findings their kind and hours, in order, `texts` the text of its lines); returns the file's index."""
        index = len(self.paths)
        self.paths.append(label)
        self._starts.append(len(self._line))
        rows: dict[tuple[int, int, int, int, str, str], int] = {}
        for target, diagnostics in per_target.items():
            for diag, cost in zip(diagnostics, effort[target], strict=True):
                key = (diag.line, diag.column, diag.end_line, diag.end_column, diag.rule, diag.finding.symbol)
                row = rows.get(key)
                if row is None or self._difficulty[target][row] != ABSENT:
                    row = self._new_row(diag, group[id(diag)], (texts or {}).get(diag.line))
                    rows[key] = row
                self._set(target, row, diag, cost)
        return index

    def _new_row(self, diag: Diagnostic, group: int, text: str | None = None) -> int:
        self._line.append(diag.line)
        self._text.append(self.strings.add(text) if text is not None else ABSENT)
        self._column.append(diag.column)
        self._end_line.append(diag.end_line)
        self._end_column.append(diag.end_column)
        self._rule.append(self.strings.add(diag.rule))
        self._symbol.append(self.strings.add(diag.finding.symbol))
        self._group.append(group)
        data = diag.finding.data
        self._cell.append(int(data.get("cell", "0") or 0))
        self._cell_line.append(int(data.get("cell_line", "0") or 0))
        for target in self.targets:
            self._difficulty[target].append(ABSENT)
            self._message[target].append(ABSENT)
            self._replacement[target].append(ABSENT)
            self._flags[target].append(0)
            self._kind[target].append(ABSENT)
            self._low[target].append(0.0)
            self._high[target].append(0.0)
        return len(self._line) - 1

    def _set(self, target: str, row: int, diag: Diagnostic, cost: tuple[Kind, Hours] | None) -> None:
        finding = diag.finding
        self._difficulty[target][row] = int(finding.difficulty)
        self._message[target][row] = self.strings.add(finding.message)
        if finding.replacement is not None:
            self._replacement[target][row] = self.strings.add(finding.replacement)
        fixable = (_FIXABLE if finding.fixable else 0) | (_DUAL_FIXABLE if finding.dual_fixable else 0)
        self._flags[target][row] = fixable | (int(finding.severity) << _SEVERITY_SHIFT)
        if cost is not None:
            kind, hours = cost
            if kind.name not in self.kinds:
                self.kinds.append(kind.name)
            self._kind[target][row] = self.kinds.index(kind.name)
            self._low[target][row] = hours.low
            self._high[target][row] = hours.high

    # ---- reading --------------------------------------------------------------------------------------------------
    def __len__(self) -> int:
        return len(self._line)

    def rows_of(self, file: int) -> range:
        start = self._starts[file]
        end = self._starts[file + 1] if file + 1 < len(self._starts) else len(self._line)
        return range(start, end)

    def group_of(self, row: int) -> int:
        return self._group[row]

    def sorted_rows(self, file: int) -> list[int]:
        """A file's rows in `check`'s order: line, column, rule."""
        rows = list(self.rows_of(file))
        rows.sort(key=lambda r: (self._line[r], self._column[r], self.strings[self._rule[r]]))
        return rows

    def files_by_path(self) -> list[int]:
        return sorted(range(len(self.paths)), key=lambda f: self.paths[f])

    def diagnostics(self, target: str) -> Iterator[dict[str, Any]]:
        """Every finding on `target` as `check --format json` writes it, in its order (path, line, column, rule),
        with what the effort estimate counts for it: its kind and hours."""
        difficulties, messages = self._difficulty[target], self._message[target]
        replacements, flags = self._replacement[target], self._flags[target]
        kinds, lows, highs = self._kind[target], self._low[target], self._high[target]
        strings = self.strings.values
        for file in self.files_by_path():
            path = self.paths[file]
            for r in self.sorted_rows(file):
                level = difficulties[r]
                if level == ABSENT:
                    continue
                cell = {"cell": self._cell[r], "cell_line": self._cell_line[r]} if self._cell[r] else {}
                replacement = replacements[r]
                yield {
                    **cell,
                    "path": path,
                    "line": self._line[r],
                    "column": self._column[r],
                    "end_line": self._end_line[r],
                    "end_column": self._end_column[r],
                    "rule": strings[self._rule[r]],
                    "difficulty": Difficulty(level).label,
                    "severity": Severity(flags[r] >> _SEVERITY_SHIFT).label,
                    "message": strings[messages[r]],
                    "symbol": strings[self._symbol[r]],
                    "replacement": strings[replacement] if replacement != ABSENT else None,
                    "fixable": bool(flags[r] & _FIXABLE),
                    "dual_stack_fixable": bool(flags[r] & _DUAL_FIXABLE),
                    "effort_kind": self.kinds[kinds[r]] if kinds[r] != ABSENT else None,
                    "effort_hours": [round(lows[r], 4), round(highs[r], 4)],
                }

    def compact_rows(self, file: int) -> Iterator[list[Any]]:
        """A file's rows for the HTML's embedded details: [line, column, group, difficulties, messages, text], the
        difficulties a string of one digit per target ('-' where absent), messages and the line's text as string
        indexes (the text -1 where there is none)."""
        for r in self.sorted_rows(file):
            levels = "".join(
                "-" if self._difficulty[t][r] == ABSENT else str(self._difficulty[t][r]) for t in self.targets
            )
            messages = [self._message[t][r] for t in self.targets]
            yield [self._line[r], self._column[r], self._group[r], levels, messages, self._text[r]]
