"""Preprocessor structure that tree-sitter does not model well: conditional chains that select a target's code
path (dual-stack code) and portability headers that #define CUDA names to the target's names."""

from __future__ import annotations

import bisect
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence

from ...model.records import record
from ..common.presence import lines_starting_with

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
# A function-like macro whose body calls the target, or a dual-stack header's dispatch, maps the CUDA function:
# `#define cudaFuncSetAttribute(f, a, v) hipFuncSetAttribute(...)`, `#define cudaEventCreate(...) CUDAPORT_BY_COUNT(..)`
_SHIM_FUNCTION = re.compile(rb"[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)\([^)\n]*\)[ \t]+([^\n]*)")
_SHIM_EMPTY = re.compile(rb"[ \t]*#[ \t]*define[ \t]+([A-Za-z_]\w*)[ \t]*(?://[^\n]*)?\r?$", re.MULTILINE)
_BODY_WORD = re.compile(rb"[A-Za-z_]\w*")
_NAMES_SECTION = b"// cudaport: names"  # compat.py writes it
_DISPATCH = b"CUDAPORT_"


@record(frozen=True, slots=True)
class GuardedRegion:
    """An #if/#elif/#else chain whose conditions test a target marker; every branch of it is dual-stack code."""

    start: int
    end: int
    marker: str
    line: int  # 1-based line of the directive that names the marker
    named: int  # where that directive starts


@record(frozen=True, slots=True)
class GuardShape:
    """The guarded chains as positions in the list of lines that begin with `#`: (the opening directive's index,
    the closing `#endif`'s index or -1 when the chain is not closed, that `#endif`'s length, the marker, the index
    of the directive that names it). It holds while none of those lines is edited, wherever they move."""

    regions: tuple[tuple[int, int, int, str, int], ...]


class GuardIndex:
    def __init__(self, shape: GuardShape, data: bytes, hash_lines: Sequence[int]) -> None:
        self._data = data
        self._regions = [
            (hash_lines[first], hash_lines[last] + length if last >= 0 else len(data), marker, hash_lines[named])
            for first, last, length, marker, named in shape.regions
        ]
        self._starts = [region[0] for region in self._regions]
        self._lines: list[int] | None = None

    def find(self, offset: int) -> GuardedRegion | None:
        index = bisect.bisect_right(self._starts, offset) - 1
        while index >= 0:
            start, end, marker, named = self._regions[index]
            if start <= offset < end:
                return GuardedRegion(start, end, marker, self._line(index), named)
            index -= 1
        return None

    def _line(self, index: int) -> int:
        """The 1-based line of region `index`'s marker directive (all of them counted in one pass, when asked)."""
        if self._lines is None:
            lines = []
            position, line = 0, 1
            for _, _, _, named in self._regions:
                line += self._data.count(b"\n", position, named)
                position = named
                lines.append(line)
            self._lines = lines
        return self._lines[index]

    def spans(self) -> list[tuple[int, int, int, str]]:
        """(start, end, where the directive naming the marker starts, marker) of each chain."""
        return [(start, end, named, marker) for start, end, marker, named in self._regions]

    def __bool__(self) -> bool:
        return bool(self._regions)


def guard_shape(
    data: bytes, markers: re.Pattern[bytes], in_comment: Callable[[int], bool] | None, hash_lines: Sequence[int]
) -> GuardShape:
    """Conditional chains that test one of `markers` (outermost ones; nested chains lie inside them), by their
    directives' positions among `hash_lines`, the starts of the lines that begin with `#` (GuardIndex places them
    in the buffer). `in_comment(offset)` tells whether a directive-looking line is inside a comment
    (`/* #endif */`). Markers only count in the conditions of directives, so only those are searched."""
    directives = list(_directives(data, hash_lines))
    if not any(markers.search(match.group(2)) for _, match in directives if match.group(1) != b"endif"):
        return GuardShape(())
    regions: list[tuple[int, int, int, str, int]] = []
    stack: list[tuple[int, str, int]] = []  # (index of the opening line, marker or "", index of the line naming it)
    for index, match in directives:
        if in_comment is not None and in_comment(match.start()):
            continue
        keyword = match.group(1)
        condition = match.group(2)
        if keyword.startswith(b"if"):
            found = markers.search(condition)
            stack.append((index, _text(found.group(0)) if found else "", index))
        elif keyword == b"endif":
            if not stack:
                continue
            first, marker, named = stack.pop()
            if marker and not any(m for _, m, _ in stack):
                regions.append((first, index, match.end() - match.start(), marker, named))
        elif stack and not stack[-1][1]:  # elif/else: a later branch may name the marker
            found = markers.search(condition) if keyword.startswith(b"elif") else None
            if found:
                first, _, _ = stack[-1]
                stack[-1] = (first, _text(found.group(0)), index)
    # An unterminated chain (half-typed code) still guards to the end of the buffer.
    for first, marker, named in stack:
        if marker:
            regions.append((first, -1, 0, marker, named))
            break
    return GuardShape(tuple(sorted(regions)))


