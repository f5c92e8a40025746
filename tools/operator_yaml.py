"""Read the operator YAML files of PyTorch and its device plugins into Python values.

cudaport already parses YAML with tree-sitter (the inventory's grammar), so the importers need no PyYAML. This is
the subset those files use: block and flow mappings and sequences, plain, quoted and block scalars, comments.
Plain scalars become str, bool, int, float or None as YAML 1.1's core types say; anchors and tags are not used.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "server"))

from cudaport.analyzers.inventory import grammars  # noqa: E402

_INT = re.compile(r"[-+]?(0|[1-9][0-9_]*)$")
_FLOAT = re.compile(r"[-+]?([0-9][0-9_]*)?\.[0-9]+([eE][-+]?[0-9]+)?$")
_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "/": "/", "0": "\0", " ": " "}


class YamlError(ValueError):
    """The file uses YAML this reader does not handle, or is not valid YAML."""


def load_yaml(data: bytes) -> Any:
    """The first document of `data` as dicts, lists and scalars."""
    tree = grammars.parser("yaml").parse(data)
    if tree.root_node.has_error:
        bad = next(n for n in grammars.walk(tree.root_node) if n.type == "ERROR" or n.is_missing)
        raise YamlError(f"not valid YAML at line {bad.start_point[0] + 1}")
    for document in tree.root_node.named_children:
        if document.type == "document":
            body = [n for n in document.named_children if n.type != "comment"]
            return _value(data, body[0]) if body else None
    return None


def _value(data: bytes, node: Any) -> Any:
    kind = node.type
    if kind in ("block_node", "flow_node"):
        children = [n for n in node.named_children if n.type != "comment"]
        if not children:
            return None
        if children[0].type in ("anchor", "tag", "alias"):
            raise YamlError(f"line {node.start_point[0] + 1}: anchors, aliases and tags are not supported")
        return _value(data, children[0])
    if kind in ("block_mapping", "flow_mapping"):
        out: dict[Any, Any] = {}
        for pair in node.named_children:
            if pair.type in ("block_mapping_pair", "flow_pair"):
                key, value = pair.child_by_field_name("key"), pair.child_by_field_name("value")
                out[_value(data, key) if key is not None else None] = _value(data, value) if value is not None else None
        return out
    if kind == "block_sequence":
        items = []
        for item in node.named_children:
            if item.type == "block_sequence_item":
                inner = [n for n in item.named_children if n.type != "comment"]
                items.append(_value(data, inner[0]) if inner else None)
        return items
    if kind == "flow_sequence":
        return [_value(data, n) for n in node.named_children if n.type != "comment"]
    if kind == "plain_scalar":
        return _plain(grammars.text(data, node))
    if kind == "single_quote_scalar":
        return _folded(grammars.text(data, node)[1:-1]).replace("''", "'")
    if kind == "double_quote_scalar":
        return _unescaped(_folded(grammars.text(data, node)[1:-1]))
    if kind == "block_scalar":
        return _block(grammars.text(data, node))
    raise YamlError(f"line {node.start_point[0] + 1}: {kind} is not supported")


def _folded(text: str) -> str:
    """A flow scalar that spans lines: each line break and the indentation around it is one space."""
    if "\n" not in text:
        return text
    lines = [line.strip() for line in text.split("\n")]
    out = lines[0]
    for line in lines[1:]:
        out += "\n" if not line else (line if out.endswith("\n") or not out else " " + line)
    return out


def _plain(text: str) -> Any:
    text = _folded(text)
    if text in ("true", "True", "TRUE"):
        return True
    if text in ("false", "False", "FALSE"):
        return False
    if text in ("~", "null", "Null", "NULL"):
        return None
    if _INT.match(text):
        return int(text.replace("_", ""))
    if _FLOAT.match(text):
        return float(text.replace("_", ""))
    return text


def _unescaped(text: str) -> str:
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), m.group(0)), text)


def _block(text: str) -> str:
    """A literal (|) or folded (>) block scalar, clipped (one final line break)."""
    header, _, body = text.partition("\n")
    lines = body.split("\n")
    indent = min((len(line) - len(line.lstrip(" ")) for line in lines if line.strip()), default=0)
    lines = [line[indent:] for line in lines]
    while lines and not lines[-1].strip():
        lines.pop()
    if header.lstrip().startswith(">"):
        return _folded("\n".join(lines)) + "\n"
    return "\n".join(lines) + "\n"
