"""Preprocessor structure that tree-sitter does not model well: conditional chains that select a target's code
path (dual-stack code) and portability headers that #define CUDA names to the target's names."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass

_DIRECTIVE = re.compile(
    rb"^[ \t]*#[ \t]*(if|ifdef|ifndef|elif|elifdef|elifndef|else|endif)\b((?:[^\n\\]|\\.)*)",
    re.MULTILINE | re.DOTALL,
)
# Matched at the starts of the lines that begin with `#`, `typedef` or `using` (found with bytes.find: a regex
# scan of the whole buffer costs milliseconds on a large file, on every keystroke in an editor).
_SHIM_DEFINE = re.compile(
    rb"[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]+([A-Za-z_][\w:]*)[ \t]*(?://[^\n]*)?\r?$", re.MULTILINE
)
_SHIM_TYPEDEF = re.compile(rb"[ \t]*typedef[ \t]+([A-Za-z_]\w*)[ \t]+([A-Za-z_]\w*)[ \t]*;")
_SHIM_USING = re.compile(rb"[ \t]*using[ \t]+([A-Za-z_]\w*)[ \t]*=[ \t]*([A-Za-z_]\w*)[ \t]*;")
_SHIM_NAMESPACE = re.compile(rb"[ \t]*namespace[ \t]+([A-Za-z_]\w*)[ \t]*=[ \t]*(?:::)?([A-Za-z_]\w*)[ \t]*;")


@dataclass(frozen=True, slots=True)
class GuardedRegion:
    """An #if/#elif/#else chain whose conditions test a target marker; every branch of it is dual-stack code."""

    start: int
    end: int
    marker: str
    line: int  # 1-based line of the directive that names the marker


class GuardIndex:
    def __init__(self, regions: list[GuardedRegion]) -> None:
        self.regions = sorted(regions, key=lambda r: r.start)
        self._starts = [r.start for r in self.regions]

    def find(self, offset: int) -> GuardedRegion | None:
        index = bisect.bisect_right(self._starts, offset) - 1
        while index >= 0:
            region = self.regions[index]
            if region.start <= offset < region.end:
                return region
            index -= 1
        return None

    def __bool__(self) -> bool:
        return bool(self.regions)


def guarded_regions(
    data: bytes, markers: re.Pattern[bytes], in_comment: Callable[[int], bool] | None = None
) -> GuardIndex:
    """Conditional chains that test one of `markers` (outermost ones; nested chains lie inside them).

    `in_comment(offset)` tells whether a directive-looking line is inside a comment (`/* #endif */`). Markers only
    count in the conditions of directives, so only those are searched."""
    directives = list(_directives(data))
    if not any(markers.search(match.group(2)) for match in directives if match.group(1) != b"endif"):
        return GuardIndex([])
    lines = _LineCounter(data)
    regions: list[GuardedRegion] = []
    stack: list[tuple[int, str, int]] = []  # (start, marker or "", line of marker)
    for match in directives:
        if in_comment is not None and in_comment(match.start()):
            continue
        keyword = match.group(1)
        condition = match.group(2)
        if keyword.startswith(b"if"):
            found = markers.search(condition)
            stack.append((match.start(), _text(found.group(0)) if found else "", lines.line(match.start())))
        elif keyword == b"endif":
            if not stack:
                continue
            start, marker, line = stack.pop()
            if marker and not any(m for _, m, _ in stack):
                regions.append(GuardedRegion(start, match.end(), marker, line))
        elif stack and not stack[-1][1]:  # elif/else: a later branch may name the marker
            found = markers.search(condition) if keyword.startswith(b"elif") else None
            if found:
                start, _, _ = stack[-1]
                stack[-1] = (start, _text(found.group(0)), lines.line(match.start()))
    # An unterminated chain (half-typed code) still guards to the end of the buffer.
    for start, marker, line in stack:
        if marker:
            regions.append(GuardedRegion(start, len(data), marker, line))
            break
    return GuardIndex(regions)


def shim_definitions(data: bytes, cuda_names: Mapping[str, object], prefixes: tuple[str, ...]) -> dict[str, str]:
    """`#define cudaX hipX` (and `typedef hipX cudaX;`, `using cudaX = hipX;`, `namespace cub = hipcub;`) lines:
    CUDA name -> target name."""
    if not prefixes:
        return {}
    found: dict[str, str] = {}
    byte_prefixes = tuple(p.encode() for p in prefixes)
    # (pattern, the word its lines start with, whether the CUDA name comes first): `#define cudaX hipX`,
    # `typedef hipX cudaX;`, `using cudaX = hipX;`
    forms = (
        (_SHIM_DEFINE, b"#", True),
        (_SHIM_TYPEDEF, b"typedef", False),
        (_SHIM_USING, b"using", True),
        (_SHIM_NAMESPACE, b"namespace", True),
    )
    for pattern, word, name_first in forms:
        if word not in data:
            continue
        for line_start in _lines_starting_with(data, word):
            match = pattern.match(data, line_start)
            if match is None:
                continue
            name, value = (match.group(1), match.group(2)) if name_first else (match.group(2), match.group(1))
            if value.startswith(byte_prefixes):
                text = _text(name)
                if text in cuda_names:
                    found[text] = _text(value)
    return found


def at_line_start(data: bytes, offset: int) -> bool:
    line_start = data.rfind(b"\n", 0, offset) + 1
    return not data[line_start:offset].strip(b" \t")


def _text(value: bytes) -> str:
    return value.decode("utf-8", "replace")


def _lines_starting_with(data: bytes, word: bytes) -> Iterator[int]:
    """Starts of the lines whose first non-blank text is `word`: what `^[ \t]*word` finds with re.MULTILINE,
    located with bytes.find (a MULTILINE regex tries every position of a large buffer)."""
    position = data.find(word)
    while position != -1:
        line_start = data.rfind(b"\n", 0, position) + 1
        if not data[line_start:position].strip(b" \t"):
            yield line_start
        line_end = data.find(b"\n", position)
        if line_end == -1:
            return
        position = data.find(word, line_end)


def _directives(data: bytes) -> Iterator[re.Match[bytes]]:
    """The conditional directives, as `_DIRECTIVE.finditer` finds them (a match may span continuation lines)."""
    resume = 0
    for line_start in _lines_starting_with(data, b"#"):
        if line_start < resume:
            continue
        match = _DIRECTIVE.match(data, line_start)
        if match is not None:
            resume = match.end()
            yield match


class _LineCounter:
    """1-based line numbers of increasing offsets, counting each stretch of the buffer once."""

    def __init__(self, data: bytes) -> None:
        self._data = data
        self._offset = 0
        self._line = 1

    def line(self, offset: int) -> int:
        if offset < self._offset:
            self._offset, self._line = 0, 1
        self._line += self._data.count(b"\n", self._offset, offset)
        self._offset = offset
        return self._line
