"""Whether a buffer contains a byte string, answered for the cost of an edit rather than of the buffer.

The finders test words before they do any work (`__shared__`, `asm`, `operator`, the warp words): on a 1 MB file a
dozen such tests cost several milliseconds, on every keystroke. A session keeps one `Presence` for its buffer: the
first question about a word counts it in the whole buffer, and each edit then updates that count from the bytes
around the change only. Without a session (the CLI), the tests are plain `in`."""

from __future__ import annotations


class Presence:
    __slots__ = ("_counts", "_data")

    def __init__(self) -> None:
        self._counts: dict[bytes, int] = {}
        self._data: bytes | None = None

    def has(self, data: bytes, word: bytes) -> bool:
        if data is not self._data:  # another buffer than the one the counts follow: start again
            self._counts.clear()
            self._data = data
        count = self._counts.get(word)
        if count is None:
            count = self._counts[word] = data.count(word)
        return count > 0

    def edited(self, old: bytes, new: bytes, start: int, end: int, text: bytes) -> None:
        """`old[start:end]` became `text`, giving `new`."""
        if old is not self._data:
            self._counts.clear()
            self._data = new
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
        self._data = new


def _overlaps_itself(word: bytes) -> bool:
    return any(word[:size] == word[-size:] for size in range(1, len(word)))
