"""The tree-sitter grammars of the inventory file kinds (each a PyPI wheel), loaded on first use."""

from __future__ import annotations

import functools
import warnings
from collections.abc import Iterator

from tree_sitter import Language, Node, Parser

from ..common.grammar import grammar_module

# engine language -> (module, function returning the grammar)
_GRAMMARS = {
    "cmake": ("tree_sitter_cmake", "language"),
    "make": ("tree_sitter_make", "language"),
    "shell": ("tree_sitter_bash", "language"),
    "dockerfile": ("tree_sitter_dockerfile", "language"),
    "requirements": ("tree_sitter_requirements", "language"),
    "toml": ("tree_sitter_toml", "language"),
    "yaml": ("tree_sitter_yaml", "language"),
    "json": ("tree_sitter_json", "language"),
}


@functools.cache
def language(name: str) -> Language:
    module_name, function = _GRAMMARS[name]
    module = grammar_module(module_name)
    with warnings.catch_warnings():  # older grammar wheels hand over an int, which tree-sitter 0.25 deprecates
        warnings.simplefilter("ignore", DeprecationWarning)
        return Language(getattr(module, function)())


def parser(name: str) -> Parser:
    """A new parser (parsers are not thread-safe: each analyzer keeps its own)."""
    return Parser(language(name))


def walk(node: Node) -> Iterator[Node]:
    """Every node below `node`, in document order."""
    cursor = node.walk()
    visited = False
    while True:
        if not visited:
            yield cursor.node  # type: ignore[misc]
            if cursor.goto_first_child():
                continue
        if cursor.goto_next_sibling():
            visited = False
            continue
        if not cursor.goto_parent():
            return
        visited = True


def text(data: bytes, node: Node) -> str:
    return data[node.start_byte : node.end_byte].decode("utf-8", "replace")
