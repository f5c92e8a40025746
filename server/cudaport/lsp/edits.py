"""Engine edits (byte offsets) as the smallest LSP TextEdits: `cudaMalloc` -> `hipMalloc` replaces `cuda` with
`hip`, not the whole name, so the editor keeps the cursor and any concurrent change nearby intact."""

from __future__ import annotations

import difflib

from lsprotocol import types

from ..model.source import LineIndex
from .positions import to_range

ByteEdit = tuple[int, int, bytes]  # replace bytes [start, end) with the given bytes


def minimal(data: bytes, start: int, end: int, text: bytes) -> ByteEdit:
    """The edit with its unchanged head and tail trimmed (never splitting a UTF-8 character)."""
    old = data[start:end]
    limit = min(len(old), len(text))
    head = 0
    while head < limit and old[head] == text[head]:
        head += 1
    while head > 0 and _continuation(old, head):
        head -= 1
    limit -= head
    tail = 0
    while tail < limit and old[len(old) - 1 - tail] == text[len(text) - 1 - tail]:
        tail += 1
    while tail > 0 and _continuation(old, len(old) - tail):
        tail -= 1
    return start + head, end - tail, text[head : len(text) - tail]


def _continuation(buffer: bytes, index: int) -> bool:
    return index < len(buffer) and buffer[index] & 0xC0 == 0x80


def difference(old: bytes, new: bytes) -> list[ByteEdit]:
    """Edits that turn `old` into `new`: line by line when the line count is unchanged (renames), else by a line
    diff; each changed stretch trimmed to the bytes that differ."""
    old_lines = old.splitlines(keepends=True)
    new_lines = new.splitlines(keepends=True)
    starts = [0]
    for line in old_lines:
        starts.append(starts[-1] + len(line))
    edits: list[ByteEdit] = []
    if len(old_lines) == len(new_lines):
        for index, (before, after) in enumerate(zip(old_lines, new_lines, strict=True)):
            if before != after:
                edits.append(minimal(old, starts[index], starts[index + 1], after))
        return edits
    matcher = difflib.SequenceMatcher(None, old_lines, new_lines)
    for tag, i1, i2, j1, j2 in matcher.get_opcodes():
        if tag != "equal":
            edits.append(minimal(old, starts[i1], starts[i2], b"".join(new_lines[j1:j2])))
    return edits


def text_edits(lines: LineIndex, edits: list[ByteEdit], unit: str) -> list[types.TextEdit]:
    return [
        types.TextEdit(range=to_range(lines, start, end, unit), new_text=text.decode("utf-8", "surrogatepass"))
        for start, end, text in sorted(edits)
    ]


def apply(data: bytes, edits: list[ByteEdit]) -> bytes:
    out = []
    position = 0
    for start, end, text in sorted(edits):
        out.append(data[position:start])
        out.append(text)
        position = end
    out.append(data[position:])
    return b"".join(out)
