"""What a rewrite's names mean to the program: the shared shape of the per-language name readers (`pynames`,
`cnames`) that judge whether a fix leaves every name the program defines and reads consistent.

A reader looks only at the names the edits touch (the words of the text they replace and of the text they write),
so judging a file's fixes costs a few word searches and tree lookups, not a walk of the file."""

from __future__ import annotations

import enum
import re
from collections import Counter
from typing import Any, Protocol

from ...model.findings import Edit
from ...model.records import record

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class Role(enum.IntFlag):
    DEFINES = 1
    READS = 2
    BOTH = 3


@record(frozen=True, slots=True)
class Occurrence:
    """A name where the program writes it, and what it does there.

    namespace: "var" (a Python variable, looked up through `frames`), "attr" (`self.X` of the class `frames[0]`),
    "member" (`obj.X` of anything else), "key" (a string key of a dict or mapping), "c" (a C/C++ identifier).
    frames: where a definition binds it, innermost first (a Python variable: the function, then the ones around
    it, then the module ""); one entry for the other namespaces."""

    namespace: str
    name: str
    role: Role
    frames: tuple[str, ...]
    start: int
    end: int
    imported: bool = False  # a definition by an import statement


@record(frozen=True, slots=True)
class Affected:
    """The names and string keys a set of edits can change the meaning of."""

    words: frozenset[str]
    strings: frozenset[str]


@record(frozen=True, slots=True)
class Prediction:
    """The fixed text worked out from the text before: its occurrences of the affected names (None: the reader
    judges names only on a parsed result), and the spans of the text before whose rewrite would not parse."""

    occurrences: list[Occurrence] | None
    syntax: list[tuple[int, int]]


class NameReader(Protocol):
    """A language's reading of names, for judging a fix's result (see cudaport.consistency)."""

    # Whether names are judged when the result is predicted (checking every file): False where the analyzer
    # vets every name it renames itself (C's: a CUDA-named function the file defines is the user's), so that only
    # the result `fix` parses is judged for them.
    names_when_predicted: bool

    def affected(self, data: bytes, root: Any, edits: list[Edit]) -> Affected: ...

    def occurrences(self, data: bytes, root: Any, affected: Affected) -> list[Occurrence]: ...

    def predicted(
        self, data: bytes, root: Any, edits: list[Edit], affected: Affected, before: list[Occurrence]
    ) -> Prediction | None:
        """The fixed text worked out from the text before, where every edit renames one token, inserts whole lines
        that parse alone or rewrites a statement that can be parsed alone; None: parse the whole result."""
        ...

    def unresolved_ok(self, name: str) -> bool:
        """Whether a read of `name` that nothing in the file defines is fine (a builtin)."""
        ...


def words_of(text: str) -> set[str]:
    return set(_WORD.findall(text))


def is_identifier(text: str) -> bool:
    return _WORD.fullmatch(text) is not None


_TOKEN = re.compile(r"[A-Za-z_]\w*")


def changed_words(old: str, new: str) -> set[str]:
    """The identifiers an edit removes or adds (a word written as often before as after stays what it was)."""
    if old.isidentifier() and new.isidentifier():  # most edits rename one name
        return {old, new} if old != new else set()
    before, after = Counter(_TOKEN.findall(old)), Counter(_TOKEN.findall(new))
    return set((before - after) + (after - before))
