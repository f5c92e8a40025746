"""The server's one shared store (open documents, configuration, what the client can do) and the snapshots that
request handlers hand to features: a document brought up to date, with the configuration that applies to it, the
client's capabilities and the position encoding. A feature sees a snapshot, never the server or another feature
(ruff's server hands its handlers a session snapshot the same way)."""

from __future__ import annotations

import gc
import logging
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .. import i18n
from ..engine.engine import Engine
from ..i18n import N_
from ..model.findings import Difficulty, Finding
from ..model.records import record
from ..model.source import LineIndex
from . import analysis, logs
from .background import INLINE_FULL, Background
from .capabilities import ClientCapabilities
from .configuration import Configuration, Resolved
from .documents import Document, DocumentStore, Skip, next_result_id
from .options import EditorOptions
from .render import DiagnosticBuilder, Style

if TYPE_CHECKING:
    from lsprotocol import types

    from .initialize import InitializeRequest

log = logging.getLogger(__name__)


@record(frozen=True, slots=True, eq=False)
class Snapshot:
    """One document as a request sees it."""

    document: Document
    resolved: Resolved
    capabilities: ClientCapabilities
    unit: str  # the column unit of the negotiated position encoding

    @property
    def uri(self) -> str:
        return self.document.uri

    @property
    def data(self) -> bytes:
        return self.document.data

    @property
    def lines(self) -> LineIndex:
        return self.document.lines

    @property
    def findings(self) -> list[Finding]:
        return self.document.findings

    def findings_overlapping(self, start: int, end: int) -> list[Finding]:
        """The findings whose range meets [start, end] (touching counts), without reading every finding."""
        return self.document.session.findings_overlapping(start, end)

    @property
    def tree(self) -> Any | None:
        return self.document.tree

    @property
    def language(self) -> str | None:
        return self.document.language

    @property
    def path(self) -> Path | None:
        return self.document.path

    @property
    def version(self) -> int:
        return self.document.version

    @property
    def skipped(self) -> Skip | None:
        return self.document.skipped

    @property
    def options(self) -> EditorOptions:
        return self.resolved.options

    @property
    def engine(self) -> Engine:
        return self.resolved.engine

    @property
    def style(self) -> Style:
        return style(self.resolved, self.capabilities, self.unit)

    def builder(self) -> DiagnosticBuilder:
        return DiagnosticBuilder(self.lines, self.style)

    def shown(self, finding: Finding) -> bool:
        """Whether the finding is a diagnostic under these options (portable ones can be hidden)."""
        return self.options.show_portable or finding.difficulty > Difficulty.PORTABLE


def style(resolved: Resolved, capabilities: ClientCapabilities, unit: str) -> Style:
    return Style(
        unit=unit,
        target=resolved.settings.target,
        ruleset=resolved.engine.ruleset,
        code_descriptions=capabilities.code_descriptions,
        show_portable=resolved.options.show_portable,
        language=i18n.language(),
    )


