"""The open documents: what the editor knows of each (URI, version, language id) and the engine's analysis session
that holds its text as the UTF-8 buffer the engine analyses (cudaport.session), kept in step with the editor's
incremental changes. Positions arrive in the negotiated encoding and become byte offsets here."""

from __future__ import annotations

import itertools
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from pygls.uris import to_fs_path

from ..engine.session import Session
from ..model.findings import Finding
from ..model.records import field, record
from ..model.source import LineIndex
from .languages import detect_language
from .positions import to_offset
from .render import RenderedDiagnostics

if TYPE_CHECKING:  # the protocol library is loaded after the first diagnostics (cudaport.lsp.prelude)
    from lsprotocol import types

    from ..engine.engine import Engine

log = logging.getLogger(__name__)

_BINARY_SNIFF = 8192
_COALESCE = 8  # more ranges than this in one change notification are applied as one edit


class TextItem(Protocol):
    """An opened document as the client sent it (lsprotocol's TextDocumentItem, or the prelude's own)."""

    @property
    def uri(self) -> str: ...
    @property
    def language_id(self) -> str: ...
    @property
    def version(self) -> int: ...
    @property
    def text(self) -> str: ...


@record(frozen=True)
class Skip:
    """Why a buffer is not analysed, in the user's language; `warn`: worth a message (too large, binary), not
    just a log line (not a source cudaport reads, excluded)."""

    reason: str
    warn: bool = False


@record(eq=False)
class Document:
    """An open buffer: what the editor knows of it (URI, version, language id) and its analysis session, which
    the engine owns (text, line index, tree, findings)."""

    uri: str
    path: Path | None
    language_id: str
    version: int
    session: Session
    analysed_version: int | None = None  # the version the findings describe
    config_token: object | None = None  # the configuration they were found under
    changed_at: float | None = None  # when the oldest change not yet reflected in published diagnostics arrived
    changed_cpu: float = 0.0  # the server thread's CPU time then (time.thread_time)
    # Its diagnostics as sent, kept rendered between keystrokes (see cudaport.lsp.render).
    rendered: RenderedDiagnostics = field(default_factory=RenderedDiagnostics)
    held: bool = False  # edited since its last save while the editor asks for diagnostics on save only
    # Pull diagnostics' resultId: a new one, unique in the process, whenever the findings are recomputed (a
    # document closed and reopened must not answer a stale pull with "unchanged").
    result_id: int = field(default_factory=lambda: next_result_id())
    skipped: Skip | None = None  # why the buffer is not analysed (too large, binary, excluded, ...)
    reported_skip: Skip | None = None  # the skip reason the user has already been told about
    # Settling a local analysis (cudaport.session) changed the findings the client was given: they are sent again.
    settled_differently: bool = False
    # While a whole-file analysis of a snapshot runs off the message loop (cudaport.lsp.background): the edits
    # made since, (start, end, text) in bytes (start -1: the whole text replaced), replayed onto its session.
    edit_log: list[tuple[int, int, bytes]] | None = None

    # The session's state, as the features read it.
    @property
    def data(self) -> bytes:
        return self.session.data

    @property
    def lines(self) -> LineIndex:
        return self.session.lines

    @property
    def tree(self) -> Any | None:
        return self.session.tree

    @property
    def findings(self) -> list[Finding]:
        return self.session.findings

    @property
    def language(self) -> str | None:
        return self.session.language

    @property
    def incremental_runs(self) -> int:
        return self.session.incremental_runs

    @property
    def current(self) -> bool:
        return self.analysed_version == self.version and self.session.current

    @property
    def binary(self) -> bool:
        return b"\x00" in self.data[:_BINARY_SNIFF]

    def text_range(self, start: int, end: int) -> str:
        return self.data[start:end].decode("utf-8", "replace")

    def replace_bytes(self, start: int, end: int, text: bytes) -> None:
        if self.edit_log is not None:
            self.edit_log.append((start, end, text))
        self.session.edit(start, end, text)

    def replace_all(self, data: bytes) -> None:
        if self.edit_log is not None:
            self.edit_log.append((-1, -1, data))
        self.session.replace_all(data)


_RESULT_IDS = itertools.count(1)


def next_result_id() -> int:
    return next(_RESULT_IDS)


class DocumentStore:
    def __init__(self, engine_for: Callable[[Path | None], Engine]) -> None:
        """`engine_for(path)`: the engine of the configuration that applies to a file."""
        self._engine_for = engine_for
        self._documents: dict[str, Document] = {}

    def __iter__(self) -> Any:
        return iter(list(self._documents.values()))

    def __len__(self) -> int:
        return len(self._documents)

    def get(self, uri: str) -> Document | None:
        return self._documents.get(uri)

    def open(self, item: TextItem) -> Document:
        path = uri_path(item.uri)
        if item.uri.startswith(NOTEBOOK_CELL):
            # A notebook cell is its own Python buffer: the configuration and project are the notebook's.
            language = detect_language(None, item.language_id or "")
        else:
            language = detect_language(path, item.language_id or "")
        document = Document(
            uri=item.uri,
            path=path,
            language_id=item.language_id or "",
            version=item.version,
            session=Session(self._engine_for(path), path, encode(item.text), language),
        )
        self._documents[item.uri] = document
        return document

    def close(self, uri: str) -> Document | None:
        return self._documents.pop(uri, None)

    def change(
        self, identifier: types.VersionedTextDocumentIdentifier, changes: list[Any], unit: str
    ) -> Document | None:
        """Apply an editor's changes; None (and nothing applied) for an unknown document or a stale version."""
        from lsprotocol import types

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
        partial = [c for c in changes if isinstance(c, types.TextDocumentContentChangePartial)]
        if len(partial) == len(changes) and len(partial) > _COALESCE:
            # A replace-all or a multi-cursor edit: thousands of ranges. Applied to the text alone, then given to
            # the session as one change (the span from the first edited byte to the last).
            document.replace_all(_applied(document.data, document.lines, partial, unit))
            partial = changes = []
        for change in changes:
            if isinstance(change, types.TextDocumentContentChangePartial):
                start = to_offset(document.lines, change.range.start, unit)
                end = to_offset(document.lines, change.range.end, unit)
                if end < start:
                    start, end = end, start
                document.replace_bytes(start, end, encode(change.text))
            else:
                document.replace_all(encode(change.text))
        if identifier.version is not None:
            document.version = identifier.version
        return document


def _applied(data: bytes, lines: LineIndex, changes: list[Any], unit: str) -> bytes:
    """The buffer after `changes`, each in the coordinates the previous ones left."""
    for change in changes:
        start = to_offset(lines, change.range.start, unit)
        end = to_offset(lines, change.range.end, unit)
        if end < start:
            start, end = end, start
        text = encode(change.text)
        new = data[:start] + text + data[end:]
        lines = lines.replaced(start, end, text, new)
        data = new
    return data


NOTEBOOK_CELL = "vscode-notebook-cell:"


def uri_path(uri: str) -> Path | None:
    """The file behind a URI; for a notebook cell, the notebook's."""
    if uri.startswith(NOTEBOOK_CELL):
        uri = "file:" + uri[len(NOTEBOOK_CELL) :].split("#", 1)[0]
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
