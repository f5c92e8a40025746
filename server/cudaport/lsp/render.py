"""Findings as LSP diagnostics in JSON form, and the diagnostics of a document kept rendered between keystrokes.

Everything in a diagnostic but its range is the same for every finding with the same rule, message and rating
(all the `cudaMalloc`s of a file), so that part is built and serialised once and shared. A document's findings are
held in blocks (cudaport.findingstore): each block's diagnostics are rendered once, as one JSON text with its line
numbers left as `%d` slots, and kept until the block's findings change. An edit above a block moves all its lines
by the same count, which refills the slots (a C-level `%`); an edit elsewhere leaves its text as it was. A
document's list is those texts joined: for 5,000 findings, a join and one block rendered again per keystroke."""

from __future__ import annotations

import json
from functools import cache
from typing import TYPE_CHECKING, Any, ClassVar

from ..engine.store import Block, FindingStore
from ..knowledge.ruleset import RuleSet
from ..model.findings import Difficulty, Finding
from ..model.records import record
from ..model.source import LineIndex
from ..model.words import difficulty_word  # the diagnostic's `data` keeps the English name for machines

if TYPE_CHECKING:  # loaded where a typed message needs it: the first diagnostics go out before the library loads
    from cattrs import Converter
    from lsprotocol import types

IDENTIFIER = "cudaport"


@record(frozen=True, slots=True)
class Style:
    """What a diagnostic's JSON depends on besides its finding."""

    unit: str  # the negotiated position encoding's column unit
    target: str
    ruleset: RuleSet
    code_descriptions: bool  # whether the client shows `codeDescription` links
    show_portable: bool
    language: str  # of the messages (i18n.language() when the style was made)

    @property
    def key(self) -> tuple[object, ...]:
        return (self.unit, self.target, id(self.ruleset), self.code_descriptions, self.show_portable, self.language)


class DiagnosticBuilder:
    """One finding's diagnostic, as a dict or as JSON text with its two line numbers as `%d` slots."""

    # (rule, message, ratings, target, ...) -> (the shared part as a dict, its JSON without the braces, `%` doubled)
    _shared: ClassVar[dict[tuple[object, ...], tuple[dict[str, Any], str]]] = {}

    def __init__(self, lines: LineIndex, style: Style) -> None:
        self.lines = lines
        self.style = style

    def build(self, finding: Finding) -> dict[str, Any]:
        position = self.lines.position
        unit = self.style.unit
        line, column = position(finding.start, unit)
        end_line, end_column = position(finding.end, unit)
        return {
            "range": {
                "start": {"line": line, "character": column},
                "end": {"line": end_line, "character": end_column},
            },
            **self._constant_part(finding)[0],
        }

    def template(self, finding: Finding) -> tuple[bytes, int, int]:
        """(the diagnostic's JSON (ASCII) with `%d` for its start and end lines, start line, end line)."""
        position = self.lines.position
        unit = self.style.unit
        line, column = position(finding.start, unit)
        end_line, end_column = position(finding.end, unit)
        text = (
            f'{{"range":{{"start":{{"line":%d,"character":{column}}},"end":{{"line":%d,"character":{end_column}}}}},'
            f"{self._constant_part(finding)[1]}}}"
        )
        return text.encode(), line, end_line

    def _constant_part(self, finding: Finding) -> tuple[dict[str, Any], str]:
        fixable = finding.fixable
        style = self.style
        key = (
            finding.rule,
            finding.message,
            finding.difficulty,
            finding.severity,
            finding.symbol,
            finding.replacement,
            fixable,
            style.target,
            style.code_descriptions,
            id(style.ruleset),
            style.language,
        )
        shared = self._shared.get(key)
        if shared is not None:
            return shared
        difficulty = finding.difficulty.label
        ruleset = style.ruleset
        symbol = ruleset.symbols.get(finding.symbol)
        part: dict[str, Any] = {
            "message": f"[{difficulty_word(finding.difficulty)}] {finding.message}",
            "severity": int(finding.severity),
            "code": finding.rule,
            "source": IDENTIFIER,
            "data": {
                "difficulty": difficulty,
                "target": style.target,
                "symbol": finding.symbol,
                "replacement": finding.replacement,
                "fixable": fixable,
            },
        }
        url = ruleset.rule_url(finding.rule) if style.code_descriptions else ""
        if url:
            part["codeDescription"] = {"href": url}
        if symbol is not None and (symbol.deprecated or symbol.removed):
            part["tags"] = [_DEPRECATED]
        if len(self._shared) > 50_000:
            self._shared.clear()
        shared = (part, json.dumps(part, separators=(",", ":"))[1:-1].replace("%", "%%"))
        self._shared[key] = shared
        return shared


