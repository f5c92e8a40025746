"""Dockerfiles and Containerfiles: base images, environment variables, and the shell commands of RUN, CMD,
ENTRYPOINT and HEALTHCHECK (read as shell)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tree_sitter import Node

from ..common.base import FileContext
from . import grammars
from .core import InventoryAnalyzer, Token
from .requirements import install_tokens
from .shell import ShellReader

_SHELL_FORMS = ("shell_command",)


class DockerfileAnalyzer(InventoryAnalyzer):
    language = "dockerfile"

    def __init__(self, ruleset: Any) -> None:
        super().__init__(ruleset)
        self.parser = grammars.parser("dockerfile")
        self.shell = ShellReader()

    def parse(self, data: bytes, old_tree: Any | None = None) -> Any:
        return self.parser.parse(data)

    def tokens(self, data: bytes, tree: Any, context: FileContext) -> Iterator[Token]:
        for node in grammars.walk(tree.root_node):
            kind = node.type
            if kind == "image_spec":
                yield Token("image", grammars.text(data, node), node.start_byte, node.end_byte)
            elif kind == "env_pair":
                yield from self._env_pair(data, node)
            elif kind == "arg_instruction":
                values = [c for c in node.named_children if c.type in ("unquoted_string", "double_quoted_string")]
                for value in values[1:]:
                    yield Token("arg", grammars.text(data, value), value.start_byte, value.end_byte, "ARG")
            elif kind in _SHELL_FORMS:
                yield from self._shell(data, node)
            elif kind == "json_string_array":
                yield from self._exec_form(data, node)

    def _env_pair(self, data: bytes, node: Node) -> Iterator[Token]:
        parts = [
            c
            for c in node.named_children
            if c.type in ("unquoted_string", "double_quoted_string", "single_quoted_string")
        ]
        if not parts:
            return
        name = parts[0]
        yield Token("env", grammars.text(data, name), name.start_byte, name.end_byte, "ENV")
        for value in parts[1:]:
            yield Token("arg", grammars.text(data, value).strip("\"'"), value.start_byte, value.end_byte, "ENV")

    def _shell(self, data: bytes, node: Node) -> Iterator[Token]:
        # The command as one shell fragment: line continuations are shell's own `\\\\n`, so offsets stay exact.
        fragment = data[node.start_byte : node.end_byte]
        yield from self.shell.tokens(fragment, node.start_byte)

    def _exec_form(self, data: bytes, node: Node) -> Iterator[Token]:
        """`CMD ["nvidia-smi", "-L"]`: the first string is the program, the rest its arguments."""
        strings = [c for c in node.named_children if c.type == "json_string"]
        tokens = []
        for index, string in enumerate(strings):
            start, end = string.start_byte + 1, string.end_byte - 1
            word = data[start:end].decode("utf-8", "replace")
            role = "program" if index == 0 else "arg"
            if role == "program" and "/" in word:
                cut = word.rfind("/") + 1
                start += len(word[:cut].encode())
                word = word[cut:]
            token = Token(role, word, start, end)
            tokens.append(token)
            yield token
        if tokens:
            yield from install_tokens(tokens[0].text, tokens[1:])
