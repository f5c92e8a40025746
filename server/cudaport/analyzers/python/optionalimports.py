"""Optional imports: a CUDA-only library imported under `try/except ImportError`, behind an availability check or
after an early return without it, is not a blocker: the program runs without it and only loses that fast path."""

from __future__ import annotations

import re

from tree_sitter import Node

from ...i18n import t
from ...model.findings import Difficulty, Finding
from ..common.syntax import text
from .branches import earlier_ifs, leaves

_IMPORT_ERRORS = frozenset({"ImportError", "ModuleNotFoundError", "Exception", "BaseException", "OSError"})
_AVAILABILITY = re.compile(r"available|^has_|\bHAS_|installed")


def review_optional_import(finding: Finding, node: Node) -> None:
    """An import finding past manual (a blocker) that the program can do without is manual, saying why."""
    if finding.difficulty < Difficulty.MANUAL or not _optional(node):
        return
    finding.difficulty = Difficulty.MANUAL
    finding.message = t(
        "{message}; the import is optional (the program runs without it), so only its fast path is lost",
        message=finding.message,
    )


def _optional(node: Node) -> bool:
    """An import inside `try:` whose handlers catch an import failure, or under an availability check."""
    current: Node | None = node
    while current is not None and current.type not in ("module", "function_definition", "class_definition"):
        parent = current.parent
        if parent is not None and parent.type == "try_statement" and current.type == "block":
            for clause in parent.named_children:
                if clause.type != "except_clause":
                    continue
                caught = [c for c in clause.named_children if c.type != "block"]
                if not caught or any(set(re.findall(r"\w+", text(c))) & _IMPORT_ERRORS for c in caught):
                    return True
        if parent is not None and parent.type == "if_statement" and current.type == "block":
            condition = parent.child_by_field_name("condition")
            if condition is not None and _AVAILABILITY.search(text(condition)):
                return True
        if current.type == "block" and _checked_before(current, node):
            return True
        current = parent
    return False


def _checked_before(block: Node, node: Node) -> bool:
    """`if not is_bnb_available(): return False` earlier in the block: what follows runs only with the library."""
    for statement, condition in earlier_ifs(block, node):
        if _AVAILABILITY.search(text(condition)) and leaves(statement):
            return True
    return False
