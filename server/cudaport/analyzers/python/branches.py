"""The control flow the review reads around a finding: the branches of an `if` statement with their conditions,
the `if`s of a block before a node, and bodies that leave the block."""

from __future__ import annotations

from collections.abc import Iterator

from tree_sitter import Node

CONDITIONS = frozenset({"comparison_operator", "boolean_operator", "not_operator"})
_EXITS = frozenset({"return_statement", "raise_statement", "continue_statement", "break_statement"})


def branches(statement: Node) -> list[tuple[Node | None, Node | None]]:
    """(condition, body) of each branch of an `if` statement: the `if`, every `elif`, the `else`."""
    out: list[tuple[Node | None, Node | None]] = [
        (statement.child_by_field_name("condition"), statement.child_by_field_name("consequence"))
    ]
    for clause in statement.named_children:
        if clause.type == "elif_clause":
            out.append((clause.child_by_field_name("condition"), clause.child_by_field_name("consequence")))
        elif clause.type == "else_clause":
            out.append((None, clause.child_by_field_name("body")))
    return out


def conditions(statement: Node) -> list[Node]:
    return [condition for condition, _ in branches(statement) if condition is not None]


def earlier_ifs(block: Node, node: Node) -> Iterator[tuple[Node, Node]]:
    """The `if` statements of `block` before `node`, with their conditions."""
    for statement in block.named_children:
        if statement.start_byte >= node.start_byte:
            return
        if statement.type == "if_statement":
            condition = statement.child_by_field_name("condition")
            if condition is not None:
                yield statement, condition


def leaves(statement: Node) -> bool:
    """The `if` body ends by leaving the block (`return`, `raise`, `continue`, `break`)."""
    body = statement.child_by_field_name("consequence")
    last = body.named_children[-1] if body is not None and body.named_children else None
    return last is not None and last.type in _EXITS
