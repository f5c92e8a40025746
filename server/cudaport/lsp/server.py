"""The cudaport language server: one shared store of documents and configuration, and a module per feature
(sync, diagnostics, workspace diagnostics, code actions, hover, editor settings) registered on it. All analysis
and rewriting goes through cudaport.engine.Engine, as in the CLI.

`cudaport serve` runs it over stdio (`--stdio`, which VS Code's client appends, is accepted and is the default) or,
for debugging, on a loopback TCP port (`--tcp 127.0.0.1:2087`)."""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import sys
import threading
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

from lsprotocol import types
from pygls.lsp.server import LanguageServer

from .. import __version__
from ..i18n import N_, t
from . import code_actions, logs
from . import diagnostics as diagnostics_feature
from . import hover as hover_feature
from .background import Background
from .client import Client
from .commands import MIGRATE, SUMMARY, TARGETS, Commands
from .diagnostics import Diagnostics
from .documents import uri_path
from .features import register, register_command
from .framing import Frame
from .initialize import InitializeRequest
from .jsonparts import PreparedJSON
from .lifeline import Lifeline
from .prelude import Early, remember_initialize
from .protocol import CudaportProtocol, converter_factory
from .settings import EditorSettings
from .store import Store, tune_gc
from .sync import TextSync
from .workspace_diagnostics import WorkspaceDiagnostics
from .writer import ThreadedWriter

log = logging.getLogger(__name__)


class CudaportServer(LanguageServer):
    """pygls' server with cudaport's protocol, the shared store, and the handlers registered on them."""

    def __init__(self, store: Store | None = None, log_handler: logs.ClientLogHandler | None = None) -> None:
        """`store` and `log_handler`: those of the prelude that served the first diagnostics, when there was one."""
        super().__init__(
            "cudaport",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=CudaportProtocol,
            converter_factory=converter_factory,
        )
        self.log_handler = log_handler if log_handler is not None else logs.ClientLogHandler()
        self.log_handler.connect(self._log_message)
        if store is None:
            store = Store()
            store.connect(report=self._show_configuration_problem, tell=self._show_message)
        self.store = store  # a prelude's store is connected by take_over, once messages can be written
        self.client = Client(self, lambda: self.store.capabilities)
        self.lifeline: Lifeline | None = None  # over stdio: what ends the session when the client is gone
        self.analysed_in_background: Any = None  # the diagnostics' word when the analysis thread is done
        _register_handlers(self)

    @property
    def shutdown_requested(self) -> bool:
        return self.store.shutdown_requested

    def take_over(self, early: Early, writer: ThreadedWriter) -> None:
        """Go on from where the prelude stopped, writing to `writer`: what the store held back is shown, the
        prelude's answers are not sent again, the answer to `initialize` is kept for the next start when the
        prelude had none, and the collector is tuned now that the protocol library's classes are loaded too."""
        protocol = self.protocol
        assert isinstance(protocol, CudaportProtocol)
        protocol.set_writer(writer)
        self.store.connect(report=self._show_configuration_problem, tell=self._show_message)
        protocol.answered_early = set(early.answered)
        remember_as = early.remember_as
        if remember_as is not None:
            protocol.on_initialize_answer = lambda result: remember_initialize(remember_as, result)
        if early.analysed:
            tune_gc()
        else:
            self.store.gc_tuned = False  # after the first whole-file analysis, as without a prelude

    def _log_message(self, kind: int, message: str) -> None:
        # JSON as it is sent (the debug log carries a line per change: no lsprotocol conversion for each)
        self.protocol.notify(types.WINDOW_LOG_MESSAGE, PreparedJSON(type=kind, message=message))

    def _show_message(self, message: str, kind: types.MessageType) -> None:
        self.client.show_message(message, kind)

    def _show_configuration_problem(self, message: str) -> None:
        self.client.show_message(message, types.MessageType.Error)

    def report_server_error(self, error: Exception, source: Any) -> None:
        # pygls would pop up a message for every malformed message; a log entry is the right weight.
        log.error("%s: %s", getattr(source, "__name__", source), error)


