"""`cudaport: ignore[CODE, ...]` on a line and `cudaport: ignore-file[CODE, ...]` anywhere, inside comments
(`//`, `/* */` or `#`). Without a bracket the directive covers every rule; codes may be prefixes (`CP20`).

In a kind whose comments must start a line (Dockerfile, setup.cfg: `comment-above` in rules/files.toml), a line
directive on a comment line of its own covers the line below it as well."""

from __future__ import annotations

import re
from collections.abc import Callable

from tree_sitter import Node

from ...model.records import field, record
from .clex import literal_and_comment_spans

_DIRECTIVE = re.compile(rb"cudaport:[ \t]*(ignore-file|ignore)\b(?:[ \t]*\[([^\]\n]*)\])?")
ALL: tuple[str, ...] = ("CP",)


@record(slots=True)
class Suppressions:
    file_codes: tuple[str, ...] = ()
    lines: dict[int, tuple[str, ...]] = field(default_factory=dict)  # 0-based line -> code prefixes

    def __bool__(self) -> bool:
        return bool(self.file_codes or self.lines)

    def covers(self, code: str, line: int) -> bool:
        if any(code.startswith(prefix) for prefix in self.file_codes):
            return True
        prefixes = self.lines.get(line)
        return prefixes is not None and any(code.startswith(prefix) for prefix in prefixes)


def find_suppressions(
    data: bytes,
    root: Node | None,
    above: bool = False,
    windows: list[tuple[int, int]] | None = None,
    has: Callable[[bytes], bool] | None = None,
) -> Suppressions:
    """The buffer's suppressions; with `windows` (whole lines, sorted), only the line suppressions inside them (an
    editor re-analysing a few lines) and the file-level ones anywhere. `has(word)`: whether the buffer contains
    `word`, when something knows it without a search (an editor session). `above`: a directive on a comment line
    of its own covers the next line too (then windows are not used: the line above counts)."""
    if above:
        windows = None
    result = Suppressions()
    if windows is None:
        if b"cudaport:" not in data:
            return result
        matches = list(_DIRECTIVE.finditer(data))
    else:
        matches = [
            m for lo, hi in windows if data.find(b"cudaport:", lo, hi) != -1 for m in _DIRECTIVE.finditer(data, lo, hi)
        ]
        if has(b"ignore-file") if has is not None else b"ignore-file" in data:
            inside = {m.start() for m in matches}
            matches += [
                m for m in _DIRECTIVE.finditer(data) if m.group(1) == b"ignore-file" and m.start() not in inside
            ]
            matches.sort(key=lambda m: m.start())
    line, counted = 0, 0
    for match in matches:
        if root is not None and not _in_comment(root, data, match.start(), match.end()):
            continue  # a string that happens to say "cudaport: ignore" is not a directive
        codes = _codes(match.group(2))
        if match.group(1) == b"ignore-file":
            result.file_codes += codes
        else:
            line += data.count(b"\n", counted, match.start())  # the matches are in order: one pass over the buffer
            counted = match.start()
            result.lines[line] = result.lines.get(line, ()) + codes
            if above and _comment_line(data, match.start()):
                result.lines[line + 1] = result.lines.get(line + 1, ()) + codes
    return result


def _comment_line(data: bytes, start: int) -> bool:
    """Whether the directive at `start` is in a `#` comment that is all its line holds."""
    before = data[data.rfind(b"\n", 0, start) + 1 : start]
    return before.lstrip(b" \t").startswith(b"#") and not before.strip(b" \t#")


def _in_comment(root: Node, data: bytes, start: int, end: int) -> bool:
    node = root.descendant_for_byte_range(start, end)
    if node is None:
        return False
    if node.type.endswith("comment"):  # `comment`; CMake's `line_comment` and `bracket_comment`
        return True
    if node.type == "text" and node.parent is not None and node.parent.type == "variable_assignment":
        # A Makefile keeps the comment after a value in the value's text: `FLAGS = -O3  # cudaport: ignore`
        return b"#" in data[node.start_byte : start]
    if node.type == "preproc_arg":  # `#define X cudaMalloc(p)  // cudaport: ignore`: tree-sitter keeps it raw
        body = data[node.start_byte : node.end_byte]
        offset = node.start_byte
        return any(
            lo <= start - offset and end - offset <= hi and body[lo : lo + 2] in (b"//", b"/*")
            for lo, hi in literal_and_comment_spans(body)
        )
    return False


def _codes(raw: bytes | None) -> tuple[str, ...]:
    if raw is None:
        return ALL
    codes = tuple(c.strip() for c in raw.decode("utf-8", "replace").replace(";", ",").split(",") if c.strip())
    return codes or ALL
