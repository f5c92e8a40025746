"""The small words the report's sentences are joined with, in the active language: units, lists and clauses (the
difficulty names are output.words', shared with the other human outputs). A sentence is one whole template
(`i18n.t`) wherever its parts can be ordered; these helpers join what a template cannot hold whole (a list of any
length)."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from ..i18n import N_, plural, t
from ..knowledge.filekinds import file_kind

UNITS = {"name": N_("name"), "file": N_("file"), "use": N_("use")}


def number(value: int) -> str:
    """A count as the report shows it to people: '1,234' in every language (the JSON keeps plain numbers)."""
    return f"{value:,}"


def tn(one: str, other: str, count: int, /, **fields: object) -> str:
    """`i18n.tn` with its count written as `number` writes it: '1,234 files'."""
    return plural(one, other, count).format(count=number(count), **fields)


def language_name(language: str) -> str:
    """What the report calls a kind of file ("C/C++/CUDA", "CMake", "shell script"; rules/files.toml's
    `label`), in the active language; a kind with no label by its id."""
    kind = file_kind(language)
    return t(kind.label) if kind is not None and kind.label else language


def unit_name(per: str) -> str:
    """The unit of work an effort weight counts (rules/effort.toml `per`: name, file, use), as prose says it."""
    return t(UNITS[per]) if per in UNITS else per


def clauses(parts: Iterable[str]) -> str:
    """Clauses of one sentence: 'a; b; c'."""
    return _fold(parts, lambda one, other: t("{one}; {other}", one=one, other=other))


def listing(parts: Iterable[str]) -> str:
    """'a, b and c'."""
    items = list(parts)
    if len(items) < 2:
        return "".join(items)
    head = _fold(items[:-1], lambda one, other: t("{first}, {next}", first=one, next=other))
    return t("{items} and {last}", items=head, last=items[-1])


def both(parts: Iterable[str]) -> str:
    """'a and b' (and 'a and b and c')."""
    return _fold(parts, lambda one, other: t("{one} and {other}", one=one, other=other))


def _fold(parts: Iterable[str], join: Callable[[str, str], str]) -> str:
    out: str | None = None
    for part in parts:
        out = part if out is None else join(out, part)
    return out or ""