def _register_handlers(server: CudaportServer) -> None:
    """Thin handlers: each takes what its feature needs from the store (a snapshot of one document, or the
    store for workspace-wide work) and hands it over; the features never see the server or each other."""
    store, client = server.store, server.client
    diagnostics = Diagnostics(store, client)
    server.analysed_in_background = diagnostics.analysed_in_background
    workspace = WorkspaceDiagnostics(store, client)
    settings = EditorSettings(store, client, diagnostics, workspace, server.log_handler)
    sync = TextSync(store, diagnostics, settings, workspace)
    commands = Commands(store, client)

    # ---- life cycle and configuration ---------------------------------------------------------------------
    def initialize(params: types.InitializeParams) -> None:
        protocol = server.protocol
        assert isinstance(protocol, CudaportProtocol)
        request = InitializeRequest.of(protocol.to_json(params))
        settings.initialize(request, server.workspace.position_encoding)
        if server.lifeline is not None:
            server.lifeline.watch_parent(params.process_id)

    async def initialized(params: types.InitializedParams) -> None:
        await settings.initialized()

    register(server, types.INITIALIZE, initialize)
    register(server, types.INITIALIZED, initialized)
    register(server, types.SHUTDOWN, lambda params: settings.shutdown())
    register(server, types.WORKSPACE_DID_CHANGE_CONFIGURATION, settings.did_change_configuration)
    register(server, types.WORKSPACE_DID_CHANGE_WATCHED_FILES, settings.did_change_watched_files)
    register(
        server,
        types.WORKSPACE_DID_CHANGE_WORKSPACE_FOLDERS,
        lambda params: settings.workspace_folders_changed(_folders(server)),
    )

    # ---- documents ----------------------------------------------------------------------------------------
    register(server, types.TEXT_DOCUMENT_DID_OPEN, sync.did_open)
    register(server, types.TEXT_DOCUMENT_DID_CHANGE, sync.did_change)
    register(server, types.TEXT_DOCUMENT_DID_SAVE, sync.did_save, types.SaveOptions(include_text=False))
    register(server, types.TEXT_DOCUMENT_DID_CLOSE, sync.did_close)

    # ---- requests on one document: a snapshot each ----------------------------------------------------------
    async def pull(params: types.DocumentDiagnosticParams) -> Any:
        uri = params.text_document.uri
        snapshot = store.snapshot(uri, local_first=diagnostics.local_first)
        if snapshot is not None and diagnostics.pull_waits(snapshot.document):
            await diagnostics.analysed(uri)
            snapshot = store.snapshot(uri, local_first=diagnostics.local_first)
        if snapshot is not None:
            diagnostics.pulled(snapshot.document)
        return diagnostics_feature.pull(snapshot, params.previous_result_id)

    def hover(params: types.HoverParams) -> types.Hover | None:
        snapshot = store.snapshot(params.text_document.uri)
        return hover_feature.hover(snapshot, params.position) if snapshot is not None else None

    def code_action(params: types.CodeActionParams) -> list[types.CodeAction] | None:
        snapshot = store.snapshot(params.text_document.uri)
        if snapshot is None:
            return None
        return code_actions.code_actions(snapshot, params.range, params.context.only)

    def code_action_resolve(action: types.CodeAction) -> types.CodeAction:
        return code_actions.resolve(store.snapshot(code_actions.resolved_uri(action)), action)

    pull_options = types.DiagnosticOptions(
        identifier=diagnostics_feature.IDENTIFIER, inter_file_dependencies=True, workspace_diagnostics=True
    )
    register(server, types.TEXT_DOCUMENT_DIAGNOSTIC, pull, pull_options)
    register(server, types.TEXT_DOCUMENT_HOVER, hover)
    register(server, types.TEXT_DOCUMENT_CODE_ACTION, code_action, code_actions.OPTIONS)
    register(server, types.CODE_ACTION_RESOLVE, code_action_resolve)

    # ---- the workspace ------------------------------------------------------------------------------------
    register(server, types.WORKSPACE_DIAGNOSTIC, workspace.workspace_diagnostic)
    register_command(server, MIGRATE, commands.migrate_workspace)
    register_command(server, SUMMARY, commands.summary)
    register_command(server, TARGETS, commands.targets)


def _folders(server: LanguageServer) -> list[Path]:
    """The workspace folders the client named (else its root)."""
    workspace = server.workspace
    folders = [uri_path(folder.uri) for folder in workspace.folders.values()]
    found = [f for f in folders if f is not None]
    if not found and workspace.root_uri:
        root = uri_path(workspace.root_uri)
        if root is not None:
            found.append(root)
    return found


def create_server() -> CudaportServer:
    return CudaportServer()


