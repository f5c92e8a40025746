"""Code that assumes 32-wide warps: lane/warp arithmetic, warp-size constants, 32-bit full masks and shared
arrays sized by 32. AMD and Hygon DCU GPUs run 64-wide wavefronts, so each is a `manual` finding.

Only literals in a warp position count: `threadIdx.x % 32` does, `hash * 31` does not."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from tree_sitter import Node

from ..models import Difficulty, Finding
from ..ruleset import Outcome
from .tsutil import in_device_code, text

if TYPE_CHECKING:
    from .cfamily import Scan

ARITHMETIC = "CP2005"
FULL_MASK = "CP2004"
SHARED_ARRAY = "CP2006"

_GATE = re.compile(rb"threadIdx|__global__|__device__|__shared__|[Ww][Aa][Rr][Pp]|[Ll]ane|__shfl|__ballot|MASK|[Mm]ask")
_LITERAL = re.compile(rb"(?<![\w.])(?:32|31|33|0[xX]1[fF]|0[xX][fF]{8}[uUlL]{0,3})(?![\w.])|>>\s*(5)(?![\w.])")
_LANEISH = re.compile(
    r"threadIdx|blockDim|lane|warp|\bwid\b|\btid\b|\btidx\b|thread_?id|thread_?idx|local_?id|\btx\b",
    re.IGNORECASE,
)
_WARP_CONSTANT = re.compile(
    r"warp_?size|warpsize|warp_?sz|threads_?per_?warp|warp_?threads|warp_?width|lanes_?per_?warp|^k?warp$",
    re.IGNORECASE,
)
_MASKISH = re.compile(r"mask|ballot|activemask|vote", re.IGNORECASE)
_WARP_INTRINSIC = re.compile(r"^__(shfl|ballot|any|all|match|reduce|uni|syncwarp|activemask)")

_LANE_OPERATORS = {"%": {"32"}, "&": {"31", "0x1f"}, "/": {"32"}, ">>": {"5"}, "<<": {"5"}, "*": {"32"}}


def find_warp_assumptions(scan: Scan) -> Iterator[Finding]:
    if not _GATE.search(scan.data):
        return
    shared = b"__shared__" in scan.data
    for match in (m for lo, hi in scan.windows for m in _LITERAL.finditer(scan.data, lo, hi)):
        start, end = match.span(1) if match.group(1) else match.span()
        found = scan.code_node(start, end)
        if found is None:
            continue
        node, in_macro = found
        literal = match.group(0).decode() if not match.group(1) else "5"
        if shared and not in_macro and literal in ("32", "33") and _sizes_shared_array(node):
            finding: Finding | None = _make(
                scan,
                SHARED_ARRAY,
                start,
                end,
                literal,
                f"`__shared__` array sized by {literal}: one slot per lane or warp assumes 32-lane warps; "
                f"{_label(scan)} wavefronts have 64 lanes",
            )
        else:
            finding = _macro_constant(scan, node, literal) if in_macro else _classify(scan, node, literal)
        # A finding may start before its literal (`tid % 32` starts at `tid`): the range test is on the finding.
        if finding is not None and scan.wanted(finding.start):
            yield finding


def _classify(scan: Scan, node: Node, literal: str) -> Finding | None:
    if node.type != "number_literal":
        return None
    value = literal.lower().rstrip("ul")
    parent = node.parent
    if parent is None:
        return None
    if value == "0xffffffff":
        return _full_mask(scan, node, parent)
    owner = _owner_name(node)
    if owner is not None and value == "32" and _WARP_CONSTANT.search(owner):
        return _make(
            scan,
            ARITHMETIC,
            node.start_byte,
            node.end_byte,
            literal,
            f"`{owner}` hard-codes a warp size of 32; {_label(scan)} wavefronts have 64 lanes (use warpSize)",
        )
    if parent.type == "binary_expression":
        operator = parent.child_by_field_name("operator")
        op = text(operator) if operator is not None else ""
        if value not in _LANE_OPERATORS.get(op, set()):
            return None
        other = (
            parent.child_by_field_name("left")
            if parent.child_by_field_name("right") == node
            else parent.child_by_field_name("right")
        )
        if other is None or not _LANEISH.search(text(other)):
            return None
        if "threadIdx" not in text(other) and "blockDim" not in text(other) and not in_device_code(node):
            return None
        expression = " ".join(text(parent).split())
        return _make(
            scan,
            ARITHMETIC,
            parent.start_byte,
            parent.end_byte,
            expression,
            f"`{expression}` assumes 32-lane warps; {_label(scan)} wavefronts have 64 lanes (use warpSize)",
        )
    return None


def _full_mask(scan: Scan, node: Node, parent: Node) -> Finding | None:
    literal = text(node)
    message = f"`{literal}` is a 32-lane mask; {_label(scan)} wavefronts need 64-bit masks (0xffffffffffffffffull)"
    if parent.type == "argument_list":
        call = parent.parent
        function = call.child_by_field_name("function") if call is not None else None
        if function is not None and _WARP_INTRINSIC.match(text(function)):
            return None  # the intrinsic's own finding covers its mask
        return None
    if parent.type == "binary_expression":
        operator = parent.child_by_field_name("operator")
        if operator is not None and text(operator) in ("==", "!="):
            other = parent.child_by_field_name("left")
            if other == node:
                other = parent.child_by_field_name("right")
            if other is not None and _MASKISH.search(text(other)):
                return _make(scan, FULL_MASK, node.start_byte, node.end_byte, literal, message)
        return None
    owner = _owner_name(node)
    if owner is not None and _MASKISH.search(owner):
        return _make(scan, FULL_MASK, node.start_byte, node.end_byte, literal, message)
    if parent.type == "assignment_expression":
        left = parent.child_by_field_name("left")
        if left is not None and _MASKISH.search(text(left)):
            return _make(scan, FULL_MASK, node.start_byte, node.end_byte, literal, message)
    return None


def _macro_constant(scan: Scan, node: Node, literal: str) -> Finding | None:
    """`#define WARP_SIZE 32` and `#define FULL_MASK 0xffffffff`: the body is exactly the literal."""
    definition = node.parent
    if definition is None or definition.type != "preproc_def":
        return None
    body = text(node).strip().strip("()").strip()
    name_node = definition.child_by_field_name("name")
    name = text(name_node) if name_node is not None else ""
    value = literal.lower().rstrip("ul")
    if body.lower().rstrip("ul") != value:
        return None
    if value == "32" and _WARP_CONSTANT.search(name):
        return _make(
            scan,
            ARITHMETIC,
            node.start_byte,
            node.end_byte,
            literal,
            f"`{name}` hard-codes a warp size of 32; {_label(scan)} wavefronts have 64 lanes (use warpSize)",
        )
    if value == "0xffffffff" and _MASKISH.search(name):
        return _make(
            scan,
            FULL_MASK,
            node.start_byte,
            node.end_byte,
            literal,
            f"`{name}` is a 32-lane mask; {_label(scan)} wavefronts need 64-bit masks (0xffffffffffffffffull)",
        )
    return None


def _owner_name(node: Node) -> str | None:
    """The name a literal initialises: `int kWarpSize = 32`, `template <int WARP = 32>`, `enum { kWarp = 32 }`."""
    parent = node.parent
    if parent is None:
        return None
    if parent.type in ("init_declarator", "optional_parameter_declaration", "enumerator", "initializer_pair"):
        for field in ("declarator", "name"):
            named = parent.child_by_field_name(field)
            if named is not None:
                return text(named)
    return None


def _sizes_shared_array(node: Node) -> bool:
    """`node` is the size of an array dimension (`partial[32]`, `tile[32][33]`) declared `__shared__`. Found from the
    size, where the finding is, so that a scan of the size's line alone finds it too."""
    parent = node.parent
    if node.type != "number_literal" or parent is None or parent.type != "array_declarator":
        return False
    if parent.child_by_field_name("size") != node:
        return False
    declaration: Node | None = parent
    while declaration is not None and declaration.type in ("array_declarator", "init_declarator"):
        declaration = declaration.parent
    if declaration is None or declaration.type not in ("declaration", "field_declaration"):
        return False
    return any(child.text == b"__shared__" for child in declaration.children)


def _make(scan: Scan, rule_code: str, start: int, end: int, symbol: str, message: str) -> Finding:
    rule = scan.ruleset.rule(rule_code)
    difficulty = rule.unmapped.get(scan.context.target, Difficulty.MANUAL)
    return scan.finding(rule_code, start, end, Outcome(difficulty, None, message, False), symbol, data={"kind": "warp"})


def _label(scan: Scan) -> str:
    target = scan.ruleset.targets.get(scan.context.target)
    return target.label if target is not None else scan.context.target
