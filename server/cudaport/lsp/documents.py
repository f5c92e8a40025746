"""The open documents: their text as the UTF-8 buffer the engine analyses, version, syntax tree, findings and
line index, kept in step with the editor's incremental changes.

Each change is applied to the bytes, the line index, the tree (`Tree.edit`, so the next parse can reuse it)
and the findings (those after the change move with it; those it touches are dropped until re-analysis), and
the changed byte range is remembered so that only that part of the file is analysed again."""

from __future__ import annotations

import logging
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.uris import to_fs_path

from ..analyzers.base import FileContext
from ..models import Edit, Finding, Fix
from ..source import LineIndex
from .languages import detect_language, profile
from .positions import to_offset

log = logging.getLogger(__name__)

_BINARY_SNIFF = 8192


@dataclass(eq=False)
class Document:
    uri: str
    path: Path | None
    language_id: str
    language: str | None  # the engine's language, None when cudaport does not analyse this kind of file
    version: int
    data: bytes
    lines: LineIndex
    tree: Any | None = None
    findings: list[Finding] = field(default_factory=list)
    # Analysis bookkeeping: byte ranges changed since the last analysis (in current coordinates), whether the
    # next analysis must cover the whole file, which version and configuration the findings describe.
    dirty: list[tuple[int, int]] = field(default_factory=list)
    refresh: list[tuple[int, int]] = field(default_factory=list)  # findings to find again, where they are
    needs_full: bool = True
    analysed_version: int | None = None
    config_token: object | None = None
    context: FileContext | None = None
    context_stale: bool = False  # an edit touched an #include: the project headers are looked up again
    incremental_runs: int = 0  # incremental analyses since the last whole-file one
    # Functions the file declares with names the rule data knows (see LanguageProfile.declarations): byte span and
    # name, kept in step with edits like findings.
    declarations: list[tuple[int, int, str]] = field(default_factory=list)
    changed_at: float | None = None  # when the oldest change not yet reflected in published diagnostics arrived
    # Diagnostics already built (JSON form), by finding: a keystroke moves few findings' LSP positions, and the
    # others' diagnostics are sent again as they were. The key says what they were built for.
    rendered: dict[int, Any] = field(default_factory=dict)  # id(finding) -> diagnostics.Rendered
    rendered_for: tuple[object, ...] = ()
    result_id: int = 0  # bumped whenever the findings are recomputed (pull diagnostics' resultId)
    skipped: str | None = None  # why the buffer is not analysed (too large, binary, excluded, ...)
    reported_skip: str | None = None  # the skip reason the user has already been told about

    @property
    def current(self) -> bool:
        return self.analysed_version == self.version and not self.dirty and not self.refresh and not self.needs_full

    @property
    def binary(self) -> bool:
        return b"\x00" in self.data[:_BINARY_SNIFF]

    def text_range(self, start: int, end: int) -> str:
        return self.data[start:end].decode("utf-8", "replace")


class DocumentStore:
    def __init__(self) -> None:
        self._documents: dict[str, Document] = {}

    def __iter__(self) -> Any:
        return iter(list(self._documents.values()))

    def __len__(self) -> int:
        return len(self._documents)

    def get(self, uri: str) -> Document | None:
        return self._documents.get(uri)

    def open(self, item: types.TextDocumentItem) -> Document:
        path = uri_path(item.uri)
        data = encode(item.text)
        document = Document(
            uri=item.uri,
            path=path,
            language_id=item.language_id or "",
            language=detect_language(path, item.language_id or ""),
            version=item.version,
            data=data,
            lines=LineIndex(data),
        )
        self._documents[item.uri] = document
        return document

    def close(self, uri: str) -> Document | None:
        return self._documents.pop(uri, None)

    def change(
        self, identifier: types.VersionedTextDocumentIdentifier, changes: list[Any], unit: str
    ) -> Document | None:
        """Apply an editor's changes; None (and nothing applied) for an unknown document or a stale version."""
        document = self._documents.get(identifier.uri)
        if document is None:
            whole = [c for c in changes if isinstance(c, types.TextDocumentContentChangeWholeDocument)]
            if not whole:
                log.warning("ignoring a change to %s, which is not open", identifier.uri)
                return None
            # A full-text change says everything there is to know: treat it as the document being opened.
            item = types.TextDocumentItem(
                uri=identifier.uri, language_id="", version=identifier.version, text=whole[-1].text
            )
            return self.open(item)
        if identifier.version is not None and identifier.version <= document.version:
            log.warning(
                "ignoring version %s of %s: version %s is already applied (out-of-order change)",
                identifier.version,
                identifier.uri,
                document.version,
            )
            return None
        for change in changes:
            if isinstance(change, types.TextDocumentContentChangePartial):
                start = to_offset(document.lines, change.range.start, unit)
                end = to_offset(document.lines, change.range.end, unit)
                if end < start:
                    start, end = end, start
                replace_bytes(document, start, end, encode(change.text))
            else:
                replace_all(document, encode(change.text))
        if identifier.version is not None:
            document.version = identifier.version
        return document


def uri_path(uri: str) -> Path | None:
    if not uri.startswith("file:"):
        return None
    try:
        path = to_fs_path(uri)
    except Exception:  # a malformed URI is a document without a file, not a crash
        return None
    return Path(path) if path else None


def encode(text: str) -> bytes:
    # Lone surrogates (JSON allows them) survive as their raw encoding instead of failing the whole buffer.
    return text.encode("utf-8", "surrogatepass")


