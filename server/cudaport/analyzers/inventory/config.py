"""Structured files (YAML, JSON, TOML): every key and scalar value with its dotted path, and what the path says
the value is: a requirement (`dependencies`, `install_requires`), a package table (`[tool.poetry.dependencies]`,
Pipfile's `[packages]`), an environment variable (`env:`/`environment:` of Kubernetes and compose files) or a
plain setting (DeepSpeed, accelerate, Lightning, Hydra, Kubernetes resources)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from tree_sitter import Node

from ...i18n import t
from ...model.records import record
from ..common.base import BadInput, FileContext
from . import grammars
from .core import InventoryAnalyzer, Token
from .requirements import requirement_tokens

SEQUENCE = "-"  # the path component of a list item
_REQUIREMENT_LISTS = frozenset(
    {
        "dependencies", "requires", "install_requires", "setup_requires", "tests_require", "build-requires", "pip",
        "dev-dependencies", "build_requires", "requirements",
    }
)  # fmt: skip
_REQUIREMENT_GROUPS = frozenset({"optional-dependencies", "dependency-groups", "extras_require", "extras"})
_PACKAGE_TABLES = frozenset({"packages", "dev-packages"})  # Pipfile
_ENV_KEYS = frozenset({"env", "environment", "environment_variables", "envs", "variables"})


@record(frozen=True, slots=True)
class Scalar:
    path: tuple[str, ...]  # the keys (and SEQUENCE for list items) down to this value
    text: str
    start: int
    end: int


@record(frozen=True, slots=True)
class Key:
    path: tuple[str, ...]  # the keys above it
    text: str
    start: int
    end: int


def config_tokens(items: Iterator[Key | Scalar]) -> Iterator[Token]:
    for item in items:
        path = ".".join(item.path)
        if isinstance(item, Key):
            yield Token("key", item.text, item.start, item.end, path)
            if _under_env(item.path) and item.path and item.path[-1] in _ENV_KEYS:
                yield Token("env", item.text, item.start, item.end, path)
            if _is_package_table(item.path):
                yield Token("package", item.text.lower().replace("_", "-"), item.start, item.end, path)
            continue
        yield Token("value", item.text, item.start, item.end, path)
        if item.text.startswith(("http://", "https://")):
            yield Token("index", item.text, item.start, item.end, path)
        if _is_requirement(item.path):
            yield from requirement_tokens(item.text, item.start)
        elif _under_env(item.path):
            yield from _env_value(item)


def _is_requirement(path: tuple[str, ...]) -> bool:
    keys = [p for p in path if p != SEQUENCE]
    if not keys or path[-1] != SEQUENCE:
        return False
    return keys[-1] in _REQUIREMENT_LISTS or (len(keys) >= 2 and keys[-2] in _REQUIREMENT_GROUPS)


def _is_package_table(path: tuple[str, ...]) -> bool:
    if not path:
        return False
    last = path[-1]
    return last in _PACKAGE_TABLES or (last.endswith("dependencies") and len(path) >= 2 and path[-2] == "poetry")


def _under_env(path: tuple[str, ...]) -> bool:
    return any(p in _ENV_KEYS for p in path)


def _env_value(item: Scalar) -> Iterator[Token]:
    """`- name: CUDA_VISIBLE_DEVICES` (Kubernetes) and `- CUDA_VISIBLE_DEVICES=0` (compose)."""
    path = item.path
    if path[-1] == "name" and len(path) >= 3 and path[-2] == SEQUENCE and path[-3] in _ENV_KEYS:
        yield Token("env", item.text, item.start, item.end, ".".join(path))
    elif path[-1] == SEQUENCE and len(path) >= 2 and path[-2] in _ENV_KEYS:
        name = item.text.split("=", 1)[0].strip()
        if name:
            yield Token("env", name, item.start, item.start + len(name.encode()), ".".join(path))


# ---- the three grammars ----------------------------------------------------------------------------------------
_QUOTES = ('"""', "'''", '"', "'")


def _unquoted(data: bytes, node: Node) -> tuple[str, int, int]:
    raw = data[node.start_byte : node.end_byte]
    text = raw.decode("utf-8", "replace")
    for quote in _QUOTES:
        if len(text) >= 2 * len(quote) and text.startswith(quote) and text.endswith(quote):
            size = len(quote)
            return text[size:-size], node.start_byte + size, node.end_byte - size
    return text, node.start_byte, node.end_byte


def json_items(data: bytes, node: Node, path: tuple[str, ...] = ()) -> Iterator[Key | Scalar]:
    for child in node.named_children:
        if child.type == "pair":
            key = child.child_by_field_name("key")
            value = child.child_by_field_name("value")
            if key is None:
                continue
            name, start, end = _unquoted(data, key)
            yield Key(path, name, start, end)
            if value is not None:
                yield from _json_value(data, value, (*path, name))
        elif child.type in ("object", "array"):
            yield from json_items(data, child, path)


def _json_value(data: bytes, value: Node, path: tuple[str, ...]) -> Iterator[Key | Scalar]:
    if value.type == "object":
        yield from json_items(data, value, path)
    elif value.type == "array":
        for item in value.named_children:
            yield from _json_value(data, item, (*path, SEQUENCE))
    elif value.type == "string":
        text, start, end = _unquoted(data, value)
        yield Scalar(path, text, start, end)
    elif value.type in ("number", "true", "false", "null"):
        yield Scalar(path, grammars.text(data, value), value.start_byte, value.end_byte)


