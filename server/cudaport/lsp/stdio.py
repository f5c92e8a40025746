"""The language server's stdio transport: the client's frames read on a thread of their own, the server's
messages written on another, and the order of start-up: the first diagnostics are served (cudaport.lsp.prelude)
before pygls and lsprotocol are loaded, which takes a quarter of a second, and the server then takes over the
same store and the rest of the stream."""

from __future__ import annotations

import gc
import logging
import os
import select
import sys
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO

from ..i18n import N_
from . import logs
from .framing import FrameReader
from .writer import ThreadedWriter

log = logging.getLogger(__name__)


def serve_stdio(log_file: Path | None = None) -> int:
    """Serve one client over stdin/stdout until it exits: 0 after an orderly shutdown, 1 when it vanished without
    one."""
    # The analysis thread (cudaport.lsp.background) is busy for seconds at a time: a request arriving meanwhile
    # waits for the interpreter lock up to this long at each of the steps it takes (5 ms by default).
    sys.setswitchinterval(0.001)
    gc.disable()  # start-up allocates for good (rule tables, the protocol's classes); the store tunes it after
    log_handler = logs.ClientLogHandler()
    logs.configure(log_handler, log_file, to_stderr=False)
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    logs.capture_standard_streams()
    grow_pipe(stdout)
    writer = ThreadedWriter(stdout)
    read, ready = raw_input(stdin)
    reader = FrameReader(read, ready)
    frames = reader.frames()
    try:
        from .prelude import serve_first

        early = serve_first(frames, reader.pending, writer.write, log_handler)
        from .server import CudaportServer, serve_frames
    except BrokenPipeError:
        log.error(logs.said(N_("the connection to the client is lost")))
        writer.close(timeout=1.0)
        return 1
    finally:
        gc.enable()
    server = CudaportServer(early.store, log_handler)
    server.take_over(early, writer)
    try:
        output = stdout.fileno()
    except (OSError, ValueError, AttributeError):
        output = None
    return serve_frames(server, writer, early.replay, frames, output)


_PIPE_SIZES = (4 << 20, 1 << 20)  # 1 MiB is Linux's limit for an unprivileged process (fs.pipe-max-size)
_F_SETPIPE_SZ = 1031  # Linux's fcntl to resize a pipe (fcntl.F_SETPIPE_SZ from Python 3.10, not on every build)


def grow_pipe(stream: BinaryIO) -> None:
    """A pipe to the client holds 64 KiB: the diagnostics of a dense file (1.5 MB) would keep the server's loop
    writing until the client has read them. A larger pipe (where the system allows one) lets it go on sooner."""
    try:
        import fcntl

        descriptor = stream.fileno()
    except (ImportError, OSError, ValueError, AttributeError):
        return  # not a file descriptor, or not a POSIX system
    for size in _PIPE_SIZES:
        try:
            fcntl.fcntl(descriptor, getattr(fcntl, "F_SETPIPE_SZ", _F_SETPIPE_SZ), size)
            return
        except OSError:
            continue  # over the system's limit, or not a pipe: the default size works, only slower


def raw_input(stream: BinaryIO) -> tuple[Callable[[int], bytes], Callable[[float], bool] | None]:
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