def as_lsp(diagnostic: dict[str, Any]) -> types.Diagnostic:
    """The lsprotocol form, for the few places that embed a diagnostic in a typed message (code actions)."""
    from lsprotocol import types

    result: types.Diagnostic = _converter().structure(diagnostic, types.Diagnostic)
    return result


@cache
def _converter() -> Converter:
    from lsprotocol.converters import get_converter

    return get_converter()


_DEPRECATED = 2  # DiagnosticTag.Deprecated


class _BlockText:
    """A block's diagnostics as JSON: the text, the template it was filled from and the lines it was filled with."""

    __slots__ = ("block", "count", "line", "lines", "template", "text", "version")

    def __init__(self, block: Block, store: FindingStore, builder: DiagnosticBuilder, lines: LineIndex) -> None:
        self.block = block
        self.version = block.version
        settled = store.settled(block)
        shown = [f for f in settled if builder.style.show_portable or f.difficulty > Difficulty.PORTABLE]
        templates = []
        numbers: list[int] = []
        for finding in shown:
            template, line, end_line = builder.template(finding)
            templates.append(template)
            numbers += (line, end_line)
        self.template = b",".join(templates)
        self.lines = tuple(numbers)
        self.text = self.template % self.lines
        self.count = len(shown)
        self.line = lines.line_of(block.start)  # the first finding's line (shown or not): what an edit above moves

    def current(self, lines: LineIndex) -> bytes:
        line = lines.line_of(self.block.start)
        if line != self.line:
            moved = line - self.line
            self.lines = tuple(map(moved.__add__, self.lines))
            self.text = self.template % self.lines
            self.line = line
        return self.text


class RenderedDiagnostics:
    """The diagnostics of one document's findings, kept rendered between keystrokes (see the module's text)."""

    def __init__(self) -> None:
        self._style: tuple[object, ...] | None = None
        self._blocks: dict[int, _BlockText] = {}
        self._extras: dict[int, tuple[Finding, int, bytes]] = {}  # id -> (finding, version, JSON)
        self.count = 0  # diagnostics in the last list rendered

    def json(self, store: FindingStore, lines: LineIndex, style: Style) -> str:
        """The diagnostics of `store`'s findings as a JSON array."""
        return b"".join(self.pieces(store, lines, style)).decode()

    def pieces(self, store: FindingStore, lines: LineIndex, style: Style) -> list[bytes]:
        """The same, as pieces of ASCII JSON to write one after the other (a block's diagnostics each, kept as
        bytes: nothing is encoded or copied on a keystroke)."""
        if style.key != self._style:
            self._style = style.key
            self._blocks = {}
            self._extras = {}
        builder = DiagnosticBuilder(lines, style)
        parts: list[bytes] = []
        count = 0
        blocks: dict[int, _BlockText] = {}
        cache = self._blocks
        for block in store.blocks:
            entry = cache.get(id(block))
            if entry is None or entry.block is not block or entry.version != block.version:
                entry = _BlockText(block, store, builder, lines)
                text = entry.text
            else:
                text = entry.current(lines)
            blocks[id(block)] = entry
            if entry.count:
                parts.append(text)
                count += entry.count
        self._blocks = blocks
        extras: dict[int, tuple[Finding, int, bytes]] = {}
        versions = store.extra_versions
        for finding in store.extras:
            if not style.show_portable and finding.difficulty == Difficulty.PORTABLE:
                continue
            key = id(finding)
            version = versions[key]
            known = self._extras.get(key)
            if known is None or known[0] is not finding or known[1] != version:
                template, line, end_line = builder.template(finding)
                known = (finding, version, template % (line, end_line))
            extras[key] = known
            parts.append(known[2])
            count += 1
        self._extras = extras
        self.count = count
        if not parts:
            return [b"[]"]
        out = [b"["]
        for part in parts:
            out += (part, b",")
        out[-1] = b"]"
        return out
