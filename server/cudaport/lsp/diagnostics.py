"""Diagnostics for open documents: findings as LSP diagnostics, pushed to clients without pull support after a
debounce, served through `textDocument/diagnostic` to clients with it.

Each diagnostic carries the rule code, a link to the rule's documentation, the difficulty (in the message and in
`data`) and the severity the configuration gives it."""

from __future__ import annotations

import asyncio
import gc
import json
import logging
import time
from typing import TYPE_CHECKING, Any, ClassVar

from lsprotocol import types
from lsprotocol.converters import get_converter

from ..models import Difficulty, Finding
from ..ruleset import RuleSet
from ..source import LineIndex
from . import analysis
from .configuration import Resolved
from .documents import Document, next_result_id
from .features import register
from .protocol import PreparedJSON, RawJSON

if TYPE_CHECKING:
    from .server import CudaportServer

log = logging.getLogger(__name__)

IDENTIFIER = "cudaport"


class DiagnosticBuilder:
    """Findings as LSP diagnostics in JSON form. Everything but the range is the same for every finding with the
    same rule, message and rating (all the `cudaMalloc`s of a file), so that part is built once and shared."""

    _shared: ClassVar[dict[tuple[object, ...], dict[str, Any]]] = {}

    def __init__(self, lines: LineIndex, unit: str, target: str, ruleset: RuleSet, code_descriptions: bool) -> None:
        self.lines = lines
        self.unit = unit
        self.target = target
        self.ruleset = ruleset
        self.code_descriptions = code_descriptions

    def build(self, finding: Finding) -> dict[str, Any]:
        position = self.lines.position
        line, column = position(finding.start, self.unit)
        end_line, end_column = position(finding.end, self.unit)
        return {
            "range": {
                "start": {"line": line, "character": column},
                "end": {"line": end_line, "character": end_column},
            },
            **self._constant_part(finding),
        }

    def _constant_part(self, finding: Finding) -> dict[str, Any]:
        fixable = finding.fixable
        key = (
            finding.rule,
            finding.message,
            finding.difficulty,
            finding.severity,
            finding.symbol,
            finding.replacement,
            fixable,
            self.target,
            self.code_descriptions,
        )
        shared = self._shared.get(key)
        if shared is not None:
            return shared
        difficulty = finding.difficulty.label
        symbol = self.ruleset.symbols.get(finding.symbol)
        shared = {
            "message": f"[{difficulty}] {finding.message}",
            "severity": int(finding.severity),
            "code": finding.rule,
            "source": IDENTIFIER,
            "data": {
                "difficulty": difficulty,
                "target": self.target,
                "symbol": finding.symbol,
                "replacement": finding.replacement,
                "fixable": fixable,
            },
        }
        url = self.ruleset.rule_url(finding.rule) if self.code_descriptions else ""
        if url:
            shared["codeDescription"] = {"href": url}
        if symbol is not None and (symbol.deprecated or symbol.removed):
            shared["tags"] = [int(types.DiagnosticTag.Deprecated)]
        if len(self._shared) > 50_000:
            self._shared.clear()
        self._shared[key] = shared
        return shared


class Rendered:
    """A finding's diagnostic, and its JSON text once it has been sent."""

    __slots__ = ("_text", "diagnostic", "finding")

    def __init__(self, finding: Finding, diagnostic: dict[str, Any]) -> None:
        self.finding = finding
        self.diagnostic = diagnostic
        self._text: str | None = None

    def text(self) -> str:
        if self._text is None:
            self._text = json.dumps(self.diagnostic, separators=(",", ":"))
        return self._text


def as_lsp(diagnostic: dict[str, Any]) -> types.Diagnostic:
    """The lsprotocol form, for the few places that embed a diagnostic in a typed message (code actions)."""
    result: types.Diagnostic = _CONVERTER.structure(diagnostic, types.Diagnostic)
    return result


_CONVERTER = get_converter()


