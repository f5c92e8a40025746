"""C, C++ and CUDA names for judging a fix's result: which identifiers the file itself defines (functions with a
body, variables, macros, types, fields, enumerators) and where it reads them, at the names a set of edits
touches. A name the file only reads comes from a header: renaming it cannot leave the file's own names
inconsistent, so judging a file that only renames CUDA's names costs a word search per name."""

from __future__ import annotations

import re
from typing import Any

from tree_sitter import Node, Parser, Query, QueryCursor

from ...model.findings import Edit
from ...model.source import apply_edits
from ..common.base import whole_words
from ..common.names import Affected, Occurrence, Prediction, Role, changed_words
from ..common.syntax import C_COMMENT_OR_STRING
from .language import CUDA_LANGUAGE

_IDENTIFIERS = frozenset({"identifier", "type_identifier", "field_identifier", "namespace_identifier"})
_WRAPPERS = frozenset(
    {
        "pointer_declarator",
        "reference_declarator",
        "array_declarator",
        "init_declarator",
        "function_declarator",
        "parenthesized_declarator",
        "attributed_declarator",
    }
)
_DECLARING = frozenset({"declaration", "field_declaration", "parameter_declaration", "type_definition"})
_NAMED = frozenset(
    {
        "preproc_def",
        "preproc_function_def",
        "enumerator",
        "namespace_definition",
        "type_parameter_declaration",
        "optional_type_parameter_declaration",
    }
)
_TYPES = frozenset({"struct_specifier", "class_specifier", "union_specifier", "enum_specifier"})
_OPAQUE = frozenset({"preproc_arg"})  # a macro's body: text, not syntax
_QUALIFIED = re.compile(r"(?:::)?[A-Za-z_]\w*(?:::[A-Za-z_]\w*)*")
_PATH = re.compile(r"[^\"<>\n\r\\]*")
_KEYWORDS = frozenset(
    [
        "auto",
        "break",
        "case",
        "char",
        "const",
        "continue",
        "default",
        "do",
        "double",
        "else",
        "enum",
        "extern",
        "float",
        "for",
        "goto",
        "if",
        "inline",
        "int",
        "long",
        "register",
        "restrict",
        "return",
        "short",
        "signed",
        "sizeof",
        "static",
        "struct",
        "switch",
        "typedef",
        "union",
        "unsigned",
        "void",
        "volatile",
        "while",
        "bool",
        "class",
        "const_cast",
        "delete",
        "dynamic_cast",
        "explicit",
        "false",
        "friend",
        "mutable",
        "namespace",
        "new",
        "operator",
        "private",
        "protected",
        "public",
        "reinterpret_cast",
        "static_cast",
        "template",
        "this",
        "throw",
        "true",
        "try",
        "typeid",
        "typename",
        "using",
        "virtual",
        "constexpr",
        "decltype",
        "noexcept",
        "nullptr",
        "alignas",
        "alignof",
    ]
)


class CNames:
    """The NameReader of C, C++ and CUDA (cudaport.analyzers.names)."""

    names_when_predicted = False  # the C analyzer vets the names it renames (a CUDA-named function of the file's)

    def __init__(self, parser: Parser) -> None:
        self._parser = parser  # for a rewritten statement parsed alone
        self._verdicts: dict[tuple[bytes, tuple[Edit, ...]], bool] = {}  # the same call is rewritten the same way

    def unresolved_ok(self, name: str) -> bool:
        return True  # a name nothing in the file defines comes from a header

    def affected(self, data: bytes, root: Any, edits: list[Edit]) -> Affected:
        """The names the edits change that the file defines itself: the others come from headers, and renaming
        them cannot leave the file's own names inconsistent."""
        words: set[str] = set()
        for edit in edits:
            words |= changed_words(data[edit.start : edit.end].decode("utf-8", "replace"), edit.text)
        words -= _KEYWORDS
        return Affected(frozenset(words & _defined(root)) if words else frozenset(), frozenset())

    def occurrences(self, data: bytes, root: Any, affected: Affected) -> list[Occurrence]:
        out: list[Occurrence] = []
        for word in affected.words:
            raw = word.encode()
            for start in whole_words(data, raw):
                node = root.descendant_for_byte_range(start, start + len(raw))
                if node is None or node.type in C_COMMENT_OR_STRING:
                    continue
                end = start + len(raw)
                if node.type in _OPAQUE or _in_opaque(node):
                    out.append(Occurrence("c", word, Role.READS, ("",), start, end))
                elif node.type in _IDENTIFIERS and node.start_byte == start and node.end_byte == end:
                    out.append(Occurrence("c", word, _role(node), ("",), start, end))
        return out

    def predicted(
        self, data: bytes, root: Any, edits: list[Edit], affected: Affected, before: list[Occurrence]
    ) -> Prediction | None:
        statements: dict[tuple[int, int], list[Edit]] = {}  # rewrites that are more than a token, by statement
        for edit in edits:
            if edit.start == edit.end:
                if not _whole_lines_inserted(data, root, edit):
                    return None
                continue  # an #include line
            node = root.descendant_for_byte_range(edit.start, edit.end)
            if node is None:
                return None
            if _token_rename(node, edit):
                continue
            statement = _statement(node)
            if statement is None:
                return None
            statements.setdefault((statement.start_byte, statement.end_byte), []).append(edit)
        syntax = [span for span, inside in statements.items() if not self._parses_as_before(data, span, inside)]
        return Prediction(None, syntax)

    def _parses_as_before(self, data: bytes, span: tuple[int, int], edits: list[Edit]) -> bool:
        """A statement rewritten by `edits`, parsed alone, has no more syntax errors than it had."""
        start, end = span
        before = data[start:end]
        relative = tuple(Edit(e.start - start, e.end - start, e.text) for e in edits)
        key = (before, relative)
        known = self._verdicts.get(key)
        if known is None:
            after = apply_edits(before, list(relative))
            known = len(_errors(self._parser.parse(after).root_node)) <= len(
                _errors(self._parser.parse(before).root_node)
            )
            if len(self._verdicts) >= _VERDICTS:
                self._verdicts.clear()
            self._verdicts[key] = known
        return known


