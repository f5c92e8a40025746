"""Reading sources in the encodings this user base has (UTF-8, UTF-8 with BOM, GBK) and writing them back unchanged.

Analysis always runs on a UTF-8 buffer (`SourceFile.data`); the original encoding is remembered so that a rewrite
is encoded back exactly as it came in. Bytes that are neither UTF-8 nor GBK are analysed as they are: the rewrites
only ever touch ASCII identifiers, so such a file still round-trips byte for byte.
"""

from __future__ import annotations

import bisect
import contextlib
import os
import re
import stat
from pathlib import Path

from ..i18n import t
from .findings import Edit
from .records import record

UTF8 = "utf-8"
UTF8_BOM = "utf-8-sig"
GBK = "gbk"
RAW = "raw"  # neither UTF-8 nor GBK: analysed and rewritten as raw bytes

_BOM = b"\xef\xbb\xbf"
_BINARY_SNIFF = 8192
DEFAULT_MAX_FILE_SIZE = 5 * 1024 * 1024


class SkipFile(Exception):
    """A file that is not analysed, with the reason to show the user."""


@record(slots=True)
class SourceFile:
    data: bytes
    encoding: str = UTF8

    @classmethod
    def from_text(cls, text: str) -> SourceFile:
        return cls(text.encode("utf-8", "surrogatepass"))

    @classmethod
    def from_bytes(cls, raw: bytes) -> SourceFile:
        """Decode a file's bytes; raises SkipFile for binary content."""
        if b"\x00" in raw[:_BINARY_SNIFF]:
            raise SkipFile(t("binary file (contains NUL bytes)"))
        if raw.startswith(_BOM):
            body = raw[len(_BOM) :]
            if _is_utf8(body):
                return cls(body, UTF8_BOM)
            return cls(body, RAW)
        if _is_utf8(raw):
            return cls(raw, UTF8)
        try:
            text = raw.decode(GBK)
        except UnicodeDecodeError:
            return cls(raw, RAW)
        return cls(text.encode("utf-8"), GBK)

    def text(self) -> str:
        return self.data.decode("utf-8", "replace")

    def encode(self, data: bytes | None = None) -> bytes:
        """The bytes to write for `data` (default: the current buffer) in this file's original encoding."""
        body = self.data if data is None else data
        if self.encoding == GBK:
            return body.decode("utf-8").encode(GBK)
        if self.encoding == UTF8_BOM:
            return _BOM + body
        return body


def _is_utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def read_source(path: Path, max_size: int = DEFAULT_MAX_FILE_SIZE) -> SourceFile:
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise SkipFile(t("cannot read: {error}", error=exc.strerror or exc)) from exc
    if size > max_size:
        raise SkipFile(
            t(
                "file is {size} bytes, over the {limit}-byte limit (max-file-size)",
                size=f"{size:,}",
                limit=f"{max_size:,}",
            )
        )
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise SkipFile(t("cannot read: {error}", error=exc.strerror or exc)) from exc
    return SourceFile.from_bytes(raw)


def apply_edits(data: bytes, edits: list[Edit]) -> bytes:
    """Apply non-overlapping edits (byte offsets into `data`); overlapping later edits are dropped."""
    out: list[bytes] = []
    pos = 0
    for edit in sorted(edits, key=lambda e: (e.start, e.end)):
        if edit.start < pos:
            continue
        out.append(data[pos : edit.start])
        out.append(edit.text.encode("utf-8"))
        pos = edit.end
    out.append(data[pos:])
    return b"".join(out)


def write_atomic(path: Path, content: bytes) -> None:
    """Replace `path` with `content` without ever leaving a half-written file; keeps its permission bits (a new
    file gets the permissions a new file gets here)."""
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    import tempfile  # only a run that writes loads it

    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".cudaport", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(content)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
        raise


