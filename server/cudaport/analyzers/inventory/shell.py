"""Shell and batch-job scripts (`*.sh`, Slurm's `*.slurm`): the programs they run, the words those get, the
environment variables they set or read, and `#SBATCH` directives. Dockerfiles, Makefile recipes and notebook
`!` lines run their commands through the same reader."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from tree_sitter import Node, Parser

from ..common.base import FileContext
from . import grammars
from .core import InventoryAnalyzer, Token
from .requirements import install_tokens

_DIRECTIVE = re.compile(rb"#\s*(SBATCH|PBS|BSUB)\b")
_WORD = re.compile(rb"[^\s'\"`;|&()<>$]+")
_EXPANSIONS = ("simple_expansion", "expansion")


class ShellReader:
    """Tokens of a shell fragment: a whole script, or a Dockerfile's RUN at byte `base` of its file."""

    def __init__(self) -> None:
        self.parser: Parser = grammars.parser("shell")

    def tokens(self, data: bytes, base: int = 0) -> Iterator[Token]:
        tree = self.parser.parse(data)
        yield from _tokens(data, tree.root_node, base)


def _tokens(data: bytes, root: Node, base: int) -> Iterator[Token]:
    for node in grammars.walk(root):
        kind = node.type
        if kind == "comment":
            directive = _DIRECTIVE.match(data, node.start_byte)
            if directive is not None:
                scheduler = directive.group(1).decode().lower()
                yield from _words(data, directive.end(), node.end_byte, base, scheduler)
        elif kind == "variable_name":
            name = grammars.text(data, node)
            yield Token("env", name, base + node.start_byte, base + node.end_byte)
        elif kind == "command":
            yield from _command(data, node, base)


def _command(data: bytes, node: Node, base: int) -> Iterator[Token]:
    name_node = node.child_by_field_name("name")
    program = ""
    if name_node is not None:
        whole = data[name_node.start_byte : name_node.end_byte]
        slash = whole.rfind(b"/")
        start = name_node.start_byte + slash + 1
        program = data[start : name_node.end_byte].decode("utf-8", "replace")
        if program and not program.startswith("$"):
            yield Token("program", program, base + start, base + name_node.end_byte)
    arguments: list[Token] = []
    pending = [""]  # an option whose value is the next argument (`--device cuda`)
    for argument in node.children_by_field_name("argument"):
        for token in _words(data, argument.start_byte, argument.end_byte, base, program, _skip(argument), pending):
            if token.role == "arg":
                arguments.append(token)
            yield token
    yield from install_tokens(program, arguments)


def _skip(node: Node) -> list[tuple[int, int]]:
    """The expansions inside an argument: their variable names are tokens of their own."""
    return [(n.start_byte, n.end_byte) for n in grammars.walk(node) if n.type in _EXPANSIONS]


def _words(
    data: bytes,
    start: int,
    end: int,
    base: int,
    context: str,
    skip: list[tuple[int, int]] | None = None,
    pending: list[str] | None = None,
) -> Iterator[Token]:
    """Words of a command line; `--opt value` and `--opt=value` also give the value as an `option-value` token
    whose context is the option (`pending` carries an option over to the next argument)."""
    option = pending[0] if pending else ""
    for found in _WORD.finditer(data, start, end):
        lo, hi = found.start(), found.end()
        if skip and any(s <= lo < e for s, e in skip):
            continue
        word = data[lo:hi].decode("utf-8", "replace")
        yield Token("arg", word, base + lo, base + hi, context)
        if option and not word.startswith("-"):
            yield Token("option-value", word, base + lo, base + hi, option)
        option = ""
        if word.startswith("-"):
            equals = word.find("=")
            if equals > 0:
                value_start = lo + len(word[: equals + 1].encode())
                yield Token("option-value", word[equals + 1 :], base + value_start, base + hi, word[:equals])
            else:
                option = word
    if pending is not None:
        pending[0] = option


class ShellAnalyzer(InventoryAnalyzer):
    language = "shell"

    def __init__(self, ruleset: Any) -> None:
        super().__init__(ruleset)
        self.reader = ShellReader()

    def parse(self, data: bytes, old_tree: Any | None = None) -> Any:
        return self.reader.parser.parse(data)

    def tokens(self, data: bytes, tree: Any, context: FileContext) -> Iterator[Token]:
        yield from _tokens(data, tree.root_node, 0)
