"""What the editor side needs to know about each source language: how to write a suppression comment, and which
syntax nodes are text rather than code (the engine's cudaport.comments, which `fix --add-ignore` uses too). What
an edit can invalidate is the analyzer's business (its IncrementalProfile, used by cudaport.session).

A language the engine registers without a profile here is still served (diagnostics, quick fixes, hover), only
without the "ignore" action."""

from __future__ import annotations

from pathlib import Path

from ..analyzers.common.comments import C_FAMILY, GENERIC, PROFILES, PYTHON
from ..analyzers.common.comments import CommentSyntax as LanguageProfile
from ..analyzers.common.comments import syntax_for as profile
from ..knowledge.filekinds import file_kinds, language_for

__all__ = ["C_FAMILY", "GENERIC", "PROFILES", "PYTHON", "LanguageProfile", "detect_language", "profile"]


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
