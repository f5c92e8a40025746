"""Operators a project defines on CUDA's vector types (`float4 operator+(float4, float4)`, helper_math.h style).

CUDA's `float4` is a plain struct, so projects write their own arithmetic for it. HIP's vector types already carry
every arithmetic, bitwise and comparison operator, and a second definition makes each use ambiguous
("use of overloaded operator '+=' is ambiguous"): the error lands on the uses, far from the cause."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from tree_sitter import Node

from ...knowledge.ruleset import Symbol
from ...model.findings import Finding
from ..common.syntax import text

if TYPE_CHECKING:
    from .scan import Scan

RULE = "CP1009"
_OPERATOR = re.compile(rb"operator")  # literal: the regex engine skips ahead
VECTOR_TYPE = re.compile(r"\b(?:u?char|u?short|u?int|u?long|(?:u|)longlong|float|double)[1-4]\b")


def find_vector_operators(scan: Scan) -> Iterator[Finding]:
    """Only for a target whose vector types define operators themselves (`vector-operators` in targets.toml)."""
    target = scan.ruleset.targets.get(scan.context.target)
    if target is None or not target.vector_operators or not scan.has(b"operator"):
        return
    for lo, hi in scan.windows:
        for match in _OPERATOR.finditer(scan.data, lo, hi):
            found = scan.code_node(match.start(), match.end())
            if found is None or found[1]:
                continue
            name = found[0] if found[0].type == "operator_name" else found[0].parent
            if name is None or name.type != "operator_name" or not scan.wanted(name.start_byte):
                continue
            operator = text(name)[len("operator") :].strip()
            declarator = name.parent
            if (
                operator not in target.vector_operators
                or declarator is None
                or declarator.type != "function_declarator"
            ):
                continue
            parameters = declarator.child_by_field_name("parameters")
            vector = _vector_parameter(parameters)
            if vector is None:
                continue
            yield _finding(scan, name, f"{text(name)}({vector})")


def _vector_parameter(parameters: Node | None) -> str | None:
    if parameters is None:
        return None
    for parameter in parameters.named_children:
        kind = parameter.child_by_field_name("type")
        if kind is not None and VECTOR_TYPE.fullmatch(text(kind)):
            return text(kind)
    return None


def _finding(scan: Scan, name: Node, symbol_name: str) -> Finding:
    symbol = Symbol(symbol_name, "pattern", RULE, "cuda", {})
    outcome = scan.ruleset.outcome(symbol, scan.context.target)
    return scan.finding(RULE, name.start_byte, name.end_byte, outcome, symbol_name, data={"kind": "operator"})