def _token_rename(node: Node, edit: Edit) -> bool:
    """The edit renames one name or rewrites an include path: the syntax stays what it was."""
    exact = node.start_byte == edit.start and node.end_byte == edit.end
    if node.type in ("system_lib_string", "string_content") and _PATH.fullmatch(edit.text):
        return True
    if node.type in _OPAQUE or _in_opaque(node):
        return _QUALIFIED.fullmatch(edit.text) is not None
    if not exact or _QUALIFIED.fullmatch(edit.text) is None:
        return False
    if any(part in _KEYWORDS for part in edit.text.split("::") if part):
        return False
    return node.type in _IDENTIFIERS or node.type == "qualified_identifier"


_VERDICTS = 4096
_LISTS = frozenset({"compound_statement", "translation_unit", "declaration_list", "field_declaration_list"})


def _statement(node: Node) -> Node | None:
    """The statement or declaration `node` is part of (the child of a block or of the file)."""
    current: Node | None = node
    while current is not None and current.parent is not None and current.parent.type not in _LISTS:
        if current.parent.type.startswith("preproc_") and current.parent.type not in ("preproc_arg",):
            break  # a statement inside an #if block: the block's lines hold it
        current = current.parent
    return current


def _errors(root: Any) -> list[Node]:
    out: list[Node] = []
    if not root.has_error:
        return out
    pending = [root]
    while pending:
        node = pending.pop()
        if node.is_error or node.is_missing:
            out.append(node)
        elif node.has_error:
            pending.extend(node.children)
    return out


_DEFINITIONS = """
(preproc_def name: (identifier) @d)
(preproc_function_def name: (identifier) @d)
(function_declarator declarator: (_) @d)
(init_declarator declarator: (_) @d)
(declaration declarator: (_) @d)
(field_declaration declarator: (_) @d)
(parameter_declaration declarator: (_) @d)
(type_definition declarator: (_) @d)
(pointer_declarator declarator: (_) @d)
(reference_declarator (_) @d)
(array_declarator declarator: (_) @d)
(enumerator name: (identifier) @d)
(struct_specifier name: (_) @d)
(class_specifier name: (_) @d)
(union_specifier name: (_) @d)
(enum_specifier name: (_) @d)
(namespace_definition name: (_) @d)
"""
_QUERY: Query | None = None  # compiled on first use


def _defined(root: Any) -> frozenset[str]:
    """Every name written where a declaration or a `#define` names what it defines (more than `_role` counts as
    a definition: a cheap first cut, C-speed)."""
    global _QUERY
    if _QUERY is None:
        _QUERY = Query(CUDA_LANGUAGE, _DEFINITIONS)
    captured = QueryCursor(_QUERY).captures(root).get("d", [])
    return frozenset((n.text or b"").decode("utf-8", "replace") for n in captured if n.type in _IDENTIFIERS)


def _in_opaque(node: Node) -> bool:
    parent = node.parent
    return parent is not None and parent.type in _OPAQUE


def _role(node: Node) -> Role:
    """Whether the identifier `node` is where the file defines the name or where it reads it."""
    parent = node.parent
    if parent is None:
        return Role.READS
    if parent.child_by_field_name("name") == node:
        if parent.type in _NAMED:
            return Role.DEFINES
        if parent.type in _TYPES:
            return Role.DEFINES if parent.child_by_field_name("body") is not None else Role.READS
    if parent.type == "type_parameter_declaration":
        return Role.DEFINES
    current = node
    prototype = False
    while current.parent is not None and current.parent.type in _WRAPPERS:
        if current.parent.child_by_field_name("declarator") != current:
            return Role.READS
        prototype = prototype or current.parent.type == "function_declarator"
        current = current.parent
    top = current.parent
    if top is None or top.child_by_field_name("declarator") != current:
        return Role.READS
    if top.type == "function_definition":
        return Role.DEFINES
    if top.type in _DECLARING:
        return Role.READS if prototype else Role.DEFINES  # a prototype re-declares a function defined elsewhere
    return Role.READS


def _whole_lines_inserted(data: bytes, root: Any, edit: Edit) -> bool:
    """An inserted `#include` (whole lines, at the start of a line, between top-level declarations)."""
    position = edit.start
    if not edit.text.endswith("\n") or (position > 0 and data[position - 1] != 0x0A):
        return False
    if not all(line.lstrip().startswith("#include") for line in edit.text.splitlines() if line.strip()):
        return False
    node = root.descendant_for_byte_range(position, position)
    while node is not None and node.type != "translation_unit":
        if node.start_byte < position < node.end_byte and node.type not in (
            "preproc_if",
            "preproc_ifdef",
            "preproc_else",
            "preproc_elif",
        ):
            return False
        node = node.parent
    return True
