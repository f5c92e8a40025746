"""Where a local analysis can stand (cudaport.session, `analyse(local_first=True)`): the declarations an edit can
reshape, found in the old syntax tree (edited, not re-parsed), whose text then parses alone as it would in the
file. Tree-sitter's C grammar re-parses a whole file in time that grows with its number of top-level nodes; a
few declarations parse alone in tens of microseconds.

A span is the declaration that holds the edit, or the ones on both sides when the edit touches an edge or lies
between two (text typed after a `}` can join what follows); at the top level, or inside a conditional block
(`#if` ... `#endif`), whose own lines take nothing in from around them. An edit on a block's own lines is about the
whole block. What the old tree holds with no width at the edit is what the edit erased, and is passed over."""

from __future__ import annotations

from typing import Any

from ..analyzers.common.base import IncrementalProfile

# At most this many declarations, and this many bytes of them: past that, parsing them alone costs about what
# re-parsing the file does.
ITEMS_AT_ONCE = 8
LOCAL_SPAN = 65536
# What ends a conditional block's declarations, on a line of its own.
CLOSERS = frozenset({"preproc_else", "preproc_elif", "preproc_elifdef", "#endif"})
# Conditional blocks that stand alone (an `#else` does not: it belongs to its `#if`).
BLOCKS = frozenset({"preproc_if", "preproc_ifdef"})


def items_at(root: Any, lo: int, hi: int, profile: IncrementalProfile, data: bytes) -> tuple[int, int] | None:
    """The span of the declarations a change of [lo, hi] can reshape, when all are of the profile's `items` types
    (or what an earlier edit left unparsable): the one that holds it, or, when it touches one's edge or lies
    between two, those on both sides (text typed after a `}` can join the next declaration). They are the top
    level's, or those of a conditional block (a transparent container) that holds the change. A conditional
    block's lines (`#if` ... `#endif`) take nothing in from the lines around them: the span stops there, as it
    does at the end of the file. None at the top of the file or of a block, or past a few declarations."""
    parent = _block_holding(root, lo, hi, profile)
    cursor = parent.walk()
    after = _skip_erased(cursor.node if cursor.goto_first_child_for_byte(lo) is not None else None, lo)
    begin: int | None = None  # where the span starts when that is not a declaration's start
    first = after
    if after is not None and after.start_byte < lo and _ends_at(after, lo, data):
        begin, first = lo, after.next_sibling  # a line break typed at the end of a block's `#endif` line
    elif after is None or after.start_byte >= lo:
        before = _erased_back(after.prev_sibling if after is not None else _last_child(parent), lo)
        if before is not None and _is_block_line(before, profile) and before.end_byte <= lo:
            begin = before.end_byte  # the line after an `#endif`
        else:
            first = before  # between declarations, at the start of one, or after the last
    cursor = parent.walk()
    follows = _skip_erased(cursor.node if cursor.goto_first_child_for_byte(hi) is not None else None, hi)
    end: int | None = None
    if follows is None:
        last, closed = _erased_back(_last_child(parent), hi), True  # after the last node: nothing takes it in
    elif _is_block_line(follows, profile) and follows.start_byte >= hi:
        last, closed, end = _erased_back(follows.prev_sibling, hi), True, follows.start_byte  # an #if/#else/#endif
    else:
        last, closed = follows, False
    if begin is not None and (last is None or last.end_byte <= begin):
        return (begin, end) if end is not None else None  # blank lines between two blocks: what is typed there
    if first is None:
        return None
    node = first
    for _ in range(ITEMS_AT_ONCE):
        if node is None or (node.type not in profile.items and node.type != "ERROR"):
            return None
        if node == last:
            start = begin if begin is not None else first.start_byte
            inside = begin is not None or start < lo
            return (start, last.end_byte) if inside and (hi < last.end_byte or closed) else None
        node = node.next_sibling
    return None


