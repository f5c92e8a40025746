"""Facts about a whole buffer that the finders ask on every analysis, answered for the cost of an edit rather than
of the buffer: whether it contains a byte string, and which of its lines begin with a word (`#`, `typedef`).

The finders test words before they do any work (`__shared__`, `asm`, `operator`, the warp words): on a 1 MB file a
dozen such tests cost several milliseconds, on every keystroke. They also walk the file's directive lines (the
conditional chains that select a target's code, its includes, its portability #defines), which a scan of the
buffer finds in milliseconds more. A session keeps one `Presence` for its buffer: the first question about a word
counts it (or lists its lines) in the whole buffer, and each edit then updates that answer from the bytes around
the change only. Without a session (the CLI), the answers come from the buffer itself."""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Iterator

# Generations are unique across tables: a stamp taken from one table never matches another's.
_GENERATIONS = itertools.count(1)


class Presence:
    __slots__ = ("_counts", "_data", "_tables")

    def __init__(self) -> None:
        self._counts: dict[bytes, int] = {}
        self._tables: dict[bytes, LineTable] = {}
        self._data: bytes | None = None

    def _follow(self, data: bytes) -> None:
        if data is not self._data:  # another buffer than the one the answers follow: start again
            self._counts.clear()
            self._tables.clear()
            self._data = data

    def has(self, data: bytes, word: bytes) -> bool:
        self._follow(data)
        count = self._counts.get(word)
        if count is None:
            count = self._counts[word] = data.count(word)
        return count > 0

    def lines_starting_with(self, data: bytes, word: bytes) -> LineTable:
        self._follow(data)
        table = self._tables.get(word)
        if table is None:
            table = self._tables[word] = LineTable(data, word)
        return table

    def edited(self, old: bytes, new: bytes, start: int, end: int, text: bytes) -> None:
        """`old[start:end]` became `text`, giving `new`."""
        if old is not self._data:
            self._follow(new)
            return
        new_end = start + len(text)
        for word, count in self._counts.items():
            reach = len(word) - 1
            lo = max(0, start - reach)
            # the occurrences overlapping the change are exactly those inside these slices
            before = old.count(word, lo, end + reach)
            after = new.count(word, lo, new_end + reach)
            if before and _overlaps_itself(word):
                self._counts[word] = new.count(word)  # `<<<` in `<<<<`: counts of slices do not add up
            else:
                self._counts[word] = count - before + after
        for table in self._tables.values():
            table.edited(old, new, start, end, text)
        self._data = new


class LineTable:
    """The starts of the lines whose first non-blank text is `word` (what `^[ \\t]*word` finds with re.MULTILINE),
    in order. `generation` changes whenever one of them (or a line continuing one with a backslash) is edited, or a
    line starts or stops being one: what was worked out from their text alone still holds while it stays."""

    __slots__ = ("generation", "starts", "word")

    def __init__(self, data: bytes, word: bytes) -> None:
        self.word = word
        self.starts = list(lines_starting_with(data, word))
        self.generation = next(_GENERATIONS)

    def __iter__(self) -> Iterator[int]:
        return iter(self.starts)

    def edited(self, old: bytes, new: bytes, start: int, end: int, text: bytes) -> None:
        starts = self.starts
        line_start = old.rfind(b"\n", 0, start) + 1
        old_end = _line_end(old, end)
        first = bisect.bisect_left(starts, line_start)
        last = bisect.bisect_right(starts, old_end)
        fresh = list(lines_starting_with(new, self.word, line_start, _line_end(new, start + len(text)) + 1))
        delta = len(text) - (end - start)
        tail = starts[last:]
        if delta:
            tail = [s + delta for s in tail]
        changed = first != last or bool(fresh)
        if not changed and first > 0:
            # a line that continues a listed one (a directive over several lines): that one changed
            logical = line_start
            while logical > 0 and _continues(old, logical - 1):
                logical = old.rfind(b"\n", 0, logical - 1) + 1
            changed = logical < line_start and starts[first - 1] >= logical
        self.starts = [*starts[:first], *fresh, *tail]
        if changed:
            self.generation = next(_GENERATIONS)


def lines_starting_with(data: bytes, word: bytes, lo: int = 0, hi: int | None = None) -> Iterator[int]:
    """Starts of the lines (beginning in [lo, hi)) whose first non-blank text is `word`, found with bytes.find
    (a MULTILINE regex tries every position of a large buffer)."""
    if hi is None:
        hi = len(data)
    position = data.find(word, lo, hi)
    while position != -1:
        line_start = data.rfind(b"\n", 0, position) + 1
        if line_start >= lo and not data[line_start:position].strip(b" \t"):
            yield line_start
        line_end = data.find(b"\n", position)
        if line_end == -1:
            return
        position = data.find(word, line_end, hi)


def _line_end(data: bytes, offset: int) -> int:
    end = data.find(b"\n", offset)
    return len(data) if end == -1 else end


def _continues(data: bytes, newline: int) -> bool:
    """Whether the line ending at `newline` ends with a backslash (the next line continues it)."""
    if newline >= 1 and data[newline - 1] == 0x5C:
        return True
    return newline >= 2 and data[newline - 1] == 0x0D and data[newline - 2] == 0x5C


def _overlaps_itself(word: bytes) -> bool:
    return any(word[:size] == word[-size:] for size in range(1, len(word)))