def replace_all(document: Document, data: bytes) -> None:
    """A whole-document change. Editors with full sync send one per keystroke: the common prefix and suffix with
    the current text reduce it to the edit actually made, so such clients get incremental analysis too."""
    old = document.data
    if data == old:
        return
    prefix = _common_prefix(old, data)
    suffix = _common_suffix(old, data, prefix)
    replace_bytes(document, prefix, len(old) - suffix, data[prefix : len(data) - suffix])


def replace_bytes(document: Document, start: int, end: int, text: bytes) -> None:
    """Replace bytes [start, end) of the buffer with `text`, keeping lines, tree, findings and dirty ranges in step."""
    old = document.data
    start = max(0, min(start, len(old)))
    end = max(start, min(end, len(old)))
    if old[start:end] == text:
        return
    lines = document.lines
    new_end = start + len(text)
    data = old[:start] + text + old[end:]
    language_profile = profile(document.language) if document.language else None
    if language_profile is not None and language_profile.file_wide is not None and not document.needs_full:
        touched_old = (old.rfind(b"\n", 0, start) + 1, _line_end(old, end))
        touched_new = (touched_old[0], _line_end(data, new_end))

        def touches(pattern: re.Pattern[bytes] | None) -> bool:
            return pattern is not None and bool(pattern.search(old, *touched_old) or pattern.search(data, *touched_new))

        if touches(language_profile.file_wide):
            document.needs_full = True  # a directive, import or suppression: findings anywhere may change
        elif touches(language_profile.context_lines):
            document.context_stale = True
    if document.tree is not None:
        start_point = _point(lines, start)
        old_end_point = _point(lines, end)
        newlines = text.count(b"\n")
        if newlines:
            new_end_point = (start_point[0] + newlines, len(text) - text.rfind(b"\n") - 1)
        else:
            new_end_point = (start_point[0], start_point[1] + len(text))
        document.tree.edit(
            start_byte=start,
            old_end_byte=end,
            new_end_byte=new_end,
            start_point=start_point,
            old_end_point=old_end_point,
            new_end_point=new_end_point,
        )
    document.lines = lines.replaced(start, end, text, data)
    document.data = data
    delta = len(text) - (end - start)

    def moved(lo: int, hi: int) -> tuple[int, int] | None:
        """A range after the change, moved with it; None when the change touches it."""
        if hi < start:
            return lo, hi
        if lo > end:
            return lo + delta, hi + delta
        return None

    def covering(lo: int, hi: int) -> tuple[int, int]:
        """A range the change touches, in new coordinates, grown to cover what replaced it."""
        return min(lo, start), max(hi + delta if hi > end else new_end, new_end)

    dirty = [(start, new_end)]
    for lo, hi in document.dirty:
        dirty.append(moved(lo, hi) or covering(lo, hi))
    refresh = []
    for lo, hi in document.refresh:
        kept_range = moved(lo, hi)
        if kept_range is not None:
            refresh.append(kept_range)
        else:
            dirty.append(covering(lo, hi))  # edited in the meantime: analysed with the edit
    # Messages of already-ported code name the line of the directive that selects the target's path: when lines
    # come or go before it, those findings are found again where they are (they are few).
    lines_moved = text.count(b"\n") != old.count(b"\n", start, end)
    rendered = document.rendered
    edit_line_end = _line_end(data, new_end)
    kept: list[Finding] = []
    for finding in document.findings:
        if touched_by(finding, start, end):
            # The change touches the finding or its fix: it is found again (or not) by re-analysis.
            dirty.append(covering(finding.start, finding.end))
            continue
        after = finding.start > end
        if after and lines_moved and finding.data.get("ported"):
            refresh.append((finding.start + delta, finding.end + delta))
            continue
        kept.append(_moved(finding, end, delta))
        if after and (lines_moved or finding.start <= edit_line_end):
            rendered.pop(id(finding), None)  # its line or column moved; before the change nothing moves
    document.findings = kept
    document.dirty = dirty
    document.refresh = refresh
    declarations = []
    for lo, hi, name in document.declarations:
        kept_range = moved(lo, hi)
        if kept_range is None:
            document.needs_full = True  # a CUDA-named declaration edited: uses anywhere may change meaning
        else:
            declarations.append((*kept_range, name))
    document.declarations = declarations


def touched_by(finding: Finding, start: int, end: int) -> bool:
    """Whether a change of [start, end) touches the finding or one of its fix's edits (an edit far away, like the
    import a Python fix inserts at the top, does not make the finding's neighbourhood matter)."""
    if finding.end >= start and finding.start <= end:
        return True
    fix = finding.fix
    return fix is not None and any(e.end >= start and e.start <= end for e in fix.edits)


def _moved(finding: Finding, end: int, delta: int) -> Finding:
    """A finding the change does not touch, with its offsets and its fix's moved where they lie after it."""
    if delta == 0:
        return finding
    if finding.start > end:
        finding.start += delta
        finding.end += delta
    fix = finding.fix
    if fix is not None and any(e.start > end for e in fix.edits):
        edits = tuple(Edit(e.start + delta, e.end + delta, e.text) if e.start > end else e for e in fix.edits)
        finding.fix = Fix(fix.title, edits, fix.applicability)
    return finding


def _point(lines: LineIndex, offset: int) -> tuple[int, int]:
    row = lines.line_of(offset)
    return row, offset - lines.line_start(row)


def _line_end(data: bytes, offset: int) -> int:
    end = data.find(b"\n", offset)
    return len(data) if end == -1 else end


def _common_prefix(a: bytes, b: bytes) -> int:
    """Length of the common prefix, by bisection over slice comparisons (memcmp, not a Python loop)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(a: bytes, b: bytes, prefix: int) -> int:
    lo, hi = 0, min(len(a), len(b)) - prefix
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[len(a) - mid :] == b[len(b) - mid :]:
            lo = mid
        else:
            hi = mid - 1
    return lo
