"""Probes of CUDA-only paths: `torch.cuda.is_available()` deciding whether a CUDA extension, nvcc, Triton, TensorRT,
flash-attn or apex path runs (or inside a class or function that names one) must not become the target's probe:
that would run CUDA-built code on the target."""

from __future__ import annotations

import re

from tree_sitter import Node

from ...i18n import t
from ...model.findings import Finding
from ..common.syntax import text
from .branches import CONDITIONS
from .reviewedfile import ReviewedFile

_SCOPES = frozenset({"function_definition", "class_definition"})
_BODY_LIMIT = 4096  # bytes of a branch body read for CUDA-only markers


def cuda_only_probe(file: ReviewedFile, finding: Finding, node: Node) -> str | None:
    """Why the probe `finding` decides whether a CUDA-only path runs; None when it is no probe or decides none."""
    if finding.symbol not in file.know.probes or finding.fix is None:
        return None
    reason = _cuda_only_around(file, node)
    if reason is None:
        return None
    return t(
        "this probe decides whether a CUDA-only path runs ({reason}): decide which {platform} path replaces that "
        "one, or keep the probe (it is false on {platform}, which keeps the path off)",
        reason=reason,
        platform=file.platform,
    )


def _cuda_only_around(file: ReviewedFile, node: Node) -> str | None:
    current: Node | None = node.parent
    branch_seen = False
    while current is not None and current.type != "module":
        kind = current.type
        if kind in _SCOPES:
            name = current.child_by_field_name("name")
            is_class = kind == "class_definition"
            if name is not None and _cuda_only_name(file, text(name), is_class):
                return t("in `{name}`", name=text(name))
            bases = current.child_by_field_name("superclasses")
            if bases is not None and any(_cuda_only_name(file, b, True) for b in re.findall(r"\w+", text(bases))):
                return t("in a subclass of `{bases}`", bases=text(bases).strip("()"))
        elif (kind in CONDITIONS or kind == "conditional_expression") and not branch_seen:
            found = _marker(file, current)
            if found:
                return t("beside `{marker}`", marker=found)
        elif kind in ("if_statement", "elif_clause", "while_statement") and not branch_seen:
            branch_seen = True  # the nearest branch decides; further out, only names of scopes count
            found = _marker(file, current.child_by_field_name("condition"))
            body = current.child_by_field_name("consequence") or current.child_by_field_name("body")
            found = found or _marker(file, body, _BODY_LIMIT)
            if found:
                return t("`{marker}` in its branch", marker=found)
        current = current.parent
    return None


def _cuda_only_name(file: ReviewedFile, name: str, is_class: bool) -> bool:
    if file.know.cuda_only_names.search(name):
        return True
    return is_class and bool(file.know.cuda_class_names.search(name))


def _marker(file: ReviewedFile, node: Node | None, limit: int | None = None) -> str | None:
    if node is None:
        return None
    end = node.end_byte if limit is None else min(node.end_byte, node.start_byte + limit)
    match = file.know.cuda_only.search(file.data, node.start_byte, end)
    return match.group(0).decode("utf-8", "replace") if match else None
