"""The file's `#include` lines as written (outside comments), which header row of the rule data an include path
names, and where a fix puts a line it adds (an include at the top of the code, with the file's line ends)."""

from __future__ import annotations

import re
from collections.abc import Iterator

from ...knowledge.ruleset import Symbol, TargetMapping
from .scan import Scan

_INCLUDE_LINE = re.compile(rb'[ \t]*#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]')  # matched at a line's start


def include_names(scan: Scan) -> list[tuple[bool, str]]:
    """(quoted, name) of the file's includes outside comments, worked out again only when a line that begins
    with `#` is edited (a comment opening or closing around one makes a session analyse the whole file)."""
    table = scan.context.lines(scan.data, b"#")
    return scan.context.remember(  # type: ignore[no-any-return]
        "include names", table.generation, lambda: [(q, n) for q, n, _ in include_lines(scan)]
    )


def include_lines(scan: Scan) -> Iterator[tuple[bool, str, re.Match[bytes]]]:
    """(quoted, name, match) of every `#include` line of the buffer outside comments, in order (from the lines
    that begin with `#`, which an editor session keeps)."""
    data = scan.data
    for line_start in scan.context.lines(data, b"#").starts:
        match = _INCLUDE_LINE.match(data, line_start)
        if match is None:
            continue
        node = scan.node_anywhere(*match.span(2))
        if node is not None and node.type == "comment":
            continue
        yield match.group(1) == b'"', match.group(2).decode("utf-8", "replace").strip(), match


def is_compat(scan: Scan, name: str) -> bool:
    """The include name is the dual-stack portability header (which brings the runtime on either side)."""
    plan = scan.context.dual
    return plan is not None and (name == plan.include or name.rsplit("/", 1)[-1] == plan.header_name)


def concrete_header(symbol: Symbol, path: str, target: str) -> Symbol:
    """A glob entry (`thrust/*`) made concrete for one include path."""
    if symbol.name == path:
        return symbol
    targets = {}
    stem = symbol.name.rstrip("*")
    rest = path[len(stem) :] if path.startswith(stem) else ""
    for name, mapping in symbol.targets.items():
        replacement = mapping.replacement.replace("*", rest) if "*" in mapping.replacement else mapping.replacement
        targets[name] = TargetMapping(replacement, mapping.difficulty, mapping.note)
    return Symbol(path, "header", symbol.rule, symbol.library, targets, symbol.flags, note=symbol.note)


def is_cu(scan: Scan) -> bool:
    return scan.context.path.lower().endswith(".cu")


def newline(scan: Scan) -> str:
    """The line end of a line a fix inserts: CRLF in a file that has any (asked of the session's Presence, which
    an edit keeps current; a session analyses whole when the answer changes)."""
    return "\r\n" if scan.context.has(scan.data, b"\r\n") else "\n"


def first_code_line(scan: Scan) -> int:
    """Where a new #include goes: the start of the line of the first thing that is not a comment."""
    root = scan.file_root
    for index in range(root.child_count):  # by index: a large file has thousands of top-level nodes
        child = root.child(index)
        if child is not None and child.type != "comment":
            return scan.data.rfind(b"\n", 0, child.start_byte) + 1
    return 0


def header_top(scan: Scan) -> int:
    """Where a header's first include goes: after `#pragma once` or inside its include guard (after the guard's
    `#define`), else at its first line of code."""
    first = next((child for child in scan.file_root.children if child.type != "comment"), None)
    if first is None:
        return first_code_line(scan)
    if first.type == "preproc_call" and "once" in scan.text_of(first):
        return first.end_byte if scan.data[first.end_byte - 1 : first.end_byte] == b"\n" else first_code_line(scan)
    if first.type == "preproc_ifdef" and scan.text_of(first).lstrip().startswith("#ifndef"):
        name = first.child_by_field_name("name")
        body = [c for c in first.named_children if c != name and c.type != "comment"]
        if name is not None and body and body[0].type == "preproc_def":
            guard = body[0].child_by_field_name("name")
            if guard is not None and scan.text_of(guard) == scan.text_of(name):
                end = body[0].end_byte
                return end if scan.data[end - 1 : end] == b"\n" else scan.data.find(b"\n", end) + 1
    return first_code_line(scan)
