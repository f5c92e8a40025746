"""pygls' protocol with three changes: the server's own document store is the only copy of each document's text,
UTF-8 positions are preferred whenever the client offers them, and a request the server cannot even decode still
gets an error response instead of silence (a client would wait for it forever)."""

from __future__ import annotations

import asyncio
import functools
import inspect
import json
import logging
from collections.abc import Generator
from dataclasses import dataclass
from typing import Any

from cattrs import Converter
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidRequest
from pygls.protocol import LanguageServerProtocol, default_converter, lsp_method
from pygls.protocol.json_rpc import JsonRPCNotification, JsonRPCResponseMessage

from .positions import preferred_encoding

log = logging.getLogger(__name__)

Handler = Generator[Any, Any, Any]


class PreparedJSON(dict[str, Any]):
    """A message part built directly in JSON form (diagnostics: thousands of small objects on every keystroke).
    It is serialised as it is, instead of being built as lsprotocol objects and walked by cattrs."""


class RawJSON(str):
    """A message part already serialised (ASCII JSON text): diagnostics are serialised once per finding and sent
    again as they are while the finding stays where it is."""


def converter_factory() -> Converter:
    converter: Converter = default_converter()  # type: ignore[no-untyped-call]
    converter.register_unstructure_hook(PreparedJSON, lambda value: value)
    return converter


# Notifications whose parameters the server sends as PreparedJSON (pygls would unstructure them by their declared
# lsprotocol type, which a plain mapping is not).
_PREPARED = frozenset({types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, types.PROGRESS})


_PENDING_WRITES: set[asyncio.Future[Any]] = set()


@dataclass(frozen=True, slots=True)
class _Undecodable:
    """A request whose parameters could not be decoded: answered with `error`."""

    id: int | str
    method: str
    error: JsonRpcException


class CudaportProtocol(LanguageServerProtocol):
    @functools.lru_cache  # noqa: B019 (one protocol object per process, as in pygls)
    def get_message_type(self, method: str) -> type[Any] | None:
        if method in _PREPARED:
            return None  # sent as a generic notification whose params are serialised by their runtime type
        return super().get_message_type(method)

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

    def _send_data(self, data: Any) -> None:
        """pygls serialises every message with json.dumps; a RawJSON part is spliced in as it is."""
        body: str | None = None
        if isinstance(data, JsonRPCNotification) and isinstance(data.params, RawJSON):
            body = f'{{"jsonrpc":"2.0","method":{json.dumps(data.method)},"params":{data.params}}}'
        elif isinstance(data, JsonRPCResponseMessage) and isinstance(data.result, RawJSON):
            body = f'{{"jsonrpc":"2.0","id":{json.dumps(data.id)},"result":{data.result}}}'
        if body is None or self.writer is None:
            super()._send_data(data)
            return
        payload = body.encode("utf-8")
        if self._include_headers:
            content_type = f"{self.CONTENT_TYPE}; charset={self.CHARSET}"
            payload = f"Content-Length: {len(payload)}\r\nContent-Type: {content_type}\r\n\r\n".encode() + payload
        try:
            result = self.writer.write(payload)
            if inspect.isawaitable(result):  # an asynchronous transport: keep the write alive until it is done
                task = asyncio.ensure_future(result)
                _PENDING_WRITES.add(task)
                task.add_done_callback(_PENDING_WRITES.discard)
        except BrokenPipeError:
            log.error("the connection to the client is lost")
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
