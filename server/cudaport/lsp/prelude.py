"""The first diagnostics before the protocol library is loaded.

pygls and lsprotocol take a quarter of a second to import (lsprotocol defines a thousand attrs classes), three
times what the engine needs to analyse a file. So `cudaport serve` over stdio first reads the start of the
session itself, with the server's own store and modules that do not need them:

- `initialize` is answered with what the server answered the last time a client with the same capabilities
  started it (kept in the rule cache folder, stamped with cudaport's and pygls' files: any change makes it stale);
  the first time, the server answers it and the answer is kept;
- `textDocument/didOpen` is applied to the store and, for a client that takes pushed diagnostics, answered with
  them; `textDocument/diagnostic` on an opened document is answered (a pulling client's first diagnostics);
- `initialized`, `$/setTrace` and a `workspace/didChangeConfiguration` the server answers by asking for the
  settings are kept for the server: they do not change what the first diagnostics are (the server applies any
  setting they bring in by re-checking every open document, as it would have anyway).

Anything else, or no more input at hand once diagnostics went out, and the server takes over: the same store (the
documents stay analysed), the frames kept here replayed first (including `initialize`, which pygls must see; its
answer and those of the other requests answered here are not sent twice), then the rest of the stream. The
diagnostics are the server's own: the same store, the same rendering, the same JSON."""

from __future__ import annotations

import json
import logging
import sys
from collections.abc import Callable, Iterator
from importlib.util import find_spec
from pathlib import Path
from typing import Any

from .. import __version__
from ..model.records import field, record
from ..resources import cache
from . import logs
from .background import INLINE_FULL
from .diagnostics import diagnostics_json, pull
from .framing import Frame
from .initialize import InitializeRequest
from .jsonparts import PreparedJSON, RawJSON, header, notification, published, response
from .startup import start
from .store import Store

log = logging.getLogger(__name__)

_KEPT_FOR_THE_SERVER = frozenset({"initialized", "$/setTrace"})
_MAX_FRAMES = 64  # a client that keeps opening documents gets the server after this many
# A client that sends nothing more for this long gets the server (which then asks for its settings, as it would
# have at `initialized`): a document opened later is analysed with them.
_IDLE_SECONDS = 1.0


@record
class Early:
    """What the prelude leaves to the server."""

    store: Store
    replay: list[Frame] = field(default_factory=list)  # for the server to handle first, in order
    answered: set[int | str] = field(default_factory=set)  # requests answered here: their second answer is dropped
    remember_as: tuple[str, bytes] | None = None  # (name, stamp) to keep the server's initialize answer under
    analysed: bool = False  # whether a document was analysed here


def serve_first(
    frames: Iterator[Frame],
    pending: Callable[[float], bool],
    write: Callable[[bytes], None],
    log_handler: logs.ClientLogHandler,
) -> Early:
    """Read and answer the start of the session (see the module's description); `pending()`: whether more input is
    at hand within so many seconds, `write(bytes)`: send one framed message."""
    store = Store()
    store.gc_tuned = True  # not before the protocol library is loaded: the server tunes it once it is
    early = Early(store)
    first = next(frames, None)
    if first is None:
        return early
    early.replay.append(first)
    message = _message(first)
    if message is None or message.get("method") != "initialize" or not _is_id(message.get("id")):
        return early
    params = message.get("params")
    capabilities = params.get("capabilities") if isinstance(params, dict) else None
    name, stamp = _initialize_record(capabilities)
    cached = cache.read_record(name, stamp)
    result = _json_object(cached)
    if result is None:
        early.remember_as = (name, stamp)
        return early
    served = _Prelude(early, write)
    server_capabilities = result.get("capabilities")
    encoding = server_capabilities.get("positionEncoding") if isinstance(server_capabilities, dict) else None
    try:
        start(store, log_handler, InitializeRequest.of(params), encoding if isinstance(encoding, str) else None)
    except Exception:
        # The store is not marked started (startup.start does that last): the server sets it up again.
        log.exception("serving the first diagnostics early failed: the server answers initialize itself")
        return early
    served.answer(message["id"], PreparedJSON(result))
    for _ in range(_MAX_FRAMES):
        # Once diagnostics are out, only what is already at hand; before, what comes soon.
        if not pending(0.0 if served.diagnostics_sent else _IDLE_SECONDS):
            break
        frame = next(frames, None)
        if frame is None:
            break
        try:
            handled = served.handle(frame)
        except Exception:
            # Whatever it was, the server does it again (its answer, if this frame was a request, is not dropped).
            log.exception("serving the first diagnostics early failed: the server takes over")
            request_id = (_message(frame) or {}).get("id")
            if _is_id(request_id):
                early.answered.discard(request_id)
            handled = False
        if not handled:
            early.replay.append(frame)
            break
    return early


