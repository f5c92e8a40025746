"""What the server needs to know about each source language beyond what the engine's analyzer does: how to write
a suppression comment, which syntax nodes bound a re-analysis, and which edits can change findings elsewhere.

A language the engine registers without a profile here is still served (diagnostics, quick fixes, hover),
only without incremental re-analysis and without the "ignore" action."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from ..analyzers.tsutil import C_COMMENT_OR_STRING
from ..files import language_for


@dataclass(frozen=True, slots=True)
class LanguageProfile:
    line_comment: str | None  # starts a comment that runs to the end of the line
    block_comment: tuple[str, str] | None  # a comment that can sit in the middle of a line
    # Edits to lines matching this can change findings anywhere in the file (conditional compilation guards,
    # portability #defines, includes, imports that alias `torch.cuda`, file-level suppressions): such an edit
    # re-analyses the whole file.
    file_wide: re.Pattern[bytes] | None
    # Edits to lines matching this change what the file includes: the project headers it sees are looked up again
    # (a portability header mapping CUDA names for the whole file makes the edit file-wide).
    context_lines: re.Pattern[bytes] | None
    # Re-analysis widens an edit to the outermost enclosing node of one of these types (a function: whether code
    # is device code depends on its qualifiers) ...
    scopes: frozenset[str]
    # ... or, outside any of them, to the outermost node below one of these (never a whole namespace or class).
    containers: frozenset[str]
    # Syntax nodes that are text, not code: no hover there, no suppression comment inserted inside them.
    literals: frozenset[str]
    # A tree-sitter query capturing (@name) the functions a file declares: a file that declares one named like
    # a CUDA API makes every use of that name the user's own, so such files are always analysed whole.
    declarations: str | None = None

    @property
    def incremental(self) -> bool:
        return self.file_wide is not None


_SUPPRESSION = rb"cudaport:"

C_FAMILY = LanguageProfile(
    line_comment="//",
    block_comment=("/*", "*/"),
    file_wide=re.compile(
        # conditional compilation (which code paths are already dual-stack)
        rb"^[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b"
        # portability definitions: `#define cudaMalloc hipMalloc`, `typedef hipStream_t cudaStream_t;`
        rb"|^[ \t]*#[ \t]*define[ \t]+\w+[ \t]+[A-Za-z_][\w:]*[ \t]*(?://[^\n]*)?$"
        rb"|^[ \t]*(?:typedef[ \t]+\w+[ \t]+\w+|using[ \t]+\w+[ \t]*=[ \t]*\w+)[ \t]*;"
        rb"|" + _SUPPRESSION,
        re.MULTILINE,
    ),
    context_lines=re.compile(rb'^[ \t]*#[ \t]*include[ \t]*"', re.MULTILINE),
    scopes=frozenset({"function_definition", "preproc_def", "preproc_function_def", "template_declaration"}),
    containers=frozenset(
        {
            "translation_unit",
            "namespace_definition",
            "declaration_list",
            "linkage_specification",
            "preproc_if",
            "preproc_ifdef",
            "preproc_else",
            "preproc_elif",
            "preproc_elifdef",
            "field_declaration_list",
        }
    ),
    literals=C_COMMENT_OR_STRING,  # the analyzer's own list: one answer to "is this a comment or a string?"
    declarations="(function_declarator (identifier) @name)",
)

PYTHON = LanguageProfile(
    line_comment="#",
    block_comment=None,
    file_wide=re.compile(rb"\bimport\b|\b__all__\b|" + _SUPPRESSION),
    context_lines=None,
    scopes=frozenset({"function_definition", "decorated_definition"}),
    containers=frozenset({"module", "block", "class_definition"}),
    literals=frozenset({"comment", "string", "string_content", "concatenated_string"}),
)

# A language without a profile: always re-analysed whole, no suppression comments written.
GENERIC = LanguageProfile(None, None, None, None, frozenset(), frozenset(), frozenset({"comment", "string"}))

PROFILES: dict[str, LanguageProfile] = {"c": C_FAMILY, "python": PYTHON}

# Editors' language ids for buffers without a file name (untitled documents).
LANGUAGE_IDS = {
    "cuda": "c",
    "cuda-cpp": "c",
    "cpp": "c",
    "c": "c",
    "objective-cpp": "c",
    "python": "python",
}


def profile(language: str) -> LanguageProfile:
    return PROFILES.get(language, GENERIC)


def detect_language(path: Path | None, language_id: str) -> str | None:
    """The engine language of a buffer: from its file name like the CLI, else from the editor's language id."""
    if path is not None:
        found = language_for(path)
        if found is not None:
            return found
        if path.suffix:
            return None  # a file the CLI would not analyse either (.toml, .md, ...)
    return LANGUAGE_IDS.get(language_id.lower())
