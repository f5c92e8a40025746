"""Whole-file analyses of large buffers, off the message loop.

A whole-file analysis costs what the file is: 1.5 s for the dense 10,000-line test file, 2 s and more for a 20 MB
buffer. On the message loop it held every request up for as long (a hover, a `$/cancelRequest`, `shutdown`). So
when a buffer over INLINE_FULL bytes needs one (its first analysis, a configuration change, a change the
incremental analysis cannot place, the whole-file check once typing stops), it runs here: on one thread, with
that thread's own Engine (analyzers keep a tree-sitter parser, which is not thread-safe), on a fresh Session of a
snapshot of the text (bytes: immutable). The message loop goes on editing the document's own session meanwhile,
and answers requests from it: the last complete findings, moved through every edit since (those an edit touched
are dropped until re-analysis), without waiting. A bounded wait would only trade a late answer for a slightly
fresher one, and the analysis it would wait for takes seconds.

When the analysis is done, the message loop takes its session over (`Job.session`), with the edits made since
replayed onto it (Document.edits_since): those edits' ranges are dirty in it, so the findings published are the
current version's, analysed incrementally, never the snapshot's. A newer version does not restart a job that is
under way (a buffer typed into faster than it can be analysed would never be), except for a buffer over
INLINE_ANY, whose every analysis is a whole-file one: there the newest text is what is analysed, and an older
analysis is cancelled wherever it is at a check (its parse reads the text in chunks, and asks before each).
A job whose document was closed or reconfigured is cancelled the same way; its result is dropped.

Threads and the interpreter lock: tree-sitter holds the lock for a whole parse, so the parse reads its input
through a callback (cudaport.engine.session._PARSE_CHUNK at a time), where the loop gets its turn; the analysis
proper is Python, which gives it up every few milliseconds (sys.getswitchinterval())."""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from pathlib import Path

from ..engine.engine import Engine
from ..engine.session import Cancelled, Session
from ..model.records import field, record

log = logging.getLogger(__name__)

# Buffers up to this size are analysed whole on the message loop (up to ~60 ms on a loaded machine); larger ones
# here. The dense test file is 400 kB.
INLINE_FULL = 96 * 1024
# Past this size even an incremental analysis re-parses for too long (a 20 MB line is one node): every analysis
# is a whole-file one, here.
INLINE_ANY = 4 * 1024 * 1024


@record(eq=False)
class Job:
    uri: str
    version: int
    mark: int  # how many of the document's logged edits the snapshot includes
    data: bytes
    path: Path | None
    language: str
    engine: Engine  # the message loop's (the configuration's); the thread analyses with its own copy
    token: object  # the configuration the analysis is under (Document.config_token)
    whole_file: bool
    incremental: bool
    owner: object  # the Document: a document closed and reopened is another one
    cancel_on_newer: bool
    cancelled: threading.Event = field(default_factory=threading.Event)
    session: Session | None = None
    error: BaseException | None = None
    seconds: float = 0.0


class Background:
    """The analysis thread and its jobs: at most one queued per document (the newest) besides the one running."""

    def __init__(self, post: Callable[[Callable[[], None]], None], finished: Callable[[Job], None]) -> None:
        """`post(callback)`: run the callback on the message loop (from this thread); `finished(job)`: what the
        message loop does with a job done (not called for a cancelled one)."""
        self._post = post
        self._finished = finished
        self._lock = threading.Condition()
        self._queued: dict[str, Job] = {}
        self._running: Job | None = None
        self._engines: dict[int, tuple[Engine, Engine]] = {}  # id(the loop's engine) -> (it, the thread's)
        self._thread: threading.Thread | None = None

    def job_for(self, uri: str) -> Job | None:
        """The newest job for the document, queued or running."""
        with self._lock:
            queued = self._queued.get(uri)
            if queued is not None:
                return queued
            running = self._running
            return running if running is not None and running.uri == uri and not running.cancelled.is_set() else None

    def submit(self, job: Job) -> Job:
        """Queue `job`, unless one for the same text and configuration is queued or running (then that one)."""
        with self._lock:
            current = self._queued.get(job.uri)
            running = self._running
            if running is not None and running.uri == job.uri and not running.cancelled.is_set():
                if _same(running, job) and current is None:
                    return running
                if job.cancel_on_newer or running.owner is not job.owner or running.token is not job.token:
                    running.cancelled.set()
            if current is not None and _same(current, job):
                return current
            self._queued[job.uri] = job
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="cudaport-analysis", daemon=True)
                self._thread.start()
            self._lock.notify()
        return job

    def cancel(self, uri: str) -> None:
        """The document was closed: whatever is queued or running for it is dropped."""
        with self._lock:
            queued = self._queued.pop(uri, None)
            if queued is not None:
                queued.cancelled.set()
            if self._running is not None and self._running.uri == uri:
                self._running.cancelled.set()

    def _run(self) -> None:
        while True:
            with self._lock:
                while not self._queued:
                    self._lock.wait()
                uri = next(iter(self._queued))
                job = self._running = self._queued.pop(uri)
            try:
                self._analyse(job)
            finally:
                with self._lock:
                    self._running = None
            if not job.cancelled.is_set():
                self._post(lambda job=job: self._finished(job))  # type: ignore[misc]

    def _analyse(self, job: Job) -> None:
        began = time.perf_counter()
        session = Session(self._engine(job.engine), job.path, job.data, job.language)
        try:
            session.analyse(whole_file=True, incremental=job.incremental, cancelled=job.cancelled.is_set)
        except Cancelled:
            log.debug("dropped the analysis of %s v%d: %s", job.uri, job.version, "cancelled")
            return
        except Exception as exc:  # reported by the message loop, like an analysis there
            job.error = exc
        job.session = session
        job.seconds = time.perf_counter() - began

    def _engine(self, engine: Engine) -> Engine:
        """This thread's copy of a configuration's engine (the rule data is shared: load_ruleset caches it)."""
        kept = self._engines.get(id(engine))
        if kept is None or kept[0] is not engine:
            kept = (engine, Engine(engine.settings, engine.project))
            self._engines[id(engine)] = kept
        return kept[1]


def _same(a: Job, b: Job) -> bool:
    return a.owner is b.owner and a.mark == b.mark and a.token is b.token and a.data is b.data
