"""pygls' protocol with these changes: the server's own document store is the only copy of each document's text,
UTF-8 positions are preferred whenever the client offers them, and every request gets an answer, whatever state
the server is in: one the server cannot parse or decode gets ParseError or InvalidParams, one before `initialize`
ServerNotInitialized, one after `shutdown` InvalidRequest (pygls 2.1 answers the first with silence and the second
with an internal error and a traceback). pygls also keeps a finished future for every notification in its request
table (2 KB each, never freed); finished entries are dropped here."""

from __future__ import annotations

import asyncio
import contextvars
import functools
import inspect
import json
import logging
import re
from collections.abc import Callable, Generator
from concurrent.futures import Future
from typing import Any

from cattrs import Converter
from lsprotocol import types
from pygls.exceptions import JsonRpcException, JsonRpcInvalidRequest
from pygls.protocol import LanguageServerProtocol, default_converter, lsp_method
from pygls.protocol.json_rpc import JsonRPCNotification, JsonRPCResponseMessage

from ..model.records import record
from .framing import Frame
from .jsonparts import PreparedJSON, RawJSON, header, notification, response
from .positions import preferred_encoding

log = logging.getLogger(__name__)

Handler = Generator[Any, Any, Any]


def converter_factory() -> Converter:
    converter: Converter = default_converter()  # type: ignore[no-untyped-call]
    converter.register_unstructure_hook(PreparedJSON, lambda value: value)
    return converter


# Notifications whose parameters the server sends as PreparedJSON (pygls would unstructure them by their declared
# lsprotocol type, which a plain mapping is not).
_PREPARED = frozenset({types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS, types.PROGRESS, types.WINDOW_LOG_MESSAGE})


_PENDING_WRITES: set[asyncio.Future[Any]] = set()


@record(frozen=True, slots=True)
class CommandRequest:
    """The workspace/executeCommand request a command serves."""

    work_done_token: types.ProgressToken | None
    future: Future[Any] | None  # pygls' future for the request: cancelled by the client's $/cancelRequest


COMMAND_REQUEST: contextvars.ContextVar[CommandRequest | None] = contextvars.ContextVar(
    "cudaport_command_request", default=None
)


@record(frozen=True, slots=True)
class _Undecodable:
    """A request whose parameters could not be decoded: answered with `error`."""

    id: int | str
    method: str
    error: JsonRpcException


_ID = re.compile(rb'"id"\s*:\s*("(?:[^"\\]|\\.)*"|-?\d+)')


