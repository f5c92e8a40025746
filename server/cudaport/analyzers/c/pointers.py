"""Arithmetic on CUDA types that are integers in CUDA and pointers on the target (`CUdeviceptr`, texture objects).

The driver API's `CUdeviceptr` is an `unsigned long long`: code adds byte offsets to it, aligns it with `%` and
masks it. HIP's `hipDeviceptr_t` is `void *`, so the renamed `base + offset` is arithmetic on a pointer to void and
does not compile (or, cast to another pointer first, scales the offset). Texture and surface objects are 64-bit
integers in CUDA too, which code packs into two 32-bit halves; HIP's are pointers to opaque structs. The variables
of such a type are found by their declarations in the file, and casts to it where they are written; each
arithmetic use is left for a person."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from tree_sitter import Node

from ...i18n import t
from ...knowledge.ruleset import Symbol
from ...model.findings import Finding
from ..common.base import whole_words
from ..common.syntax import text

if TYPE_CHECKING:
    from .scan import Scan

RULE = "CP1035"
_ARITHMETIC = frozenset({"+", "-", "*", "/", "%", "&", "|", "^", "<<", ">>"})
_COMPOUND = frozenset({"+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=", "<<=", ">>="})
_DECLARATIONS = frozenset({"declaration", "parameter_declaration", "field_declaration"})


def find_pointer_arithmetic(scan: Scan) -> Iterator[Finding]:
    target = scan.ruleset.targets.get(scan.context.target)
    if target is None or not target.pointer_types:
        return
    present = [name for name in target.pointer_types if scan.has(name.encode())]
    if not present:
        return
    variables = _variables_of(scan, present)
    words = re.compile(rb"(?<![\w$])(?:" + b"|".join(re.escape(v.encode()) for v in variables) + rb")(?![\w$])")
    casts = [(name, _whole_word(name)) for name in present]
    reported: set[int] = set()
    for lo, hi in scan.windows:
        for match in words.finditer(scan.data, lo, hi) if variables else ():
            found = scan.code_node(match.start(), match.end())
            if found is None or found[1] or found[0].type not in ("identifier", "field_identifier"):
                continue
            name, parent = text(found[0]), found[0].parent
            operand = parent if parent is not None and parent.type == "field_expression" else found[0]
            note = t("`{name}` is a `{type}`", name=name, type=variables[name])
            yield from _report(scan, operand, name, note, reported)
        for type_name, pattern in casts:
            for match in pattern.finditer(scan.data, lo, hi):
                found = scan.code_node(match.start(), match.end())
                cast = _cast_to_type(found[0]) if found is not None and not found[1] else None
                if cast is not None:
                    note = t("a `{type}`", type=type_name)
                    yield from _report(scan, cast, " ".join(text(cast).split()), note, reported)


def _report(scan: Scan, operand: Node, symbol: str, note: str, reported: set[int]) -> Iterator[Finding]:
    expression = _arithmetic_around(operand)
    if expression is None or expression.start_byte in reported or not scan.wanted(expression.start_byte):
        return
    reported.add(expression.start_byte)
    outcome = scan.ruleset.outcome(Symbol(symbol, "pattern", RULE, "cuda", {}, note=note), scan.context.target)
    yield scan.finding(RULE, expression.start_byte, expression.end_byte, outcome, symbol, data={"kind": "pattern"})


def _whole_word(word: str) -> re.Pattern[bytes]:
    return re.compile(rb"(?<![\w$])" + re.escape(word.encode()) + rb"(?![\w$])")


def _cast_to_type(name: Node) -> Node | None:
    """The cast expression `(T)value` whose type is the type name `name`, if it is one."""
    descriptor = name.parent
    if descriptor is None or descriptor.type != "type_descriptor":
        return None
    cast = descriptor.parent
    return cast if cast is not None and cast.type == "cast_expression" else None


def _variables_of(scan: Scan, types: list[str]) -> dict[str, str]:
    """Variable, parameter and field names the file declares with one of `types` -> that type. The type's
    occurrences are found with bytes.find: a regex starting with a lookbehind tries every position of the buffer,
    ~10 ms for a large file on every keystroke in an editor."""
    found: dict[str, str] = {}
    data = scan.data
    for type_name in types:
        word = type_name.encode()
        for start in whole_words(data, word):
            node = scan.code_node(start, start + len(word))
            declaration = node[0].parent if node is not None and not node[1] else None
            if declaration is None or declaration.type not in _DECLARATIONS:
                continue
            for declarator in declaration.children_by_field_name("declarator"):
                name = _declared_name(declarator)
                if name is not None:
                    found[text(name)] = type_name
    return found


def _declared_name(declarator: Node) -> Node | None:
    """The name an (init) declarator declares, unless it declares a pointer to the type or an array of it."""
    while declarator.type == "init_declarator":
        inner = declarator.child_by_field_name("declarator")
        if inner is None:
            return None
        declarator = inner
    return declarator if declarator.type in ("identifier", "field_identifier") else None


def _arithmetic_around(operand: Node) -> Node | None:
    """The arithmetic expression `operand` (in parentheses or not) is an operand of, if any."""
    while operand.parent is not None and operand.parent.type == "parenthesized_expression":
        operand = operand.parent
    parent = operand.parent
    if parent is None:
        return None
    if parent.type == "binary_expression":
        operator = parent.child_by_field_name("operator")
        return parent if operator is not None and operator.type in _ARITHMETIC else None
    if parent.type == "assignment_expression":
        operator = parent.child_by_field_name("operator")
        left = parent.child_by_field_name("left")
        return parent if operator is not None and operator.type in _COMPOUND and left == operand else None
    if parent.type == "update_expression":
        return parent
    return None
