"""Workspace commands the editor runs (`workspace/executeCommand`):

- `cudaport.server.migrateWorkspace`: every safe rewrite in the workspace folders, sent to the client as one workspace
  edit whose changes need confirmation, so the editor shows its refactor preview before anything is written;
- `cudaport.server.summary`: the migration assessment of the workspace for every target, as Markdown with paths
  relative to the workspace, from the open documents' unsaved text; worked out on a thread, with work-done
  progress, and cancellable ($/cancelRequest, or the progress's cancel button);
- `cudaport.server.targets`: the targets the rule data declares (name, label, platform, aliases), so that an
  editor lists and labels them without a list of its own.

Both select files exactly as `cudaport check` does (files.discover with the configuration), use the unsaved text
of open documents, and rewrite through Engine.fix_data, as `cudaport fix` does."""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcRequestCancelled
from pygls.uris import from_fs_path

from ..engine import fixing
from ..i18n import N_, t, tn
from ..knowledge.ruleset import load_ruleset
from ..model.source import UTF8, UTF8_BOM, LineIndex, SkipFile, read_source
from ..project.files import Excluded, Skipped, SourcePath, discover
from . import edits as byte_edits
from . import logs, summary
from .client import Client
from .documents import NOTEBOOK_CELL
from .store import Store

log = logging.getLogger(__name__)

# Named apart from the extension's own VS Code commands: vscode-languageclient registers these as commands too.
MIGRATE = "cudaport.server.migrateWorkspace"
SUMMARY = "cudaport.server.summary"
TARGETS = "cudaport.server.targets"
_ANNOTATION = "cudaport.safe-rewrites"
_REPORT_EVERY = 0.25  # seconds between progress reports
# How a summary ended, in its progress's last message.
DONE = N_("done")
CANCELLED = N_("cancelled")


