"""Logging for the language server: to the client as window/logMessage (and to --log-file), never to stderr.

Neovim shows every line a server writes to stderr as an error, and stdout carries the protocol: in stdio mode both
are redirected into the log, so a stray print or warning from any library cannot corrupt the session."""

from __future__ import annotations

import io
import logging
import os
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

from ..i18n import t

LEVELS = {"error": logging.ERROR, "warning": logging.WARNING, "info": logging.INFO, "debug": logging.DEBUG}
# LSP's MessageType values (Error 1, Warning 2, Info 3, Log 4), as plain numbers: the handler is set up before the
# protocol library is loaded.
_MESSAGE_TYPES = ((logging.ERROR, 1), (logging.WARNING, 2), (logging.INFO, 3))
_LOG = 4
_FORMAT = "%(asctime)s %(levelname)s %(name)s: %(message)s"


class RateLimit:
    """At most `burst` records of one kind (logger and message template) per `window` seconds; the rest are
    counted and summed up in the first record of that kind after the window (a client that sends 20,000 bad
    messages gets a few lines in its log, not 20,000)."""

    def __init__(self, burst: int = 5, window: float = 10.0, clock: Callable[[], float] = time.monotonic) -> None:
        self.burst = burst
        self.window = window
        self._clock = clock
        self._kinds: dict[tuple[str, object], list[float]] = {}  # kind -> [window start, sent, suppressed]

    def admit(self, record: logging.LogRecord) -> tuple[bool, int]:
        """(whether to send the record, how many of its kind were suppressed before it)."""
        now = self._clock()
        key = (record.name, getattr(record.msg, "template", record.msg))
        state = self._kinds.get(key)
        if state is None or now - state[0] >= self.window:
            suppressed = int(state[2]) if state is not None else 0
            if len(self._kinds) > 1000:
                self._kinds.clear()
            self._kinds[key] = [now, 1, 0]
            return True, suppressed
        if state[1] < self.burst:
            state[1] += 1
            return True, 0
        state[2] += 1
        return False, 0


class Said(str):
    """A log message already in the user's language, whose kind for the rate limit is its English template (the
    messages of one template count together whatever their fields, as `log.info("... %s", x)` records do)."""

    template: str


def said(template: str, /, **fields: object) -> Said:
    """`template` (marked with N_ where it is written) in the user's language, its {fields} filled in, for a log
    record: `log.info(said(N_("skipped {file}"), file=name))`."""
    text = Said(t(template, **fields))
    text.template = template
    return text


class ClientLogHandler(logging.Handler):
    """Sends records as window/logMessage once the session is up; earlier ones wait (up to a limit). Repeated
    records from info level up are rate-limited."""

    def __init__(self, send: Callable[[int, str], None] | None = None) -> None:
        """`send(kind, message)` sends one window/logMessage (kind: LSP's MessageType); given here or, once the
        server exists, to connect()."""
        super().__init__(logging.INFO)
        self._send = send
        self._ready = False
        self._pending: list[tuple[int, str]] = []
        self._local = threading.local()
        self._limit = RateLimit()
        self.file: logging.FileHandler | None = None  # the editor's logFile (set_file)

    def connect(self, send: Callable[[int, str], None]) -> None:
        self._send = send
        self._flush()

    def ready(self) -> None:
        self._ready = True
        self._flush()

    def _flush(self) -> None:
        if self._ready and self._send is not None:
            pending, self._pending = self._pending, []
            for entry in pending:
                self._deliver(entry)

    def emit(self, record: logging.LogRecord) -> None:
        if getattr(self._local, "busy", False):
            return  # logging while sending a log message (a broken pipe, say) must not recurse
        # Debug records are sent only to a user who asked for them (logLevel "debug"), and are what they asked
        # for (bench/bench_lsp.py reads the per-change timing among them): they are never dropped.
        admitted, suppressed = self._limit.admit(record) if record.levelno > logging.DEBUG else (True, 0)
        if not admitted:
            return
        try:
            message = self.format(record)
        except Exception:
            return
        if suppressed:
            message += t(
                " ({count} more like it in the last {seconds} s were not logged)",
                count=f"{suppressed:,}",
                seconds=f"{self._limit.window:g}",
            )
        kind = next((t for level, t in _MESSAGE_TYPES if record.levelno >= level), _LOG)
        if not self._ready or self._send is None:
            if len(self._pending) < 200:
                self._pending.append((kind, message))
            return
        self._deliver((kind, message))

    def _deliver(self, entry: tuple[int, str]) -> None:
        if self._send is None:
            return
        self._local.busy = True
        try:
            self._send(*entry)
        except Exception:
            pass  # the client is gone: nothing left to tell
        finally:
            self._local.busy = False


