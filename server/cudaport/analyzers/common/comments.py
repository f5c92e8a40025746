"""Where a suppression comment (`cudaport: ignore[CODE]`) can go in a file of each kind, and the edit that puts it
there, without changing what the file means: never inside a string, never after a line continuation (a block
comment goes before the backslash where the language has one), never where the language has no comments. Used by
`cudaport fix --add-ignore` (Engine.add_ignores) and by the editor's "Ignore CPxxxx on this line / in this file".

Most kinds take the directive at the end of the line. Kinds where a comment after code would change the code
(Dockerfile, setup.cfg, Makefile; `comment-above` in rules/files.toml) take it on a comment line of its own just
above, which cudaport.suppress reads as covering the next line."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ...i18n import N_, t
from ...knowledge.filekinds import file_kind
from ...model.records import record
from ...model.source import LineIndex
from .syntax import C_COMMENT_OR_STRING

ByteEdit = tuple[int, int, bytes]  # replace bytes [start, end) with the given bytes

LINE_DIRECTIVE = re.compile(rb"cudaport:[ \t]*ignore[ \t]*\[([^\]\n]*)\]")
FILE_DIRECTIVE = re.compile(rb"cudaport:[ \t]*ignore-file[ \t]*\[([^\]\n]*)\]")
_PREAMBLE = re.compile(rb"#!|#[ \t]*-\*-|#[ \t]*(?:vim?|ex):|#.*coding[:=]")  # shebang and encoding lines stay first


@record(frozen=True, slots=True)
class CommentSyntax:
    line_comment: str | None  # starts a comment that runs to the end of the line; None: no comments at all
    block_comment: tuple[str, str] | None  # a comment that can sit in the middle of a line
    # Syntax nodes that are text, not code: no hover there, no suppression comment inserted inside them.
    literals: frozenset[str]
    above: bool = False  # comments only on lines of their own: the directive goes on the line above
    # Why a kind takes no comment (said when --add-ignore skips its findings): an English message (N_), its
    # {language} filled in, translated when it is said.
    why_none: str = ""
    language: str = ""

    def why_no_comment(self) -> str:
        return t(self.why_none or NO_COMMENTS, language=self.language)


C_FAMILY = CommentSyntax(
    line_comment="//",
    block_comment=("/*", "*/"),
    literals=C_COMMENT_OR_STRING,  # the analyzer's own list: one answer to "is this a comment or a string?"
)

PYTHON = CommentSyntax(
    line_comment="#",
    block_comment=None,
    literals=frozenset({"comment", "string", "string_content", "concatenated_string"}),
)

NO_COMMENTS = N_("this kind of file has no comments")

# A language without comments (or without a profile): no suppression comments written.
GENERIC = CommentSyntax(
    None,
    None,
    frozenset({"comment", "string"}),
    why_none=N_("no comment syntax known (exclude the file, or ignore the rule in the configuration)"),
)

PROFILES: dict[str, CommentSyntax] = {"c": C_FAMILY, "python": PYTHON, "cython": PYTHON}
_INVENTORY_LITERALS = frozenset({"comment", "string", "string_content"})


def syntax_for(language: str) -> CommentSyntax:
    """The C family and Python have their own; every other kind writes the comment rules/files.toml gives it."""
    known = PROFILES.get(language)
    if known is not None:
        return known
    kind = file_kind(language)
    if kind is None:
        return GENERIC
    if kind.binary:
        why = N_("a binary file has no place for a comment (exclude the file, or ignore the rule in the configuration)")
        return CommentSyntax(None, None, frozenset(), why_none=why)
    if kind.comment is None or language == "json":
        # JSON has no comments (a .jsonc buffer is the only exception, and rare); a notebook's are its cells'
        why = N_("{language} has no comments (exclude the file, or ignore the rule in the configuration)")
        return CommentSyntax(None, None, _INVENTORY_LITERALS, why_none=why, language=language)
    return CommentSyntax(kind.comment, kind.block_comment, _INVENTORY_LITERALS | kind.strings, above=kind.comment_above)


def in_comment(root: Any, offset: int) -> bool:
    node = root.descendant_for_byte_range(offset, offset + 1)
    return node is not None and node.type.endswith("comment")  # CMake's line_comment and bracket_comment too


def _merge(data: bytes, line_start: int, match: re.Match[bytes], codes: Sequence[str]) -> ByteEdit | None:
    """The codes a directive on the line lacks, added inside its brackets (None: it has them all)."""
    have = [c.strip() for c in match.group(1).decode("utf-8", "replace").replace(";", ",").split(",") if c.strip()]
    missing = [c for c in codes if not any(c.startswith(prefix) for prefix in have)]
    if not missing:
        return None
    position = line_start + match.end(1)
    trailing = data[line_start + match.start(1) : position]
    text = ", ".join(missing)
    return position, position, (f", {text}" if trailing.strip() else text).encode()


def directive(codes: Sequence[str], comment: str) -> str:
    """The text of a line suppression in the given comment syntax (`//` or `#`)."""
    return f"{comment} cudaport: ignore[{', '.join(codes)}]"


def line_directive(
    data: bytes,
    root: Any | None,
    lines: LineIndex,
    line: int,
    codes: Sequence[str],
    syntax: CommentSyntax,
    earliest: int | None = None,
) -> ByteEdit | str:
    """The edit that suppresses `codes` on `line` (0-based): into a directive already there, else a new comment
    where it cannot change what the code means. A string when there is no such place: why. `earliest` is where
    the first finding of the line starts (a literal that began before it and ends the line leaves no place)."""
    if syntax.line_comment is None:
        return syntax.why_no_comment()
    line_start, line_end = lines.line_start(line), lines.line_end(line)
    text = data[line_start:line_end]
    if syntax.above:
        return _directive_above(data, root, lines, line, codes, syntax)
    existing = LINE_DIRECTIVE.search(text)
    if existing is not None and (root is None or in_comment(root, line_start + existing.start())):
        merged = _merge(data, line_start, existing, codes)
        return merged if merged is not None else t("the line's directive already names these codes")
    content_end = line_start + len(text.rstrip())
    line_comment = directive(codes, syntax.line_comment).encode()
    block = syntax.block_comment
    block_comment = f"{block[0]} {directive(codes, '').strip()} {block[1]}".encode() if block is not None else None
    continued = text.rstrip().endswith(b"\\")
    if root is None:  # no syntax tree (Cython, setup.cfg): only a line that plainly holds no string
        if continued or any(q in text for q in (b'"""', b"'''")):
            return t("a line continuation or a multi-line string ends the line")
        return content_end, content_end, b"  " + line_comment
    node = root.descendant_for_byte_range(max(content_end - 1, line_start), content_end)
    if continued:
        # A macro body continues on the next line: a line comment would swallow it; a block comment fits
        # (but not inside a string that the backslash continues).
        if block_comment is None or (node is not None and node.type in syntax.literals and node.type != "comment"):
            return t("the line continues on the next one (a comment here would end it)")
        position = content_end - 1
        return position, position, block_comment + b" "
    literal = None  # the outermost string or comment the line's end is in (an f-string's `{...}` included)
    while node is not None:
        if node.type in syntax.literals:
            literal = node
        node = node.parent
    node = literal
    if node is not None:
        newline = data.find(b"\n", line_start)
        ends_here = node.end_byte <= (len(data) if newline == -1 else newline)
        if node.start_byte >= line_start and ends_here:
            if node.type.endswith("comment") and (earliest is None or node.start_byte > earliest):
                # The line ends with a comment of its own: the directive goes in front of it.
                return node.start_byte, node.start_byte, line_comment + b" "
            # A string closed on this line (`#include <cuda.h>`, `"…"`), or the finding is inside the comment
            # itself (a notebook's `!cmd` line, which the cells' Python reads as one): after the line's end.
            return content_end, content_end, b"  " + line_comment
        if node.start_byte < line_start:
            return t("the line ends inside a string or comment that began on an earlier line")
        if block_comment is None or (earliest is not None and node.start_byte < earliest):
            return t("the line ends inside a string that goes on past it")
        # A comment or string that goes on past this line, after the findings: a block comment before it.
        return node.start_byte, node.start_byte, block_comment + b" "
    return content_end, content_end, b"  " + line_comment


