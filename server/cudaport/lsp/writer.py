"""The server's writer to the client: messages written on a thread of their own, in order."""

from __future__ import annotations

import contextlib
import queue
import threading
from collections.abc import Callable
from typing import BinaryIO


class ThreadedWriter:
    """pygls' writer, writing on a thread of its own: a pipe holds 64 KiB to 1 MiB, and the diagnostics of a dense
    file (1.5 MB) written from the event loop would hold it until the client has read them. Messages keep their
    order (one queue, one thread). Once the client is gone, every write raises BrokenPipeError, as a direct write
    would."""

    def __init__(self, stream: BinaryIO) -> None:
        self._stream = stream
        self._queue: queue.SimpleQueue[bytes | list[bytes] | None] = queue.SimpleQueue()
        self._lost = False
        self.on_lost: Callable[[], None] | None = None  # told (on the writing thread) when the client is gone
        self._thread = threading.Thread(target=self._run, name="cudaport-stdout", daemon=True)
        self._thread.start()

    def write(self, data: bytes) -> None:
        self._put(data)

    def write_pieces(self, pieces: list[bytes]) -> None:
        """One message given in pieces (header and all), joined by the writing thread."""
        self._put(pieces)

    def _put(self, message: bytes | list[bytes]) -> None:
        if self._lost:
            raise BrokenPipeError("the connection to the client is lost")
        self._queue.put(message)

    def close(self, timeout: float = 5.0) -> None:
        """Write what is queued (waiting up to `timeout` for a client that reads slowly), then close."""
        if self._thread.is_alive():
            self._queue.put(None)
            self._thread.join(timeout)
        with contextlib.suppress(OSError, ValueError):
            self._stream.close()

    def _run(self) -> None:
        while (data := self._queue.get()) is not None:
            try:
                self._stream.write(data if isinstance(data, bytes) else b"".join(data))
                self._stream.flush()
            except (OSError, ValueError):  # a broken pipe, a closed stream: nobody is reading any more
                self._lost = True
                if self.on_lost is not None:
                    self.on_lost()
                return