class Diagnostics:
    def __init__(self, server: CudaportServer) -> None:
        self.server = server
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._idle_checks: dict[str, asyncio.TimerHandle] = {}
        self._gc_tuned = False
        # Documents edited since their last save while the editor asked for diagnostics on save only: their
        # findings stay those of the saved text (moved along with the edits) until the next save.
        self.held: set[str] = set()
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
            document.session.clear()
            document.analysed_version = document.version
            document.result_id = next_result_id()
            return analysis.Outcome("failed")
        if not self._gc_tuned and outcome.mode == "full":
            self._gc_tuned = True
            _tune_gc()
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

    def builder(self, lines: LineIndex, resolved: Resolved) -> DiagnosticBuilder:
        return DiagnosticBuilder(
            lines, self.server.unit, resolved.settings.target, resolved.engine.ruleset, self.code_descriptions()
        )

    def diagnostics_of(self, document: Document) -> list[dict[str, Any]]:
        return [entry.diagnostic for entry in self._rendered(document)]

    def diagnostics_json(self, document: Document) -> str:
        """The diagnostics as a JSON array, each serialised once and reused while its finding stays put."""
        return "[" + ",".join(entry.text() for entry in self._rendered(document)) + "]"

    def _rendered(self, document: Document) -> list[Rendered]:
        resolved = self.server.resolve(document)
        show_portable = resolved.options.show_portable
        built_for = (resolved.token, self.server.unit, self.code_descriptions())
        if document.rendered_for != built_for:
            document.rendered = {}
            document.rendered_for = built_for
        cache = document.rendered
        build = self.builder(document.lines, resolved).build
        kept: dict[int, Rendered] = {}
        out = []
        for finding in document.findings:
            if not show_portable and finding.difficulty == Difficulty.PORTABLE:
                continue
            entry = cache.get(id(finding))
            if entry is None or entry.finding is not finding:
                entry = Rendered(finding, build(finding))
            kept[id(finding)] = entry
            out.append(entry)
        document.rendered = kept
        return out

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
            diagnostics = self.diagnostics_json(document)
        except Exception:
            log.exception("converting the findings of %s failed", document.uri)
            diagnostics = "[]"
        params = f'{{"uri":{json.dumps(document.uri)},"version":{document.version},"diagnostics":{diagnostics}}}'
        self.server.protocol.notify(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, RawJSON(params))
        _log_latency(document, "published")

    def clear(self, uri: str) -> None:
        self.held.discard(uri)
        self._cancel(self._timers, uri)
        self._cancel(self._idle_checks, uri)
        if not self.pull_mode:
            self.server.protocol.notify(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, PreparedJSON(uri=uri, diagnostics=[]))

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
    def refresh(self, document: Document) -> None:
        """Bring the findings up to date, unless the document waits for its next save (run mode onSave)."""
        if document.uri not in self.held:
            self.bring_up_to_date(document)

    def changed(self, document: Document) -> None:
        """The user typed: re-analyse after the debounce, or wait for the save when the editor asks for that."""
        if self.server.resolve(document).options.run == "onSave":
            self.held.add(document.uri)
            return
        self.schedule(document)

    def saved(self, document: Document) -> None:
        if document.uri not in self.held:
            return
        self.held.discard(document.uri)
        if self.pull_mode:
            self.server.request_diagnostic_refresh()
        else:
            self.schedule(document, delay=0)

    def pull(self, params: types.DocumentDiagnosticParams) -> PreparedJSON | RawJSON:
        document = self.server.documents.get(params.text_document.uri)
        if document is None:
            return PreparedJSON(kind="full", items=[], resultId="closed")
        self.refresh(document)
        if document.incremental_runs:
            # Pull clients get the whole-file check after typing stops too (and are asked to pull again when it
            # changes something: workspace/diagnostic/refresh, where the client supports it).
            self._schedule_idle_check(document)
        result_id = f"{document.result_id}"
        if params.previous_result_id == result_id:
            return PreparedJSON(kind="unchanged", resultId=result_id)
        answer = RawJSON(f'{{"kind":"full","resultId":"{result_id}","items":{self.diagnostics_json(document)}}}')
        _log_latency(document, "answered a pull with")
        return answer

    def changed_elsewhere(self, document: Document) -> None:
        """Something outside the buffer (a header it includes) changed: analyse it whole again."""
        document.session.needs_full = True
        if self.pull_mode:
            self.server.request_diagnostic_refresh()
        else:
            self.schedule(document)

    # ---- everything open ---------------------------------------------------------------------------------
    def relint_all(self) -> None:
        """After a configuration change: every open document is analysed again, whole."""
        self.held.clear()
        for document in self.server.documents:
            document.session.needs_full = True
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


def _log_latency(document: Document, verb: str) -> None:
    """The server's own timing (bench/bench_lsp.py reads it): from the change's arrival to its diagnostics."""
    if document.changed_at is None:
        return
    log.debug(
        "%s %d diagnostics for %s v%d %.1f ms after the change arrived",
        verb,
        len(document.rendered),
        document.uri,
        document.version,
        (time.perf_counter() - document.changed_at) * 1000,
    )
    document.changed_at = None


def _tune_gc() -> None:
    """Once the rule tables and the first document are loaded: those objects live as long as the server, so they
    are moved out of the collector's sight (gc.freeze), and young collections run less often. A full collection
    over the tables took 46-68 ms, in the middle of a keystroke."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(20_000, 10, 10)


def _identity(finding: Finding) -> tuple[object, ...]:
    return (finding.rule, finding.start, finding.end, finding.difficulty, finding.message, finding.severity)
