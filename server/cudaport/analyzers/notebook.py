"""Jupyter notebooks: code cells analysed as Python (shell `!` lines and `%pip`/`%%bash` cells as shell), with
findings and fixes mapped back into the notebook's JSON, which keeps its layout, outputs and metadata.

A cell's source is a JSON string or a list of them; each decoded byte of the cells' Python is mapped to the byte
of the notebook that encodes it, so a fix replaces exactly the JSON text of the code it changes."""

from __future__ import annotations

import bisect
import json
import re
from collections.abc import Iterator, Sequence
from typing import Any

from tree_sitter import Node

from ..i18n import t
from ..knowledge.ruleset import RuleSet
from ..model.findings import Edit, Finding
from ..model.records import field, record, replace
from ..model.source import LineIndex
from .common import comments
from .common.base import BadInput, FileContext
from .common.suppress import find_suppressions
from .inventory import grammars
from .inventory.core import Matcher
from .inventory.shell import ShellReader

_MAGIC_LINE = re.compile(rb"^[ \t]*([!%])", re.M)
_SHELL_MAGICS = (b"%%bash", b"%%sh", b"%%script bash", b"%%shell")


@record
class Cell:
    index: int  # 1-based among all cells, as Jupyter numbers them
    start: int  # where the cell's Python starts in the joined buffer
    end: int
    shell: bool = False  # a %%bash cell


@record
class CellMap:
    """The joined Python of the code cells and, per byte of it, the notebook byte that encodes it."""

    python: bytearray = field(default_factory=bytearray)
    offsets: list[int] = field(default_factory=list)  # len(python) + 1 entries
    cells: list[Cell] = field(default_factory=list)

    def raw(self, offset: int) -> int:
        return self.offsets[min(max(offset, 0), len(self.offsets) - 1)]

    def cell_of(self, offset: int) -> Cell | None:
        for cell in self.cells:
            if cell.start <= offset <= cell.end:
                return cell
        return None


class NotebookError(BadInput):
    """A notebook that is not the JSON of a notebook."""


def cell_map(data: bytes, root: Node) -> CellMap:
    mapping = CellMap()
    document = root.named_children[0] if root.named_children else None
    if document is None or document.type != "object" or root.has_error:
        raise NotebookError(t("not a notebook: the file is not valid JSON"))
    cells = _member(data, document, "cells")
    if cells is None or cells.type != "array":
        raise NotebookError(t("not a notebook: no `cells` list"))
    for number, cell in enumerate((c for c in cells.named_children if c.type == "object"), start=1):
        kind = _member(data, cell, "cell_type")
        if kind is None or _string(data, kind)[0] != "code":
            continue
        source = _member(data, cell, "source")
        if source is None:
            continue
        strings = [source] if source.type == "string" else [s for s in source.named_children if s.type == "string"]
        start = len(mapping.python)
        for string in strings:
            _append(mapping, data, string)
        if not mapping.python.endswith(b"\n"):
            mapping.offsets.append(mapping.offsets[-1] if mapping.offsets else 0)
            mapping.python += b"\n"  # the cells' boundary: no byte of the notebook
        text = bytes(mapping.python[start:])
        mapping.cells.append(Cell(number, start, len(mapping.python) - 1, text.lstrip().startswith(_SHELL_MAGICS)))
    mapping.offsets.append(mapping.offsets[-1] + 1 if mapping.offsets else 0)
    return mapping


def _member(data: bytes, obj: Node, name: str) -> Node | None:
    for pair in obj.named_children:
        if pair.type != "pair":
            continue
        key = pair.child_by_field_name("key")
        if key is not None and _string(data, key)[0] == name:
            return pair.child_by_field_name("value")
    return None


def _string(data: bytes, node: Node) -> tuple[str, int]:
    raw = data[node.start_byte : node.end_byte]
    try:
        return json.loads(raw), node.start_byte + 1
    except ValueError:
        return "", node.start_byte + 1


_ESCAPE = re.compile(rb"\\(u[0-9a-fA-F]{4}(?:\\u[0-9a-fA-F]{4})?|.)", re.S)


def _append(mapping: CellMap, data: bytes, string: Node) -> None:
    """Decode one JSON string into the buffer, recording for each decoded byte where its encoding starts."""
    position = string.start_byte + 1
    end = string.end_byte - 1
    while position < end:
        if data[position] == 0x5C:  # a backslash escape
            found = _ESCAPE.match(data, position, end)
            if found is None:
                break
            chunk = json.loads(b'"' + found.group(0) + b'"').encode("utf-8", "surrogatepass")
            mapping.offsets.extend([position] * len(chunk))
            mapping.python += chunk
            position = found.end()
        else:
            mapping.offsets.append(position)
            mapping.python.append(data[position])
            position += 1
    mapping.offsets.append(end)  # the string's closing quote stands for "just after its last byte"
    mapping.offsets.pop()


def shell_lines(mapping: CellMap) -> Iterator[tuple[int, int]]:
    """Byte ranges of the buffer that are shell: `!cmd` and `%pip`/`%conda` lines, and whole %%bash cells."""
    for cell in mapping.cells:
        if cell.shell:
            first = mapping.python.find(b"\n", cell.start, cell.end + 1)
            yield (first + 1 if first >= 0 else cell.end, cell.end)
    for found in _MAGIC_LINE.finditer(mapping.python):
        line_end = mapping.python.find(b"\n", found.start())
        line_end = len(mapping.python) if line_end < 0 else line_end
        inside = mapping.cell_of(found.start())
        if inside is not None and inside.shell:
            continue
        start = found.end()
        if found.group(1) == b"%":
            magic = re.match(rb"%(pip|conda|mamba|uv)\b", mapping.python[found.start(1) : line_end])
            if magic is None:
                continue
            start = found.start(1) + 1  # `pip install ...`
        yield (start, line_end)


