"""CUDA code nvcc accepts that hipcc's clang rejects, or reads differently, with nothing CUDA-named to flag.

- CP1021: `min(n, blockDim.x)`. HIP's `threadIdx`/`blockIdx`/`blockDim`/`gridDim` components are objects that
  convert to `uint32_t`, not `unsigned int` values, so `min`/`max` overloads are ambiguous for them (and
  `std::min`'s deduction fails). `static_cast<unsigned int>(...)` gives CUDA's own type: the same overload CUDA
  picks, on both.
- CP1022: `T a[n] = {0}` with a run-time `n`. GCC (nvcc's host compiler) initialises variable-length arrays;
  clang refuses ("variable-sized object may not be initialized").
- CP1023: `tile.shfl_xor(v, 1)` with a vector or struct `v`. CUDA's tile shuffles take any trivially copyable
  type; HIP's `thread_block_tile` ones only integer and floating-point scalars (a static assertion).

Which targets each concerns is rule data (rules.toml); these finders only read the code."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from tree_sitter import Node

from ...i18n import t
from ...knowledge.ruleset import Outcome, Symbol
from ...model.findings import Applicability, Difficulty, Edit, Finding, Fix
from ..common.base import whole_words
from ..common.syntax import ancestor, text
from .vectorops import VECTOR_TYPE

if TYPE_CHECKING:
    from .scan import Scan

COORDINATE_RULE = "CP1021"
VLA_RULE = "CP1022"
SHUFFLE_RULE = "CP1023"

_MIN_MAX = re.compile(rb"\b(min|max|umin|umax)\s*\(")
_COORDINATE = re.compile(r"(?:threadIdx|blockIdx|blockDim|gridDim)\s*\.\s*[xyz]")
VLA_INIT = re.compile(rb"\[\s*[A-Za-z_]\w*\s*\]\s*=\s*\{")
_SHUFFLE = re.compile(rb"\.\s*(shfl(?:_up|_down|_xor)?)\s*\(")
_FUNCTIONS = frozenset({"function_definition"})
_CONSTANT = re.compile(r"\b(?:const|constexpr)\b")
# Without one of these words a buffer has none of the patterns above but the variable-length array (prefilter.py)
WORDS = (b"threadIdx", b"blockIdx", b"blockDim", b"gridDim", b"cooperative_groups")


def find_clang_differences(scan: Scan) -> Iterator[Finding]:
    yield from _coordinates_in_min_max(scan)
    yield from _initialised_vlas(scan)
    if scan.mentions("cooperative_groups"):
        yield from _non_scalar_shuffles(scan)


def _outcome(scan: Scan, rule: str, symbol: str) -> Outcome | None:
    """What the rule data says of the pattern on the target; None where it is portable (not worth a finding)."""
    outcome = scan.ruleset.outcome(Symbol(symbol, "pattern", rule, "cuda", {}), scan.context.target)
    return None if outcome.difficulty == Difficulty.PORTABLE else outcome


def _coordinates_in_min_max(scan: Scan) -> Iterator[Finding]:
    data = scan.data
    for lo, hi in scan.windows:
        if data.find(b"min", lo, hi) < 0 and data.find(b"max", lo, hi) < 0:
            continue  # the pattern's regular expression tries every position: a window without either word is spared
        for match in _MIN_MAX.finditer(data, lo, hi):
            found = scan.code_node(match.start(), match.end(1))
            if found is None or found[1] or not scan.wanted(match.start()):
                continue
            name = found[0]
            call = name.parent
            while call is not None and call.type in ("qualified_identifier", "template_function"):
                call = call.parent  # std::min, std::min<unsigned>
            if call is None or call.type != "call_expression":
                continue
            function = call.child_by_field_name("function")
            arguments = call.child_by_field_name("arguments")
            if function is None or arguments is None or not name.start_byte >= function.start_byte:
                continue
            if name.end_byte > function.end_byte:
                continue
            coordinates = [a for a in arguments.named_children if _COORDINATE.fullmatch(text(a))]
            if not coordinates:
                continue
            shown = ("…" if a not in coordinates else text(a) for a in arguments.named_children)
            symbol = f"{text(function)}({', '.join(shown)})"
            outcome = _outcome(scan, COORDINATE_RULE, symbol)
            if outcome is None:
                continue
            edits = tuple(Edit(a.start_byte, a.end_byte, f"static_cast<unsigned int>({text(a)})") for a in coordinates)
            fix = Fix(t("Cast the built-in index to CUDA's `unsigned int`"), edits, Applicability.SAFE)
            finding = scan.finding(
                COORDINATE_RULE, call.start_byte, arguments.start_byte, outcome, symbol, fix, {"kind": "call"}
            )
            finding.dual = fix  # CUDA's own type: the same call on both
            yield finding


def _initialised_vlas(scan: Scan) -> Iterator[Finding]:
    for lo, hi in scan.windows:
        for match in VLA_INIT.finditer(scan.data, lo, hi):
            found = scan.code_node(match.start(), match.start() + 1)
            if found is None or found[1]:
                continue
            declarator = ancestor(found[0], frozenset({"array_declarator"}), limit=3)
            if declarator is None or declarator.parent is None or declarator.parent.type != "init_declarator":
                continue
            size = declarator.child_by_field_name("size")
            if size is None or size.type != "identifier" or not scan.wanted(declarator.start_byte):
                continue
            function = ancestor(declarator, _FUNCTIONS)
            if function is None or not _runtime_value(function, text(size)):
                continue
            symbol = text(declarator)
            outcome = _outcome(scan, VLA_RULE, symbol)
            if outcome is None:
                continue
            yield scan.finding(
                VLA_RULE, declarator.start_byte, declarator.end_byte, outcome, symbol, None, {"kind": "declaration"}
            )


def _runtime_value(function: Node, name: str) -> bool:
    """`name` is a parameter of `function` not declared const: a value known only at run time."""
    declarator = function.child_by_field_name("declarator")
    parameters = declarator.child_by_field_name("parameters") if declarator is not None else None
    for parameter in parameters.named_children if parameters is not None else ():
        inner = parameter.child_by_field_name("declarator")
        if inner is not None and _name_of(inner) == name:
            return not _CONSTANT.search(text(parameter))
    return False


def _non_scalar_shuffles(scan: Scan) -> Iterator[Finding]:
    for lo, hi in scan.windows:
        for match in _SHUFFLE.finditer(scan.data, lo, hi):
            start = match.start(1)
            found = scan.code_node(start, match.end(1))
            if found is None or found[1] or found[0].type != "field_identifier" or not scan.wanted(start):
                continue
            member = found[0].parent
            call = member.parent if member is not None else None
            if call is None or call.type != "call_expression":
                continue
            arguments = call.child_by_field_name("arguments")
            value = arguments.named_children[0] if arguments is not None and arguments.named_children else None
            if value is None:
                continue
            kind = _value_type(scan, value)
            if kind is None or not (VECTOR_TYPE.fullmatch(kind) or _struct_named(scan, kind) is not None):
                continue
            symbol = f"{text(found[0])}({kind})"
            outcome = _outcome(scan, SHUFFLE_RULE, symbol)
            if outcome is None:
                continue
            yield scan.finding(
                SHUFFLE_RULE, start, start + len(text(found[0])), outcome, symbol, None, {"kind": "call"}
            )


def _value_type(scan: Scan, value: Node) -> str | None:
    """The declared type of `v` or `v.member` where the file says it; None when it cannot be told."""
    if value.type == "identifier":
        return _local_type(value, text(value))
    if value.type == "field_expression":
        base = value.child_by_field_name("argument")
        field = value.child_by_field_name("field")
        if base is None or field is None or base.type != "identifier":
            return None
        owner = _local_type(value, text(base))
        struct = _struct_named(scan, owner) if owner is not None else None
        if struct is None:
            return None
        body = struct.child_by_field_name("body")
        for declaration in body.named_children if body is not None else ():
            if declaration.type != "field_declaration":
                continue
            declared = declaration.child_by_field_name("type")
            for child in declaration.named_children:
                if child.type == "field_identifier" and scan.text_of(child) == text(field) and declared is not None:
                    return scan.text_of(declared)
    return None


def _local_type(node: Node, name: str) -> str | None:
    """The type a parameter or local of the enclosing function is declared with."""
    function = ancestor(node, _FUNCTIONS)
    if function is None:
        return None
    stack = [function]
    while stack:
        current = stack.pop()
        if current.type in ("parameter_declaration", "declaration") and current.start_byte < node.start_byte:
            kind = current.child_by_field_name("type")
            for child in current.children_by_field_name("declarator"):
                if _name_of(child) == name and kind is not None:
                    return text(kind)
        stack.extend(current.named_children)
    return None


def _name_of(declarator: Node) -> str | None:
    node: Node | None = declarator
    while node is not None and node.type not in ("identifier", "field_identifier"):
        node = node.child_by_field_name("declarator")
    return text(node) if node is not None else None


def _struct_named(scan: Scan, name: str) -> Node | None:
    """The struct or class defined (with a body) at the top level of the file under `name`, itself or by a typedef,
    found from the name's occurrences (bytes.find): walking every top-level node costs half a millisecond in a
    large file, for each vector shuffle an editor re-analyses."""
    if not _IDENTIFIER.fullmatch(name) or name in _NOT_STRUCTS:
        return None  # `unsigned int`, `float`: no struct is named so
    data, root = scan.data, scan.file_root
    word = name.encode()
    for start in whole_words(data, word):
        end = start + len(word)
        # only where the text can define it: `struct NAME`, `class alignas(16) NAME`, `} NAME;` (a typedef's alias);
        # the tree decides
        before = data[max(0, start - 48) : start].rstrip()
        alias = before.endswith(b"}") and data[end : end + 8].lstrip()[:1] == b";"
        if not (alias or b"struct" in before or b"class" in before):
            continue
        node = root.descendant_for_byte_range(start, end)
        found = _struct_defined_by(node, root) if node is not None else None
        if found is not None:
            return found
    return None


def _struct_defined_by(name: Node, root: Node) -> Node | None:
    """The top-level struct whose name (or typedef alias) `name` is."""
    parent = name.parent
    if parent is None:
        return None
    if parent.type in _STRUCTS and parent.child_by_field_name("name") == name and parent.child_by_field_name("body"):
        holder = parent.parent
        if holder == root or (holder is not None and holder.type in _HOLDERS and holder.parent == root):
            return parent
    if parent.type == "type_definition" and parent.child_by_field_name("declarator") == name and parent.parent == root:
        for child in parent.named_children:
            if child.type in _STRUCTS and child.child_by_field_name("body"):
                return child
    return None


_STRUCTS = ("struct_specifier", "class_specifier")
_IDENTIFIER = re.compile(r"[A-Za-z_]\w*")
# C and C++ built-in types (keywords) and the standard integer typedefs: never a struct's name.
_NOT_STRUCTS = frozenset(
    ["void", "bool", "char", "short", "int", "long", "float", "double", "signed", "unsigned", "auto", "size_t"]
    + [f"{sign}int{bits}_t" for sign in ("", "u") for bits in (8, 16, 32, 64)]
)
_HOLDERS = ("declaration", "type_definition")
