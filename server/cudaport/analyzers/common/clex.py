"""A tiny C lexer for the text tree-sitter leaves raw: macro bodies and asm templates."""

from __future__ import annotations

import re

# One alternation, tried left to right at each position: comments, raw strings, strings, chars.
_SPANS = re.compile(
    rb"""//[^\n]*
       |/\*.*?(?:\*/|\Z)
       |(?:u8|[uUL])?R"(?P<delim>[^()\\\s]{0,16})\(.*?\)(?P=delim)"
       |(?:u8|[uUL])?"(?:[^"\\\n]|\\.)*(?:"|$)
       |(?:u8|[uUL])?'(?:[^'\\\n]|\\.)*(?:'|$)
    """,
    re.VERBOSE | re.DOTALL | re.MULTILINE,
)
_STRING = re.compile(rb'"((?:[^"\\\n]|\\.)*)"', re.DOTALL)


def literal_and_comment_spans(text: bytes) -> list[tuple[int, int]]:
    """Byte spans of comments, string and character literals in `text`, in order."""
    return [m.span() for m in _SPANS.finditer(text)]


def in_spans(spans: list[tuple[int, int]], start: int, end: int) -> bool:
    for span_start, span_end in spans:
        if span_start > start:
            return False
        if start < span_end and end <= span_end:
            return True
    return False


def string_contents(text: bytes) -> str:
    """The concatenated contents of the string literals in `text` (an asm template), escapes kept as written."""
    return "".join(m.group(1).decode("utf-8", "replace") for m in _STRING.finditer(text))
