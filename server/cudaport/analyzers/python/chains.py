"""Dotted chains of identifiers as the tree holds them (`torch.cuda.amp.autocast`), and what a chain stands in:
a call, a decorator, a class's bases."""

from __future__ import annotations

from tree_sitter import Node

from ...model.records import record
from ..common.syntax import text


@record(frozen=True, slots=True)
class Link:
    """One component of a dotted chain as written: its name, its identifier, and the node of the chain so far."""

    name: str
    identifier: Node
    prefix: Node


def chain_through(node: Node) -> list[Link] | None:
    """The longest dotted chain of identifiers through `node` (`torch.cuda.amp.autocast` from any of its names)."""
    top = node
    parent = top.parent
    if parent is not None and parent.type == "attribute" and parent.child_by_field_name("attribute") == top:
        top = parent
    while True:
        parent = top.parent
        if parent is None or parent.type != "attribute" or parent.child_by_field_name("object") != top:
            break
        top = parent
    return chain_of(top)


def chain_of(top: Node) -> list[Link] | None:
    """The links of the chain `top` is the whole of, from its base identifier; None when it is not one."""
    links: list[Link] = []
    current: Node | None = top
    while current is not None and current.type == "attribute":
        attribute = current.child_by_field_name("attribute")
        if attribute is None:
            return None
        links.append(Link(text(attribute), attribute, current))
        current = current.child_by_field_name("object")
    if current is None or current.type != "identifier":
        return None
    links.append(Link(text(current), current, current))
    links.reverse()
    return links


def decorates(chain: Node) -> bool:
    """The chain is a decorator, applied as it is or called (`@cuda.jit`, `@cuda.jit(device=True)`)."""
    parent = chain.parent
    if parent is not None and parent.type == "call" and parent.child_by_field_name("function") == chain:
        parent = parent.parent
    return parent is not None and parent.type == "decorator"


def is_called(node: Node) -> bool:
    """The name is called, constructed, applied as a decorator or subclassed: not an `isinstance` check, an
    annotation or an entry of a registry list, which run the same on any device."""
    parent = node.parent
    if parent is None:
        return False
    if parent.type == "call":
        return parent.child_by_field_name("function") == node
    if parent.type == "decorator":
        return True
    return parent.type == "argument_list" and parent.parent is not None and parent.parent.type == "class_definition"


def enclosing_call(node: Node) -> Node | None:
    """The call `node` is an argument of (or part of one), looked for a few levels up and not past a statement."""
    current: Node | None = node
    for _ in range(12):
        if current is None:
            return None
        if current.type == "call":
            return current
        if current.type in ("module", "block", "function_definition", "class_definition"):
            return None
        current = current.parent
    return None
