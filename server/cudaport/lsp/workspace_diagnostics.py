"""`workspace/diagnostic`: every source file in the workspace folders, selected exactly as `cudaport check` selects
them (files.discover with the configuration and excludes), with `$/progress` while the first scan runs and
cancellation between files.

Open documents are reported from their unsaved text; files unchanged on disk since the client's previous result
come back as "unchanged" without being analysed again. VS Code asks again two seconds after every answer, so a
request whose answer would be "nothing changed" is held open (long polling, as the specification intends) until a
document is opened, saved or closed, a file changes on disk or the configuration changes."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

from lsprotocol import types
from pygls.uris import from_fs_path

from ..engine.runner import check_path_cached
from ..i18n import N_, t, tn
from ..model.findings import Difficulty
from ..model.source import LineIndex
from ..project.files import Excluded, Skipped, SourcePath, discover
from . import logs
from .client import Client
from .configuration import Resolved
from .diagnostics import diagnostics_of
from .jsonparts import PreparedJSON
from .render import DiagnosticBuilder
from .store import Store, style

if TYPE_CHECKING:
    from ..engine.resultcache import ResultCache

log = logging.getLogger(__name__)

Report = dict[str, Any]  # a WorkspaceFull/UnchangedDocumentDiagnosticReport in JSON form

_REPORT_EVERY = 0.25  # seconds between progress reports
_PARTIAL_BATCH = 50  # documents per partial result
_PARKED_RESCAN = 60.0  # a held request looks again this often even without news (changes nobody announced)


class WorkspaceDiagnostics:
    """workspace/diagnostic over the store (configuration and open documents), answering through the client."""

    def __init__(self, store: Store, client: Client) -> None:
        self.store = store
        self.client = client
        self._changed = asyncio.Event()
        # id(Resolved.engine) -> its results cache: the folders under one configuration share an engine, and a cache
        self._caches: dict[int, tuple[object, ResultCache | None]] = {}

    def workspace_changed(self) -> None:
        """Something that can change the workspace's diagnostics happened: wake held requests."""
        self._changed.set()
        self._changed = asyncio.Event()

    async def workspace_diagnostic(self, params: types.WorkspaceDiagnosticParams) -> PreparedJSON:
        previous = {p.uri: p.value for p in params.previous_result_ids}
        if not previous:
            return await self._first_scan(params)
        while True:
            changed = self._changed  # taken before scanning: a change during the scan wakes us at once
            reports = await self._scan(previous)
            news = [r for r in reports if r["kind"] == "full"]
            if news or params.partial_result_token is None:
                return self._answer(params, reports)
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(changed.wait(), timeout=_PARKED_RESCAN)

    # ---- scanning -----------------------------------------------------------------------------------------
    async def _first_scan(self, params: types.WorkspaceDiagnosticParams) -> PreparedJSON:
        files = list(self._files())
        token = await self._begin_progress(params.work_done_token, len(files))
        partial = params.partial_result_token
        items: list[Report] = []
        batch: list[Report] = []
        done = 0
        last_report = time.monotonic()
        cancelled = False
        try:
            for source_path, resolved in files:
                if token is not None and self._cancelled(token):
                    cancelled = True
                    break
                report = self._report(source_path, resolved, {})
                if report is not None:
                    (batch if partial is not None else items).append(report)
                    if partial is not None and len(batch) >= _PARTIAL_BATCH:
                        self._send_partial(partial, batch)
                        batch = []
                done += 1
                if token is not None and time.monotonic() - last_report >= _REPORT_EVERY:
                    last_report = time.monotonic()
                    self._report_progress(token, done, len(files), source_path.label)
                await asyncio.sleep(0)  # other requests (and $/cancelRequest) get in between files
            if partial is not None and batch:
                self._send_partial(partial, batch)
        except asyncio.CancelledError:
            cancelled = True
            raise
        finally:
            if token is not None:
                message = (
                    t("cancelled after {done} of {total} files", done=done, total=len(files))
                    if cancelled
                    else t("{count} files checked", count=done)
                )
                self.client.progress.end(token, types.WorkDoneProgressEnd(message=message))
                self.client.progress.tokens.pop(token, None)
        if cancelled:
            log.info(
                logs.said(N_("workspace diagnostics: {done} of {total} files (cancelled)"), done=done, total=len(files))
            )
        else:
            log.info(logs.said(N_("workspace diagnostics: {done} of {total} files"), done=done, total=len(files)))
        self._say_caches()
        return PreparedJSON(items=items)

    async def _scan(self, previous: dict[str, str]) -> list[Report]:
        reports: list[Report] = []
        seen: set[str] = set()
        for source_path, resolved in self._files():
            report = self._report(source_path, resolved, previous)
            if report is not None:
                reports.append(report)
                seen.add(report["uri"])
            await asyncio.sleep(0)
        self._say_caches()
        for uri in previous.keys() - seen:  # deleted, or now excluded: clear what the client still shows
            reports.append({"kind": "full", "uri": uri, "items": [], "version": None})
        return reports

    def _answer(self, params: types.WorkspaceDiagnosticParams, reports: list[Report]) -> PreparedJSON:
        token = params.partial_result_token
        if token is None:
            return PreparedJSON(items=reports)
        for start in range(0, len(reports), _PARTIAL_BATCH):
            self._send_partial(token, reports[start : start + _PARTIAL_BATCH])
        return PreparedJSON(items=[])

    def _files(self) -> Iterator[tuple[SourcePath, Resolved]]:
        configuration = self.store.configuration
        seen: set[Path] = set()
        for folder in configuration.folders:
            for item in discover([str(folder)], configuration.resolve_directory(folder).settings):
                if isinstance(item, (Skipped, Excluded)):
                    log.info(
                        logs.said(
                            N_("workspace diagnostics: skipped {file}: {reason}"), file=item.label, reason=item.reason
                        )
                    )
                    continue
                key = item.path.resolve()
                if key not in seen:  # nested workspace folders list a file once
                    seen.add(key)
                    yield item, configuration.resolve(item.path)

    def _report(self, source_path: SourcePath, resolved: Resolved, previous: dict[str, str]) -> Report | None:
        uri = from_fs_path(str(source_path.path)) or source_path.path.as_uri()
        snapshot = self.store.snapshot(uri)
        if snapshot is not None:
            document = snapshot.document
            result_id = f"open:{document.version}:{document.result_id}"
            if previous.get(uri) == result_id:
                return {"kind": "unchanged", "uri": uri, "resultId": result_id, "version": document.version}
            items = diagnostics_of(snapshot)
            return {"kind": "full", "uri": uri, "items": items, "version": document.version, "resultId": result_id}
        try:
            stat = source_path.path.stat()
        except OSError as exc:
            log.info(
                logs.said(N_("workspace diagnostics: cannot read {file}: {error}"), file=source_path.label, error=exc)
            )
            return None
        show_portable = resolved.options.show_portable
        result_id = f"disk:{stat.st_mtime_ns}:{stat.st_size}:{id(resolved.token)}:{int(show_portable)}"
        if previous.get(uri) == result_id:
            return {"kind": "unchanged", "uri": uri, "resultId": result_id, "version": None}
        cache = self._cache_for(resolved)
        result = (
            resolved.engine.check_path(source_path)
            if cache is None
            else check_path_cached(cache, resolved.engine, source_path)
        )
        if result.skipped or result.error:
            log.info(
                logs.said(
                    N_("workspace diagnostics: {file}: {reason}"),
                    file=source_path.label,
                    reason=result.skipped or result.error,
                )
            )
        items = []
        if result.source is not None:
            looks = style(resolved, self.store.capabilities, self.store.unit)
            build = DiagnosticBuilder(LineIndex(result.source.data), looks).build
            items = [build(f) for f in result.findings if show_portable or f.difficulty > Difficulty.PORTABLE]
        return {"kind": "full", "uri": uri, "items": items, "version": None, "resultId": result_id}

    def _cache_for(self, resolved: Resolved) -> ResultCache | None:
        """The results cache `cudaport check` uses for this configuration (the same folder, key and records: a
        workspace the command line has checked is not analysed again), opened once per configuration."""
        kept = self._caches.get(id(resolved.engine))
        if kept is None or kept[0] is not resolved.engine:
            from ..engine.resultcache import open_cache

            cache = open_cache(
                resolved.settings,
                self.store.configuration.folders,
                warn=lambda problem: log.info(logs.said(N_("workspace diagnostics: {detail}"), detail=problem)),
            )
            kept = self._caches[id(resolved.engine)] = (resolved.engine, cache)
        return kept[1]

    def _say_caches(self) -> None:
        """What the results caches did in the scan just made (as `check --verbose` says it), counted afresh."""
        caches = [cache for _engine, cache in self._caches.values() if cache is not None]
        hits, misses = sum(c.hits for c in caches), sum(c.misses for c in caches)
        if hits + misses:
            from ..engine.resultcache import summary

            said = summary(hits, misses)
            log.info(logs.said(N_("workspace diagnostics: {detail}"), detail=said))
        for cache in caches:
            cache.hits = cache.misses = 0

    # ---- progress -----------------------------------------------------------------------------------------
    async def _begin_progress(self, token: types.ProgressToken | None, total: int) -> types.ProgressToken | None:
        progress = self.client.progress
        if token is None:
            if not self.store.capabilities.work_done_progress:
                return None
            token = f"cudaport-workspace-{uuid.uuid4()}"
            try:
                await asyncio.wait_for(progress.create_async(token), timeout=5)
            except Exception as exc:  # a client that refuses or never answers: carry on without progress
                log.info(logs.said(N_("no progress reporting for workspace diagnostics: {error}"), error=exc))
                return None
        progress.begin(
            token,
            types.WorkDoneProgressBegin(
                title=t("cudaport: checking the workspace"),
                cancellable=True,
                message=tn("{count} file", "{count} files", total),
                percentage=0,
            ),
        )
        return token

    def _report_progress(self, token: types.ProgressToken, done: int, total: int, label: str) -> None:
        percentage = int(done * 100 / total) if total else 100
        self.client.progress.report(
            token, types.WorkDoneProgressReport(message=f"{done}/{total} {label}", percentage=percentage)
        )

    def _cancelled(self, token: types.ProgressToken) -> bool:
        future = self.client.progress.tokens.get(token)
        return future is not None and future.cancelled()

    def _send_partial(self, token: types.ProgressToken, reports: list[Report]) -> None:
        self.client.partial_result(token, {"items": list(reports)})
