"""What the server sends to the editor on its own initiative (notifications and requests), for the features that
need to: publish diagnostics, ask a pull client to pull again, show a message, apply a workspace edit, report
progress. Features get this and a snapshot or the store, not the server."""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Callable
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer
from pygls.progress import Progress

from ..i18n import N_
from . import logs
from .capabilities import ClientCapabilities
from .jsonparts import PreparedJSON, published
from .protocol import COMMAND_REQUEST, CommandRequest

log = logging.getLogger(__name__)


class Client:
    def __init__(self, server: LanguageServer, capabilities: Callable[[], ClientCapabilities]) -> None:
        """`capabilities()`: what the client said it can do (known once it has initialised)."""
        self._server = server
        self._capabilities = capabilities

    def publish(self, uri: str, version: int | None, diagnostics: list[bytes]) -> None:
        """textDocument/publishDiagnostics with the diagnostics already serialised (pieces of a JSON array)."""
        self._server.protocol.notify(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, published(uri, version, diagnostics))

    def clear(self, uri: str) -> None:
        self._server.protocol.notify(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, PreparedJSON(uri=uri, diagnostics=[]))

    def refresh_diagnostics(self) -> None:
        """Ask a pull client to pull again (when it supports being asked)."""
        if self._capabilities().diagnostic_refresh:
            self._server.workspace_diagnostic_refresh(None)

    def show_message(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        self._server.window_show_message(types.ShowMessageParams(type=kind, message=message))

    def partial_result(self, token: types.ProgressToken, value: dict[str, Any]) -> None:
        self._server.protocol.notify(types.PROGRESS, PreparedJSON(token=token, value=value))

    @property
    def progress(self) -> Progress:
        return self._server.work_done_progress

    async def begin_progress(
        self, token: types.ProgressToken | None, title: str, message: str
    ) -> types.ProgressToken | None:
        """Cancellable work-done progress under the client's token, else under one the server creates if the client
        can show it; None: no progress (a client that cannot, refuses, or never answers)."""
        progress = self.progress
        if token is None:
            if not self._capabilities().work_done_progress:
                return None
            token = f"cudaport-{uuid.uuid4()}"
            try:
                await asyncio.wait_for(progress.create_async(token), timeout=5)
            except Exception as exc:
                log.info(logs.said(N_("no progress reporting for '{title}': {error}"), title=title, error=exc))
                return None
        progress.begin(token, types.WorkDoneProgressBegin(title=title, cancellable=True, message=message, percentage=0))
        return token

    def command_request(self) -> CommandRequest | None:
        """The workspace/executeCommand request the running command serves: its work-done token, and the future
        that the client's $/cancelRequest cancels."""
        return COMMAND_REQUEST.get()

    async def apply_edit(self, params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        return await self._server.workspace_apply_edit_async(params)

    async def configuration(self, params: types.ConfigurationParams) -> Any:
        return await self._server.workspace_configuration_async(params)

    async def register(self, params: types.RegistrationParams) -> None:
        await self._server.client_register_capability_async(params)
