"""The small words the report's sentences are joined with, in the active language: difficulty names, lists and
clauses. A sentence is one whole template (`i18n.t`) wherever its parts can be ordered; these helpers join what a
template cannot hold whole (a list of any length)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ..i18n import N_, t
from ..models import Difficulty

DIFFICULTY_NAMES = {
    Difficulty.PORTABLE: N_("portable"),
    Difficulty.MECHANICAL: N_("mechanical"),
    Difficulty.MANUAL: N_("manual"),
    Difficulty.BLOCKER: N_("blocker"),
}


def difficulty_name(difficulty: Difficulty) -> str:
    """The difficulty as prose names it (machine output keeps `Difficulty.label`)."""
    return t(DIFFICULTY_NAMES[difficulty])


UNITS = {"name": N_("name"), "file": N_("file"), "use": N_("use")}


def unit_name(per: str) -> str:
    """The unit of work an effort weight counts (rules/effort.toml `per`: name, file, use), as prose says it."""
    return t(UNITS[per]) if per in UNITS else per


def clauses(parts: Iterable[str]) -> str:
    """Clauses of one sentence: 'a; b; c'."""
    return _fold(parts, lambda one, other: t("{one}; {other}", one=one, other=other))


def both(parts: Iterable[str]) -> str:
    """'a and b' (and 'a and b and c')."""
    return _fold(parts, lambda one, other: t("{one} and {other}", one=one, other=other))


def _fold(parts: Iterable[str], join: Callable[[str, str], str]) -> str:
    out: str | None = None
    for part in parts:
        out = part if out is None else join(out, part)
    return out or ""
