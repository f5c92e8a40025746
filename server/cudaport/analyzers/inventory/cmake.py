"""CMake (`CMakeLists.txt`, `*.cmake`): command names and the words of their arguments."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from ..common.base import FileContext
from . import grammars
from .core import InventoryAnalyzer, Token

# A CMake argument holds several words: a list (`70;80`), a generator expression
# (`$<$<COMPILE_LANGUAGE:CUDA>:--use_fast_math>`), a variable reference (`${CMAKE_CUDA_ARCHITECTURES}`).
_PIECE = re.compile(rb"[^\s;<>\"${}()]+")
_COMMANDS = ("normal_command", "if_command", "elseif_command", "while_command", "foreach_command")


class CMakeAnalyzer(InventoryAnalyzer):
    language = "cmake"

    def __init__(self, ruleset: Any) -> None:
        super().__init__(ruleset)
        self.parser = grammars.parser("cmake")

    def parse(self, data: bytes, old_tree: Any | None = None) -> Any:
        return self.parser.parse(data)

    def tokens(self, data: bytes, tree: Any, context: FileContext) -> Iterator[Token]:
        for node in grammars.walk(tree.root_node):
            if node.type not in _COMMANDS:
                continue
            name_node = node.children[0] if node.children else None
            if name_node is None:
                continue
            command = grammars.text(data, name_node).lower()
            if node.type == "normal_command":
                yield Token("cmake-command", grammars.text(data, name_node), name_node.start_byte, name_node.end_byte)
            arguments = next((c for c in node.children if c.type == "argument_list"), None)
            if arguments is None:
                continue
            for argument in arguments.children:
                if argument.type != "argument":
                    continue
                if command == "message":  # a message is text: only the variables it prints are uses
                    yield from _variables(data, argument, command)
                    continue
                for piece in _PIECE.finditer(data, argument.start_byte, argument.end_byte):
                    start = piece.start()
                    while start < piece.end() and data[start] == 0x3A:  # `:--use_fast_math>` after a condition
                        start += 1
                    if start < piece.end():
                        word = data[start : piece.end()].decode("utf-8", "replace")
                        yield Token("cmake-arg", word, start, piece.end(), command)


def _variables(data: bytes, argument: Any, command: str) -> Iterator[Token]:
    for node in grammars.walk(argument):
        if node.type == "variable":
            yield Token("cmake-arg", grammars.text(data, node), node.start_byte, node.end_byte, command)
