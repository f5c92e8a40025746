"""Diagnostics for open documents: findings as LSP diagnostics (cudaport.lsp.render), pushed to clients without
pull support after a debounce, served through `textDocument/diagnostic` to clients with it, and checked once more
over the whole file when typing stops.

Each diagnostic carries the rule code, a link to the rule's documentation, the difficulty (in the message and in
`data`) and the severity the configuration gives it."""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING, Any

from ..i18n import N_
from ..model.findings import Finding
from . import analysis, logs
from .background import Job
from .documents import Document
from .jsonparts import PreparedJSON, RawJSON
from .render import IDENTIFIER
from .store import Snapshot, Store

if TYPE_CHECKING:
    import asyncio

    from .client import Client

__all__ = ["IDENTIFIER", "Diagnostics", "diagnostics_json", "pull"]

log = logging.getLogger(__name__)

# How long a pull waits for the analysis thread at most (a 20 MB buffer takes seconds; a stuck one must not hold
# the client's request for ever).
PULL_WAIT = 60.0
# ms of quiet before the whole-file check that findings left provisional by an include edit need, when the
# editor's fullCheckAfterIdle is 0 (never)
NEEDED_CHECK_AFTER_IDLE = 1000


def diagnostics_json(snapshot: Snapshot) -> list[bytes]:
    """The document's diagnostics as pieces of a JSON array, from what is kept rendered of its findings."""
    document = snapshot.document
    return document.rendered.pieces(document.session.store, snapshot.lines, snapshot.style)


def diagnostics_of(snapshot: Snapshot) -> list[dict[str, Any]]:
    """The diagnostics as dicts (for a workspace report; not per keystroke)."""
    build = snapshot.builder().build
    return [build(f) for f in snapshot.findings if snapshot.shown(f)]


def pull(snapshot: Snapshot | None, previous_result_id: str | None) -> PreparedJSON | RawJSON:
    """textDocument/diagnostic: the document's diagnostics, or "unchanged" when the client has them already."""
    if snapshot is None:
        return PreparedJSON(kind="full", items=[], resultId="closed")
    document = snapshot.document
    result_id = f"{document.result_id}"
    if previous_result_id == result_id:
        return PreparedJSON(kind="unchanged", resultId=result_id)
    head = f'{{"kind":"full","resultId":"{result_id}","items":'.encode()
    answer = RawJSON(head, *diagnostics_json(snapshot), b"}")
    log_latency(document, "answered a pull with")
    return answer