class LineIndex:
    """Maps byte offsets of a UTF-8 buffer to (line, column) in code points, UTF-16 units or bytes (all 0-based)."""

    __slots__ = ("_data", "_starts")

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._starts = [0, *_line_starts(data, 0, len(data))]

    def replaced(self, start: int, end: int, text: bytes, data: bytes) -> LineIndex:
        """The index of `data`: this index's buffer with bytes [start, end) replaced by `text`.

        Cheaper than indexing `data` afresh, which an editor would do on every keystroke: the line starts
        before the edit are kept, those after it move by the change in length, and only the starts the edit can
        make or unmake are looked for again (a `\n` typed after a `\r` joins two breaks into one)."""
        starts = self._starts
        first = bisect.bisect_left(starts, max(start, 1))  # starts from `start` on depend on the edited bytes ...
        last = bisect.bisect_right(starts, end)  # ... up to `end`; later ones only move
        delta = len(text) - (end - start)
        new_end = start + len(text)
        inserted = [s for s in _line_starts(data, max(start - 1, 0), new_end + 1) if max(start, 1) <= s <= new_end]
        tail = starts[last:] if delta == 0 else [s + delta for s in starts[last:]]
        index = LineIndex.__new__(LineIndex)
        index._data = data
        index._starts = [*starts[:first], *inserted, *tail]
        return index

    @property
    def line_count(self) -> int:
        return len(self._starts)

    def line_of(self, offset: int) -> int:
        return bisect.bisect_right(self._starts, offset) - 1

    def line_start(self, line: int) -> int:
        if line >= len(self._starts):
            return len(self._data)
        return self._starts[max(line, 0)]

    def line_end(self, line: int) -> int:
        """Offset of the end of `line`, before its line break (`\n`, `\r\n` or a lone `\r`)."""
        if line + 1 < len(self._starts):
            end = self._starts[line + 1] - 1
            if self._data[end : end + 1] == b"\n" and end > self._starts[line] and self._data[end - 1 : end] == b"\r":
                end -= 1
            return end
        return len(self._data)

    def position(self, offset: int, unit: str = "codepoint") -> tuple[int, int]:
        line = self.line_of(offset)
        start = self._starts[line]
        return line, self._column(start, offset, unit)

    def _column(self, start: int, offset: int, unit: str) -> int:
        if unit == "byte":
            return offset - start
        prefix = self._data[start:offset]
        if prefix.isascii():
            return len(prefix)
        text = _decoded(prefix)
        if unit == "utf-16":
            return len(text.encode("utf-16-le", "surrogatepass")) // 2
        return len(text)

    def offset(self, line: int, column: int, unit: str = "codepoint") -> int:
        """Byte offset of a (line, column) position; positions past a line's end clamp to it."""
        if line < 0:
            return 0
        if line >= len(self._starts):
            return len(self._data)
        start = self._starts[line]
        end = self.line_end(line)
        if unit == "byte":
            offset = min(start + max(column, 0), end)
            while start < offset < len(self._data) and self._data[offset] & 0xC0 == 0x80:
                offset -= 1  # never inside a character: a bad column must not split one
            return offset
        segment = self._data[start:end]
        if segment.isascii():
            return start + min(column, len(segment))
        text = _decoded(segment)
        if unit == "utf-16":
            # Characters beyond the BMP are two units: the index is the column less those before it (counted
            # by a regex, not a Python loop over a line that may be megabytes long).
            index = min(column, len(text))
            while index > 0 and index + len(_ASTRAL.findall(text, 0, index)) > column:
                index -= max(1, (index + len(_ASTRAL.findall(text, 0, index)) - column) // 2)
            if index < len(text) and index + len(_ASTRAL.findall(text, 0, index)) < column:
                index += 1  # the column falls inside a surrogate pair: after the character, as before
            return start + _encoded_length(text[:index])
        return start + _encoded_length(text[:column])


_BREAK = re.compile(rb"\r\n|\r|\n")
_ASTRAL = re.compile("[\U00010000-\U0010ffff]")


def _line_starts(data: bytes, lo: int, hi: int) -> list[int]:
    """The line starts after each line break that begins in [lo, hi): `\n`, `\r\n` and a lone `\r`, as LSP counts
    them."""
    if data.find(b"\r", lo, hi) == -1:
        starts = []
        find = data.find
        pos = find(b"\n", lo, hi)
        while pos != -1:
            starts.append(pos + 1)
            pos = find(b"\n", pos + 1, hi)
        return starts
    # A `\r` at hi - 1 may be the first half of `\r\n`: look one byte further.
    return [m.end() for m in _BREAK.finditer(data, lo, min(hi + 1, len(data))) if m.start() < hi]


def _decoded(segment: bytes) -> str:
    """A lone surrogate (JSON allows them; the server keeps them as their 3-byte form) is one character, one
    UTF-16 unit, as the client counts it; other invalid bytes (GBK) one replacement character each."""
    try:
        return segment.decode("utf-8", "surrogatepass")
    except UnicodeDecodeError:
        return segment.decode("utf-8", "replace")


def _encoded_length(text: str) -> int:
    return len(text.encode("utf-8", "surrogatepass"))
