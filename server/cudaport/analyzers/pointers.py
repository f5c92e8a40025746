"""Arithmetic on CUDA types that are integers in CUDA and pointers on the target (`CUdeviceptr`).

The driver API's `CUdeviceptr` is an `unsigned long long`: code adds byte offsets to it, aligns it with `%` and
masks it. HIP's `hipDeviceptr_t` is `void *`, so the renamed `base + offset` is arithmetic on a pointer to void and
does not compile (or, cast to another pointer first, scales the offset). The variables of such a type are found by
their declarations in the file; each arithmetic use is left for a person."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from tree_sitter import Node

from ..models import Finding
from ..ruleset import Symbol
from .tsutil import text

if TYPE_CHECKING:
    from .cscan import Scan

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
    if not variables:
        return
    words = re.compile(rb"(?<![\w$])(?:" + b"|".join(re.escape(v.encode()) for v in variables) + rb")(?![\w$])")
    reported: set[int] = set()
    for lo, hi in scan.windows:
        for match in words.finditer(scan.data, lo, hi):
            found = scan.code_node(match.start(), match.end())
            if found is None or found[1] or found[0].type not in ("identifier", "field_identifier"):
                continue
            expression = _arithmetic_around(found[0])
            if expression is None or expression.start_byte in reported or not scan.wanted(expression.start_byte):
                continue
            reported.add(expression.start_byte)
            name = text(found[0])
            symbol = Symbol(name, "pattern", RULE, "cuda", {}, note=f"`{name}` is a `{variables[name]}`")
            outcome = scan.ruleset.outcome(symbol, scan.context.target)
            yield scan.finding(
                RULE, expression.start_byte, expression.end_byte, outcome, name, data={"kind": "pattern"}
            )


def _variables_of(scan: Scan, types: list[str]) -> dict[str, str]:
    """Variable, parameter and field names the file declares with one of `types` -> that type."""
    found: dict[str, str] = {}
    for type_name in types:
        for match in re.finditer(rb"(?<![\w$])" + re.escape(type_name.encode()) + rb"(?![\w$])", scan.data):
            node = scan.code_node(match.start(), match.end())
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


def _arithmetic_around(node: Node) -> Node | None:
    """The arithmetic expression `node` (or the field access it names) is an operand of, if any."""
    operand = node.parent if node.parent is not None and node.parent.type == "field_expression" else node
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