class Commands:
    """The commands; they work on the whole workspace: the store (configuration, open documents) and the client."""

    def __init__(self, store: Store, client: Client) -> None:
        self.store = store
        self.client = client
        # One summary at a time, off the event loop; the thread builds engines of its own.
        self._summary_thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix="cudaport-summary")

    # ---- the targets the rule data declares -----------------------------------------------------------------------
    def targets(self) -> list[dict[str, Any]]:
        """What the editor offers and labels: every target of the rule data (extra rule files included)."""
        folders = self.store.configuration.folders
        resolved = self.store.configuration.resolve_directory(folders[-1]) if folders else None
        ruleset = resolved.engine.ruleset if resolved is not None else load_ruleset()
        return [
            {
                "name": info.name,
                "label": t(info.label),  # the rule data's words, shown in the editor's lists
                "platform": info.platform,
                "aliases": list(info.aliases),
                # versioned targets: whose releases `name@X` counts, and the one assumed without it
                "versions": {
                    "product": info.versions.product,
                    "newest": info.versions.newest,
                    "generations": list(info.versions.generations),
                }
                if info.versions
                else None,
            }
            for info in ruleset.targets.values()
        ]

    # ---- migrate the workspace --------------------------------------------------------------------------------
    async def migrate_workspace(self) -> dict[str, Any]:
        changes: list[tuple[str, int | None, list[types.TextEdit]]] = []
        fixes = 0
        skipped: list[str] = []
        for source_path in self._files():
            change = self._fixed(source_path, skipped)
            if change is not None:
                uri, version, text_edits, applied = change
                changes.append((uri, version, text_edits))
                fixes += applied
        result: dict[str, Any] = {"files": len(changes), "fixes": fixes, "skipped": skipped, "applied": False}
        if skipped:
            names = ", ".join(skipped[:5])
            if len(skipped) > 5:
                names = t("{names} and more", names=names)
            self.client.show_message(
                t(
                    "cudaport: {count} file(s) not in UTF-8 were left out ({names}); `cudaport fix` rewrites them "
                    "in their own encoding",
                    count=len(skipped),
                    names=names,
                ),
                types.MessageType.Warning,
            )
        if not changes:
            return result
        response = await self.client.apply_edit(
            types.ApplyWorkspaceEditParams(
                edit=self._workspace_edit(changes, fixes), label=t("cudaport: {count} safe rewrites", count=fixes)
            )
        )
        result["applied"] = bool(response.applied)
        log.info(
            logs.said(
                N_("migrate workspace: {fixes} fixes in {files} files, applied: {applied}"),
                fixes=fixes,
                files=len(changes),
                applied=response.applied,
            )
        )
        return result

    def _fixed(
        self, source_path: SourcePath, skipped: list[str]
    ) -> tuple[str, int | None, list[types.TextEdit], int] | None:
        uri = from_fs_path(str(source_path.path)) or source_path.path.as_uri()
        document = self.store.documents.get(uri)
        resolved = self.store.configuration.resolve(source_path.path)
        if document is not None:
            data, version, lines = document.data, document.version, document.lines
        else:
            try:
                source = read_source(source_path.path, resolved.settings.max_file_size)
            except SkipFile:
                return None
            if source.encoding not in (UTF8, UTF8_BOM):
                skipped.append(source_path.path.name)  # the editor's text would not be these bytes
                return None
            data, version, lines = source.data, None, LineIndex(source.data)
        try:
            fixed, applied, _ = fixing.fix_data(resolved.engine, data, source_path.language, source_path.path)
        except Exception:
            log.exception(logs.said(N_("fixing {path} failed; it is left out of the migration"), path=source_path.path))
            return None
        if fixed == data:
            return None
        text_edits = byte_edits.text_edits(lines, byte_edits.difference(data, fixed), self.store.unit)
        return uri, version, text_edits, applied

    def _workspace_edit(
        self, changes: list[tuple[str, int | None, list[types.TextEdit]]], fixes: int
    ) -> types.WorkspaceEdit:
        capabilities = self.store.capabilities
        if not capabilities.document_changes:
            return types.WorkspaceEdit(changes={uri: text_edits for uri, _, text_edits in changes})
        annotated = capabilities.change_annotations
        document_changes: list[types.TextDocumentEdit] = []
        for uri, version, text_edits in changes:
            edits: list[types.TextEdit | types.AnnotatedTextEdit] = [
                types.AnnotatedTextEdit(range=e.range, new_text=e.new_text, annotation_id=_ANNOTATION)
                if annotated
                else e
                for e in text_edits
            ]
            identifier = types.OptionalVersionedTextDocumentIdentifier(uri=uri, version=version)
            document_changes.append(types.TextDocumentEdit(text_document=identifier, edits=edits))
        annotations = None
        if annotated:
            annotations = {
                _ANNOTATION: types.ChangeAnnotation(
                    label=t("cudaport: safe rewrites"),
                    needs_confirmation=True,
                    description=t("{count} rewrites that `cudaport fix` would apply", count=fixes),
                )
            }
        return types.WorkspaceEdit(document_changes=document_changes, change_annotations=annotations)

    # ---- the migration summary --------------------------------------------------------------------------------
    async def summary(self) -> str:
        """The summary's Markdown (see lsp/summary.py), worked out on a thread with work-done progress; the
        client's $/cancelRequest, or the cancel button of the progress, stops it between files."""
        configuration = self.store.configuration
        folders = configuration.folders
        if not folders:
            return "# cudaport\n\n" + t("Open a folder to summarise its migration.") + "\n"
        resolved = configuration.resolve_directory(folders[-1])
        several = len(folders) > 1
        job = summary.SummaryJob(
            folders=[
                summary.Folder(f, f.name if several else "", configuration.resolve_directory(f).settings)
                for f in sorted(folders)
            ],
            settings=resolved.settings,
            project=resolved.engine.project,
            buffers=summary.buffers_of(
                [
                    (d.path, d.language, d.data)
                    for d in self.store.documents
                    if d.path is not None and d.language is not None and not d.uri.startswith(NOTEBOOK_CELL)
                ]
            ),
        )
        stop = threading.Event()
        task = asyncio.current_task()
        loop = asyncio.get_running_loop()

        def cancelled(future: Future[Any]) -> None:
            if future.cancelled():  # $/cancelRequest: pygls has answered the request already
                stop.set()
                if task is not None:
                    task.cancel()

        request = self.client.command_request()
        if request is not None and request.future is not None:
            request.future.add_done_callback(cancelled)
        token = await self.client.begin_progress(
            request.work_done_token if request is not None else None,
            t("cudaport: summarising the workspace"),
            tn("{count} folder", "{count} folders", len(folders)),
        )
        if token is not None:
            # The cancel button of the progress (window/workDoneProgress/cancel): the thread stops, and the request
            # is answered as cancelled (the task is not cancelled: pygls would then never answer the request).
            self.client.progress.tokens[token].add_done_callback(lambda future: stop.set())
        last = [0.0]

        def progress(done: int, total: int, label: str) -> None:  # on the worker thread
            now = time.monotonic()
            if token is not None and (now - last[0] >= _REPORT_EVERY or done == total):
                last[0] = now
                report = types.WorkDoneProgressReport(
                    message=f"{done}/{total} {label}", percentage=int(done * 100 / total) if total else 100
                )
                loop.call_soon_threadsafe(self.client.progress.report, token, report)

        outcome = CANCELLED
        try:
            markdown = await loop.run_in_executor(self._summary_thread, summary.summarise, job, stop, progress)
            outcome = DONE
            return markdown
        except summary.Cancelled:
            raise JsonRpcRequestCancelled(t("the summary was cancelled")) from None
        except asyncio.CancelledError:
            stop.set()  # the thread stops at its next file
            raise
        finally:
            if token is not None:
                self.client.progress.end(token, types.WorkDoneProgressEnd(message=t(outcome)))
                self.client.progress.tokens.pop(token, None)
            log.info(logs.said(N_("migration summary: {outcome}"), outcome=t(outcome)))

    def _files(self) -> list[SourcePath]:
        configuration = self.store.configuration
        seen: set[str] = set()
        found: list[SourcePath] = []
        for folder in configuration.folders:
            for item in discover([str(folder)], configuration.resolve_directory(folder).settings):
                if isinstance(item, (Skipped, Excluded)) or item.path.is_symlink():
                    continue
                key = str(item.path.resolve())
                if key not in seen:
                    seen.add(key)
                    found.append(item)
        return found
