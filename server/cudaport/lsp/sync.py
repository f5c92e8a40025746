"""Document synchronisation: open, change, save, close. Changes are applied to the store at once (in order,
whatever their number); analysis follows after the debounce. A change the server cannot place (an unknown
document, an older version than the one it has) is logged and ignored, never guessed at."""

from __future__ import annotations

import logging
import time

from lsprotocol import types

from .diagnostics import Diagnostics
from .settings import EditorSettings
from .store import Store
from .workspace_diagnostics import WorkspaceDiagnostics

log = logging.getLogger(__name__)


class TextSync:
    def __init__(
        self, store: Store, diagnostics: Diagnostics, settings: EditorSettings, workspace: WorkspaceDiagnostics
    ) -> None:
        self.store = store
        self.diagnostics = diagnostics
        self.settings = settings
        self.workspace = workspace

    def did_open(self, params: types.DidOpenTextDocumentParams) -> None:
        document = self.store.documents.open(params.text_document)
        log.debug("opened %s (%s, %d bytes)", document.uri, document.language or "not analysed", len(document.data))
        self.diagnostics.opened(document)
        self.workspace.workspace_changed()

    def did_change(self, params: types.DidChangeTextDocumentParams) -> None:
        arrived, cpu = time.perf_counter(), time.thread_time()
        document = self.store.documents.change(params.text_document, list(params.content_changes), self.store.unit)
        if document is not None:
            if document.changed_at is None:
                document.changed_at, document.changed_cpu = arrived, cpu
            self.diagnostics.changed(document)

    def did_save(self, params: types.DidSaveTextDocumentParams) -> None:
        document = self.store.documents.get(params.text_document.uri)
        if document is not None:
            self.diagnostics.saved(document)
            if document.language == "c" and document.path is not None:
                # A saved header may be a portability header its includers depend on (clients that do not watch
                # files for the server tell it no other way).
                self.settings.header_changed(document.path)
        # A save is when a configuration file edited in this editor (or next to it) takes effect.
        self.settings.config_files_may_have_changed()
        self.workspace.workspace_changed()

    def did_close(self, params: types.DidCloseTextDocumentParams) -> None:
        if self.store.documents.close(params.text_document.uri) is None:
            log.warning("ignoring the close of %s, which is not open", params.text_document.uri)
            return
        self.diagnostics.closed(params.text_document.uri)
        self.workspace.workspace_changed()
