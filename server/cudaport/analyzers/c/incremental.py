"""What an edit to a C-family file can change, for the engine's analysis session (cudaport.session): the
analyzer's incremental profile, and the file-wide facts (CFileFacts) compared before and after an edit to one of
the statements that decide them."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

from ...model.records import record
from ..common.base import FactChanges, IncrementalProfile
from .includes import IMPLICIT_RUNTIME_RULE

_FILE_SUPPRESSION = rb"cudaport:[ \t]*ignore-file[^\n]*"
FILE_SUPPRESSION_LINE = re.compile(_FILE_SUPPRESSION)
_INCLUDE = rb"^[ \t]*#[ \t]*include[ \t]*<[^>\n]*>?"

# What an edit can change, for the engine's analysis session (cudaport.session).
INCREMENTAL = IncrementalProfile(
    file_wide=re.compile(
        # conditional compilation (which code paths are already dual-stack)
        rb"^[ \t]*#[ \t]*(?:if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b[^\n]*"
        # portability definitions: `#define cudaMalloc hipMalloc`, `typedef hipStream_t cudaStream_t;`
        rb"|^[ \t]*#[ \t]*define[ \t]+\w+[ \t]+[A-Za-z_][\w:]*[ \t]*(?://[^\n]*)?\r?$"
        rb"|^[ \t]*(?:typedef[ \t]+\w+[ \t]+\w+|using[ \t]+\w+[ \t]*=[ \t]*\w+)[ \t]*;"
        # includes: whether the file has its runtime include decides findings at its first kernel (CP1007)
        rb"|"
        + _INCLUDE
        # file-level suppressions (a line's own suppression is analysed with its line)
        + rb"|"
        + _FILE_SUPPRESSION,
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
    declarations="(function_declarator (identifier) @name) (field_identifier) @field",
    facts=True,  # CFileFacts: an edit to a directive re-analyses the chains it changes
    # CFileFacts.changes says "the whole file" for any change of the includes or of the file-level suppressions
    whole_file_statements=re.compile(_INCLUDE + rb"|" + _FILE_SUPPRESSION, re.MULTILINE),
    # no finding depends on the conditional blocks around it (only on its own directive's condition)
    transparent=frozenset({"preproc_if", "preproc_ifdef", "preproc_else", "preproc_elif", "preproc_elifdef"}),
    file_level=frozenset({"CP1032", IMPLICIT_RUNTIME_RULE}),  # one finding per file, at the first place it applies
    file_wide_statements=True,  # each match above is the whole directive: typing after `#include <x.h>` is local
    # declarations that parse the same alone as at the top of a file (not the blocks that hold others: an #if, a
    # namespace)
    items=frozenset(
        {
            "function_definition",
            "declaration",
            "comment",
            "preproc_include",
            "preproc_def",
            "preproc_function_def",
            "preproc_call",
            "struct_specifier",
            "class_specifier",
            "enum_specifier",
            "union_specifier",
            "type_definition",
            "template_declaration",
            "template_instantiation",
            "namespace_alias_definition",
            "alias_declaration",
            "using_declaration",
            "expression_statement",
            ";",
            # what is left of a macro a line break cut short (`} while (0)`): top-level statements, as the grammar
            # reads them in the file too
            "compound_statement",
            "if_statement",
            "while_statement",
            "do_statement",
            "for_statement",
            "return_statement",
        }
    ),
)


@record(frozen=True, slots=True)
class CFileFacts:
    """What the file's file-wide statements decide (see FileFacts): compared before and after an edit to one."""

    guards: tuple[tuple[int, int, int, str], ...]  # the target's dual-stack chains: (start, end, named at, marker)
    shims: tuple[tuple[str, str], ...]  # CUDA name -> target name, by a #define (typedef, using) in the file
    includes: tuple[tuple[bool, str], ...]  # (quoted, name) of the includes, each name where it first appears
    first_code_line: int  # where an added #include goes
    file_suppressions: tuple[bytes, ...]  # `cudaport: ignore-file[...]`

    def changes(self, new: Any, moved: Callable[[int], int]) -> FactChanges | None:
        if not isinstance(new, CFileFacts):
            return None
        if (
            self.includes != new.includes
            or self.file_suppressions != new.file_suppressions
            or moved(self.first_code_line) != new.first_code_line
        ):
            # What the includes decide is file-level (the runtime include nvcc adds, explicit initialisation)
            return None
        before = {(moved(start), moved(end), moved(named), marker) for start, end, named, marker in self.guards}
        ranges = [(start, end) for start, end, _, _ in before.symmetric_difference(new.guards)]
        old_shims, new_shims = dict(self.shims), dict(new.shims)
        symbols = frozenset(n for n in old_shims.keys() | new_shims.keys() if old_shims.get(n) != new_shims.get(n))
        return FactChanges(ranges, symbols)