class _Prelude:
    def __init__(self, early: Early, write: Callable[[bytes], None]) -> None:
        self.early = early
        self.store = early.store
        self.write = write
        self.diagnostics_sent = False

    def handle(self, frame: Frame) -> bool:
        """Whether the frame was handled here (kept for the server, or answered); False: the server's to handle."""
        message = _message(frame)
        if message is None:
            return False
        method = message.get("method")
        params = message.get("params")
        if method in _KEPT_FOR_THE_SERVER and "id" not in message:
            self.early.replay.append(frame)
            return True
        if method == "workspace/didChangeConfiguration" and "id" not in message:
            # The server asks for the settings (the same as after `initialized`); settings sent along instead
            # would apply before the document opened: the server's to handle, in order.
            if not self.store.capabilities.configuration:
                return False
            self.early.replay.append(frame)
            return True
        if method == "textDocument/didOpen" and "id" not in message:
            return self._open(params)
        if method == "textDocument/diagnostic" and _is_id(message.get("id")):
            return self._pull(message["id"], params)
        return False

    def _open(self, params: Any) -> bool:
        item = _TextItem.of(params.get("textDocument") if isinstance(params, dict) else None)
        if item is None or self.store.documents.get(item.uri) is not None:
            return False
        document = self.store.documents.open(item)
        if len(document.data) > INLINE_FULL:
            # analysed off the message loop, by the server (cudaport.lsp.background): it opens the document again
            self.store.documents.close(item.uri)
            return False
        log.debug("opened %s (%s, %d bytes)", document.uri, document.language or "not analysed", len(document.data))
        if self.store.capabilities.pull_diagnostics:
            return True  # the client asks for them
        self.store.bring_up_to_date(document)
        self.early.analysed = True
        pieces = diagnostics_json(self.store.snapshot_of(document))
        self.notify("textDocument/publishDiagnostics", published(document.uri, document.version, pieces))
        self.diagnostics_sent = True
        return True

    def _pull(self, request_id: int | str, params: Any) -> bool:
        document = params.get("textDocument") if isinstance(params, dict) else None
        uri = document.get("uri") if isinstance(document, dict) else None
        if not isinstance(uri, str) or self.store.documents.get(uri) is None:
            return False
        previous = params.get("previousResultId")
        snapshot = self.store.snapshot(uri)
        self.early.analysed = True
        self.answer(request_id, pull(snapshot, previous if isinstance(previous, str) else None))
        self.diagnostics_sent = True
        return True

    # ---- writing ------------------------------------------------------------------------------------------
    def answer(self, request_id: int | str, result: PreparedJSON | RawJSON) -> None:
        self._send(response(request_id, result))
        self.early.answered.add(request_id)

    def notify(self, method: str, params: PreparedJSON | RawJSON) -> None:
        self._send(notification(method, params))

    def _send(self, pieces: list[bytes]) -> None:
        self.write(header(sum(map(len, pieces))) + b"".join(pieces))


@record(frozen=True)
class _TextItem:
    """textDocument/didOpen's TextDocumentItem, read from JSON (cudaport.lsp.documents.TextItem)."""

    uri: str
    language_id: str
    version: int
    text: str

    @classmethod
    def of(cls, value: Any) -> _TextItem | None:
        if not isinstance(value, dict):
            return None
        uri, language_id, version, text = (value.get(k) for k in ("uri", "languageId", "version", "text"))
        if not (isinstance(uri, str) and isinstance(language_id, str) and isinstance(text, str)):
            return None
        if not isinstance(version, int) or isinstance(version, bool):
            return None
        return cls(uri, language_id, version, text)


# ---- the initialize answer, kept -------------------------------------------------------------------------------
def _initialize_record(capabilities: Any) -> tuple[str, bytes]:
    """The cache record's name and stamp for a client with these capabilities: the answer depends on them, on
    the server's code and on pygls' and lsprotocol's (the files are stamped, not read)."""
    described = json.dumps(capabilities, sort_keys=True, ensure_ascii=True, separators=(",", ":"))
    files = sorted(Path(__file__).parent.glob("*.py"))
    for package in ("pygls", "lsprotocol"):
        spec = find_spec(package)
        if spec is not None and spec.origin is not None:
            files.append(Path(spec.origin))
    python = f"{sys.version_info[0]}.{sys.version_info[1]}"
    stamp = cache.stamp_of([f"lsp-initialize {__version__} {python}", described], files)
    return f"lsp-initialize-{_crc(described):08x}.json", stamp


def remember_initialize(remember_as: tuple[str, bytes], result: Any) -> None:
    """Keep the server's answer to `initialize` (JSON) for the next start of a client like this one."""
    name, stamp = remember_as
    cache.write_record(name, stamp, json.dumps(result, separators=(",", ":")).encode())


def _crc(text: str) -> int:
    import zlib

    return zlib.crc32(text.encode())


# ---- reading ---------------------------------------------------------------------------------------------------
def _message(frame: Frame) -> dict[str, Any] | None:
    if frame.problem:
        return None  # a repaired frame: the server reports it
    try:
        message = json.loads(frame.body)
    except (UnicodeDecodeError, ValueError):
        return None
    return message if isinstance(message, dict) and message.get("jsonrpc") == "2.0" else None


def _json_object(data: bytes | None) -> dict[str, Any] | None:
    if data is None:
        return None
    try:
        value = json.loads(data)
    except (UnicodeDecodeError, ValueError):
        return None
    return value if isinstance(value, dict) and isinstance(value.get("capabilities"), dict) else None


def _is_id(value: Any) -> bool:
    return isinstance(value, int | str) and not isinstance(value, bool)