def directive_block(parent: Any, lo: int, hi: int, profile: IncrementalProfile) -> Any:
    """The `#if`/`#ifdef` block (a child of `parent`) when [lo, hi] lies on one of the directive lines of it or of
    a block inside it (a condition, an `#else`/`#elif`, an `#endif`), not in their declarations: the edit is about
    the whole block."""
    cursor = parent.walk()
    if cursor.goto_first_child_for_byte(lo) is None:
        return None
    block = cursor.node
    if block.type not in BLOCKS or not (block.start_byte <= lo and hi <= block.end_byte):
        return None
    inner = block
    while True:  # down through the branches (`#else` inside the `#if`) to the node the edit is in
        cursor = inner.walk()
        if cursor.goto_first_child_for_byte(lo) is None:
            return block
        child = cursor.node
        if child.start_byte > lo or child.end_byte < hi:
            return block  # between a directive's tokens, or across two children: on a directive line
        if child.type in profile.transparent:
            inner = child
            continue
        return block if child.type not in profile.items and child.type != "ERROR" else None


def _block_holding(root: Any, lo: int, hi: int, profile: IncrementalProfile) -> Any:
    """The innermost conditional block (or the root) whose declarations hold [lo, hi] (its end counts: typing at
    the end of a branch's last line)."""
    parent = root
    while lo > 0:
        cursor = parent.walk()
        if cursor.goto_first_child_for_byte(lo - 1) is None:
            break
        node = cursor.node
        if node.type not in profile.transparent or not (node.start_byte < lo and hi <= node.end_byte):
            break
        closing = _last_child(node)
        if closing is not None and closing.type == "#endif" and hi > closing.start_byte:
            break  # on its `#endif` line (a line break typed after it): beside the block, not in it
        parent = node
    return parent


def _skip_erased(node: Any, at: int) -> Any:
    """`node`, or the first sibling after it that is not a node the edit erased (the old tree, edited, keeps it
    with no width at the edit)."""
    seen: set[int] = set()
    while node is not None and node.start_byte == node.end_byte == at:
        if node.id in seen:
            return _erased_siblings(node, at, 1)
        seen.add(node.id)
        node = node.next_sibling
    return node


def _ends_at(block: Any, at: int, data: bytes) -> bool:
    """Whether `at` is the end of a conditional block's `#endif` line, where a line break was typed (the edited
    old tree stretched the block over it)."""
    closing = _last_child(block)
    return (
        closing is not None
        and closing.type == "#endif"
        and at >= closing.start_byte
        and data[at : at + 1] in (b"\n", b"\r")
        and not data[closing.start_byte + len(b"#endif") : at].strip()
    )


def _erased_back(node: Any, at: int) -> Any:
    """`node`, or the first sibling before it that is not a node the edit erased."""
    seen: set[int] = set()
    while node is not None and node.start_byte == node.end_byte == at:
        if node.id in seen:
            return _erased_siblings(node, at, -1)
        seen.add(node.id)
        node = node.prev_sibling
    return node


def _erased_siblings(node: Any, at: int, step: int) -> Any:
    """What _erased_back (step -1) and _skip_erased (+1) look for, through the parent's list of children: among
    several nodes an edit erased at one offset, tree-sitter's prev_sibling and next_sibling can go round in a
    circle (a comment and an #include erased together)."""
    parent = node.parent
    if parent is None:
        return None
    children = parent.children
    index = next((i for i, child in enumerate(children) if child == node), None)
    if index is None:
        return None
    for i in range(index + step, len(children) if step > 0 else -1, step):
        child = children[i]
        if not child.start_byte == child.end_byte == at:
            return child
    return None


def _last_child(node: Any) -> Any:
    return node.child(node.child_count - 1) if node.child_count else None


def _is_block_line(node: Any, profile: IncrementalProfile) -> bool:
    """A conditional block, or the `#else`/`#endif` of one: lines of their own that nothing typed around joins."""
    return node.type in profile.transparent or node.type in CLOSERS


def stands_alone(parts: list[Any], data: bytes, start: int, end: int, items: frozenset[str]) -> bool:
    """Whether the top-level nodes of data[start:end] parsed alone are what the whole file would make of them:
    declarations of the `items` types over all of it but blank space (a line break typed after a directive is
    blank space after it, alone), with anything unparsable between two of them (text typed between two functions
    stays between them), never at either end (where the file around could take it in); or only blank lines."""
    if not parts:
        return not data[start:end].strip()
    if data[start : parts[0].start_byte].strip() or data[parts[-1].end_byte : end].strip():
        return False

    def whole(part: Any) -> bool:  # a declaration, or a conditional block that parses without error
        return part.type in items or (part.type in BLOCKS and not part.has_error)

    return whole(parts[0]) and whole(parts[-1]) and all(whole(p) or p.is_error for p in parts)
