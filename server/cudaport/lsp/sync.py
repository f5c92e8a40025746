"""Document synchronisation: open, change, save, close. Changes are applied at once (in order, whatever their
number); analysis follows after the debounce. A change the server cannot place (an unknown document, an older
version than the one it has) is logged and ignored, never guessed at."""

from __future__ import annotations

import logging
import time
from typing import TYPE_CHECKING

from lsprotocol import types

from .features import register

if TYPE_CHECKING:
    from .server import CudaportServer

log = logging.getLogger(__name__)


class TextSync:
    def __init__(self, server: CudaportServer) -> None:
        self.server = server
        register(server, types.TEXT_DOCUMENT_DID_OPEN, self.did_open)
        register(server, types.TEXT_DOCUMENT_DID_CHANGE, self.did_change)
        register(server, types.TEXT_DOCUMENT_DID_SAVE, self.did_save, types.SaveOptions(include_text=False))
        register(server, types.TEXT_DOCUMENT_DID_CLOSE, self.did_close)

    def did_open(self, params: types.DidOpenTextDocumentParams) -> None:
        document = self.server.documents.open(params.text_document)
        log.debug("opened %s (%s, %d bytes)", document.uri, document.language or "not analysed", len(document.data))
        self.server.diagnostics.schedule(document, delay=0)
        self.server.workspace_diagnostics.workspace_changed()

    def did_change(self, params: types.DidChangeTextDocumentParams) -> None:
        arrived = time.perf_counter()
        document = self.server.documents.change(params.text_document, list(params.content_changes), self.server.unit)
        if document is not None:
            if document.changed_at is None:
                document.changed_at = arrived
            self.server.diagnostics.changed(document)

    def did_save(self, params: types.DidSaveTextDocumentParams) -> None:
        document = self.server.documents.get(params.text_document.uri)
        if document is not None:
            self.server.diagnostics.saved(document)
            if document.language == "c" and document.path is not None:
                # A saved header may be a portability header its includers depend on (clients that do not watch
                # files for the server tell it no other way).
                self.server.editor_settings.header_changed(document.path)
        # A save is when a configuration file edited in this editor (or next to it) takes effect.
        self.server.editor_settings.config_files_may_have_changed()
        self.server.workspace_diagnostics.workspace_changed()

    def did_close(self, params: types.DidCloseTextDocumentParams) -> None:
        if self.server.documents.close(params.text_document.uri) is None:
            log.warning("ignoring the close of %s, which is not open", params.text_document.uri)
            return
        self.server.diagnostics.clear(params.text_document.uri)
        self.server.workspace_diagnostics.workspace_changed()
