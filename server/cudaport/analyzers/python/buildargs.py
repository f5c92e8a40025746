"""Build configuration written in Python: the compiler and linker flags of an extension (`extra_compile_args=
{"nvcc": [...]}`, `extra_cuda_cflags=[...]`, ...) and the requirements of `setup(install_requires=[...])`.

The keyword names are data (`[build]` in rules/python.toml). Their strings are handed to the inventory's matcher,
flags as role `string` (the same entries that read a Makefile's `-arch=sm_80` or `-lcublas`) and requirements as a
requirements file's tokens, so a flag or a package means the same wherever it is written. A keyword's value may name
a variable (`"nvcc": nvcc_flags`): the strings assigned, added or appended to that name anywhere in the module are
read too, since that is how real setup scripts build their flag lists."""

from __future__ import annotations

from collections.abc import Iterator

from tree_sitter import Node

from ...knowledge.python import PythonKnowledge
from ...knowledge.ruleset import RuleSet
from ...model.findings import Finding
from ..common.base import FileContext
from ..common.syntax import text
from ..inventory.core import Matcher, Token, file_facts, words
from ..inventory.requirements import requirement_tokens
from .imports import word_starts
from .strings import literal, string_value

_LIST_METHODS = frozenset({"append", "extend", "insert", "__iadd__"})
# what a flag list's value may contain that is no flag: conditions, attribute names, functions
_NOT_VALUES = frozenset(
    {"attribute", "lambda", "comment", "concatenated_string", "comparison_operator", "boolean_operator", "not_operator"}
)
_NAME_LIMIT = 32  # variables followed per keyword (a module that builds its flags through more is not a setup script)


def build_findings(
    data: bytes, root: Node, context: FileContext, ruleset: RuleSet, know: PythonKnowledge
) -> list[Finding]:
    """The findings on the flag and requirement strings of the module's build keywords ([] without any)."""
    keywords = [k for k in (*know.flag_keywords, *know.requirement_keywords) if k.encode() in data]
    if not keywords:
        return []
    tokens: list[Token] = []
    seen: set[int] = set()
    for keyword in keywords:
        requirements = keyword in know.requirement_keywords
        for value in _keyword_values(data, root, keyword):
            for string, where in _strings(data, root, value, keyword, seen):
                tokens.extend(_tokens(data, string, where, requirements))
    if not tokens:
        return []
    return Matcher(ruleset, "python", context, data, file_facts(tokens)).feed(tokens)


def _keyword_values(data: bytes, root: Node, keyword: str) -> Iterator[Node]:
    """The values of `keyword=...` arguments."""
    for node in _identifiers(data, root, keyword):
        parent = node.parent
        if parent is not None and parent.type == "keyword_argument" and parent.child_by_field_name("name") == node:
            value = parent.child_by_field_name("value")
            if value is not None:
                yield value


def _identifiers(data: bytes, root: Node, name: str) -> Iterator[Node]:
    """Every identifier spelled `name` (found by searching the bytes: cheaper than walking the tree; an attribute
    of that name is an identifier too, which the callers' checks of its parent leave out)."""
    for start in word_starts(data, name.encode(), [(0, len(data))]):
        node = root.descendant_for_byte_range(start, start + len(name))
        if node is not None and node.type == "identifier" and node.start_byte == start:
            yield node


def _strings(data: bytes, root: Node, value: Node, keyword: str, seen: set[int]) -> Iterator[tuple[Node, str]]:
    """The string literals of a keyword's value, with the dict key (or keyword) they belong to; variables it names
    are followed to what the module assigns, adds and appends to them."""
    pending: list[tuple[Node, str]] = [(value, keyword)]
    followed: set[str] = set()
    while pending:
        node, where = pending.pop()
        if node.type == "string":
            if node.start_byte not in seen:
                seen.add(node.start_byte)
                yield node, where
            continue
        if node.type == "identifier":
            name = text(node)
            if name not in followed and len(followed) < _NAME_LIMIT:
                followed.add(name)
                pending.extend((found, where) for found in _assigned(data, root, name))
            continue
        if node.type == "pair":
            key, item = node.child_by_field_name("key"), node.child_by_field_name("value")
            if item is not None:
                named = string_value(key) if key is not None and key.type == "string" else ""
                pending.append((item, named or where))  # the flags under "nvcc" are nvcc's
            continue
        if node.type == "call":
            arguments = node.child_by_field_name("arguments")
            if arguments is not None:
                pending.append((arguments, where))
            continue
        if node.type in _NOT_VALUES:
            continue
        if node.type == "conditional_expression":  # `a if test else b`: the test holds no flag
            parts = node.named_children
            pending.extend((part, where) for part in (parts[0], parts[-1]) if len(parts) == 3)
            continue
        pending.extend((child, where) for child in reversed(node.named_children))


def _assigned(data: bytes, root: Node, name: str) -> Iterator[Node]:
    """What the module puts in `name`: `name = ...`, `name += ...`, `name[key] = ...`, `name.append(...)`,
    `extend`, `insert`."""
    for node in _identifiers(data, root, name):
        parent = node.parent
        if parent is None:
            continue
        if parent.type == "subscript" and parent.child_by_field_name("value") == node:
            node, parent = parent, parent.parent  # `name["nvcc"] = [...]`, `name["cxx"] += [...]`
            if parent is None:
                continue
        if parent.type in ("assignment", "augmented_assignment") and parent.child_by_field_name("left") == node:
            right = parent.child_by_field_name("right")
            if right is not None:
                yield right
        elif parent.type == "attribute" and parent.child_by_field_name("object") == node:
            method = parent.child_by_field_name("attribute")
            call = parent.parent
            if method is not None and text(method) in _LIST_METHODS and call is not None and call.type == "call":
                arguments = call.child_by_field_name("arguments")
                if arguments is not None:
                    yield arguments


def _tokens(data: bytes, string: Node, where: str, requirements: bool) -> Iterator[Token]:
    found = literal(data, string)
    if found is None or found.content_end <= found.content_start:
        return
    raw = data[found.content_start : found.content_end].decode("utf-8", "replace")
    if requirements:
        yield from requirement_tokens(raw, found.content_start)
    else:
        yield from words(raw, found.content_start, "string", where)
