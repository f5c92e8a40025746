"""The kinds of file cudaport reads (rules/files.toml): how each is recognised (suffixes, names, globs, the first
bytes of an executable), the editor's language ids, and how its comments and strings look."""

from __future__ import annotations

import fnmatch
import functools
import os
import re
from pathlib import Path

from ..model.records import record


@record(frozen=True, slots=True)
class FileKind:
    """One kind of file cudaport reads (rules/files.toml): how it is recognised and how its comments look."""

    language: str  # the engine language: the analyzer registered under this name
    suffixes: tuple[str, ...]
    names: frozenset[str]  # lower-case
    globs: tuple[str, ...]  # lower-case
    language_ids: tuple[str, ...]
    comment: str | None
    block_comment: tuple[str, str] | None
    group: str
    binary: bool = False
    magic: bytes = b""
    trigger: tuple[bytes, ...] = ()
    strings: frozenset[str] = frozenset()  # syntax nodes that are text (no suppression comment goes inside)
    comment_above: bool = False  # comments only on lines of their own: a directive covers the line below it
    label: str = ""  # what the report calls files of this kind ("CMake"), in English; "" = the language's id


class FileKinds:
    """The file kinds in the order rules/files.toml gives them."""

    def __init__(self, kinds: list[FileKind]) -> None:
        self.kinds = kinds
        self.by_language = {k.language: k for k in kinds}
        self._suffixes = {s: k.language for k in reversed(kinds) for s in k.suffixes}
        self._names = {n: k.language for k in reversed(kinds) for n in k.names}
        self._globs = [(g, k.language) for k in kinds for g in k.globs]
        # one expression for all the globs: most names match none of them, and one match tells so
        self._any_glob = _any_of([fnmatch.translate(g if "/" not in g else "*/" + g) for g, _ in self._globs])
        self._ids = {i: k.language for k in reversed(kinds) for i in k.language_ids}
        self._magics = [(k.magic, k.language) for k in kinds if k.magic]

    def language_for(self, path: str | Path) -> str | None:
        name = os.path.basename(str(path)).lower()
        found = self._names.get(name)
        if found is not None:
            return found
        dot = name.rfind(".")
        if dot > 0:
            found = self._suffixes.get(name[dot:])
            if found is not None:
                return found
        if not self._globs:
            return None
        whole = str(path).replace(os.sep, "/").lower()
        if self._any_glob is not None and self._any_glob.match(name) is None and self._any_glob.match(whole) is None:
            return None
        for pattern, language in self._globs:
            if "/" in pattern:
                if fnmatch.fnmatchcase(whole, "*/" + pattern):
                    return language
            elif fnmatch.fnmatchcase(name, pattern):
                return language
        return None

    def language_for_id(self, language_id: str) -> str | None:
        return self._ids.get(language_id.lower())

    def sniff(self, path: Path) -> str | None:
        """A kind recognised by its first bytes: an executable without a suffix (an ELF program)."""
        if not self._magics or "." in path.name:
            return None
        try:
            if not os.access(path, os.X_OK) or not path.is_file():
                return None
            with path.open("rb") as handle:
                head = handle.read(8)
        except OSError:
            return None
        return next((language for magic, language in self._magics if head.startswith(magic)), None)

    def watch_globs(self) -> list[str]:
        """Glob patterns (for an editor's file watcher) that cover every kind that has a text form."""
        patterns = [f"**/*{s}" for k in self.kinds if not k.binary for s in k.suffixes]
        patterns += [f"**/{n}" for k in self.kinds if not k.binary for n in k.names]
        patterns += [f"**/{g}" for k in self.kinds if not k.binary for g in k.globs]
        return patterns


def _any_of(expressions: list[str]) -> re.Pattern[str] | None:
    """The expressions as one alternative; None when there are none or they cannot be joined (then each is
    tried)."""
    if not expressions:
        return None
    try:
        return re.compile("|".join(expressions))
    except re.error:  # fnmatch's group names clashed (another Python's)
        return None


@functools.lru_cache(maxsize=1)
def file_kinds() -> FileKinds:
    from .ruleset import RuleDataError, prologue_fact

    table = prologue_fact("files")  # rules/files.toml, read with the bundled rule data (and cached)
    if not isinstance(table, dict):
        raise RuleDataError("rules/files.toml (the file kinds) is missing from this installation")
    kinds = []
    for language, raw in table.get("kind", {}).items():
        block = raw.get("block-comment")
        kinds.append(
            FileKind(
                language=language,
                suffixes=tuple(str(s).lower() for s in raw.get("suffixes", [])),
                names=frozenset(str(n).lower() for n in raw.get("names", [])),
                globs=tuple(str(g).lower() for g in raw.get("globs", [])),
                language_ids=tuple(str(i) for i in raw.get("language-ids", [])),
                comment=raw.get("comment"),
                block_comment=(str(block[0]), str(block[1])) if block else None,
                group=str(raw.get("group", "sources")),
                binary=bool(raw.get("binary", False)),
                magic=str(raw.get("magic", "")).encode("latin-1"),
                trigger=tuple(str(t).encode() for t in raw.get("trigger", [])),
                strings=frozenset(str(s) for s in raw.get("strings", [])),
                comment_above=bool(raw.get("comment-above", False)),
                label=str(raw.get("label", "")),
            )
        )
    return FileKinds(kinds)


def language_for(path: str | Path) -> str | None:
    return file_kinds().language_for(path)


def file_kind(language: str) -> FileKind | None:
    return file_kinds().by_language.get(language)
