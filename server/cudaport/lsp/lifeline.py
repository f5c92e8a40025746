"""When to stop serving a client that is gone: its end of our stdout closed, its parent process (the `processId`
of `initialize`) died, or our stdin ended. Each is noticed on a daemon thread of its own and ends the session the
same way: the message loop is told to stop, and should it not have stopped within the grace period (a handler
that never returns, a thread the interpreter would wait for at exit), the process exits anyway. An editor that
crashed must not leave servers behind, each holding its documents' memory."""

from __future__ import annotations

import contextlib
import logging
import os
import select
import threading
from collections.abc import Callable

log = logging.getLogger(__name__)

GRACE = 1.5  # seconds from the client's end to the process's, at most (the goal is 2 s)
_PARENT_POLL = 0.5  # seconds between looks at the parent process


class Lifeline:
    """`stop(reason)`: ask the message loop to end (called from any thread; it must only post); `exit_code()`: what
    the process exits with if it has to be ended after GRACE."""

    def __init__(self, stop: Callable[[str], None], exit_code: Callable[[], int]) -> None:
        self._stop = stop
        self._exit_code = exit_code
        self._ended = threading.Event()

    @property
    def ended(self) -> bool:
        return self._ended.is_set()

    def end(self, reason: str) -> None:
        """The client is gone (or said `exit`): stop, and make sure the process follows within GRACE."""
        if self._ended.is_set():
            return
        self._ended.set()
        log.info("ending the session: %s", reason)
        self._stop(reason)
        timer = threading.Timer(GRACE, self._exit_now, (reason,))
        timer.daemon = True
        timer.start()

    def _exit_now(self, reason: str) -> None:
        log.error("the server did not stop within %.1f s of %s: exiting", GRACE, reason)
        with contextlib.suppress(Exception):
            logging.shutdown()
        os._exit(self._exit_code())

    # ---- what is watched ------------------------------------------------------------------------------------
    def watch_output(self, descriptor: int) -> None:
        """Our stdout: a pipe whose reading end is closed reports an error to poll() (no write needed to find out;
        the server may have nothing to write for minutes)."""
        if not hasattr(select, "poll"):
            return  # not on this system: a write finds out instead (ThreadedWriter's on_lost)

        def watch() -> None:
            poller = select.poll()
            poller.register(descriptor, 0)  # no events asked for: POLLERR, POLLHUP and POLLNVAL are always told
            while not self._ended.is_set():
                try:
                    events = poller.poll()
                except InterruptedError:
                    continue
                except OSError:
                    return
                if any(flags & (select.POLLERR | select.POLLHUP | select.POLLNVAL) for _, flags in events):
                    self.end("the client closed the server's output")
                    return

        threading.Thread(target=watch, name="cudaport-stdout-watch", daemon=True).start()

    def watch_parent(self, process_id: int | None) -> None:
        """The client's process (initialize's `processId`), and the process that started us: when either is gone,
        so is the client. (pygls 2 keeps processId as `process_id` but does not watch it.)"""
        parent = os.getppid()

        def alive(pid: int) -> bool:
            try:
                os.kill(pid, 0)
            except ProcessLookupError:
                return False
            except (PermissionError, OSError):
                return True  # someone else's process, or a system that cannot tell: alive
            return True

        def watch() -> None:
            while not self._ended.wait(_PARENT_POLL):
                if process_id is not None and process_id > 0 and not alive(process_id):
                    self.end(f"the client's process {process_id} exited")
                    return
                if parent > 1 and os.getppid() != parent:
                    self.end(f"the parent process {parent} exited")
                    return

        threading.Thread(target=watch, name="cudaport-parent-watch", daemon=True).start()
