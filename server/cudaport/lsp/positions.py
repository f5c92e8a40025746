"""LSP positions <-> byte offsets of the analysed UTF-8 buffer, in the position encoding negotiated with the client.

Tree-sitter and the engine work in byte offsets; LSP columns count UTF-16 code units unless the client offered
UTF-8 (bytes) or UTF-32 (code points). A CJK character is 3 bytes, 1 UTF-16 unit; an emoji 4 bytes, 2 units."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..model.source import LineIndex

if TYPE_CHECKING:  # the protocol library takes a fifth of a second to load: the first diagnostics go out before it
    from lsprotocol import types

_UNITS = {"utf-8": "byte", "utf-16": "utf-16", "utf-32": "codepoint"}  # PositionEncodingKind's values


def unit_for(encoding: types.PositionEncodingKind | str | None) -> str:
    """The LineIndex column unit of a negotiated position encoding (UTF-16 when none was negotiated)."""
    if encoding is None:
        return "utf-16"
    return _UNITS.get(str(getattr(encoding, "value", encoding)), "utf-16")


def preferred_encoding(offered: list[types.PositionEncodingKind | str] | None) -> types.PositionEncodingKind:
    """UTF-8 when the client offers it (no conversion at all), otherwise UTF-16, which every client supports."""
    from lsprotocol import types

    for encoding in offered or ():
        if encoding == types.PositionEncodingKind.Utf8:
            return types.PositionEncodingKind.Utf8
    return types.PositionEncodingKind.Utf16


def to_position(lines: LineIndex, offset: int, unit: str) -> types.Position:
    from lsprotocol import types

    line, column = lines.position(offset, unit)
    return types.Position(line=line, character=column)


def to_range(lines: LineIndex, start: int, end: int, unit: str) -> types.Range:
    from lsprotocol import types

    return types.Range(start=to_position(lines, start, unit), end=to_position(lines, end, unit))


def to_offset(lines: LineIndex, position: types.Position, unit: str) -> int:
    """Byte offset of a client position; positions past a line's end or the buffer's end are clamped."""
    return lines.offset(max(position.line, 0), max(position.character, 0), unit)
