"""The cudaport language server: one shared store of documents and configuration, and a module per feature
(sync, diagnostics, workspace diagnostics, code actions, hover, editor settings) registered on it. All analysis
and rewriting goes through cudaport.engine.Engine, as in the CLI.

`cudaport serve` runs it over stdio (`--stdio`, which VS Code's client appends, is accepted and is the default) or,
for debugging, on a loopback TCP port (`--tcp 127.0.0.1:2087`)."""

from __future__ import annotations

import asyncio
import ipaddress
import logging
import os
import select
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any, BinaryIO

from lsprotocol import types
from pygls.io_ import StdoutWriter
from pygls.lsp.server import LanguageServer

from .. import __version__
from . import logs
from .code_actions import CodeActions
from .commands import Commands
from .configuration import Configuration, Resolved
from .diagnostics import Diagnostics
from .documents import Document, DocumentStore
from .framing import Frame, FrameReader
from .hover import Hover
from .protocol import CudaportProtocol, converter_factory
from .settings import EditorSettings
from .sync import TextSync
from .workspace_diagnostics import WorkspaceDiagnostics

log = logging.getLogger(__name__)


class CudaportServer(LanguageServer):
    def __init__(self) -> None:
        super().__init__(
            "cudaport",
            __version__,
            text_document_sync_kind=types.TextDocumentSyncKind.Incremental,
            protocol_cls=CudaportProtocol,
            converter_factory=converter_factory,
        )
        self.shutdown_requested = False
        self.unit = "utf-16"  # LineIndex column unit of the negotiated position encoding (set at initialize)
        self.log_handler = logs.ClientLogHandler(self.window_log_message)
        self.configuration = Configuration(report=self._show_configuration_problem)
        self.documents = DocumentStore(lambda path: self.configuration.resolve(path).engine)
        self.diagnostics = Diagnostics(self)
        self.workspace_diagnostics = WorkspaceDiagnostics(self)
        self.editor_settings = EditorSettings(self)
        self.text_sync = TextSync(self)
        self.code_actions = CodeActions(self)
        self.hover = Hover(self)
        self.commands = Commands(self)

    def resolve(self, document: Document) -> Resolved:
        return self.configuration.resolve(document.path)

    def show_message(self, message: str, kind: types.MessageType = types.MessageType.Info) -> None:
        self.window_show_message(types.ShowMessageParams(type=kind, message=message))

    def _show_configuration_problem(self, message: str) -> None:
        self.show_message(message, types.MessageType.Error)

    def request_diagnostic_refresh(self) -> None:
        """Ask a pull client to pull again (when it supports being asked)."""
        workspace = self.client_capabilities.workspace
        diagnostics = workspace.diagnostics if workspace is not None else None
        if diagnostics is not None and diagnostics.refresh_support:
            self.workspace_diagnostic_refresh(None)

    def report_server_error(self, error: Exception, source: Any) -> None:
        # pygls would pop up a message for every malformed message; a log entry is the right weight.
        log.error("%s: %s", getattr(source, "__name__", source), error)


def create_server() -> CudaportServer:
    return CudaportServer()


def run_server(tcp: str | None = None, log_file: Path | None = None) -> int:
    """Serve one client until it exits: 0 after an orderly shutdown, 1 when the client vanished without one,
    2 for an unusable --tcp address."""
    server = create_server()
    if tcp is not None:
        try:
            host, port = parse_loopback(tcp)
        except ValueError as exc:
            print(f"cudaport: error: --tcp {tcp}: {exc}", file=sys.stderr)
            return 2
        logs.configure(server.log_handler, log_file, to_stderr=True)
        print(f"cudaport: language server listening on {host}:{port}", file=sys.stderr, flush=True)
        try:
            server.start_tcp(host, port)
        except OSError as exc:
            print(f"cudaport: error: cannot listen on {host}:{port}: {exc}", file=sys.stderr)
            return 2
        except (KeyboardInterrupt, SystemExit):
            pass
        return 0 if server.shutdown_requested else 1
    logs.configure(server.log_handler, log_file, to_stderr=False)
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    logs.capture_standard_streams()
    return _serve_stdio(server, stdin, stdout)


def parse_loopback(address: str) -> tuple[str, int]:
    """HOST:PORT for --tcp, where HOST must be a loopback address: the server has no authentication."""
    host, separator, port_text = address.rpartition(":")
    if not separator or not port_text.isdigit():
        raise ValueError("expected HOST:PORT, such as 127.0.0.1:2087")
    port = int(port_text)
    if not 0 < port < 65536:
        raise ValueError("the port must be between 1 and 65535")
    host = host.strip("[]") or "127.0.0.1"
    if host != "localhost":
        try:
            loopback = ipaddress.ip_address(host).is_loopback
        except ValueError:
            loopback = False
        if not loopback:
            raise ValueError(f"{host} is not a loopback address (the server has no authentication): use 127.0.0.1")
    return host, port


def _serve_stdio(server: CudaportServer, stdin: BinaryIO, stdout: BinaryIO) -> int:
    server.protocol.set_writer(StdoutWriter(stdout))
    try:
        asyncio.run(_serve(server, stdin))
    except (KeyboardInterrupt, SystemExit):
        pass
    except BrokenPipeError:
        log.error("the connection to the client is lost")
    return 0 if server.shutdown_requested else 1


async def _serve(server: CudaportServer, stdin: BinaryIO) -> None:
    """Handle the client's frames until its stream ends (or `exit` raises SystemExit). The frames are read on a
    daemon thread: whatever it is blocked in when the stream closes, or when the client keeps it open after
    `exit`, it never keeps the process alive."""
    loop = asyncio.get_running_loop()
    frames: asyncio.Queue[Frame | None] = asyncio.Queue()

    def post(frame: Frame | None) -> bool:
        try:
            loop.call_soon_threadsafe(frames.put_nowait, frame)
        except RuntimeError:
            return False  # the event loop is gone
        return True

    def pump() -> None:
        read, ready = _raw_input(stdin)
        for frame in FrameReader(read, ready).frames():
            if not post(frame):
                return
        log.info("the client closed the connection")
        post(None)

    threading.Thread(target=pump, name="cudaport-stdin", daemon=True).start()
    protocol = server.protocol
    assert isinstance(protocol, CudaportProtocol)
    while (frame := await frames.get()) is not None:
        protocol.receive(frame)


def _raw_input(stream: BinaryIO) -> tuple[Callable[[int], bytes], Callable[[float], bool] | None]:
    """Reads from the file descriptor itself when there is one: a buffered reader would hide bytes from select()."""
    try:
        fd = stream.fileno()
    except (OSError, ValueError, AttributeError):
        read1 = getattr(stream, "read1", None)
        return (read1 if read1 is not None else stream.read), None

    def ready(seconds: float) -> bool:
        try:
            return bool(select.select([fd], [], [], seconds)[0])
        except (OSError, ValueError):
            return True  # let the read find out

    return (lambda size: os.read(fd, size)), ready
