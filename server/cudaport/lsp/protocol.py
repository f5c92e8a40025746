"""pygls' protocol with three changes: the server's own document store is the only copy of each document's text,
UTF-8 positions are preferred whenever the client offers them, and a request the server cannot even decode still
gets an error response instead of silence (a client would wait for it forever)."""

from __future__ import annotations

import logging
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidRequest
from pygls.protocol import LanguageServerProtocol, lsp_method

from .positions import preferred_encoding

log = logging.getLogger(__name__)

Handler = Generator[Any, Any, Any]


@dataclass(frozen=True, slots=True)
class _Undecodable:
    """A request whose parameters could not be decoded: answered with `error`."""

    id: int | str
    method: str
    error: JsonRpcException


class CudaportProtocol(LanguageServerProtocol):
    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams) -> Handler:
        general = params.capabilities.general
        if general is not None and general.position_encodings:
            # pygls takes the client's first choice; cudaport prefers UTF-8 (byte offsets need no conversion).
            general.position_encodings = [preferred_encoding(list(general.position_encodings))]
        return (yield from super().lsp_initialize(params))

    # Document synchronisation goes straight to the server's handlers: pygls' workspace would keep a second copy
    # of every document and re-split it into lines on every keystroke.
    @lsp_method(types.TEXT_DOCUMENT_DID_OPEN)
    def lsp_text_document__did_open(self, params: types.DidOpenTextDocumentParams) -> Handler:
        yield from self._user_handler(types.TEXT_DOCUMENT_DID_OPEN, params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CHANGE)
    def lsp_text_document__did_change(self, params: types.DidChangeTextDocumentParams) -> Handler:
        yield from self._user_handler(types.TEXT_DOCUMENT_DID_CHANGE, params)

    @lsp_method(types.TEXT_DOCUMENT_DID_CLOSE)
    def lsp_text_document__did_close(self, params: types.DidCloseTextDocumentParams) -> Handler:
        yield from self._user_handler(types.TEXT_DOCUMENT_DID_CLOSE, params)

    def _user_handler(self, method: str, params: Any) -> Handler:
        handler = self.fm.features.get(method)
        if handler is not None:
            yield handler, (params,), None

    # ---- messages that cannot be decoded -------------------------------------------------------------------
    def structure_message(self, data: dict[str, Any]) -> Any:
        try:
            return super().structure_message(data)
        except JsonRpcException as exc:
            request_id = data.get("id")
            if "method" in data and isinstance(request_id, int | str) and not isinstance(request_id, bool):
                return _Undecodable(request_id, str(data.get("method")), exc)
            raise

    def handle_message(self, message: Any) -> None:
        if isinstance(message, _Undecodable):
            log.error(
                "cannot decode the parameters of %s request %r: answering with an error", message.method, message.id
            )
            self._send_response(message.id, error=message.error.to_response_error())
            return
        if not hasattr(message, "jsonrpc"):
            log.error("ignoring a message that is not a JSON-RPC object: %.200r", message)
            if isinstance(message, dict) and isinstance(message.get("id"), int | str):
                error = JsonRpcInvalidRequest("not a JSON-RPC 2.0 message").to_response_error()
                self._send_response(message["id"], error=error)
            return
        super().handle_message(message)