def python_view(mapping: CellMap, shell: list[tuple[int, int]]) -> bytes:
    """The buffer with its magic lines made comments (same length, so offsets hold) for the Python parser."""
    python = bytearray(mapping.python)
    for found in _MAGIC_LINE.finditer(python):
        python[found.start(1)] = 0x23  # `#`
    for cell in mapping.cells:
        if cell.shell:
            for index in range(cell.start, cell.end):
                if python[index] not in (0x0A, 0x0D):
                    python[index] = 0x20
    return bytes(python)


class NotebookAnalyzer:
    language = "notebook"
    incremental = None

    def __init__(self, ruleset: RuleSet) -> None:
        from .python.analyzer import PythonAnalyzer

        self.ruleset = ruleset
        self.json = grammars.parser("json")
        self.python = PythonAnalyzer(ruleset)
        self.shell = ShellReader()

    def parse(self, data: bytes, old_tree: Any | None = None) -> Any:
        return self.json.parse(data)

    def analyze(
        self, data: bytes, tree: Any, context: FileContext, ranges: list[tuple[int, int]] | None = None
    ) -> list[Finding]:
        mapping = cell_map(data, tree.root_node)
        shell = list(shell_lines(mapping))
        view = python_view(mapping, shell)
        python_tree = self.python.parse(view)
        findings = self.python.analyze(view, python_tree, context)
        matcher = Matcher(self.ruleset, "shell", context, view)
        for lo, hi in shell:
            matcher.feed(self.shell.tokens(view[lo:hi], lo))
        found = [*findings, *matcher.findings]
        # `# cudaport: ignore[...]` in a cell is a comment of the cells' Python, not of the notebook's JSON.
        suppressions = find_suppressions(view, python_tree.root_node)
        if suppressions:
            lines = LineIndex(view)
            found = [f for f in found if not suppressions.covers(f.rule, lines.line_of(f.start))]
        out = [f for f in (self._mapped(f, mapping, data) for f in found) if f is not None]
        if ranges is not None:
            out = [f for f in out if any(lo <= f.start < hi or f.start == lo for lo, hi in ranges)]
        return sorted(out, key=Finding.sort_key)

    def suppression_edits(self, data: bytes, tree: Any, starts: Sequence[tuple[int, str]]) -> comments.Placed:
        """`# cudaport: ignore[...]` in the cells' Python, placed as in a .py file, written into the JSON strings
        that hold those lines (for `fix --add-ignore`)."""
        mapping = cell_map(data, tree.root_node)
        view = python_view(mapping, list(shell_lines(mapping)))
        python_tree = self.python.parse(view)
        in_view = [(bisect.bisect_left(mapping.offsets, start), code) for start, code in starts]
        placed = comments.suppression_edits(view, python_tree.root_node, in_view, comments.PYTHON)
        edits: list[tuple[comments.ByteEdit, list[int]]] = []
        for (start, end, text), indexes in placed.edits:
            assert start == end, "suppressions are insertions"
            position = _raw_after(mapping, start - 1) if start > 0 else mapping.raw(0)
            escaped = json.dumps(text.decode("utf-8"), ensure_ascii=False)[1:-1].encode("utf-8")
            edits.append(((position, position, escaped), indexes))
        return comments.Placed(edits, placed.refused)

    def _mapped(self, finding: Finding, mapping: CellMap, data: bytes) -> Finding | None:
        cell = mapping.cell_of(finding.start)
        if cell is None:
            return None
        fix = finding.fix
        if fix is not None:
            edits: list[Edit] = []
            for edit in fix.edits:
                if mapping.cell_of(edit.start) is not cell or mapping.cell_of(edit.end) is not cell:
                    edits = []  # an edit outside the finding's cell (an import at the notebook's top): not here
                    break
                text = json.dumps(edit.text, ensure_ascii=False)[1:-1]
                edits.append(Edit(mapping.raw(edit.start), _raw_end(mapping, edit), text))
            fix = replace(fix, edits=tuple(edits)) if edits else None
        line = mapping.python.count(b"\n", cell.start, finding.start) + 1
        data_out = finding.data.copy()
        data_out["cell"] = str(cell.index)
        data_out["cell_line"] = str(line)
        return replace(
            finding,
            start=mapping.raw(finding.start),
            end=_raw_end(mapping, finding),
            fix=fix,
            replacement=finding.replacement if fix is not None else None,
            data=data_out,
        )


def _raw_end(mapping: CellMap, span: Edit | Finding) -> int:
    """The notebook byte just after the span's last byte (an empty span: where it starts)."""
    if span.end <= span.start:
        return mapping.raw(span.start)
    last = span.end - 1
    raw = mapping.raw(last)
    return raw + _encoded_length(mapping, last)


def _raw_after(mapping: CellMap, offset: int) -> int:
    """The notebook byte just after the encoding of the buffer byte at `offset` (inside the same JSON string)."""
    return mapping.raw(offset) + _encoded_length(mapping, offset)


def _encoded_length(mapping: CellMap, offset: int) -> int:
    """How many notebook bytes encode the buffer byte at `offset` (1, or an escape's length for its last byte)."""
    here = mapping.offsets[offset]
    following = mapping.offsets[offset + 1] if offset + 1 < len(mapping.offsets) else here + 1
    return max(1, following - here) if following > here else 1
