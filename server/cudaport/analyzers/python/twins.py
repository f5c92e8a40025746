"""Twins of statements: a simple statement with fixes whose neighbour already does for the target what it does for
CUDA (`self.is_npu = ...` beside `self.is_cuda = ...`, or a neighbour that the statement, rewritten, would copy).
A statement's fixes are judged together, before any finding is left alone."""

from __future__ import annotations

import re

from tree_sitter import Node

from ...i18n import t
from ...model.findings import Finding
from .portedknowledge import words_of
from .reviewedfile import ReviewedFile

_SIMPLE_STATEMENTS = frozenset({"expression_statement", "return_statement", "assert_statement"})
_SPACES = re.compile(rb"\s+")


def statement_twins(file: ReviewedFile, findings: list[Finding]) -> dict[tuple[int, int], str]:
    """The statements with fixes whose neighbour already does for the target what they do for CUDA, and why."""
    out: dict[tuple[int, int], str] = {}
    seen: set[tuple[int, int]] = set()
    for finding in findings:
        if finding.fix is None:
            continue
        node = file.root.descendant_for_byte_range(finding.start, finding.end)
        statement = _statement_of(node) if node is not None else None
        if statement is None or (statement.start_byte, statement.end_byte) in seen:
            continue
        key = (statement.start_byte, statement.end_byte)
        seen.add(key)
        why = _twin(file, statement, findings)
        if why is not None:
            out[key] = why
    return out


def twin_of(node: Node, twins: dict[tuple[int, int], str]) -> str | None:
    """Why the statement `node` is in has a twin for the target, if it has one."""
    statement = _statement_of(node) if twins else None
    return twins.get((statement.start_byte, statement.end_byte)) if statement is not None else None


def _twin(file: ReviewedFile, statement: Node, findings: list[Finding]) -> str | None:
    """The statement beside this one already does for the target what this one does for CUDA: it names the
    target in the user's own words where this one names CUDA (`self.is_npu = ...` beside `self.is_cuda = ...`),
    or this one, rewritten, would be a copy of it (or assign what it assigns)."""
    neighbours = [n for n in (_sibling(statement, -1), _sibling(statement, 1)) if n is not None]
    if not neighbours:
        return None
    own_cuda = _names_cuda_strongly(file, statement)
    rewritten: bytes | None = None
    for neighbour in neighbours:
        if own_cuda and file.names_strongly(neighbour):
            return _beside(file, neighbour)
        if rewritten is None:
            rewritten = _rewritten(file.data, statement, findings)
        if rewritten is None:
            continue
        theirs = file.data[neighbour.start_byte : neighbour.end_byte]
        if _spaceless(rewritten) == _spaceless(theirs) or _same_value(statement, rewritten, neighbour, theirs):
            return _beside(file, neighbour)
    return None


def _beside(file: ReviewedFile, neighbour: Node) -> str:
    line = file.data.count(b"\n", 0, neighbour.start_byte) + 1
    return t(
        "the statement beside it (line {line}) already does this for {platform}, so it runs there",
        line=line,
        platform=file.platform,
    )


def _names_cuda_strongly(file: ReviewedFile, node: Node) -> bool:
    """An identifier of the user's says CUDA (`is_cuda`, `use_cuda`, `CUDA_OK`), not CUDA's own `cuda` module."""
    return any(i.lower() != b"cuda" and b"cuda" in words_of(i) for i in file.identifiers(node))


def _rewritten(data: bytes, statement: Node, findings: list[Finding]) -> bytes | None:
    """The statement's text with the safe fixes of the findings in it applied (None: none has one)."""
    lo, hi = statement.start_byte, statement.end_byte
    edits = sorted(
        {
            e
            for f in findings
            if f.fix is not None and f.fix.is_safe and lo <= f.start < hi
            for e in f.fix.edits
            if lo <= e.start and e.end <= hi
        },
        key=lambda e: (e.start, e.end),
    )
    if not edits:
        return None
    out, position = [], lo
    for edit in edits:
        if edit.start < position:
            return None
        out += [data[position : edit.start], edit.text.encode()]
        position = edit.end
    out.append(data[position:hi])
    return b"".join(out)


def _statement_of(node: Node) -> Node | None:
    """The simple statement `node` is in, if it stands directly in a block or the module."""
    current: Node | None = node
    while current is not None and current.type not in _SIMPLE_STATEMENTS:
        if current.type in ("block", "module", "function_definition", "class_definition"):
            return None
        current = current.parent
    if current is None or current.parent is None or current.parent.type not in ("block", "module"):
        return None
    return current


def _sibling(statement: Node, step: int) -> Node | None:
    """The statement before (-1) or after (1) `statement` in its block, comments passed over."""
    current = statement.prev_named_sibling if step < 0 else statement.next_named_sibling
    while current is not None and current.type == "comment":
        current = current.prev_named_sibling if step < 0 else current.next_named_sibling
    return current if current is not None and current.type in _SIMPLE_STATEMENTS else None


def _same_value(statement: Node, rewritten: bytes, neighbour: Node, theirs: bytes) -> bool:
    """Both assign, and the rewrite would give this one's value the neighbour's (`self.on_gpu = <probe>` beside
    `self.on_npu = <the same probe for the target>`): the neighbour is the target's twin."""
    mine, other = _assignment(statement), _assignment(neighbour)
    if mine is None or other is None:
        return False
    value = mine.child_by_field_name("right")
    their_value = other.child_by_field_name("right")
    if value is None or their_value is None:
        return False
    offset = statement.start_byte
    shift = len(rewritten) - (statement.end_byte - statement.start_byte)
    mine_text = rewritten[value.start_byte - offset : value.end_byte - offset + shift]
    their_text = theirs[their_value.start_byte - neighbour.start_byte : their_value.end_byte - neighbour.start_byte]
    return _spaceless(mine_text) == _spaceless(their_text)


def _assignment(statement: Node) -> Node | None:
    inner = statement.named_children[0] if statement.named_children else None
    return inner if inner is not None and inner.type == "assignment" else None


def _spaceless(code: bytes) -> bytes:
    return _SPACES.sub(b"", code)