def run_tcp(tcp: str, log_file: Path | None = None) -> int:
    """Serve one client on a loopback TCP port (for debugging) until it exits: 0 after an orderly shutdown, 1 when
    the client vanished without one, 2 for an unusable address. (Over stdio: cudaport.lsp.stdio.)"""
    server = create_server()
    try:
        host, port = parse_loopback(tcp)
    except ValueError as exc:
        print(t("cudaport: error: --tcp {address}: {problem}", address=tcp, problem=exc), file=sys.stderr)
        return 2
    logs.configure(server.log_handler, log_file, to_stderr=True)
    print(t("cudaport: language server listening on {host}:{port}", host=host, port=port), file=sys.stderr, flush=True)
    try:
        server.start_tcp(host, port)
    except OSError as exc:
        print(
            t("cudaport: error: cannot listen on {host}:{port}: {problem}", host=host, port=port, problem=exc),
            file=sys.stderr,
        )
        return 2
    except (KeyboardInterrupt, SystemExit):
        pass
    return 0 if server.shutdown_requested else 1


def parse_loopback(address: str) -> tuple[str, int]:
    """HOST:PORT for --tcp, where HOST must be a loopback address: the server has no authentication."""
    host, separator, port_text = address.rpartition(":")
    if not separator or not port_text.isdigit():
        raise ValueError(t("expected HOST:PORT, such as 127.0.0.1:2087"))
    port = int(port_text)
    if not 0 < port < 65536:
        raise ValueError(t("the port must be between 1 and 65535"))
    host = host.strip("[]") or "127.0.0.1"
    if host != "localhost":
        try:
            loopback = ipaddress.ip_address(host).is_loopback
        except ValueError:
            loopback = False
        if not loopback:
            raise ValueError(
                t("{host} is not a loopback address (the server has no authentication): use 127.0.0.1", host=host)
            )
    return host, port


def serve_frames(
    server: CudaportServer,
    writer: ThreadedWriter,
    replay: list[Frame],
    frames: Iterator[Frame],
    output: int | None = None,
) -> int:
    """Handle `replay` (what the prelude read), then the rest of the client's `frames`, until the client exits: 0
    after an orderly shutdown, 1 when it vanished without one. (The server writes to `writer`: take_over.)
    `output`: the file descriptor `writer` writes to, watched for the client closing it."""
    try:
        asyncio.run(_serve(server, replay, frames, writer, output))
    except (KeyboardInterrupt, SystemExit):
        pass
    except BrokenPipeError:
        log.error(logs.said(N_("the connection to the client is lost")))
    finally:
        writer.close(timeout=1.0)  # what is still queued, for a client that still reads
    return 0 if server.shutdown_requested else 1


# Frames read but not yet handled: past this many, reading waits (the client's writes then wait in the pipe). A
# client that sends 20,000 changes without waiting for anything had them all queued in the server's memory.
_BACKLOG = 512


async def _serve(
    server: CudaportServer,
    replay: list[Frame],
    incoming: Iterator[Frame],
    writer: ThreadedWriter | None = None,
    output: int | None = None,
) -> None:
    """Handle the client's frames until its stream ends (or `exit` raises SystemExit), or the client is otherwise
    gone (cudaport.lsp.lifeline). The frames are read on a daemon thread: whatever it is blocked in when the
    stream closes, or when the client keeps it open after `exit`, it never keeps the process alive."""
    loop = asyncio.get_running_loop()
    frames: asyncio.Queue[Frame | None] = asyncio.Queue()
    backlog = threading.BoundedSemaphore(_BACKLOG)

    def post_call(callback: Callable[[], None]) -> None:
        with contextlib.suppress(RuntimeError):  # the event loop is gone: so is the session
            loop.call_soon_threadsafe(callback)

    def post(frame: Frame | None) -> bool:
        try:
            loop.call_soon_threadsafe(frames.put_nowait, frame)
        except RuntimeError:
            return False  # the event loop is gone
        return True

    for kept in replay:
        backlog.acquire()
        frames.put_nowait(kept)
    # Whole-file analyses of large buffers run on a thread of their own (cudaport.lsp.background): whatever is
    # being analysed, the loop answers every message within milliseconds.
    server.store.background = Background(lambda callback: post_call(callback), server.analysed_in_background)
    lifeline = Lifeline(lambda reason: _ignore(post(None)), lambda: 0 if server.shutdown_requested else 1)
    server.lifeline = lifeline
    if writer is not None:
        writer.on_lost = lambda: lifeline.end("the connection to the client is lost")
    if output is not None:
        lifeline.watch_output(output)

    def pump() -> None:
        for frame in incoming:
            backlog.acquire()
            if not post(frame):
                return
        log.info(logs.said(N_("the client closed the connection")))
        lifeline.end("the client's input ended")

    threading.Thread(target=pump, name="cudaport-stdin", daemon=True).start()
    protocol = server.protocol
    assert isinstance(protocol, CudaportProtocol)
    while (frame := await frames.get()) is not None:
        try:
            protocol.receive(frame)
        finally:
            backlog.release()


def _ignore(value: object) -> None:
    """(For a callback whose result nobody reads.)"""
