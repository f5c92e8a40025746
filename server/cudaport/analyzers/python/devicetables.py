"""Tables of devices without the target: a dict keyed by device types, a list of them, or a condition over several
devices that names other accelerators beside CUDA but not the target needs an entry for the target added, not its
CUDA entry rewritten."""

from __future__ import annotations

from tree_sitter import Node

from ...i18n import N_, t
from .reviewedfile import COLLECTIONS, ReviewedFile, device_type_of, key_type
from .strings import table_keys

# How a message names a collection of devices without the target.
_OF_DEVICES = {"dictionary": N_("a table of devices"), "list": N_("a list of devices")}
_OF_DEVICES |= {"tuple": N_("a tuple of devices"), "set": N_("a set of devices")}


def table_without_target(file: ReviewedFile, node: Node) -> str | None:
    """Why the table, list or condition of devices `node` is in needs the target added; None when it is none."""
    condition = _devices_condition(file, node)
    if condition is not None:
        return condition
    current: Node | None = node
    for _ in range(4):  # the finding is a key, a value or an element, not something deep inside one
        if current is None:
            return None
        if current.type == "dictionary":
            devices = [key_type(k) for k in table_keys(current)]
        elif current.type in COLLECTIONS:
            devices = [device_type_of(e) for e in current.named_children]
        else:
            current = current.parent
            continue
        others = file.other_accelerators(devices)
        if "cuda" in devices and others:
            listed = ", ".join(f'"{d}"' for d in others)
            return t(
                '{what} ({listed} beside "cuda") with no "{device}" entry: add one rather than rewrite its "cuda" '
                "entry",
                what=t(_OF_DEVICES[current.type]),
                listed=listed,
                device=file.label,
            )
        return None
    return None


def _devices_condition(file: ReviewedFile, node: Node) -> str | None:
    """`t == "cuda" or t == "npu"` on mlu: a condition over several accelerators without the target, which
    needs the target added, not its CUDA test rewritten."""
    if node.type != "string" or node.parent is None or node.parent.type != "comparison_operator":
        return None
    top = node.parent
    while top.parent is not None and top.parent.type in ("boolean_operator", "parenthesized_expression"):
        top = top.parent
    if top.type not in ("boolean_operator", "parenthesized_expression"):
        return None
    devices = set()
    stack = [top]
    while stack:
        current = stack.pop()
        if current.type == "string":
            devices.add(device_type_of(current))
        elif current.type in ("boolean_operator", "comparison_operator", "parenthesized_expression"):
            stack.extend(current.named_children)
    others = file.other_accelerators(devices)
    if "cuda" not in devices or not others:
        return None
    listed = ", ".join(f'"{d}"' for d in others)
    return t(
        'a condition on devices ({listed} beside "cuda") without "{device}": add it rather than rewrite "cuda"',
        listed=listed,
        device=file.label,
    )
