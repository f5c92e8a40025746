"""Dual-stack code: a collection, dict, comparison, condition or `if`/`elif` chain that already names the target
beside the CUDA one, code after an early-exit branch for the target, a step of a device detection that knows it,
or the CUDA side of a device abstraction whose target side exists. Such code runs on the target already."""

from __future__ import annotations

from tree_sitter import Node

from ...i18n import N_, t
from ..common.syntax import text
from .abstractions import DeviceAbstractions
from .branches import CONDITIONS, branches, conditions, earlier_ifs, leaves
from .reviewedfile import COLLECTIONS, ReviewedFile, device_type_of, key_type
from .strings import table_keys

# How a message names a collection that already names the target.
_THIS = {"list": N_("this list"), "tuple": N_("this tuple"), "set": N_("this set")}


class AlreadyPorted:
    """Finds what around a finding already provides for the target."""

    def __init__(self, file: ReviewedFile, abstractions: DeviceAbstractions) -> None:
        self.file = file
        self.abstractions = abstractions

    def around(self, node: Node) -> str | None:
        """What around `node` already names the target: a collection, dict, condition or branch."""
        file = self.file
        current: Node | None = node
        child = node
        while current is not None and current.type != "module":
            kind = current.type
            if kind in COLLECTIONS and any(
                device_type_of(element) in file.target_devices for element in current.named_children
            ):
                return self._already(_THIS[kind])
            if kind == "dictionary" and any(key_type(key) in file.target_devices for key in table_keys(current)):
                return self._already(N_("this table"))
            if kind in CONDITIONS and file.names(current):
                return self._already(N_("this condition"))
            if kind == "conditional_expression":
                parts = current.named_children
                if len(parts) == 3 and file.names(parts[1]):
                    return self._already(N_("the condition of this expression"))
            if kind == "if_statement" and self._other_branch_names(current, child):
                return self._already(N_("this if/elif chain"))
            if kind == "class_definition":
                side = self.abstractions.class_side(current)
                if side is not None:
                    return side
            if kind == "block" and self._early_exit_before(current, child):
                return self._already(N_("an earlier branch of this block"))
            if kind in ("block", "module") and self._chain_before(current, child):
                return self._already(N_("an earlier step of this detection chain"))
            child = current
            current = current.parent
        return self.abstractions.file_side()

    def _already(self, where: str) -> str:
        return t(
            "{where} already provides for {platform}, so it runs there", where=t(where), platform=self.file.platform
        )

    def _other_branch_names(self, statement: Node, child: Node) -> bool:
        """Another branch's condition of this `if`/`elif` chain names the target (`if is_npu_available(): ...
        elif torch.cuda.is_available(): ...`), or the finding's own condition does in the user's words. A
        branch's own device-string or `torch.npu` test is not enough: that is what a fix leaves behind."""
        for condition, branch in branches(statement):
            inside = branch is not None and branch.start_byte <= child.start_byte < branch.end_byte
            inside = inside or (condition is not None and condition.start_byte <= child.start_byte < condition.end_byte)
            if inside and self.file.names_strongly(condition):
                return True
            if not inside and condition is not None and self.file.names(condition):
                return True
        return False

    def _early_exit_before(self, block: Node, child: Node) -> bool:
        """An `if` earlier in `block` that names the target and leaves the block (`return "npu"`)."""
        if block.type != "block":
            return False
        for statement in block.named_children:
            if statement.start_byte >= child.start_byte:
                return False
            if statement.type != "if_statement" or not any(self.file.names_strongly(c) for c in conditions(statement)):
                continue
            if leaves(statement):
                return True
        return False

    def _chain_before(self, block: Node, child: Node) -> bool:
        """`child` is an `if` of a chain of separate `if`s with one condition (`if accelerator is None:` ...), and
        an earlier one names the target: a device detection that already knows it."""
        if child.type != "if_statement":
            return False
        condition = child.child_by_field_name("condition")
        if condition is None:
            return False
        wanted = text(condition)
        for statement, other in earlier_ifs(block, child):
            if text(other) == wanted and self.file.names_strongly(statement):
                return True
        return False
