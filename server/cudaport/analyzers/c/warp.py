"""Code that assumes 32-wide warps: lane/warp arithmetic, warp-size constants, 32-bit full masks and shared
arrays sized by 32. AMD and Hygon DCU GPUs run 64-wide wavefronts, so each is a `manual` finding there; Ascend and
Cambricon cores have no warps at all, so the kernel is rewritten (`blocker`).

Only literals in a warp position count: `threadIdx.x % 32` does, `hash * 31` does not."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from tree_sitter import Node

from ...i18n import N_, t
from ...knowledge.ruleset import Outcome, tidy
from ...model.findings import Difficulty, Edit, Finding, Fix
from ..common.base import starts_word
from ..common.syntax import ancestor, in_device_code, text

if TYPE_CHECKING:
    from .scan import Scan

ARITHMETIC = "CP2005"
FULL_MASK = "CP2004"
SHARED_ARRAY = "CP2006"

# Words without which a file has no warp code to look at (plain `in` tests run at memory speed).
GATE = (b"threadIdx", b"__global__", b"__device__", b"__shared__", b"warp", b"Warp", b"WARP", b"lane", b"Lane",
         b"__shfl", b"__ballot", b"mask", b"Mask", b"MASK")  # fmt: skip
# No look-behind at the start, so the regex engine can skip ahead to the first characters; checked by hand below.
_LITERAL = re.compile(rb"(?:3[123]|0[xX](?:1[fF]|[fF]{8}[uUlL]{0,3})|>>[ \t]*(5))(?![\w.])")
# After a name that says log2 of the warp size: `#define WARP_SIZE_BITS 5`, `kLogWarpSize = 5`.
_FIVE_AFTER_NAME = re.compile(rb"[ \t]*=?[ \t]*\(?[ \t]*(5)(?![\w.])")
_SHARED = re.compile(rb"__shared__(?![\w$])")  # literal first: see base.starts_word
_LANEISH = re.compile(
    r"threadIdx|blockDim|lane|warp|\bwid\b|\btid\b|\btidx\b|thread_?id|thread_?idx|local_?id|\btx\b",
    re.IGNORECASE,
)
_WARP_CONSTANT = re.compile(
    r"warp_?size|warpsize|warp_?sz|threads_?per_?warp|warp_?threads|warp_?width|lanes_?per_?warp|^k?warp$",
    re.IGNORECASE,
)
_WORDISH = [chr(c).isalnum() or chr(c) in "_." if c < 128 else True for c in range(256)]
_WARP_LOG = re.compile(r"warp\w*(bits|log|shift)|log2?_?warp", re.IGNORECASE)
_WARP_LOG_BYTES = re.compile(_WARP_LOG.pattern.encode(), re.IGNORECASE)
# Variables whose name says they hold a lane or warp index or a warp count: `int lane = id & 0x1f` is lane
# arithmetic whatever `id` is called.
_LANE_TARGET = re.compile(
    r"^(?:k_?|m_?)?(?:lane|warp|wid|lane_?id|warp_?id|lane_?idx|warp_?idx|lane_?index|warp_?index|warps|"
    r"num_?warps|n_?warps|warp_?num|warp_?count|warps_?per_?block)$",
    re.IGNORECASE,
)
_MASKISH = re.compile(r"mask|ballot|activemask|vote", re.IGNORECASE)
_WARP_INTRINSIC = re.compile(r"^__(shfl|ballot|any|all|match|reduce|uni|syncwarp|activemask)")

_LANE_OPERATORS = {"%": {"32"}, "&": {"31", "0x1f"}, "/": {"32"}, ">>": {"5"}, "<<": {"5"}, "*": {"32"}}


CUDA_LANES = 32  # a CUDA warp; what the code below finds assumed


def find_warp_assumptions(scan: Scan) -> Iterator[Finding]:
    findings = list(_warp_assumptions(scan))
    target = scan.ruleset.targets.get(scan.context.target)
    if findings and target is not None and target.dual_stack and target.lanes and scan.context.dual is not None:
        _warp_size_forms(scan, findings)
    yield from findings


def _warp_assumptions(scan: Scan) -> Iterator[Finding]:
    target = scan.ruleset.targets.get(scan.context.target)
    if target is not None and target.lanes == CUDA_LANES:
        return  # a 32-lane target runs what assumes 32-lane warps
    data = scan.data
    if not any(scan.has(word) for word in GATE):
        return
    shared_sizes: set[int] = set()
    if scan.has(b"__shared__"):
        for shared in _shared_arrays(scan):
            shared_sizes.add(shared.start)
            yield shared
    matches = [m for lo, hi in scan.windows for m in _LITERAL.finditer(data, lo, hi)]
    # a warp-log name (`warpBits`, `LOG_WARP`) has `arp` or `ARP` in it: a file without either has none, and its
    # every word need not be looked at
    named = b"arp" in data or b"ARP" in data
    logs = (w for w in scan.words if (b"arp" in w or b"ARP" in w) and _WARP_LOG_BYTES.search(w)) if named else ()
    for name in logs:
        for lo, hi in scan.windows:
            position = data.find(name, lo, hi)
            while position != -1:
                five = _FIVE_AFTER_NAME.match(data, position + len(name))
                if five is not None:
                    matches.append(five)
                position = data.find(name, position + len(name), hi)
    for match in matches:
        group = 1 if match.group(1) else 0
        if group == 0 and match.start() and _WORDISH[data[match.start() - 1]]:
            continue  # the tail of a longer token: int32, v31, 1.32
        start, end = match.span(group)
        if start in shared_sizes:
            continue
        found = scan.code_node(start, end)
        if found is None:
            continue
        node, in_macro = found
        literal = match.group(group).decode()
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
    if owner is not None:
        constant = _warp_constant(scan, node, owner, value, literal)
        if constant is not None:
            return constant
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
        if other is None:
            return None
        destination = _destination_name(parent)
        if destination is None or not _LANE_TARGET.match(destination):
            if not _LANEISH.search(text(other)):
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
            t(
                "`{expression}` assumes 32-lane warps; {how}",
                expression=expression,
                how=_lanes(scan, ARITHMETIC, t(_USE_WARP_SIZE)),
            ),
        )
    return None


def _full_mask(scan: Scan, node: Node, parent: Node) -> Finding | None:
    literal = text(node)
    message = t("`{name}` is a 32-lane mask; {how}", name=literal, how=_mask_tail(scan))
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
    constant = _warp_constant(scan, node, name, value, literal)
    if constant is not None:
        return constant
    if value == "0xffffffff" and _MASKISH.search(name):
        return _make(
            scan,
            FULL_MASK,
            node.start_byte,
            node.end_byte,
            literal,
            t("`{name}` is a 32-lane mask; {how}", name=name, how=_mask_tail(scan)),
        )
    return None


def _warp_constant(scan: Scan, node: Node, name: str, value: str, literal: str) -> Finding | None:
    """`WARP_SIZE = 32` or `WARP_SIZE_BITS = 5` (a #define body or an initialiser); `node` is the literal."""
    if value == "32" and _WARP_CONSTANT.search(name):
        how = _lanes(scan, ARITHMETIC, t(_USE_WARP_SIZE))
        message = t("`{name}` hard-codes a warp size of 32; {how}", name=name, how=how)
    elif value == "5" and _WARP_LOG.search(name):
        how = _lanes(scan, ARITHMETIC, " (6)")
        message = t("`{name}` hard-codes log2 of a 32-lane warp (5); {how}", name=name, how=how)
    else:
        return None
    return _make(scan, ARITHMETIC, node.start_byte, node.end_byte, literal, message)


def _destination_name(expression: Node) -> str | None:
    """The variable an expression is stored in: `lane` in `int lane = id & 31;` or `lane = id & 31;`."""
    node = expression
    parent = node.parent
    while parent is not None and parent.type in ("parenthesized_expression", "cast_expression"):
        node, parent = parent, parent.parent
    if parent is None:
        return None
    if parent.type == "init_declarator" and parent.child_by_field_name("value") == node:
        target = parent.child_by_field_name("declarator")
    elif parent.type == "assignment_expression" and parent.child_by_field_name("right") == node:
        target = parent.child_by_field_name("left")
        if target is not None and target.type == "field_expression":
            target = target.child_by_field_name("field")
    else:
        return None
    return text(target) if target is not None and target.type in ("identifier", "field_identifier") else None


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


def _shared_arrays(scan: Scan) -> Iterator[Finding]:
    """One finding per `__shared__` array with a warp-sized dimension: `[32]`, `[33]`, `[32 + 1]`, `[1024 / 32]`.
    A size written with a warp constant (`[WARP_SIZE]`) follows the constant, whose definition is reported."""
    for match in (m for lo, hi in scan.windows for m in _SHARED.finditer(scan.data, lo, hi)):
        start, end = match.span()
        if not starts_word(scan.data, start):
            continue
        found = scan.code_node(start, end)
        if found is None or found[1]:
            continue
        declaration = ancestor(found[0], frozenset({"declaration", "field_declaration"}), limit=4)
        if declaration is None:
            continue
        for array in _array_declarators(declaration):
            size = next((s for s in _dimensions(array) if _warp_sized(s)), None)
            if size is None:
                continue
            if not scan.wanted(size.start_byte):
                continue
            value = " ".join(text(size).split())
            yield _make(
                scan,
                SHARED_ARRAY,
                size.start_byte,
                size.end_byte,
                value,
                t(
                    "`__shared__` array sized by `{value}`: one slot per lane or warp assumes 32-lane warps; {how}",
                    value=value,
                    how=_lanes(scan, SHARED_ARRAY),
                ),
            )


def _array_declarators(declaration: Node) -> Iterator[Node]:
    """The outermost array declarator of each variable declared (`a[32][33], b[32]` gives two)."""
    stack = [declaration]
    while stack:
        node = stack.pop()
        for child in node.children:
            if child.type == "array_declarator":
                yield child
            elif child.type == "init_declarator":
                stack.append(child)


def _dimensions(array: Node) -> list[Node]:
    """Sizes of a (possibly multi-dimensional) array declarator, first dimension first."""
    sizes: list[Node] = []
    node: Node | None = array
    while node is not None and node.type == "array_declarator":
        size = node.child_by_field_name("size")
        if size is not None:
            sizes.insert(0, size)
        node = node.child_by_field_name("declarator")
    return sizes


def _warp_sized(size: Node) -> bool:
    if size.type == "number_literal":
        return text(size) in ("32", "33")
    if size.type == "parenthesized_expression":
        return any(_warp_sized(child) for child in size.named_children)
    if size.type == "binary_expression":
        return any(
            child is not None and child.type in ("number_literal", "parenthesized_expression") and _warp_sized(child)
            for child in (size.child_by_field_name("left"), size.child_by_field_name("right"))
        )
    return False


# ---- warpSize forms (dual-stack fixes) -------------------------------------------------------------------------
# `lane % 32` -> `lane % warpSize`: warpSize is 32 on CUDA, so the CUDA build computes what it did, and the
# target's width (64 on AMD) there. Only where that is right for both: device code (warpSize is a device-side value
# on CUDA) outside constant expressions (it is no constant there), in a function whose every other warp assumption
# gets the same form and that calls no warp intrinsic (shuffles and votes written for 32 lanes, offsets like 16,
# would not follow the new width).
_WARP_SIZE_FORMS = {
    ("%", "32"): "warpSize",
    ("/", "32"): "warpSize",
    ("*", "32"): "warpSize",
    ("&", "31"): "(warpSize - 1)",
    ("&", "0x1f"): "(warpSize - 1)",
}
_SHIFTS = {">>": "/ warpSize", "<<": "* warpSize"}  # by 5; `>>` only of an unsigned built-in index
_CONSTANT_CONTEXTS = frozenset(
    {"array_declarator", "template_argument_list", "enumerator", "case_statement", "static_assert_declaration",
     "bitfield_clause", "preproc_arg", "preproc_if", "preproc_elif"}
)  # fmt: skip
_WARP_CALLS = re.compile(
    rb"\b(?:__shfl\w*|__ballot\w*|__any\w*|__all\w*|__activemask|__syncwarp|__match\w*|__reduce_\w+|__lane_id"
    rb"|tiled_partition|coalesced_threads|thread_block_tile|warp_reduce|WarpReduce|WarpScan)\b"
)
_FUNCTIONS = frozenset({"function_definition"})


def _warp_size_forms(scan: Scan, findings: list[Finding]) -> None:
    forms: dict[int, tuple[Finding, Edit | None, Node | None]] = {}
    for finding in findings:
        node = scan.root.descendant_for_byte_range(finding.start, finding.end)
        function = ancestor(node, _FUNCTIONS)
        edit = _warp_size_edit(node) if finding.rule == ARITHMETIC and node is not None else None
        forms[id(finding)] = (finding, edit, function)
    blocked: set[int] = set()  # functions with an assumption that keeps 32, or warp intrinsics
    for _, edit, function in forms.values():
        if function is not None and (edit is None or _keeps_warp_of_32(scan.data, function)):
            blocked.add(function.id)
    for finding, edit, function in forms.values():
        if edit is None or function is None or function.id in blocked:
            continue
        finding.dual = Fix(t("Use warpSize: `{code}` (dual-stack)", code=edit.text), (edit,))


def _keeps_warp_of_32(data: bytes, function: Node) -> bool:
    """The function calls warp intrinsics or names a warp-size constant of its own (`WARP_SIZE`, `kWarpSize`)."""
    body = data[function.start_byte : function.end_byte]
    if _WARP_CALLS.search(body):
        return True
    return any(
        word != b"warpSize" and _WARP_SIZE_NAME.search(word.decode("ascii", "replace"))
        for word in set(_IDENTIFIER.findall(body))
        if b"arp" in word or b"ARP" in word or b"ane" in word
    )


_IDENTIFIER = re.compile(rb"[A-Za-z_]\w*")
_WARP_SIZE_NAME = re.compile(
    r"warp_?size|warpsize|warp_?sz|threads_?per_?warp|warp_?threads|warp_?width|lanes_?per_?warp", re.IGNORECASE
)


def _warp_size_edit(expression: Node) -> Edit | None:
    """The warpSize form of `x % 32`, `x & 31`, `threadIdx.x >> 5`, ... where it holds for any warp width."""
    if expression.type != "binary_expression" or not in_device_code(expression, only=True):
        return None
    node: Node | None = expression
    while node is not None and node.type not in ("compound_statement", "function_definition"):
        if node.type in _CONSTANT_CONTEXTS:
            return None
        if node.type == "declaration" and re.search(rb"\b(?:constexpr|static)\b", node.text or b""):
            return None
        node = node.parent
    operator = expression.child_by_field_name("operator")
    left, right = expression.child_by_field_name("left"), expression.child_by_field_name("right")
    if operator is None or left is None or right is None:
        return None
    op = text(operator)
    if right.type == "number_literal":
        literal, other = right, left
    elif left.type == "number_literal" and op == "*":
        literal, other = left, right
    else:
        return None
    value = text(literal).lower().rstrip("ul")
    if (op, value) in _WARP_SIZE_FORMS:
        return Edit(literal.start_byte, literal.end_byte, _WARP_SIZE_FORMS[(op, value)])
    if op in _SHIFTS and value == "5" and literal is right:
        if op == ">>" and not _COORDINATE_ONLY.fullmatch(text(other).replace(" ", "")):
            return None  # `x >> 5` and `x / 32` differ for a negative x
        return Edit(operator.start_byte, literal.end_byte, _SHIFTS[op])
    return None


_COORDINATE_ONLY = re.compile(r"\(?threadIdx\.[xyz]\)?")


def _make(scan: Scan, rule_code: str, start: int, end: int, symbol: str, message: str) -> Finding:
    rule = scan.ruleset.rule(rule_code)
    difficulty = rule.unmapped.get(scan.context.target, Difficulty.MANUAL)
    outcome = Outcome(difficulty, None, tidy(message), False)
    return scan.finding(rule_code, start, end, outcome, symbol, data={"kind": "warp"})


_USE_WARP_SIZE = N_(" (use warpSize)")


def _label(scan: Scan) -> str:
    target = scan.ruleset.targets.get(scan.context.target)
    return t(target.label) if target is not None else scan.context.target


def _lanes(scan: Scan, rule_code: str, advice: str = "") -> str:
    """How the target differs: wider wavefronts (HIP), or no warps at all (Ascend, Cambricon)."""
    target = scan.ruleset.targets.get(scan.context.target)
    if target is not None and target.lanes:
        return t(
            "{target} {warp}s have {lanes} lanes{lanes_note}{advice}",
            target=t(target.label),
            warp=t(target.warp_word),
            lanes=target.lanes,
            lanes_note=t(target.lanes_note) if target.lanes_note else "",
            advice=advice,
        )
    counterpart = scan.ruleset.rule(rule_code).counterparts.get(scan.context.target)
    return t(
        "{target} has no warps: the port needs {counterpart}",
        target=_label(scan),
        counterpart=t(counterpart) if counterpart else t("a rewrite of the kernel"),
    )


def _mask_tail(scan: Scan) -> str:
    target = scan.ruleset.targets.get(scan.context.target)
    if target is not None and target.lanes == 64:
        return t(
            "{target} {warp}s need 64-bit masks (0xffffffffffffffffull)",
            target=t(target.label),
            warp=t(target.warp_word),
        )
    if target is not None and target.lanes:
        return t(
            "{target} {warp}s have {lanes} lanes{lanes_note}: a 32-bit mask covers part of them",
            target=t(target.label),
            warp=t(target.warp_word),
            lanes=target.lanes,
            lanes_note=t(target.lanes_note) if target.lanes_note else "",
        )
    return _lanes(scan, FULL_MASK)
