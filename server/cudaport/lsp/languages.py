"""What the editor side needs to know about each source language: how to write a suppression comment, and which
syntax nodes are text rather than code. What an edit can invalidate is the analyzer's business (its
IncrementalProfile, used by cudaport.session).

A language the engine registers without a profile here is still served (diagnostics, quick fixes, hover), only
without the "ignore" action."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ..analyzers.tsutil import C_COMMENT_OR_STRING
from ..files import file_kind, file_kinds, language_for


@dataclass(frozen=True, slots=True)
class LanguageProfile:
    line_comment: str | None  # starts a comment that runs to the end of the line
    block_comment: tuple[str, str] | None  # a comment that can sit in the middle of a line
    # Syntax nodes that are text, not code: no hover there, no suppression comment inserted inside them.
    literals: frozenset[str]


C_FAMILY = LanguageProfile(
    line_comment="//",
    block_comment=("/*", "*/"),
    literals=C_COMMENT_OR_STRING,  # the analyzer's own list: one answer to "is this a comment or a string?"
)

PYTHON = LanguageProfile(
    line_comment="#",
    block_comment=None,
    literals=frozenset({"comment", "string", "string_content", "concatenated_string"}),
)

# A language without a profile: no suppression comments written.
GENERIC = LanguageProfile(None, None, frozenset({"comment", "string"}))

PROFILES: dict[str, LanguageProfile] = {"c": C_FAMILY, "python": PYTHON}


def profile(language: str) -> LanguageProfile:
    """The C family and Python have their own; every other kind writes its comment (rules/files.toml)."""
    known = PROFILES.get(language)
    if known is not None:
        return known
    kind = file_kind(language)
    if kind is None or kind.comment is None:
        return GENERIC
    if language == "json":
        return GENERIC  # JSON has no comments (a .jsonc buffer is the only exception, and rare)
    return LanguageProfile(kind.comment, kind.block_comment, frozenset({"comment", "string", "string_content"}))


def detect_language(path: Path | None, language_id: str) -> str | None:
    """The engine language of a buffer: from its file name like the CLI, else from the editor's language id
    (untitled buffers, notebook cells, a Dockerfile named `prod.docker`)."""
    if path is not None:
        found = language_for(path)
        if found is not None:
            return found
        if path.suffix and path.suffix.lower() != ".ipynb":
            return None  # a file the CLI would not analyse either (.md, .rst, ...)
    return file_kinds().language_for_id(language_id)
