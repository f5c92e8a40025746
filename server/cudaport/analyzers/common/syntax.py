"""Small helpers over tree-sitter nodes shared by the analyzers."""

from __future__ import annotations

import re

from tree_sitter import Node, Parser, Range, Tree

C_COMMENT_OR_STRING = frozenset(
    {
        "comment",
        "string_literal",
        "string_content",
        "raw_string_literal",
        "raw_string_content",
        "char_literal",
        "character",
        "escape_sequence",
        "system_lib_string",
        "concatenated_string",
        "raw_string_delimiter",
    }
)
C_IDENTIFIERS = frozenset(
    {"identifier", "type_identifier", "namespace_identifier", "primitive_type", "statement_identifier"}
)
_DEVICE_QUALIFIERS = frozenset({"__device__", "__global__"})
_FUNCTION_SCOPES = frozenset({"function_definition", "lambda_expression"})
# Projects hide `__device__ __forceinline__` behind their own macros (CUTLASS_DEVICE, CUTLASS_HOST_DEVICE,
# DeepSpeed's DS_D_INLINE, C10_HOST_DEVICE); tree-sitter sees such a macro as the return type.
DEVICE_MACRO = re.compile(rb"^(?:[A-Z0-9_]*DEVICE[A-Z0-9_]*|[A-Z0-9]+(?:_[A-Z0-9]+)*_H?D(?:_[A-Z0-9_]+)?)$")


def node_at(root: Node, start: int, end: int) -> Node | None:
    return root.descendant_for_byte_range(start, end)


def ancestor(node: Node | None, types: frozenset[str], limit: int = 64) -> Node | None:
    while node is not None and limit > 0:
        if node.type in types:
            return node
        node = node.parent
        limit -= 1
    return None


def in_device_code(node: Node, only: bool = False) -> bool:
    """Inside a `__device__`/`__global__` function or a `__device__` lambda; with `only`, not in one that is
    `__host__ __device__` too (its host path may call host APIs, usually under `#ifndef __CUDA_ARCH__`)."""
    scope = ancestor(node.parent, _FUNCTION_SCOPES)
    while scope is not None:
        if only and any(child.type == "__host__" or child.text == b"__host__" for child in scope.children):
            return False
        for child in scope.children:
            if child.type in _DEVICE_QUALIFIERS:
                return True
            if child.type == "ERROR" and child.text in (b"__device__", b"__global__"):
                return True
            if child.type in ("type_identifier", "identifier") and DEVICE_MACRO.match(child.text or b""):
                return True
            if child.type in ("compound_statement", "function_declarator"):
                break
        scope = ancestor(scope.parent, _FUNCTION_SCOPES)
    return False


def is_called(node: Node) -> bool:
    """`node` is the function of a call expression (`name(...)` or `ns::name(...)`)."""
    current = node
    parent = node.parent
    while parent is not None and parent.type in ("qualified_identifier", "template_function"):
        current = parent
        parent = parent.parent
    return parent is not None and parent.type == "call_expression" and parent.child_by_field_name("function") == current


def call_of(node: Node) -> Node | None:
    """The call expression whose function `node` names, or None."""
    if not is_called(node):
        return None
    expression = node.parent
    while expression is not None and expression.type != "call_expression":
        expression = expression.parent
    return expression


_CONDITION_EXPRESSIONS = frozenset(
    {"preproc_defined", "binary_expression", "unary_expression", "parenthesized_expression", "call_expression"}
)
_CONDITIONAL_DIRECTIVES = frozenset({"preproc_if", "preproc_elif"})
_NAME_DIRECTIVES = frozenset({"preproc_ifdef", "preproc_elifdef"})


def in_preproc_condition(node: Node) -> bool:
    """`node` is the name an `#ifdef`/`#ifndef` tests, or sits in the condition of an `#if`/`#elif`."""
    parent = node.parent
    if parent is not None and parent.type in _NAME_DIRECTIVES:
        return parent.child_by_field_name("name") == node
    current = node
    while parent is not None and parent.type in _CONDITION_EXPRESSIONS:
        current, parent = parent, parent.parent
    return (
        parent is not None
        and parent.type in _CONDITIONAL_DIRECTIVES
        and parent.child_by_field_name("condition") == current
    )


def defines_macro(node: Node) -> bool:
    """`node` is the name of a `#define`."""
    parent = node.parent
    return (
        parent is not None
        and parent.type in ("preproc_def", "preproc_function_def")
        and parent.child_by_field_name("name") == node
    )


def text(node: Node) -> str:
    raw = node.text
    return raw.decode("utf-8", "replace") if raw is not None else ""


def reparse(parser: Parser, data: bytes, old_tree: Tree | None = None) -> Tree:
    """Parse `data`, reusing `old_tree` (already edited with Tree.edit) when there is one: tree-sitter then only
    re-parses what the edits touched."""
    return parser.parse(data, old_tree) if old_tree is not None else parser.parse(data)


def parse_span(
    parser: Parser, data: bytes, start: int, end: int, start_point: tuple[int, int], end_point: tuple[int, int]
) -> Tree:
    """Parse bytes [start, end) of `data` alone, its nodes at their offsets in `data`. `parser` is set aside for
    this: it keeps the range for the next parse."""
    parser.included_ranges = [Range(start_point, end_point, start, end)]
    return parser.parse(data)
