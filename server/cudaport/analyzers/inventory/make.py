"""Makefiles: variable assignments (`NVCCFLAGS = -arch=sm_80`, `CUDA_PATH ?= /usr/local/cuda`), the variables
they read, and recipe lines, word by word."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from tree_sitter import Node

from ..common.base import FileContext
from . import grammars
from .core import InventoryAnalyzer, Token

_WORD = re.compile(rb"[^\s'\"`;|&()<>$]+")
_COMMENT = re.compile(rb"(?<!\\)#")


class MakeAnalyzer(InventoryAnalyzer):
    language = "make"

    def __init__(self, ruleset: Any) -> None:
        super().__init__(ruleset)
        self.parser = grammars.parser("make")

    def parse(self, data: bytes, old_tree: Any | None = None) -> Any:
        return self.parser.parse(data)

    def tokens(self, data: bytes, tree: Any, context: FileContext) -> Iterator[Token]:
        for node in grammars.walk(tree.root_node):
            kind = node.type
            if kind == "variable_assignment":
                name = node.child_by_field_name("name") or (node.named_children[0] if node.named_children else None)
                if name is not None and name.type == "word":
                    yield Token("env", grammars.text(data, name), name.start_byte, name.end_byte, "make")
            elif kind == "variable_reference":
                name = next((c for c in node.named_children if c.type == "word"), None)
                if name is not None:
                    yield Token("env", grammars.text(data, name), name.start_byte, name.end_byte, "make")
            elif kind in ("text", "shell_text") and not _inside_text(node):
                yield from _words(data, node)


def _inside_text(node: Node) -> bool:
    parent = node.parent
    return parent is not None and parent.type in ("text", "shell_text")


def _words(data: bytes, node: Node) -> Iterator[Token]:
    end = node.end_byte
    if node.type == "text":  # `# fast` after a value is a comment, which the grammar keeps in the text
        comment = _COMMENT.search(data, node.start_byte, end)
        if comment is not None:
            end = comment.start()
    skip = [
        (n.start_byte, n.end_byte)
        for n in grammars.walk(node)
        if n.type in ("variable_reference", "automatic_variable")
    ]
    first = True
    for found in _WORD.finditer(data, node.start_byte, end):
        lo, hi = found.start(), found.end()
        if any(s <= lo < e for s, e in skip):
            continue
        word = data[lo:hi].decode("utf-8", "replace")
        cut = word.rfind("/") + 1
        program_start = lo + len(word[:cut].encode())
        # Any word may name the compiler (`NVCC := $(CUDA_PATH)/bin/nvcc`): only known programs become findings.
        yield Token("program", word[cut:], program_start, hi)
        yield Token("arg", word, lo, hi, "recipe" if node.type == "shell_text" and first else "")
        first = False
