"""Python names for judging a fix's result: which variables (by scope), `self.X` attributes (by class), other
attributes and string keys the program defines and reads, at the names a set of edits touches."""

from __future__ import annotations

import builtins
import keyword
import re
from typing import Any

from tree_sitter import Node, Parser

from ...model.findings import Edit
from ..common.base import whole_words
from ..common.names import Affected, Occurrence, Prediction, Role, changed_words, is_identifier
from .imports import PYTHON_LANGUAGE

_PATTERNS = frozenset(
    {"pattern_list", "tuple_pattern", "list_pattern", "tuple", "list", "parenthesized_expression", "list_splat_pattern"}
)
_SCOPES = frozenset({"function_definition", "class_definition"})
_PARAMETER_LISTS = frozenset({"parameters", "lambda_parameters"})
_NAMED_PARAMETERS = frozenset({"default_parameter", "typed_default_parameter"})
_SPLATS = frozenset({"list_splat_pattern", "dictionary_splat_pattern"})
_MAPPING_READS = frozenset({"get", "pop", "__getitem__", "__contains__", "getenv"})
_MAPPING_BOTH = frozenset({"setdefault"})
_SELF = frozenset({b"self", b"cls"})
_CHAIN = re.compile(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*")
_UNSAFE_IN_STRING = re.compile(r"[\"'\\\n\r{}]")
_TOKEN = re.compile(r"[A-Za-z_]\w*")
BUILTIN_NAMES = frozenset(dir(builtins)) | frozenset(
    {"__file__", "__name__", "__doc__", "__spec__", "__loader__", "__package__", "__path__", "__builtins__"}
    | {"__class__", "__annotations__", "__dict__", "__module__", "__qualname__", "__debug__"}
)


class PythonNames:
    """The NameReader of Python (cudaport.analyzers.names)."""

    names_when_predicted = True

    def __init__(self) -> None:
        self._parser: Parser | None = None  # for inserted lines, made on first use

    def unresolved_ok(self, name: str) -> bool:
        return name in BUILTIN_NAMES

    # ---- what the edits touch -------------------------------------------------------------------------------
    def affected(self, data: bytes, root: Any, edits: list[Edit]) -> Affected:
        words: set[str] = set()
        strings: set[str] = set()
        for edit in edits:
            old = data[edit.start : edit.end].decode("utf-8", "replace")
            content = _string_content_around(root, edit.start, edit.end)
            if content is not None:
                text = content.text or b""
                offset = edit.start - content.start_byte
                new = text[:offset] + edit.text.encode() + text[offset + edit.end - edit.start :]
                strings.update((text.decode("utf-8", "replace"), new.decode("utf-8", "replace")))
                continue
            words |= changed_words(old, edit.text)
        return Affected(frozenset(w for w in words if not keyword.iskeyword(w)), frozenset(strings))

    # ---- where they are and what the program does with them ------------------------------------------------
    def occurrences(self, data: bytes, root: Any, affected: Affected) -> list[Occurrence]:
        out: list[Occurrence] = []
        for word in affected.words:
            raw = word.encode()
            for start in whole_words(data, raw):
                node = root.descendant_for_byte_range(start, start + len(raw))
                if node is None or node.type != "identifier" or node.start_byte != start:
                    continue  # a comment, a string, part of a longer token
                out.extend(_classify(node, word))
        for value in affected.strings:
            raw = value.encode()
            if not raw:
                continue
            start = data.find(raw)
            while start != -1:
                node = root.descendant_for_byte_range(start, start + len(raw))
                whole = node is not None and node.type == "string_content" and node.start_byte == start
                if whole and node.end_byte == start + len(raw):
                    found = _key(node, value)
                    if found is not None:
                        out.append(found)
                start = data.find(raw, start + 1)
        if affected.words and b"*" in data and _wildcard_import(data, root):
            out.append(Occurrence("var", "*", Role.DEFINES, ("",), 0, 0))
        return out

    def predicted(
        self, data: bytes, root: Any, edits: list[Edit], affected: Affected, before: list[Occurrence]
    ) -> Prediction | None:
        replaced: list[tuple[Edit, Node, str]] = []  # (edit, node it rewrites, how)
        inserted: list[Occurrence] = []
        for edit in edits:
            if edit.start == edit.end:
                found = self._inserted(data, root, edit, affected)
                if found is None:
                    return None
                inserted.extend(found)
                continue
            node = root.descendant_for_byte_range(edit.start, edit.end)
            if node is None:
                return None
            if node.type == "string_content" or _string_content_around(root, edit.start, edit.end) is not None:
                if _UNSAFE_IN_STRING.search(edit.text):
                    return None
                replaced.append((edit, node, "string"))
            elif node.start_byte != edit.start or node.end_byte != edit.end:
                return None
            elif node.type == "identifier" and is_identifier(edit.text) and not keyword.iskeyword(edit.text):
                parent = node.parent
                if parent is not None and parent.type in _SCOPES and parent.child_by_field_name("name") == node:
                    return None  # a definition renamed: the scopes named after it move
                replaced.append((edit, node, "name"))
            elif node.type in ("dotted_name", "attribute") and _is_chain(node, edit.text):
                replaced.append((edit, node, "chain"))
            else:
                return None
        spans = [(e.start, e.end) for e, _, _ in replaced]
        out = [o for o in before if not any(lo <= o.start < hi or lo < o.end <= hi for lo, hi in spans)]
        for edit, node, how in replaced:
            if how == "name":
                out.extend(_renamed(_classify(node, edit.text), edit.text, affected))
            elif how == "chain":
                out.extend(_chain_after(node, edit.text, affected))
            else:
                out.extend(_string_after(data, root, edit, affected))
        return Prediction(out + inserted, [])

    def _inserted(self, data: bytes, root: Any, edit: Edit, affected: Affected) -> list[Occurrence] | None:
        """Whole lines inserted between module-level statements, which parse alone."""
        position = edit.start
        if not edit.text.endswith("\n") or (position > 0 and data[position - 1] != 0x0A):
            return None
        node = root.descendant_for_byte_range(position, position)
        while node is not None and node.type != "module":
            if node.start_byte < position < node.end_byte:
                return None  # inside a statement or a block
            node = node.parent
        text = edit.text.encode()
        if self._parser is None:
            self._parser = Parser(PYTHON_LANGUAGE)
        tree = self._parser.parse(text)
        if tree.root_node.has_error or text[:1].isspace():
            return None
        return [
            Occurrence(
                o.namespace, o.name, o.role, ("",) if o.namespace == "var" else o.frames, position, position, o.imported
            )
            for o in self.occurrences(text, tree.root_node, affected)
        ]


# ---- one occurrence --------------------------------------------------------------------------------------------
def _classify(node: Node, name: str) -> list[Occurrence]:
    """What the identifier `node` (spelling `name`) is: a definition or a read, of what."""
    parent = node.parent
    start, end = node.start_byte, node.end_byte
    if parent is None:
        return []
    kind = parent.type
    if kind == "attribute":
        if parent.child_by_field_name("attribute") != node:
            return [Occurrence("var", name, Role.READS, _frames(node), start, end)]  # the object is read
        role = _store(parent)
        receiver = parent.child_by_field_name("object")
        if receiver is not None and receiver.type == "identifier" and receiver.text in _SELF:
            owner = _class_of(node)
            if owner is not None:
                return [Occurrence("attr", name, role, (owner,), start, end)]
        return [Occurrence("member", name, role, ("",), start, end)]
    if kind == "keyword_argument" and parent.child_by_field_name("name") == node:
        return []
    if kind in _SCOPES and parent.child_by_field_name("name") == node:
        frames = _frames(parent)
        out = [Occurrence("var", name, Role.DEFINES, frames, start, end)]
        owner = _enclosing_class_body(parent)
        if owner is not None:
            out.append(Occurrence("attr", name, Role.DEFINES, (owner,), start, end))
        return out
    function = _parameter_of(node)
    if function is not None:
        return [Occurrence("var", name, Role.DEFINES, _frames(node), start, end)]
    if kind in ("dotted_name", "aliased_import", "import_prefix", "relative_import"):
        return _imported(node, parent, name)
    if kind in ("global_statement", "nonlocal_statement"):
        return [
            Occurrence(
                "var",
                name,
                Role.DEFINES,
                ("",) if kind == "global_statement" else _frames(node)[1:] or ("",),
                start,
                end,
            )
        ]
    role = _store(node)
    frames = _frames(node)
    out = [Occurrence("var", name, role, frames, start, end)]
    if role & Role.DEFINES:
        owner = _enclosing_class_body(node)
        if owner is not None:
            out.append(Occurrence("attr", name, Role.DEFINES, (owner,), start, end))
    return out


def _imported(node: Node, parent: Node, name: str) -> list[Occurrence]:
    """A name in an import statement: the name it binds, or part of a module path (no name of the file)."""
    if parent.type == "aliased_import":
        if parent.child_by_field_name("alias") == node:
            return [Occurrence("var", name, Role.DEFINES, _frames(parent), node.start_byte, node.end_byte, True)]
        return []
    if parent.type != "dotted_name" or parent.named_children[0] != node:
        return []
    statement = parent.parent
    if statement is None:
        return []
    binds = statement.type == "import_statement" or (
        statement.type == "import_from_statement" and statement.child_by_field_name("module_name") != parent
    )
    if not binds:
        return []
    if statement.type == "import_from_statement" and len(parent.named_children) > 1:
        return []
    return [Occurrence("var", name, Role.DEFINES, _frames(statement), node.start_byte, node.end_byte, True)]


def _store(node: Node) -> Role:
    """Whether `node` (an identifier, attribute or subscript) is written to, read, or both (`x += 1`)."""
    current = node
    while True:
        parent = current.parent
        if parent is None:
            return Role.READS
        kind = parent.type
        if kind in _PATTERNS:
            current = parent
            continue
        if kind == "assignment":
            return Role.DEFINES if parent.child_by_field_name("left") == current else Role.READS
        if kind == "augmented_assignment":
            return Role.BOTH if parent.child_by_field_name("left") == current else Role.READS
        if kind in ("for_statement", "for_in_clause"):
            return Role.DEFINES if parent.child_by_field_name("left") == current else Role.READS
        if kind == "as_pattern_target":
            return Role.DEFINES
        if kind == "named_expression":
            return Role.DEFINES if parent.child_by_field_name("name") == current else Role.READS
        return Role.READS


def _parameter_of(node: Node) -> Node | None:
    """The function or lambda whose parameter `node` names."""
    parent = node.parent
    if parent is None:
        return None
    if parent.type in _NAMED_PARAMETERS:
        if parent.child_by_field_name("name") != node:
            return None
        parent = parent.parent
    elif parent.type == "typed_parameter":
        if parent.named_children[0] != node:
            return None
        parent = parent.parent
    elif parent.type in _SPLATS:
        parent = parent.parent
    if parent is None or parent.type not in _PARAMETER_LISTS:
        return None
    return parent.parent


def _frames(node: Node) -> tuple[str, ...]:
    """Where a variable written at `node` binds, and where a read there looks, innermost first: the functions
    around it (a class body only when it is the innermost scope, as Python looks names up), then the module."""
    scopes: list[tuple[str, Node]] = []
    current = node.parent
    while current is not None:
        if current.type in _SCOPES:
            scopes.append((current.type, current))
        current = current.parent
    if not scopes:
        return ("",)
    paths = _paths([n for _, n in scopes])
    out = [paths[0]] if scopes[0][0] == "class_definition" else []
    out += [path for (kind, _), path in zip(scopes, paths, strict=True) if kind == "function_definition"]
    return (*out, "")


def _paths(scopes: list[Node]) -> list[str]:
    """The dotted paths of nested scopes given innermost first (`Loader.__init__`, `Loader`)."""
    names = [_name_of(n) for n in scopes]
    return [".".join(reversed(names[i:])) for i in range(len(names))]


def _name_of(scope: Node) -> str:
    name = scope.child_by_field_name("name")
    return (name.text or b"").decode("utf-8", "replace") if name is not None else "?"


def _class_of(node: Node) -> str | None:
    """The class whose method `node` is in (for `self.X`)."""
    current = node.parent
    chain: list[Node] = []
    found = None
    while current is not None:
        if current.type in _SCOPES:
            chain.append(current)
            if current.type == "class_definition" and found is None:
                found = len(chain) - 1
        current = current.parent
    if found is None:
        return None
    return _paths(chain[found:])[0]


def _enclosing_class_body(node: Node) -> str | None:
    """The class whose body `node` stands in directly (a method or a class attribute), if any."""
    current = node.parent
    while current is not None:
        if current.type == "function_definition":
            return None
        if current.type == "class_definition":
            chain = [current]
            outer = current.parent
            while outer is not None:
                if outer.type in _SCOPES:
                    chain.append(outer)
                outer = outer.parent
            return _paths(chain)[0]
        current = current.parent
    return None


def _key(content: Node, value: str) -> Occurrence | None:
    """A string used as a mapping's key: written (`d["k"] = v`, `{"k": v}`) or read (`d["k"]`, `d.get("k")`)."""
    string = content.parent
    if string is None or string.type != "string" or _is_formatted(string):
        return None
    parent = string.parent
    role: Role | None = None
    if parent is None:
        return None
    if parent.type == "subscript" and parent.child_by_field_name("subscript") == string:
        role = _store(parent)
    elif parent.type == "pair" and parent.child_by_field_name("key") == string:
        role = Role.DEFINES
    elif parent.type == "argument_list" and parent.named_children and parent.named_children[0] == string:
        call = parent.parent
        function = call.child_by_field_name("function") if call is not None else None
        method = (
            function.child_by_field_name("attribute")
            if function is not None and function.type == "attribute"
            else function
        )
        spelled = (method.text or b"").decode() if method is not None and method.type == "identifier" else ""
        role = Role.READS if spelled in _MAPPING_READS else Role.BOTH if spelled in _MAPPING_BOTH else None
    elif parent.type == "comparison_operator" and parent.named_children and parent.named_children[0] == string:
        operators = [c.type for c in parent.children if not c.is_named]
        role = Role.READS if "in" in operators else None
    if role is None:
        return None
    return Occurrence("key", value, role, ("",), content.start_byte, content.end_byte)


def _is_formatted(string: Node) -> bool:
    opening = string.children[0] if string.children else None
    return opening is not None and b"f" in (opening.text or b"").lower()


def _string_content_around(root: Any, start: int, end: int) -> Node | None:
    node: Node | None = root.descendant_for_byte_range(start, end)
    if node is not None and node.type == "string_content" and node.start_byte <= start and end <= node.end_byte:
        return node
    return None


def _wildcard_import(data: bytes, root: Any) -> bool:
    for match in re.finditer(rb"\bimport\s*\*", data):
        node = root.descendant_for_byte_range(match.start(), match.start() + 6)
        while node is not None and node.type not in ("import_from_statement", "module"):
            node = node.parent
        if node is not None and node.type == "import_from_statement":
            return True
    return False


def _is_chain(node: Node, text: str) -> bool:
    """A dotted chain of names (`torch.cuda.amp`) rewritten as another chain of names."""
    if _CHAIN.fullmatch(text) is None or any(keyword.iskeyword(part) for part in text.split(".")):
        return False
    current: Node | None = node
    while current is not None and current.type == "attribute":
        current = current.child_by_field_name("object")
    if node.type == "attribute" and (current is None or current.type != "identifier"):
        return False
    return all(c.type in ("identifier", ".", "attribute") for c in _descendants(node))


def _descendants(node: Node) -> list[Node]:
    out: list[Node] = []
    pending = list(node.children)
    while pending:
        child = pending.pop()
        out.append(child)
        pending.extend(child.children)
    return out


def _chain_parts(node: Node) -> list[Node]:
    """The identifiers of a dotted chain, in order."""
    if node.type == "dotted_name":
        return [c for c in node.named_children if c.type == "identifier"]
    parts: list[Node] = []
    current: Node | None = node
    while current is not None and current.type == "attribute":
        attribute = current.child_by_field_name("attribute")
        if attribute is not None:
            parts.append(attribute)
        current = current.child_by_field_name("object")
    if current is not None:
        parts.append(current)
    return list(reversed(parts))


def _renamed(found: list[Occurrence], name: str, affected: Affected) -> list[Occurrence]:
    return [Occurrence(o.namespace, name, o.role, o.frames, o.start, o.end) for o in found if name in affected.words]


def _chain_after(node: Node, text: str, affected: Affected) -> list[Occurrence]:
    """The occurrences a chain rewritten as `text` holds: its first name is what the old chain's first name was
    (a variable read, or the name an import binds), the others what the old ones after the first were."""
    parts = _chain_parts(node)
    names = text.split(".")
    if not parts:
        return []
    first = _classify(parts[0], names[0])
    middle = _classify(parts[1], "") if len(parts) > 1 else []
    last = _classify(parts[-1], "") if len(parts) > 1 else []
    out = _renamed(first, names[0], affected)
    for index, name in enumerate(names[1:], start=1):
        template = last if index == len(names) - 1 else middle
        out.extend(_renamed(template, name, affected))
    return out


def _string_after(data: bytes, root: Any, edit: Edit, affected: Affected) -> list[Occurrence]:
    content = _string_content_around(root, edit.start, edit.end)
    if content is None:
        return []
    text = content.text or b""
    offset = edit.start - content.start_byte
    value = (text[:offset] + edit.text.encode() + text[offset + edit.end - edit.start :]).decode("utf-8", "replace")
    if value not in affected.strings:
        return []
    found = _key(content, value)
    return [found] if found is not None else []
