"""A Python file's imports: which local names stand for which modules (`import torch.cuda as tc`,
`from torch import cuda`), and where `import torch_npu` goes when a fix needs it."""

from __future__ import annotations

import re

import tree_sitter_python
from tree_sitter import Language, Node

from ..models import Edit
from .tsutil import text

PYTHON_LANGUAGE = Language(tree_sitter_python.language())
_KEYWORD = re.compile(rb"(?m)^[ \t]*(?:import|from)(?=[ \t\\])")
_STATEMENTS = frozenset({"import_statement", "import_from_statement"})


class ImportedName:
    """One name an import statement binds."""

    __slots__ = ("alias", "local", "module", "name_node", "qualified", "statement")

    def __init__(
        self,
        local: str,
        qualified: list[str],
        statement: Node,
        name_node: Node,
        alias: bool,
        module: list[str] | None,
    ) -> None:
        self.local = local  # the name bound in the file
        self.qualified = qualified  # what it stands for: ["torch", "cuda"]
        self.statement = statement
        self.name_node = name_node  # the dotted_name that spells the imported path (or member)
        self.alias = alias  # written with `as`
        self.module = module  # for `from M import n`: M; None for `import M`


class Imports:
    def __init__(self, data: bytes, root: Node) -> None:
        self.data = data
        self.statements: list[Node] = _statements(data, root)
        self.names: list[ImportedName] = []
        self.bindings: dict[str, ImportedName] = {}
        for statement in self.statements:
            for imported in _names(statement):
                self.names.append(imported)
                self.bindings.setdefault(imported.local, imported)

    def resolve(self, parts: list[str]) -> list[str] | None:
        """The qualified name that `parts` (a dotted chain as written) stands for, or None when its base is not
        an import. A bare `torch`/`os` counts even without an import (snippets, notebooks)."""
        bound = self.bindings.get(parts[0])
        if bound is not None:
            return bound.qualified + parts[1:]
        if parts[0] in ("torch", "os"):
            return parts
        return None

    def local_name(self, qualified: list[str]) -> str | None:
        """A local name bound to exactly this module (`torch` after `import torch`, `t` after `import torch as t`)."""
        for imported in self.names:
            if imported.qualified == qualified:
                return imported.local
        return None

    def imports_module(self, module: str) -> bool:
        return any(_spelled(imported)[0] == module for imported in self.names)

    def insertion(self, module: str) -> Edit | None:
        """`import <module>` on the line after the first `import torch`, or on the line before the first other
        import of torch (`from torch import npu` needs the module registered first); None when the file imports
        no torch, or the import sits where no line can be added beside it."""
        for statement in self.statements:
            paths = [_spelled(imported) for imported in _names(statement)]
            if statement.type == "import_from_statement":
                module_path = _statement_module(statement)
                paths = [module_path] if module_path else []
            if not any(path[0] == "torch" for path in paths):
                continue
            after = statement.type == "import_statement" and ["torch"] in paths
            return self._line_edit(statement, f"import {module}", after)
        return None

    def _line_edit(self, statement: Node, line: str, after: bool) -> Edit | None:
        parent = statement.parent
        if parent is None or parent.type not in ("module", "block"):
            return None
        data = self.data
        line_start = data.rfind(b"\n", 0, statement.start_byte) + 1
        before = data[line_start : statement.start_byte]
        indent_end = len(before) - len(before.lstrip(b" \t"))
        if before.strip(b" \t") and not before.rstrip().endswith(b";"):
            return None  # `if x: import torch`: no line of its own
        indent = before[:indent_end].decode("utf-8", "replace")
        newline_at = data.find(b"\n", statement.end_byte)
        eol = "\r\n" if newline_at > 0 and data[newline_at - 1 : newline_at] == b"\r" else "\n"
        if not after:
            return Edit(line_start, line_start, f"{indent}{line}{eol}")
        if newline_at < 0:
            return Edit(len(data), len(data), f"{eol}{indent}{line}")
        return Edit(newline_at + 1, newline_at + 1, f"{indent}{line}{eol}")


def _statements(data: bytes, root: Node) -> list[Node]:
    """Every import statement that starts a line, found from its keyword (much cheaper than walking the tree);
    the same words in strings and comments lead to other nodes and are dropped. An import after `:` or `;` on one
    line (`if x: import y`) is not seen."""
    found: dict[int, Node] = {}
    for match in _KEYWORD.finditer(data):
        start = match.end() - (4 if data[match.end() - 4 : match.end()] == b"from" else 6)
        keyword = root.descendant_for_byte_range(start, match.end())
        statement = keyword.parent if keyword is not None else None
        if keyword is not None and statement is not None and statement.type in _STATEMENTS:
            found.setdefault(statement.start_byte, statement)
    return [found[start] for start in sorted(found)]


def _spelled(imported: ImportedName) -> list[str]:
    """The path as the statement spells it: `torch.cuda` for `import torch.cuda`, `torch` for `from torch ...`."""
    if imported.module is not None:
        return imported.module
    return text(imported.name_node).replace(" ", "").split(".")


def _statement_module(statement: Node) -> list[str] | None:
    if statement.type != "import_from_statement":
        return None
    module = statement.child_by_field_name("module_name")
    if module is None or module.type != "dotted_name":
        return None  # relative imports are the project's own modules
    return text(module).replace(" ", "").split(".")


def _names(statement: Node) -> list[ImportedName]:
    out: list[ImportedName] = []
    module = _statement_module(statement)
    if statement.type == "import_from_statement" and module is None:
        return out
    for node in statement.children_by_field_name("name"):
        alias_node = None
        name_node = node
        if node.type == "aliased_import":
            name_node = node.child_by_field_name("name") or node
            alias_node = node.child_by_field_name("alias")
        path = text(name_node).replace(" ", "").split(".")
        if module is not None:
            local = text(alias_node) if alias_node is not None else path[-1]
            out.append(ImportedName(local, module + path, statement, name_node, alias_node is not None, module))
        elif alias_node is not None:
            out.append(ImportedName(text(alias_node), path, statement, name_node, True, None))
        else:
            out.append(ImportedName(path[0], path[:1], statement, name_node, False, None))
    return out
