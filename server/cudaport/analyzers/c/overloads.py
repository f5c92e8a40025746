"""Overloads that the renames would merge: functions that differ only in CUDA types the target maps to one type
keep one rename, and the others are left for a person."""

from __future__ import annotations

from tree_sitter import Node

from ...i18n import t
from ...model.findings import Difficulty, Finding
from ..common.base import whole_words
from ..common.syntax import node_at
from .scan import Scan


def hold_merging_overloads(scan: Scan, findings: list[Finding]) -> None:
    """Overloads that differ only in CUDA types the target merges: helper_cuda.h has `_cudaGetErrorEnum` for
    `cudaError_t` and for `CUresult`, which both become `hipError_t`, so the renamed file defines one function twice.
    The first overload keeps its rename (or is already on the target's type); the others are left for a person
    (they keep their CUDA type, and only fail to build where they are compiled: helper_cuda.h's `CUresult` one sits
    under `#ifdef CUDA_DRIVER_API`)."""
    groups: dict[tuple[str, int, str], list[tuple[int, Finding | None]]] = {}
    for finding in findings:
        if finding.data.get("kind") != "type" or not finding.replacement or finding.fix is None:
            continue
        slot = _parameter_slot(scan, node_at(scan.root, finding.start, finding.end))
        if slot is not None:
            groups.setdefault((*slot, finding.replacement), []).append((finding.start, finding))
    for (function, index, merged), members in groups.items():
        # overloads already written with the merged type count too: `fix` must not rename a second one next time
        members.extend((at, None) for at in _parameters_spelled(scan, function, index, merged))
        spellings = {finding.symbol if finding is not None else merged for _, finding in members}
        if len(spellings) < 2:
            continue  # a prototype and its definition, or overloads on one CUDA type: nothing merges
        members.sort(key=lambda member: member[0])
        # named by its type, not its line: a line number in a message goes stale as lines come and go above it
        first = members[0][1]
        first_type = first.symbol if first is not None else merged
        for _, later in members[1:]:
            if later is None:
                continue
            later.fix = None
            later.dual = None
            later.replacement = None
            later.data["held"] = "1"  # mapping both types to one in a header merges the overloads all the same
            later.difficulty = max(later.difficulty, Difficulty.MANUAL)
            later.message = t(
                "{message}; with the overload of `{function}` on `{first}` it becomes one function on `{merged}`: "
                "keep one of them",
                message=later.message,
                function=function,
                first=first_type,
                merged=merged,
            )


def _parameter_slot(scan: Scan, node: Node | None) -> tuple[str, int] | None:
    """(function name, parameter index) when `node` is the type of a parameter of a function declarator."""
    parameter = node.parent if node is not None else None
    if parameter is None or parameter.type != "parameter_declaration" or parameter.parent is None:
        return None
    declarator = parameter.parent.parent
    name = declarator.child_by_field_name("declarator") if declarator is not None else None
    if declarator is None or declarator.type != "function_declarator" or name is None:
        return None
    return scan.text_of(name), [c.id for c in parameter.parent.named_children].index(parameter.id)


def _parameters_spelled(scan: Scan, function: str, index: int, spelled: str) -> list[int]:
    """Starts of the parameter types written `spelled` at `index` in the file's declarations of `function`."""
    word = spelled.encode()
    if not scan.has(word):
        return []
    # bytes.find, not a regex starting with a lookbehind: this runs on every analysis of a file with overloads
    return [
        start
        for start in whole_words(scan.data, word)
        if _parameter_slot(scan, scan.node_anywhere(start, start + len(word))) == (function, index)
    ]