def toml_items(data: bytes, root: Node) -> Iterator[Key | Scalar]:
    for child in root.named_children:
        if child.type == "pair":
            yield from _toml_pair(data, child, ())
        elif child.type in ("table", "table_array_element"):
            header = next((c for c in child.named_children if c.type.endswith("key")), None)
            base = _toml_key(data, header) if header is not None else ()
            if child.type == "table_array_element":
                base = (*base, SEQUENCE)
            for pair in child.named_children:
                if pair.type == "pair":
                    yield from _toml_pair(data, pair, base)


def _toml_key(data: bytes, node: Node) -> tuple[str, ...]:
    if node.type == "dotted_key":
        parts: list[str] = []
        for child in node.named_children:
            parts.extend(_toml_key(data, child))
        return tuple(parts)
    return (_unquoted(data, node)[0],)


def _toml_pair(data: bytes, pair: Node, base: tuple[str, ...]) -> Iterator[Key | Scalar]:
    key = pair.named_children[0] if pair.named_children else None
    value = pair.named_children[-1] if len(pair.named_children) > 1 else None
    if key is None:
        return
    names = _toml_key(data, key)
    last = key.named_children[-1] if key.type == "dotted_key" and key.named_children else key
    _, start, end = _unquoted(data, last)
    path = (*base, *names[:-1])
    yield Key(path, names[-1], start, end)
    if value is not None:
        yield from _toml_value(data, value, (*path, names[-1]))


def _toml_value(data: bytes, value: Node, path: tuple[str, ...]) -> Iterator[Key | Scalar]:
    if value.type == "array":
        for item in value.named_children:
            yield from _toml_value(data, item, (*path, SEQUENCE))
    elif value.type == "inline_table":
        for pair in value.named_children:
            if pair.type == "pair":
                yield from _toml_pair(data, pair, path)
    elif value.type == "string":
        text, start, end = _unquoted(data, value)
        yield Scalar(path, text, start, end)
    elif value.type != "comment":
        yield Scalar(path, grammars.text(data, value), value.start_byte, value.end_byte)


def yaml_items(data: bytes, node: Node, path: tuple[str, ...] = ()) -> Iterator[Key | Scalar]:
    kind = node.type
    if kind in ("block_mapping_pair", "flow_pair"):
        key = node.child_by_field_name("key")
        value = node.child_by_field_name("value")
        if key is None:
            return
        name, start, end = _yaml_scalar(data, key)
        yield Key(path, name, start, end)
        if value is not None:
            yield from yaml_items(data, value, (*path, name))
    elif kind in ("block_sequence_item",) or (
        kind == "flow_node" and node.parent is not None and node.parent.type == "flow_sequence"
    ):
        for child in node.named_children if kind == "block_sequence_item" else [node]:
            yield from _yaml_node(data, child, (*path, SEQUENCE))
    else:
        yield from _yaml_node(data, node, path)


def _yaml_node(data: bytes, node: Node, path: tuple[str, ...]) -> Iterator[Key | Scalar]:
    kind = node.type
    if kind in ("plain_scalar", "double_quote_scalar", "single_quote_scalar", "block_scalar"):
        text, start, end = _yaml_scalar(data, node)
        yield Scalar(path, text, start, end)
        return
    if kind == "flow_node" and node.parent is not None and node.parent.type == "flow_sequence":
        path = (*path, SEQUENCE)
        for child in node.named_children:
            yield from _yaml_node(data, child, path)
        return
    for child in node.named_children:
        if child.type == "comment":
            continue
        if child.type in ("block_mapping_pair", "flow_pair", "block_sequence_item"):
            yield from yaml_items(data, child, path)
        else:
            yield from _yaml_node(data, child, path)


def _yaml_scalar(data: bytes, node: Node) -> tuple[str, int, int]:
    while node.type in ("flow_node", "block_node") and node.named_children:
        node = node.named_children[0]
    return _unquoted(data, node)


def _first_error_line(root: Node) -> int:
    for node in grammars.walk(root):
        if node.type == "ERROR" or node.is_missing:
            return node.start_point[0] + 1
    return root.start_point[0] + 1


class _StructuredAnalyzer(InventoryAnalyzer):
    grammar = ""

    def __init__(self, ruleset: Any) -> None:
        super().__init__(ruleset)
        self.parser = grammars.parser(self.grammar)

    def parse(self, data: bytes, old_tree: Any | None = None) -> Any:
        return self.parser.parse(data)

    def items(self, data: bytes, root: Node) -> Iterator[Key | Scalar]:
        raise NotImplementedError

    def tokens(self, data: bytes, tree: Any, context: FileContext) -> Iterator[Token]:
        root = tree.root_node
        if root.has_error:
            # Keys and values of a broken file have no reliable paths: say where it breaks, report nothing.
            line = _first_error_line(root)
            raise BadInput(
                t(
                    "not valid {grammar}: a syntax error at line {line}; nothing in it was analysed",
                    grammar=self.grammar.upper(),
                    line=line,
                )
            )
        yield from config_tokens(self.items(data, root))


class YamlAnalyzer(_StructuredAnalyzer):
    language = "yaml"
    grammar = "yaml"

    def items(self, data: bytes, root: Node) -> Iterator[Key | Scalar]:
        yield from _yaml_node(data, root, ())


class JsonAnalyzer(_StructuredAnalyzer):
    language = "json"
    grammar = "json"

    def items(self, data: bytes, root: Node) -> Iterator[Key | Scalar]:
        yield from json_items(data, root)


class TomlAnalyzer(_StructuredAnalyzer):
    language = "toml"
    grammar = "toml"

    def items(self, data: bytes, root: Node) -> Iterator[Key | Scalar]:
        yield from toml_items(data, root)