class _LogStream(io.TextIOBase):
    """A stand-in for sys.stdout/sys.stderr that turns writes into log records."""

    def __init__(self, logger: logging.Logger, level: int) -> None:
        self._logger = logger
        self._level = level
        self._buffer = ""

    def writable(self) -> bool:
        return True

    def write(self, text: str) -> int:
        self._buffer += text
        while "\n" in self._buffer:
            line, self._buffer = self._buffer.split("\n", 1)
            if line.strip():
                self._logger.log(self._level, "%s", line)
        return len(text)

    def flush(self) -> None:
        if self._buffer.strip():
            self._logger.log(self._level, "%s", self._buffer)
        self._buffer = ""


def configure(handler: ClientLogHandler, log_file: Path | None, to_stderr: bool) -> None:
    """Route every log record to the client (and the log file); keep pygls' per-message chatter out."""
    logging.raiseExceptions = False
    root = logging.getLogger()
    for existing in list(root.handlers):
        root.removeHandler(existing)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    root.addHandler(handler)
    if log_file is not None:
        file_handler = logging.FileHandler(log_file, encoding="utf-8")
        file_handler.setFormatter(logging.Formatter(_FORMAT))
        file_handler.setLevel(logging.DEBUG)
        root.addHandler(file_handler)
    if to_stderr:
        stream_handler = logging.StreamHandler(sys.stderr)
        stream_handler.setFormatter(logging.Formatter(_FORMAT))
        stream_handler.setLevel(logging.WARNING)
        root.addHandler(stream_handler)
    root.setLevel(logging.DEBUG if log_file is not None else logging.INFO)
    logging.getLogger("pygls").setLevel(logging.WARNING)  # it logs every message it sends at INFO
    logging.captureWarnings(True)


def set_level(handler: ClientLogHandler, level: str) -> None:
    handler.setLevel(LEVELS.get(level, logging.INFO))
    if handler.file is not None:
        handler.file.setLevel(handler.level)
    root = logging.getLogger()
    if root.level > handler.level:
        root.setLevel(handler.level)


def set_file(handler: ClientLogHandler, path: Path | None) -> None:
    """The editor's logFile: what the client is sent (at its logLevel) is appended to `path` too; None stops
    writing to the one set before. Raises OSError when the file cannot be opened (the one before is kept then)."""
    current = handler.file
    if current is not None and path is not None and current.baseFilename == os.path.abspath(path):
        return
    opened = logging.FileHandler(path, encoding="utf-8") if path is not None else None  # appends, as --log-file
    root = logging.getLogger()
    if current is not None:
        root.removeHandler(current)
        current.close()
    handler.file = opened
    if opened is not None:
        opened.setFormatter(logging.Formatter(_FORMAT))
        opened.setLevel(handler.level)
        root.addHandler(opened)


def apply_settings(handler: ClientLogHandler, level: str, log_file: str | None, base: Path | None) -> str | None:
    """The editor's logLevel and logFile (`~` expanded; a relative path is taken from `base`, the workspace
    folder); a problem in words when the file cannot be written to."""
    set_level(handler, level)
    path = None
    if log_file:
        path = Path(log_file).expanduser()
        if not path.is_absolute() and base is not None:
            path = base / path
    try:
        set_file(handler, path)
    except OSError as exc:
        return t("'logFile': cannot write to {path}: {error}", path=path, error=exc.strerror or exc)
    return None


def capture_standard_streams() -> None:
    """In stdio mode: stdout belongs to the protocol and stderr is shown as errors by some editors."""
    sys.stdout = _LogStream(logging.getLogger("cudaport.stdout"), logging.INFO)
    sys.stderr = _LogStream(logging.getLogger("cudaport.stderr"), logging.WARNING)
