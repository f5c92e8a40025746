"""CUDA kernels themselves: `__global__` definitions and `<<<...>>>` launches.

hipcc compiles both unchanged, so on HIP they are hints that count the kernels; Ascend and Cambricon cores do not
run the CUDA thread model, so there every kernel and every launch is part of a rewrite (Ascend C, BANG C)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from tree_sitter import Node

from ...knowledge.ruleset import Symbol, TargetMapping
from ...model.findings import Finding
from ..common.base import starts_word
from ..common.syntax import in_device_code, text

if TYPE_CHECKING:
    from .scan import Scan

KERNEL = "CP1030"
LAUNCH = "CP1031"
DEVICE_SIDE = "CP1033"  # dynamic parallelism: launches and runtime calls in device code
LAUNCH_BOUNDS = "CP1034"  # __launch_bounds__ with a second argument, which HIP reads differently

_GLOBAL = re.compile(rb"__global__(?![\w$])")  # literal first: see base.starts_word
_BOUNDS = re.compile(rb"__launch_bounds__(?![\w$])")
_CHEVRONS = re.compile(rb"<<<")
_DEFINITIONS = frozenset({"function_definition"})
WORDS = (b"__global__", b"<<<", b"__launch_bounds__")  # a buffer without them has no kernel to look at


def find_kernels(scan: Scan) -> Iterator[Finding]:
    if scan.has(b"__global__"):
        yield from _definitions(scan)
    if scan.has(b"<<<"):
        yield from _launches(scan)
    if scan.has(b"__launch_bounds__") and LAUNCH_BOUNDS in scan.ruleset.rules:
        yield from _launch_bounds(scan)


def _launch_bounds(scan: Scan) -> Iterator[Finding]:
    """`__launch_bounds__(threads, minBlocks)`: CUDA's second value is blocks per multiprocessor, HIP's is waves
    per execution unit. Only targets with SIMT warps hear about it (the others rewrite the kernel anyway)."""
    target = scan.ruleset.targets.get(scan.context.target)
    if target is None or not target.lanes:
        return
    for match in (m for lo, hi in scan.windows for m in _BOUNDS.finditer(scan.data, lo, hi)):
        start, end = match.span()
        if not starts_word(scan.data, start) or not scan.wanted(start):
            continue
        found = scan.code_node(start, end)
        bounds = found[0].parent if found is not None and not found[1] else None
        if bounds is None or bounds.type != "launch_bounds" or len(bounds.named_children) < 2:
            continue
        symbol = Symbol("__launch_bounds__", "pattern", LAUNCH_BOUNDS, "cuda", {})
        outcome = scan.ruleset.outcome(symbol, scan.context.target)
        yield scan.finding(LAUNCH_BOUNDS, bounds.start_byte, bounds.end_byte, outcome, "__launch_bounds__")


def _definitions(scan: Scan) -> Iterator[Finding]:
    for match in (m for lo, hi in scan.windows for m in _GLOBAL.finditer(scan.data, lo, hi)):
        start, end = match.span()
        if not starts_word(scan.data, start):
            continue
        found = scan.code_node(start, end)
        if found is None or found[1]:
            continue  # comments, strings and macro bodies
        definition = found[0].parent
        if definition is None or definition.type not in _DEFINITIONS:
            continue  # a prototype: the definition is where the work is
        name = _declared_name(definition)
        if name is None or not scan.wanted(name.start_byte):  # the range test is on the finding, not the keyword
            continue
        yield _finding(scan, KERNEL, name.start_byte, name.end_byte, text(name))


def _launches(scan: Scan) -> Iterator[Finding]:
    for match in (m for lo, hi in scan.windows for m in _CHEVRONS.finditer(scan.data, lo, hi)):
        start, end = match.span()
        found = scan.code_node(start, end)
        if found is None or found[1]:
            continue
        chevrons = found[0].parent
        if chevrons is None or chevrons.type != "kernel_call_syntax":
            continue
        call = chevrons.parent
        function = call.child_by_field_name("function") if call is not None else None
        if call is None or function is None or not scan.wanted(call.start_byte):
            continue
        name = " ".join(text(function).split())
        if in_device_code(call, only=True):
            yield device_side(scan, call.start_byte, chevrons.end_byte, name, "launch")
            continue
        yield _finding(scan, LAUNCH, call.start_byte, chevrons.end_byte, name)


def _declared_name(definition: Node) -> Node | None:
    """The kernel's name: the innermost declarator of the function declarator (`k`, `ns::k`)."""
    declarator = definition.child_by_field_name("declarator")
    while declarator is not None and declarator.type != "function_declarator":
        declarator = declarator.child_by_field_name("declarator")
    if declarator is None:
        return None
    return declarator.child_by_field_name("declarator")


def device_side(scan: Scan, start: int, end: int, name: str, kind: str) -> Finding:
    """A launch or a runtime call in device code: no target has a device-side runtime."""
    symbol = Symbol(name, kind, DEVICE_SIDE, "cuda", {})
    outcome = scan.ruleset.outcome(symbol, scan.context.target)
    # held: a portability header mapping the name (cudaMalloc -> hipMalloc) does not make it callable on the device
    return scan.finding(DEVICE_SIDE, start, end, outcome, name, data={"kind": kind, "held": "1"})


def _finding(scan: Scan, rule: str, start: int, end: int, name: str) -> Finding:
    # A target whose compiler takes CUDA kernels (as they are, or renamed) keeps the kernel; the others rewrite it
    # (the rule's message says in what).
    keeps = {t: TargetMapping(name, None) for t in scan.ruleset.kernel_keepers}
    symbol = Symbol(name, "kernel", rule, "cuda", keeps)
    outcome = scan.ruleset.outcome(symbol, scan.context.target)
    return scan.finding(rule, start, end, outcome, name, data={"kind": "kernel" if rule == KERNEL else "launch"})
