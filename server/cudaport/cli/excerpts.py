"""The source line under a finding, with a caret under what it names (ruff's `full` output): columns as a terminal
shows them (a tab as four spaces, East Asian wide characters as two)."""

from __future__ import annotations

import unicodedata

from ..model.results import Diagnostic

_TAB = "    "


def _width(text: str) -> int:
    return sum(2 if unicodedata.east_asian_width(c) in ("W", "F") else 1 for c in text)


def excerpt(diag: Diagnostic, line_text: str, paint: str = "") -> list[str]:
    """The lines that show `diag` in its source line: a gutter with the line number, the line, and carets under the
    finding's span (to the end of the line when it goes on to the next). `paint`: an ANSI colour for the carets."""
    shown = line_text.rstrip("\r\n").replace("\t", _TAB)
    raw = line_text.rstrip("\r\n")
    start = max(0, diag.column - 1)
    end = diag.end_column - 1 if diag.end_line == diag.line else len(raw)
    end = max(start + 1, min(end, len(raw)))
    before = _width(raw[:start].replace("\t", _TAB))
    marked = max(1, _width(raw[start:end].replace("\t", _TAB)))
    number = str(diag.line)
    gutter = " " * len(number)
    carets = "^" * marked
    if paint:
        carets = f"\x1b[{paint}m{carets}\x1b[0m"
    return [f"{gutter} |", f"{number} | {shown}", f"{gutter} | {' ' * before}{carets}", f"{gutter} |"]