def _directive_above(
    data: bytes, root: Any | None, lines: LineIndex, line: int, codes: Sequence[str], syntax: CommentSyntax
) -> ByteEdit | str:
    """A comment line of its own above `line` (or the codes added to the directive already there)."""
    assert syntax.line_comment is not None
    if line > 0:
        above_start, above_end = lines.line_start(line - 1), lines.line_end(line - 1)
        above = data[above_start:above_end]
        existing = LINE_DIRECTIVE.search(above)
        if (
            existing is not None
            and above.lstrip().startswith(syntax.line_comment.encode())
            and (root is None or in_comment(root, above_start + existing.start()))
        ):
            merged = _merge(data, above_start, existing, codes)
            return merged if merged is not None else t("the directive above already names these codes")
    line_start, line_end = lines.line_start(line), lines.line_end(line)
    text = data[line_start:line_end]
    indent = text[: len(text) - len(text.lstrip(b" \t"))]
    if b"\t" in indent:
        indent = b""  # a tab starts a Makefile recipe line: a comment there would go to the shell
    newline = data[line_end : line_end + 2] if data[line_end : line_end + 2] == b"\r\n" else b"\n"
    return line_start, line_start, indent + directive(codes, syntax.line_comment).encode() + newline


def file_directive(data: bytes, root: Any | None, codes: Sequence[str], syntax: CommentSyntax) -> ByteEdit | None:
    """`cudaport: ignore-file[...]`: the codes added to the file's directive, or a new one at the top (after a
    shebang and an encoding line, which must stay first)."""
    if syntax.line_comment is None:
        return None
    for match in FILE_DIRECTIVE.finditer(data):
        if root is None or in_comment(root, match.start()):
            return _merge(data, 0, match, codes)
    newline = b"\r\n" if b"\r\n" in data[:4096] else b"\n"
    position = 0
    if syntax.line_comment == "#":
        for _ in range(2):  # a shebang and an encoding declaration must stay on the first two lines
            if _PREAMBLE.match(data, position):
                end = data.find(b"\n", position)
                position = len(data) if end == -1 else end + 1
    text = f"{syntax.line_comment} cudaport: ignore-file[{', '.join(codes)}]".encode() + newline
    if position == len(data) and data and not data.endswith(b"\n"):
        text = newline + text
    return position, position, text


@record
class Placed:
    """Suppression edits for a file's findings: one edit per line (covering the findings given by index), and
    the findings no edit can cover, with why."""

    edits: list[tuple[ByteEdit, list[int]]]
    refused: list[tuple[int, str]]


def suppression_edits(
    data: bytes, root: Any | None, starts: Sequence[tuple[int, str]], syntax: CommentSyntax
) -> Placed:
    """One directive per line for the findings given as (start offset, rule code), in the file's syntax."""
    lines = LineIndex(data)
    by_line: dict[int, list[int]] = {}
    for index, (start, _code) in enumerate(starts):
        by_line.setdefault(lines.line_of(start), []).append(index)
    placed = Placed([], [])
    for line, indexes in sorted(by_line.items()):
        codes = sorted({starts[i][1] for i in indexes})
        earliest = min(starts[i][0] for i in indexes)
        edit = line_directive(data, root, lines, line, codes, syntax, earliest)
        if isinstance(edit, str):
            placed.refused.extend((i, edit) for i in indexes)
        else:
            placed.edits.append((edit, indexes))
    return placed
