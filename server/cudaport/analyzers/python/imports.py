"""A Python file's imports: which local names stand for which modules (`import torch.cuda as tc`,
`from torch import cuda`), and where `import torch_npu` goes when a fix needs it.

Finding the import statements costs one C-level search for the word `import` and a tree lookup per statement; what
a statement binds is read once per distinct statement text and remembered (offsets relative to the statement), so
analysing a buffer again after an edit finds its imports again but reads none of them again."""

from __future__ import annotations

from tree_sitter import Language, Node

from ...model.findings import Edit
from ..common.grammar import grammar_module
from ..common.syntax import text

PYTHON_LANGUAGE = Language(grammar_module("tree_sitter_python").language())
_STATEMENTS = frozenset({"import_statement", "import_from_statement"})
# The ASCII bytes of a Python identifier (no `$`, which C's analyzers count: analyzers.base.WORD_BYTE).
IDENTIFIER_BYTES = frozenset(b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_")
_AFTER_KEYWORD = frozenset(b" \t\\")
_CACHE_LIMIT = 8192


class ImportedName:
    """One name an import statement binds; where it is written is relative to the start of its statement."""

    __slots__ = ("alias", "end", "local", "module", "offset", "qualified", "written")

    def __init__(
        self,
        local: str,
        qualified: list[str],
        written: str,
        span: tuple[int, int],
        alias: bool,
        module: list[str] | None,
    ) -> None:
        self.local = local  # the name bound in the file
        self.qualified = qualified  # what it stands for: ["torch", "cuda"] (shared: never modify it)
        self.written = written  # the dotted name that spells the imported path (or member), as written
        self.offset, self.end = span  # where `written` is, counted from the start of the statement
        self.alias = alias  # written with `as`
        self.module = module  # for `from M import n`: M; None for `import M`


class StatementFacts:
    """What an import statement says, read from its text alone: the module of `from M import ...` and where it is
    written, whether it imports `*`, and the names it binds. Offsets are relative to the statement's start."""

    __slots__ = ("module", "module_span", "names", "wildcard")

    def __init__(
        self,
        module: list[str] | None,
        module_span: tuple[int, int],
        wildcard: bool,
        names: tuple[ImportedName, ...],
    ) -> None:
        self.module = module  # None for `import M` and for relative imports (the project's own modules)
        self.module_span = module_span
        self.wildcard = wildcard
        self.names = names


class ImportStatement:
    """One import statement of the buffer: its node and what it says."""

    __slots__ = ("facts", "node")

    def __init__(self, node: Node, facts: StatementFacts) -> None:
        self.node = node
        self.facts = facts

    @property
    def is_from(self) -> bool:
        return self.node.type == "import_from_statement"

    @property
    def names(self) -> tuple[ImportedName, ...]:
        return self.facts.names

    def span(self, name: ImportedName) -> tuple[int, int]:
        """Where `name` is written in the buffer."""
        base = self.node.start_byte
        return base + name.offset, base + name.end

    def module_span(self) -> tuple[int, int]:
        base = self.node.start_byte
        return base + self.facts.module_span[0], base + self.facts.module_span[1]


# Statement text -> what it says. A statement's text decides that (one without syntax errors), so a buffer analysed
# again after an edit, or another file with the same imports, reads none of its imports again.
_FACTS: dict[tuple[str, bytes], StatementFacts] = {}


class Imports:
    def __init__(self, data: bytes, root: Node) -> None:
        self.data = data
        self.root = root
        self.statements = [ImportStatement(node, _facts(data, node)) for node in _statements(data, root)]
        self.names: list[ImportedName] = [name for statement in self.statements for name in statement.names]
        self.bindings: dict[str, ImportedName] = {}
        for imported in self.names:
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
        return any(spelled(imported)[0] == module for imported in self.names)

    def insertion(self, module: str, comment: str = "") -> Edit | None:
        """`import <module>` (then `comment`) at module level: on the line after the first module-level `import
        torch`, or on the line before the first other module-level import of torch (`from torch import npu` needs
        the module registered first); in a file that imports torch only inside functions or `try:` blocks, or
        not at all, after its docstring and `from __future__` imports. None when no line can be added there."""
        return self.insertion_lines([f"import {module}{comment}"])

    def insertion_lines(self, lines: list[str]) -> Edit | None:
        """`lines` (statements, indented relative to each other) where `insertion` puts its import."""
        line = "\n".join(lines)
        for statement in self.statements:
            if statement.node.parent is None or statement.node.parent.type != "module":
                continue
            paths = [spelled(imported) for imported in statement.names]
            if statement.is_from:
                module_path = statement.facts.module
                paths = [module_path] if module_path else []
            if not any(path[0] == "torch" for path in paths):
                continue
            after = statement.node.type == "import_statement" and ["torch"] in paths
            return self._line_edit(statement.node, line, after)
        return self._head_edit(line)

    def _head_edit(self, line: str) -> Edit | None:
        """`line` before the first module-level statement that is not the docstring or a `from __future__`
        import (comments, a shebang and an encoding line above it stay first)."""
        body = [c for c in self.root.named_children if c.type != "comment"]
        anchor = None
        for index, statement in enumerate(body):
            if index == 0 and statement.type == "expression_statement" and _is_string(statement):
                continue  # the docstring
            if statement.type == "future_import_statement":
                continue
            anchor = statement
            break
        if anchor is None:
            if not body:
                return None
            return self._line_edit(body[-1], line, after=True)
        return self._line_edit(anchor, line, after=False)

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
        line = f"{eol}{indent}".join(line.split("\n"))  # a block of several lines keeps the indentation
        rest = data[statement.end_byte : newline_at if newline_at >= 0 else len(data)].strip()
        if after and rest and not rest.startswith(b"#"):  # `import torch; x = torch.cuda...`: before the use
            if "\n" not in line:
                return Edit(statement.end_byte, statement.end_byte, f"; {line}")
            after = False
        if not after:
            return Edit(line_start, line_start, f"{indent}{line}{eol}")
        if newline_at < 0:
            return Edit(len(data), len(data), f"{eol}{indent}{line}")
        return Edit(newline_at + 1, newline_at + 1, f"{indent}{line}{eol}")


def _is_string(statement: Node) -> bool:
    return statement.named_child_count == 1 and statement.named_children[0].type == "string"


def _statements(data: bytes, root: Node) -> list[Node]:
    """Every import statement whose keyword starts a line, found from the word `import` that each one spells (a
    C-level search, much cheaper than walking the tree); the same word in strings, comments and names leads to
    other nodes and is dropped. An import after `:` or `;` on one line (`if x: import y`) is not seen."""
    found: dict[int, Node] = {}
    for position in word_starts(data, b"import", [(0, len(data))]):
        end = position + 6
        line_start = data.rfind(b"\n", 0, position) + 1
        head = data[line_start:position].lstrip(b" \t")
        # `import` first on its line, `from ... import`, or a line continued from one that may start `from`
        if not head or head.startswith(b"from") or _continued(data, line_start):
            keyword = root.descendant_for_byte_range(position, end)
            statement = keyword.parent if keyword is not None else None
            if (
                statement is not None
                and statement.type in _STATEMENTS
                and statement.start_byte not in found
                and ((not head and _keyword_ends(data, end)) or _starts_line(data, statement.start_byte))
            ):
                found[statement.start_byte] = statement
    return [found[start] for start in sorted(found)]


def _keyword_ends(data: bytes, end: int) -> bool:
    """A keyword ending at `end` is followed by a blank or a line continuation."""
    return end < len(data) and data[end] in _AFTER_KEYWORD


def _starts_line(data: bytes, start: int) -> bool:
    """Whether the statement at `start` has only blanks before it on its line and its keyword is followed by a
    blank or a line continuation."""
    end = start + (4 if data.startswith(b"from", start) else 6)
    line_start = data.rfind(b"\n", 0, start) + 1
    return _keyword_ends(data, end) and not data[line_start:start].strip(b" \t")


def _continued(data: bytes, line_start: int) -> bool:
    """Whether the line before the one starting at `line_start` ends with a backslash that continues it."""
    if line_start >= 2 and data[line_start - 2] == 0x5C:
        return True
    return line_start >= 3 and data[line_start - 2] == 0x0D and data[line_start - 3] == 0x5C


def _facts(data: bytes, statement: Node) -> StatementFacts:
    if statement.has_error:
        return _read(statement)  # error recovery may depend on what surrounds it: read it every time
    key = (statement.type, data[statement.start_byte : statement.end_byte])
    facts = _FACTS.get(key)
    if facts is None:
        if len(_FACTS) >= _CACHE_LIMIT:
            _FACTS.clear()
        facts = _FACTS[key] = _read(statement)
    return facts


def spelled(imported: ImportedName) -> list[str]:
    """The path as the statement spells it: `torch.cuda` for `import torch.cuda`, `torch` for `from torch ...`."""
    if imported.module is not None:
        return imported.module
    return imported.written.replace(" ", "").split(".")


def _read(statement: Node) -> StatementFacts:
    base = statement.start_byte
    module: list[str] | None = None
    module_span = (0, 0)
    if statement.type == "import_from_statement":
        module_node = statement.child_by_field_name("module_name")
        if module_node is None or module_node.type != "dotted_name":
            return StatementFacts(None, module_span, False, ())  # relative imports are the project's own modules
        module = text(module_node).replace(" ", "").split(".")
        module_span = (module_node.start_byte - base, module_node.end_byte - base)
    wildcard = any(child.type == "wildcard_import" for child in statement.children)
    names: list[ImportedName] = []
    for node in statement.children_by_field_name("name"):
        alias_node = None
        name_node = node
        if node.type == "aliased_import":
            name_node = node.child_by_field_name("name") or node
            alias_node = node.child_by_field_name("alias")
        written = text(name_node)
        span = (name_node.start_byte - base, name_node.end_byte - base)
        path = written.replace(" ", "").split(".")
        if module is not None:
            local = text(alias_node) if alias_node is not None else path[-1]
            names.append(ImportedName(local, module + path, written, span, alias_node is not None, module))
        elif alias_node is not None:
            names.append(ImportedName(text(alias_node), path, written, span, True, None))
        else:
            names.append(ImportedName(path[0], path[:1], written, span, False, None))
    return StatementFacts(module, module_span, wildcard, tuple(names))


def word_starts(data: bytes, word: bytes, windows: list[tuple[int, int]]) -> list[int]:
    """Where `word` stands as a whole word in the windows (a handful of words per file: cheaper than a regex over
    the buffer)."""
    out = []
    size = len(word)
    for lo, hi in windows:
        position = data.find(word, lo, hi)
        while position >= 0:
            before = data[position - 1] if position else 32
            after = data[position + size] if position + size < len(data) else 32
            if before not in IDENTIFIER_BYTES and after not in IDENTIFIER_BYTES:
                out.append(position)
            position = data.find(word, position + size, hi)
    return out