class Store:
    def __init__(self) -> None:
        """Messages for the user go through the server once it connect()s; until then (the first diagnostics are
        served before the server is up: cudaport.lsp.prelude) they wait."""
        self.configuration = Configuration(report=lambda message: self._show(lambda: self._report(message)))
        self.documents = DocumentStore(lambda path: self.configuration.resolve(path).engine)
        self.capabilities = ClientCapabilities()
        self.unit = "utf-16"
        self.shutdown_requested = False
        self.started: InitializeRequest | None = None  # the client's initialize request, once it is read
        self._report: Callable[[str], None] = _unconnected
        self._tell: Callable[[str, types.MessageType], None] = _unconnected
        self._held: list[Callable[[], None]] | None = []  # None once connected
        self.gc_tuned = False
        # Whole-file analyses of large buffers, off the message loop (the server's; the prelude has none).
        self.background: Background | None = None

    def connect(self, report: Callable[[str], None], tell: Callable[[str, types.MessageType], None]) -> None:
        """`report(message)` shows a configuration problem, `tell(message, kind)` any other message; what waited
        for them is shown now."""
        self._report, self._tell = report, tell
        held, self._held = self._held or [], None
        for show in held:
            show()

    def _show(self, show: Callable[[], None]) -> None:
        if self._held is not None:
            self._held.append(show)
        else:
            show()

    def resolve(self, document: Document) -> Resolved:
        return self.configuration.resolve(document.path)

    # ---- snapshots ------------------------------------------------------------------------------------------
    def snapshot(self, uri: str, local_first: bool = False) -> Snapshot | None:
        """The document at `uri` brought up to date (unless it waits for its next save), or None if not open."""
        document = self.documents.get(uri)
        if document is None:
            return None
        if not document.held:
            self.bring_up_to_date(document, local_first=local_first)
        return self.snapshot_of(document)

    def snapshot_of(self, document: Document) -> Snapshot:
        """The document as it is (no analysis)."""
        return Snapshot(document, self.resolve(document), self.capabilities, self.unit)

    # ---- analysis -------------------------------------------------------------------------------------------
    def bring_up_to_date(
        self, document: Document, whole_file: bool = False, local_first: bool = False
    ) -> analysis.Outcome:
        """Analyse `document` now if its findings are stale (never raises: a failure is logged, not fatal)."""
        resolved = self.resolve(document)
        try:
            outcome = analysis.analyse(document, resolved, whole_file, local_first, self.background)
        except Exception:
            self._failed(document)
            return analysis.Outcome("failed")
        if outcome.mode == "full":
            self.analysed_whole()
        if outcome.mode == "deferred":
            log.debug("analysing %s v%s on the analysis thread", document.uri, document.version)
        elif outcome.mode != "current":
            log.debug(
                "analysed %s v%s: %s in %.1f ms (%d windows, %d findings)",
                document.uri,
                document.version,
                outcome.mode,
                outcome.seconds * 1000,
                outcome.windows,
                len(document.session.store),
            )
        self._tell_about_skip(document)
        return outcome

    def settle(self, document: Document) -> None:
        """Confirm a local analysis (analysis.settle; never raises, like bring_up_to_date)."""
        try:
            analysis.settle(document, allow_full=self.background is None or len(document.data) <= INLINE_FULL)
        except Exception:
            self._failed(document)
            document.settled_differently = True

    def analysed_whole(self) -> None:
        """After the first whole-file analysis (the analyzer's tables are loaded): the collector is tuned."""
        if not self.gc_tuned:
            self.gc_tuned = True
            tune_gc()

    @staticmethod
    def fail(document: Document) -> None:
        """The document's analysis failed (already reported): no findings until it is analysed again."""
        document.session.clear()
        document.analysed_version = document.version
        document.result_id = next_result_id()

    @staticmethod
    def _failed(document: Document) -> None:
        log.exception(logs.said(N_("analysing {uri} failed; its diagnostics are cleared"), uri=document.uri))
        document.session.clear()
        document.analysed_version = document.version
        document.result_id = next_result_id()

    def _tell_about_skip(self, document: Document) -> None:
        reason = document.skipped
        if reason == document.reported_skip:
            return
        document.reported_skip = reason
        if reason is None:
            return
        name = document.path.name if document.path is not None else document.uri
        if reason.warn:
            self._warn(f"cudaport: {name}: {reason.reason}")
        else:
            log.info("%s: %s", name, reason.reason)

    def _warn(self, message: str) -> None:
        def show() -> None:
            from lsprotocol import types

            self._tell(message, types.MessageType.Warning)

        self._show(show)


def _unconnected(*_: object) -> None:
    raise AssertionError("the store shows messages only once connected")


def tune_gc() -> None:
    """Once the rule tables and the first document are loaded: those objects live as long as the server, so they
    are moved out of the collector's sight (gc.freeze), and young collections run less often. A full collection
    over the tables took 46-68 ms, in the middle of a keystroke."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 10, 10)