class CudaportProtocol(LanguageServerProtocol):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.initialize_seen = False
        self.answered_early: set[Any] = set()  # requests the prelude answered (cudaport.lsp.prelude)
        self.on_initialize_answer: Callable[[Any], None] | None = None  # given the answer to initialize, as JSON
        self._finished: list[tuple[Any, Any]] = []  # done futures still in pygls' request table

    @functools.lru_cache  # noqa: B019 (one protocol object per process, as in pygls)
    def get_message_type(self, method: str) -> type[Any] | None:
        if method in _PREPARED:
            return None  # sent as a generic notification whose params are serialised by their runtime type
        return super().get_message_type(method)

    @lsp_method(types.INITIALIZE)
    def lsp_initialize(self, params: types.InitializeParams) -> Handler:
        self.initialize_seen = True
        general = params.capabilities.general
        if general is not None and general.position_encodings:
            # pygls takes the client's first choice; cudaport prefers UTF-8 (byte offsets need no conversion).
            general.position_encodings = [preferred_encoding(list(general.position_encodings))]
        result = yield from super().lsp_initialize(params)
        if self.on_initialize_answer is not None:
            self.on_initialize_answer(self.to_json(result))
        return result

    def to_json(self, value: Any) -> Any:
        """An lsprotocol value as the JSON it is sent as."""
        return self._converter.unstructure(value)

    @lsp_method(types.WORKSPACE_EXECUTE_COMMAND)
    def lsp_workspace__execute_command(self, params: types.ExecuteCommandParams) -> Handler:
        # pygls hands a command only its arguments, and runs it as a task of its own that cancelling the request
        # does not stop: the request's work-done token and pygls' future for it go to the command (a context
        # variable, which the command's task copies when pygls starts it, inside the `yield` below).
        msg_id = self.msg_id
        future = self._request_futures.get(msg_id) if msg_id is not None else None
        COMMAND_REQUEST.set(CommandRequest(params.work_done_token, future))
        return (yield from super().lsp_workspace__execute_command(params))

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

    def _send_response(self, msg_id: Any, result: Any = None, error: Any = None) -> None:
        if msg_id in self.answered_early:
            self.answered_early.discard(msg_id)  # the prelude answered it: the same answer, not sent twice
            return
        super()._send_response(msg_id, result=result, error=error)

    def _send_data(self, data: Any) -> None:
        """pygls serialises every message with json.dumps; a RawJSON part is spliced in as it is."""
        pieces: list[bytes] | None = None
        if isinstance(data, JsonRPCNotification) and isinstance(data.params, RawJSON):
            pieces = notification(data.method, data.params)
        elif isinstance(data, JsonRPCResponseMessage) and isinstance(data.result, RawJSON):
            pieces = response(data.id, data.result)
        if pieces is None or self.writer is None:
            super()._send_data(data)
            return
        if self._include_headers:
            pieces.insert(0, header(sum(map(len, pieces))))
        write_pieces = getattr(self.writer, "write_pieces", None)
        if write_pieces is not None:  # joined off the event loop
            try:
                write_pieces(pieces)
            except BrokenPipeError:
                log.error("the connection to the client is lost")
                raise
            return
        payload = b"".join(pieces)
        try:
            result = self.writer.write(payload)
            if inspect.isawaitable(result):  # an asynchronous transport: keep the write alive until it is done
                task = asyncio.ensure_future(result)
                _PENDING_WRITES.add(task)
                task.add_done_callback(_PENDING_WRITES.discard)
        except BrokenPipeError:
            log.error("the connection to the client is lost")
            raise

    # ---- frames and messages --------------------------------------------------------------------------------
    def receive(self, frame: Frame) -> None:
        """One frame from the reader: parsed, and handled or answered with a parse error."""
        if frame.problem:
            log.warning("the client's framing was wrong: %s", frame.problem)
        try:
            message = json.loads(frame.body, object_hook=self.structure_message)
        except (UnicodeDecodeError, ValueError) as exc:  # JSONDecodeError is a ValueError
            request_id = _salvaged_id(frame.body)
            log.error("cannot parse a message from the client (%s): answering with a parse error", exc)
            error = types.ResponseError(types.ErrorCodes.ParseError, f"cannot parse the message: {exc}")
            self._send_response(request_id, error=error)  # JSON-RPC: id null
            return
        except Exception as exc:  # a message pygls cannot structure (a response to nothing, say): not fatal
            log.error("ignoring a message from the client that cannot be decoded: %s", exc)
            return
        try:
            self.handle_message(message)
        except Exception:
            log.exception("handling a message from the client failed")

    def handle_message(self, message: Any) -> None:
        self._purge_finished()
        method = getattr(message, "method", None)
        is_request = method is not None and getattr(message, "id", None) is not None
        if self._shutdown and method != types.EXIT and method is not None:
            if is_request:
                self._refuse(message.id, types.ErrorCodes.InvalidRequest, f"{method}: the server is shut down")
            return
        if not self.initialize_seen and method not in (None, types.INITIALIZE, types.EXIT):
            if is_request:
                self._refuse(message.id, types.ErrorCodes.ServerNotInitialized, f"{method} before initialize")
            else:
                log.warning("ignoring %s before initialize", method)
            return
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

    def _refuse(self, request_id: Any, code: int, text: str) -> None:
        log.warning("refusing a request: %s", text)
        self._send_response(request_id, error=types.ResponseError(code, text))

    def _execute_handler(self, msg_id: Any, handler: Any, callback: Any, args: Any = None, kwargs: Any = None) -> None:
        super()._execute_handler(msg_id, handler, callback, args=args, kwargs=kwargs)
        future = self._request_futures.get(msg_id)
        if future is not None:
            # Notifications' entries are never removed by pygls: drop each when it is done (a request's is
            # removed as its answer is sent, which is the same).
            future.add_done_callback(lambda done: self._forget(msg_id, done))

    def _forget(self, msg_id: Any, future: Any) -> None:
        # Removed when the next message arrives, not here: a callback can run inside pygls' own loop over the
        # table (shutdown cancels what is pending).
        self._finished.append((msg_id, future))

    def _purge_finished(self) -> None:
        finished, self._finished = self._finished, []
        for msg_id, future in finished:
            if self._request_futures.get(msg_id) is future:
                del self._request_futures[msg_id]

    def _handle_cancel_notification(self, msg_id: Any) -> None:
        future = self._request_futures.pop(msg_id, None)
        if future is None:
            log.debug("cancel for request %r, which is already answered", msg_id)  # the usual case, not news
            return
        if future.cancel():
            log.debug("cancelled request %r", msg_id)


def _salvaged_id(body: bytes) -> int | str | None:
    """The id of a request whose JSON cannot be parsed (invalid UTF-8 in a string), when it can be read."""
    found = _ID.search(body)
    if found is None:
        return None
    try:
        value = json.loads(found.group(1).decode("utf-8", "replace"))
    except ValueError:
        return None
    return value if isinstance(value, int | str) else None