class Diagnostics:
    """When documents are analysed and their diagnostics sent: the debounce after typing (push clients), the
    whole-file check once typing stops (both), run-on-save, and re-checks after configuration changes."""

    def __init__(self, store: Store, client: Client) -> None:
        self.store = store
        self.client = client
        self._timers: dict[str, asyncio.TimerHandle] = {}
        self._idle_checks: dict[str, asyncio.TimerHandle] = {}
        self._waiting_pulls: dict[str, list[asyncio.Future[None]]] = {}

    @property
    def pull_mode(self) -> bool:
        return self.store.capabilities.pull_diagnostics

    @property
    def local_first(self) -> bool:
        """Whether diagnostics may come from a local analysis (cudaport.session) and be sent again once it is
        settled: for push clients, and pull clients that can be asked to pull again."""
        return not self.pull_mode or self.store.capabilities.diagnostic_refresh

    # ---- push ---------------------------------------------------------------------------------------------
    def schedule(self, document: Document, delay: float | None = None) -> None:
        """Re-analyse and publish after the debounce delay (push clients; pull clients ask when they want)."""
        if self.pull_mode:
            return
        if delay is None:
            delay = self.store.resolve(document).options.debounce / 1000
        self._cancel(self._timers, document.uri)
        self._cancel(self._idle_checks, document.uri)
        loop = _running_loop()
        self._timers[document.uri] = loop.call_later(delay, self._publish_now, document.uri)

    def _publish_now(self, uri: str) -> None:
        self._timers.pop(uri, None)
        document = self.store.documents.get(uri)
        if document is None:
            return
        outcome = self.store.bring_up_to_date(document, local_first=self.local_first)
        if outcome.mode == "deferred":
            # Published when the analysis thread is done (analysed_in_background), not before: the client moves
            # the diagnostics it has through the edits itself, and what it is sent is always the version's own.
            return
        self.publish(document)
        if outcome.mode in ("incremental", "local"):
            self._schedule_idle_check(document)
        if not document.session.settled:
            _running_loop().call_soon(self._settle, uri)

    def publish(self, document: Document) -> None:
        try:
            diagnostics = diagnostics_json(self.store.snapshot_of(document))
        except Exception:
            log.exception(logs.said(N_("converting the findings of {uri} failed"), uri=document.uri))
            diagnostics = [b"[]"]
        self.client.publish(document.uri, document.version, diagnostics)
        log_latency(document, "published")

    def closed(self, uri: str) -> None:
        background = self.store.background
        if background is not None:
            background.cancel(uri)
        self._release_pulls(uri)
        self._cancel(self._timers, uri)
        self._cancel(self._idle_checks, uri)
        if not self.pull_mode:
            self.client.clear(uri)

    # ---- pulls that wait for the analysis thread -------------------------------------------------------------
    def pull_waits(self, document: Document) -> bool:
        """Whether a pull should wait for the analysis thread instead of answering now: the document has never
        been analysed (an answer now would be an empty report, as if the file were clean), or the client cannot be
        asked to pull again once the analysis is done. Other requests are answered meanwhile."""
        background = self.store.background
        if background is None or background.job_for(document.uri) is None:
            return False
        return document.analysed_version is None or not self.store.capabilities.diagnostic_refresh

    async def analysed(self, uri: str, timeout: float = PULL_WAIT) -> None:
        """Until no analysis of `uri` is queued or running on the analysis thread (or `timeout` seconds)."""
        import asyncio

        future: asyncio.Future[None] = _running_loop().create_future()
        self._waiting_pulls.setdefault(uri, []).append(future)
        try:
            await asyncio.wait_for(future, timeout)
        except TimeoutError:
            log.debug("a pull of %s stopped waiting for the analysis thread after %.0f s", uri, timeout)
        finally:
            waiting = self._waiting_pulls.get(uri)
            if waiting is not None and future in waiting:
                waiting.remove(future)

    def _release_pulls(self, uri: str) -> None:
        for future in self._waiting_pulls.pop(uri, []):
            if not future.done():
                future.set_result(None)

    # ---- analyses done off the message loop (cudaport.lsp.background) --------------------------------------------
    def analysed_in_background(self, job: Job) -> None:
        """A whole-file analysis is done: its session taken over (with the edits since replayed), and the current
        version's diagnostics sent, or analysed first when there were edits. Nothing is sent for the snapshot's
        version unless it is the current one. Pulls waiting for it are answered once no newer job follows."""
        pulls_waiting = bool(self._waiting_pulls.get(job.uri))
        try:
            self._take_over(job, refresh=not pulls_waiting)
        finally:
            background = self.store.background
            if background is None or background.job_for(job.uri) is None:
                self._release_pulls(job.uri)

    def _take_over(self, job: Job, refresh: bool) -> None:
        document = self.store.documents.get(job.uri)
        if document is None or document is not job.owner:
            return  # closed (and perhaps opened again) since
        if self.store.resolve(document).token is not job.token:
            return  # reconfigured since: a job under the new configuration follows
        if job.error is not None:
            log.error(
                logs.said(N_("analysing {uri} failed; its diagnostics are cleared"), uri=document.uri),
                exc_info=job.error,
            )
            self.store.fail(document)
            self.publish(document)
            return
        background = self.store.background
        newer = background.job_for(job.uri) if background is not None else None
        was_current = document.current
        before = [_identity(f) for f in document.findings] if was_current else None
        analysis.adopt(document, job, more_to_come=newer is not None)
        log.debug(
            "analysed %s v%d on the analysis thread: full in %.1f ms (%d findings); %s",
            document.uri,
            job.version,
            job.seconds * 1000,
            len(document.session.store),
            "current" if document.current else f"edited since (v{document.version})",
        )
        self.store.analysed_whole()
        if newer is not None:
            return  # a newer text is being analysed: its result is what gets sent
        if not document.current:
            # Edited since the snapshot: the edits are analysed now (incrementally, on the loop), then sent.
            if self.pull_mode:
                self.client.refresh_diagnostics()
            else:
                self.schedule(document, delay=0)
            return
        if before is not None and [_identity(f) for f in document.findings] == before:
            return  # a whole-file check that confirmed what the client has
        if self.pull_mode:
            if refresh:  # else the pulls waiting for this analysis get its findings in their answer
                self.client.refresh_diagnostics()
        else:
            self.publish(document)

    # ---- the whole-file check once typing stops ------------------------------------------------------------
    def pulled(self, document: Document) -> None:
        """A pull client got the diagnostics of incremental updates: the whole-file check follows when typing
        stops (and the client is asked to pull again when it changes something)."""
        if document.incremental_runs:
            self._schedule_idle_check(document)
        if not document.session.settled:
            _running_loop().call_soon(self._settle, document.uri)

    # ---- settling a local analysis (cudaport.session) --------------------------------------------------------
    def _settle(self, uri: str) -> None:
        """Right after diagnostics from a local analysis went out: confirm them against the whole file, and send
        them again if that changed them (or a request that needed settled findings found them changed)."""
        document = self.store.documents.get(uri)
        if document is None:
            return
        began = time.perf_counter()
        self.store.settle(document)
        if document.session.awaits_whole_file:
            # An edit changed what findings anywhere depend on (an include): the whole-file check once typing
            # stops is what settles them, even where the editor's settings turned it off. Not at once: on the
            # analysis thread, it would share the interpreter with every keystroke while it ran.
            self._schedule_idle_check(document, needed=True)
        log.debug(
            "settled %s v%d in %.1f ms: %s",
            document.uri,
            document.version,
            (time.perf_counter() - began) * 1000,
            "diagnostics sent again" if document.settled_differently else "unchanged",
        )
        if not document.settled_differently:
            return
        document.settled_differently = False
        self._send_again(document)

    def _schedule_idle_check(self, document: Document, needed: bool = False) -> None:
        delay = self.store.resolve(document).options.full_check_after_idle
        if delay <= 0 and needed:
            delay = NEEDED_CHECK_AFTER_IDLE
        if delay <= 0:
            return
        self._cancel(self._idle_checks, document.uri)
        loop = _running_loop()
        self._idle_checks[document.uri] = loop.call_later(delay / 1000, self._idle_check, document.uri)

    def _idle_check(self, uri: str) -> None:
        self._idle_checks.pop(uri, None)
        document = self.store.documents.get(uri)
        if document is None or not document.current or document.incremental_runs == 0:
            return
        before = [_identity(f) for f in document.findings]
        self.store.bring_up_to_date(document, whole_file=True)
        if [_identity(f) for f in document.findings] == before:
            return
        log.info(
            logs.said(N_("the whole-file check of {uri} changed findings an incremental update had left"), uri=uri)
        )
        self._send_again(document)

    def _send_again(self, document: Document) -> None:
        """Findings changed after the client got them, with no edit: published again, or the client asked to pull."""
        if self.pull_mode:
            self.client.refresh_diagnostics()
        else:
            self.publish(document)

    # ---- typing and saving --------------------------------------------------------------------------------
    def changed(self, document: Document) -> None:
        """The user typed: re-analyse after the debounce, or wait for the save when the editor asks for that."""
        if self.store.resolve(document).options.run == "onSave":
            document.held = True
            return
        self.schedule(document)

    def opened(self, document: Document) -> None:
        self.schedule(document, delay=0)

    def saved(self, document: Document) -> None:
        if not document.held:
            return
        document.held = False
        if self.pull_mode:
            self.client.refresh_diagnostics()
        else:
            self.schedule(document, delay=0)

    def changed_elsewhere(self, document: Document) -> None:
        """Something outside the buffer (a header it includes) changed: analyse it whole again."""
        document.session.needs_full = True
        if self.pull_mode:
            self.client.refresh_diagnostics()
        else:
            self.schedule(document)

    # ---- everything open ---------------------------------------------------------------------------------
    def relint_all(self) -> None:
        """After a configuration change: every open document is analysed again, whole."""
        for document in self.store.documents:
            document.held = False
            document.session.needs_full = True
            document.reported_skip = None
            self.schedule(document, delay=0)
        if self.pull_mode:
            self.client.refresh_diagnostics()

    @staticmethod
    def _cancel(timers: dict[str, asyncio.TimerHandle], uri: str) -> None:
        timer = timers.pop(uri, None)
        if timer is not None:
            timer.cancel()


def _running_loop() -> asyncio.AbstractEventLoop:
    # asyncio is loaded with the server, after the first diagnostics (cudaport.lsp.prelude), which use this module
    import asyncio

    return asyncio.get_running_loop()


def log_latency(document: Document, verb: str) -> None:
    """The server's own timing (bench/bench_lsp.py reads it): from the change's arrival to its diagnostics, in
    time and in the CPU time of the server's thread (which the machine's load does not inflate)."""
    if document.changed_at is None:
        return
    log.debug(
        "%s %d diagnostics for %s v%d %.1f ms after the change arrived (%.1f ms of CPU)%s",
        verb,
        document.rendered.count,
        document.uri,
        document.version,
        (time.perf_counter() - document.changed_at) * 1000,
        (time.thread_time() - document.changed_cpu) * 1000,
        "" if document.current else ": the findings moved through the edits, the analysis thread has the file",
    )
    document.changed_at = None


def _identity(finding: Finding) -> tuple[object, ...]:
    return (finding.rule, finding.start, finding.end, finding.difficulty, finding.message, finding.severity)