def shim_definitions(
    data: bytes,
    cuda_names: Mapping[str, object],
    prefixes: tuple[str, ...],
    lines: Callable[[bytes], Iterable[int]] | None = None,
) -> dict[str, str]:
    """`#define cudaX hipX` (and `typedef hipX cudaX;`, `using cudaX = hipX;`, `namespace cub = hipcub;`) lines:
    CUDA name -> target name. `lines(word)`: the starts of the lines that begin with `word`, when known (an editor
    session keeps them)."""
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
        if lines is None and word not in data:
            continue
        for line_start in lines(word) if lines is not None else lines_starting_with(data, word):
            match = pattern.match(data, line_start)
            if match is None:
                continue
            name, value = (match.group(1), match.group(2)) if name_first else (match.group(2), match.group(1))
            if _target_word(value, byte_prefixes):
                text = _text(name)
                if text in cuda_names:
                    found[text] = _text(value)
    if b"#" in data:
        empties: list[str] = []
        for line_start in lines_starting_with(data, b"#"):
            empty = _SHIM_EMPTY.match(data, line_start)
            if empty is not None and _text(empty.group(1)) in cuda_names:
                empties.append(_text(empty.group(1)))  # `#define __grid_constant__`: a keyword the target lacks
                continue
            match = _SHIM_FUNCTION.match(data, line_start)
            if match is None or _text(match.group(1)) not in cuda_names:
                continue
            words = _BODY_WORD.findall(match.group(2))
            value = next((w for w in words if w.startswith(byte_prefixes)), None)
            if value is None and words and words[0].startswith(_DISPATCH):
                value = words[0]
            if value is not None:
                found.setdefault(_text(match.group(1)), _text(value))
        if found:  # only beside names mapped to the target's: CUDA's own headers define some of them empty too
            for name in empties:
                found.setdefault(name, "")
    marker = data.find(_NAMES_SECTION)
    if marker != -1:  # a dual-stack header's own section: each line maps a CUDA name, whatever the target calls it
        line = data.find(b"\n", marker) + 1
        while 0 < line < len(data) and data[line : line + 1] not in (b"\n", b"\r"):
            match = _SHIM_DEFINE.match(data, line)
            if match is not None and _text(match.group(1)) in cuda_names:
                found.setdefault(_text(match.group(1)), _text(match.group(2)))
            line = data.find(b"\n", line) + 1
    return found


def _target_word(value: bytes, prefixes: tuple[bytes, ...]) -> bool:
    """A name of the target's: it starts with one of its prefixes, or a part after `_` does (`make_hipExtent`)."""
    return value.startswith(prefixes) or any(part.startswith(prefixes) for part in value.split(b"_")[1:] if part)


def include_macro(cuda_header: str) -> str:
    """The macro a dual-stack file includes a CUDA library header through (its portability header defines it to
    the target's header or CUDA's): `cublas_v2.h` -> CUDAPORT_CUBLAS_V2_H."""
    return "CUDAPORT_" + re.sub(r"[^A-Za-z0-9]", "_", cuda_header).upper()


def at_line_start(data: bytes, offset: int) -> bool:
    line_start = data.rfind(b"\n", 0, offset) + 1
    return not data[line_start:offset].strip(b" \t")


def _text(value: bytes) -> str:
    return value.decode("utf-8", "replace")


def _directives(data: bytes, hash_lines: Sequence[int]) -> Iterator[tuple[int, re.Match[bytes]]]:
    """The conditional directives, as `_DIRECTIVE.finditer` finds them (a match may span continuation lines), with
    the index of each one's line among `hash_lines`."""
    resume = 0
    for index, line_start in enumerate(hash_lines):
        if line_start < resume:
            continue
        match = _DIRECTIVE.match(data, line_start)
        if match is not None:
            resume = match.end()
            yield index, match
