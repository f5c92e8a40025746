"""Where a ranged analysis of Python looks: each requested byte range widened to the statements its ends fall in.

Every Python finding lies in the same statement as the word that leads to it, at or before that word: a chain
(`torch.cuda\\n    .synchronize()` inside brackets) is reported at its start, a string at its quote, a build
call at its function while the `.cu` file that decides it may sit lines below. Statements (or, for compound
statements, their headers: `with torch.cuda.stream(s):`, `def f(device="cuda"):`, `elif x.is_cuda:`) never
overlap, nor do the pieces of code that error recovery leaves where statements should be. Scanning the statements
that hold a range's two ends, and everything between, finds every finding that starts in the range exactly as a
whole-file scan does, and costs what those statements cost."""

from __future__ import annotations

from tree_sitter import Node

_BODIES = frozenset({"block", "module"})
# Parts of a compound statement that hold a body of their own (`elif ...:`, `except ...:`, the definition under
# its decorators).
_CLAUSES = frozenset(
    {
        "elif_clause",
        "else_clause",
        "except_clause",
        "except_group_clause",
        "finally_clause",
        "function_definition",
        "class_definition",
    }
)


def search_windows(root: Node, ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The requested ranges, each widened to the statements (or statement headers) its two ends fall in, merged.
    An empty range holds no finding and asks for nothing."""
    end_of_buffer = root.end_byte
    windows: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        lo = max(0, min(lo, end_of_buffer))
        hi = max(lo, min(hi, end_of_buffer))
        if lo == hi:
            continue
        lo = min(lo, _statement_at(root, lo)[0])
        hi = max(hi, _statement_at(root, hi - 1)[1])
        if windows and lo <= windows[-1][1]:
            windows[-1] = (windows[-1][0], max(windows[-1][1], hi))
        else:
            windows.append((lo, hi))
    return windows


def _statement_at(root: Node, offset: int) -> tuple[int, int]:
    """The span of the statement that holds the byte at `offset`: a simple statement, or the header part of a
    compound statement (up to its body, or between two of its bodies); just that byte between statements."""
    node = root.descendant_for_byte_range(offset, offset + 1)
    if node is None or _holds_statements(node):
        return offset, offset + 1
    parent = node.parent
    while parent is not None and not _holds_statements(parent):
        node, parent = parent, parent.parent
    if node.has_error:
        return node.start_byte, node.end_byte  # error recovery may put anything anywhere: all of it
    start, end = node.start_byte, node.end_byte
    for body in _bodies(node):
        if body.end_byte <= offset:
            start = max(start, body.end_byte)
        elif body.start_byte > offset:
            end = min(end, body.start_byte)
    return start, end


def _holds_statements(node: Node) -> bool:
    """A block, the module, or an ERROR where statements would be (half-typed code can turn the whole buffer into
    one): no finding's nodes reach across it, since chains, strings and calls never contain one."""
    while node.type == "ERROR":
        parent = node.parent
        if parent is None:
            return True
        node = parent
    return node.type in _BODIES


def _bodies(statement: Node) -> list[Node]:
    """The blocks a compound statement holds directly or through its clauses (none for a simple statement)."""
    out: list[Node] = []
    for child in statement.children:
        if child.type == "block":
            out.append(child)
        elif child.type in _CLAUSES:
            out.extend(_bodies(child))
    return out
