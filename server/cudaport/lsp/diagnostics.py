"""Diagnostics for open documents: findings as LSP diagnostics, pushed to clients without pull support after a
debounce, served through `textDocument/diagnostic` to clients with it.

Each diagnostic carries the rule code, a link to the rule's documentation, the difficulty (in the message and in
`data`) and the severity the configuration gives it."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from lsprotocol import types

from ..models import Difficulty, Finding
from ..output.formats import rule_url
from ..ruleset import RuleSet
from ..source import LineIndex
from . import analysis
from .documents import Document
from .features import register
from .positions import to_range

if TYPE_CHECKING:
    from .server import CudaportServer

log = logging.getLogger(__name__)

IDENTIFIER = "cudaport"


def to_diagnostic(
    finding: Finding,
    lines: LineIndex,
    unit: str,
    target: str,
    ruleset: RuleSet,
    code_descriptions: bool = True,
) -> types.Diagnostic:
    difficulty = finding.difficulty.label
    symbol = ruleset.symbols.get(finding.symbol)
    deprecated = symbol is not None and bool(symbol.deprecated or symbol.removed)
    data: dict[str, Any] = {
        "difficulty": difficulty,
        "target": target,
        "symbol": finding.symbol,
        "replacement": finding.replacement,
        "fixable": finding.fixable,
    }
    return types.Diagnostic(
        range=to_range(lines, finding.start, finding.end, unit),
        message=f"[{difficulty}] {finding.message}",
        severity=types.DiagnosticSeverity(int(finding.severity)),
        code=finding.rule,
        code_description=types.CodeDescription(href=rule_url(finding.rule)) if code_descriptions else None,
        source=IDENTIFIER,
        tags=[types.DiagnosticTag.Deprecated] if deprecated else None,
        data=data,
    )


class Diagnostics:
    def __init__(self, server: CudaportServer) -> None:
        self.server = server
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._idle_checks: dict[str, asyncio.TimerHandle] = {}
        register(
            server,
            types.TEXT_DOCUMENT_DIAGNOSTIC,
            self.pull,
            types.DiagnosticOptions(identifier=IDENTIFIER, inter_file_dependencies=True, workspace_diagnostics=True),
        )

    # ---- what the client supports ---------------------------------------------------------------------------
    @property
    def pull_mode(self) -> bool:
        text_document = self.server.client_capabilities.text_document
        return text_document is not None and text_document.diagnostic is not None

    def code_descriptions(self) -> bool:
        text_document = self.server.client_capabilities.text_document
        publish = text_document.publish_diagnostics if text_document is not None else None
        return publish is None or publish.code_description_support is not False

    # ---- analysis and conversion ----------------------------------------------------------------------------
    def bring_up_to_date(self, document: Document, whole_file: bool = False) -> analysis.Outcome:
        """Analyse `document` now if its findings are stale (never raises: a failure is logged, not fatal)."""
        self._cancel(self._timers, document.uri)
        resolved = self.server.resolve(document)
        try:
            outcome = analysis.analyse(document, resolved, whole_file=whole_file)
        except Exception:
            log.exception("analysing %s failed; its diagnostics are cleared", document.uri)
            document.findings = []
            document.tree = None
            document.needs_full = True
            document.analysed_version = document.version
            document.dirty = []
            document.result_id += 1
            return analysis.Outcome("failed")
        if outcome.mode != "current":
            log.debug(
                "analysed %s v%s: %s in %.1f ms (%d windows, %d findings)",
                document.uri,
                document.version,
                outcome.mode,
                outcome.seconds * 1000,
                outcome.windows,
                len(document.findings),
            )
        self._tell_about_skip(document)
        return outcome

    def diagnostics_of(self, document: Document) -> list[types.Diagnostic]:
        resolved = self.server.resolve(document)
        show_portable = resolved.options.show_portable
        unit = self.server.unit
        descriptions = self.code_descriptions()
        target = resolved.settings.target
        ruleset = resolved.engine.ruleset
        return [
            to_diagnostic(f, document.lines, unit, target, ruleset, descriptions)
            for f in document.findings
            if show_portable or f.difficulty > Difficulty.PORTABLE
        ]

    def _tell_about_skip(self, document: Document) -> None:
        reason = document.skipped
        if reason == document.reported_skip:
            return
        document.reported_skip = reason
        if reason is None:
            return
        name = document.path.name if document.path is not None else document.uri
        if "limit" in reason or "binary" in reason:
            self.server.show_message(f"cudaport: {name}: {reason}", types.MessageType.Warning)
        else:
            log.info("%s: %s", name, reason)

    # ---- push ---------------------------------------------------------------------------------------------
    def schedule(self, document: Document, delay: float | None = None) -> None:
        """Re-analyse and publish after the debounce delay (push clients; pull clients ask when they want)."""
        if self.pull_mode:
            return
        if delay is None:
            delay = self.server.resolve(document).options.debounce / 1000
        self._cancel(self._timers, document.uri)
        self._cancel(self._idle_checks, document.uri)
        loop = asyncio.get_running_loop()
        self._timers[document.uri] = loop.call_later(delay, self._publish_now, document.uri)

    def _publish_now(self, uri: str) -> None:
        self._timers.pop(uri, None)
        document = self.server.documents.get(uri)
        if document is None:
            return
        outcome = self.bring_up_to_date(document)
        self.publish(document)
        if outcome.mode == "incremental":
            self._schedule_idle_check(document)

    def publish(self, document: Document) -> None:
        try:
            diagnostics = self.diagnostics_of(document)
        except Exception:
            log.exception("converting the findings of %s failed", document.uri)
            diagnostics = []
        self.server.text_document_publish_diagnostics(
            types.PublishDiagnosticsParams(uri=document.uri, diagnostics=diagnostics, version=document.version)
        )

    def clear(self, uri: str) -> None:
        self._cancel(self._timers, uri)
        self._cancel(self._idle_checks, uri)
        if not self.pull_mode:
            self.server.text_document_publish_diagnostics(types.PublishDiagnosticsParams(uri=uri, diagnostics=[]))

    # ---- the whole-file check once typing stops ------------------------------------------------------------
    def _schedule_idle_check(self, document: Document) -> None:
        delay = self.server.resolve(document).options.full_check_after_idle
        if delay <= 0:
            return
        self._cancel(self._idle_checks, document.uri)
        loop = asyncio.get_running_loop()
        self._idle_checks[document.uri] = loop.call_later(delay / 1000, self._idle_check, document.uri)

    def _idle_check(self, uri: str) -> None:
        self._idle_checks.pop(uri, None)
        document = self.server.documents.get(uri)
        if document is None or not document.current or document.incremental_runs == 0:
            return
        before = [_identity(f) for f in document.findings]
        self.bring_up_to_date(document, whole_file=True)
        if [_identity(f) for f in document.findings] == before:
            return
        log.info("the whole-file check of %s changed findings an incremental update had left", uri)
        if self.pull_mode:
            self.server.request_diagnostic_refresh()
        else:
            self.publish(document)

    # ---- pull ---------------------------------------------------------------------------------------------
    def pull(self, params: types.DocumentDiagnosticParams) -> types.DocumentDiagnosticReport:
        document = self.server.documents.get(params.text_document.uri)
        if document is None:
            return types.RelatedFullDocumentDiagnosticReport(items=[], result_id="closed")
        self.bring_up_to_date(document)
        result_id = f"{document.result_id}"
        if params.previous_result_id == result_id:
            return types.RelatedUnchangedDocumentDiagnosticReport(result_id=result_id)
        return types.RelatedFullDocumentDiagnosticReport(items=self.diagnostics_of(document), result_id=result_id)

    def changed_elsewhere(self, document: Document) -> None:
        """Something outside the buffer (a header it includes) changed: analyse it whole again."""
        document.needs_full = True
        if self.pull_mode:
            self.server.request_diagnostic_refresh()
        else:
            self.schedule(document)

    # ---- everything open ---------------------------------------------------------------------------------
    def relint_all(self) -> None:
        """After a configuration change: every open document is analysed again, whole."""
        for document in self.server.documents:
            document.needs_full = True
            document.reported_skip = None
            self.schedule(document, delay=0)
        if self.pull_mode:
            self.server.request_diagnostic_refresh()

    def forget(self, uri: str) -> None:
        self._cancel(self._timers, uri)
        self._cancel(self._idle_checks, uri)

    @staticmethod
    def _cancel(timers: dict[str, asyncio.TimerHandle], uri: str) -> None:
        timer = timers.pop(uri, None)
        if timer is not None:
            timer.cancel()


def _identity(finding: Finding) -> tuple[object, ...]:
    return (finding.rule, finding.start, finding.end, finding.difficulty, finding.message, finding.severity)
