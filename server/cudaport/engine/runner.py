"""Runs `check` over many files, in one process or several (--jobs), as a stream: each file's results come out in
output order (by label) as soon as they are ready, and nothing of a file is kept once it has been consumed, so
memory follows the largest file, not the tree. `fix` over a tree (rewrite.batch) runs its jobs the same way."""

from __future__ import annotations

import itertools
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from .. import i18n
from ..knowledge.filekinds import file_kind
from ..knowledge.ruleset import load_ruleset
from ..model.findings import Finding
from ..model.records import field, record
from ..model.results import Diagnostic, FileFindings, RunTotals
from ..model.source import LineIndex, SkipFile, SourceFile, read_source
from ..project.config import Settings
from ..project.files import Excluded, Skipped, SourcePath, discover
from ..project.ignorefiles import IgnoreRules
from ..project.includes import ProjectIndex, checkout_root
from . import wire

if TYPE_CHECKING:
    from concurrent.futures import Future

    from .engine import Engine, FileResult
    from .resultcache import Lookup, ResultCache


Progress = Callable[[int, int], None]
Job = TypeVar("Job")
Outcome = TypeVar("Outcome")
PARALLEL_THRESHOLD = 48
CHUNKS_IN_FLIGHT = 4  # per worker: enough to keep each busy, few enough that results never pile up


def locate(label: str, findings: Iterable[Finding], lines: LineIndex) -> list[Diagnostic]:
    """Findings placed in the file, in output order (see results.sort_diagnostics)."""
    out = []
    for finding in findings:
        line, column = lines.position(finding.start)
        end_line, end_column = lines.position(finding.end)
        out.append(Diagnostic(label, line + 1, column + 1, end_line + 1, end_column + 1, finding))
    out.sort(key=lambda d: (d.line, d.column, d.finding.rule))
    return out


def line_count(data: bytes) -> int:
    return data.count(b"\n") + (0 if not data or data.endswith(b"\n") else 1)


LINE_TEXT_LIMIT = 200  # characters of a line's text a report shows


def line_texts(data: bytes, lines: Iterable[int], index: LineIndex, notebook: bool = False) -> dict[int, str]:
    """The text of each of `lines` (1-based) as far as it goes (its indent kept, so that a finding's column still
    points into it), cut where its code passes LINE_TEXT_LIMIT characters; a notebook's line is a JSON string of
    its cell, given as the code it holds."""
    out = {}
    for line in sorted(set(lines)):
        raw = data[index.line_start(line - 1) : index.line_end(line - 1)].decode("utf-8", "replace").rstrip()
        if notebook:
            raw = _cell_text(raw.strip())
        indent = len(raw) - len(raw.lstrip())
        if len(raw) - indent > LINE_TEXT_LIMIT:
            raw = raw[: indent + LINE_TEXT_LIMIT - 1].rstrip() + "…"
        out[line] = raw
    return out


def _cell_text(raw: str) -> str:
    """`"x = torch.cuda.foo()\\n",` (a line of a notebook's JSON) as the code it holds; anything else as it is."""
    body = raw[:-1] if raw.endswith(",") else raw
    if len(body) >= 2 and body.startswith('"') and body.endswith('"'):
        import json  # notebooks only

        try:
            decoded = json.loads(body)
        except ValueError:
            return raw
        if isinstance(decoded, str):
            return decoded.strip()
    return raw


# ---- per-process state ------------------------------------------------------------------------------------------
_ENGINE: Engine | None = None


def _init_worker(settings: Settings, roots: list[Path], language: str | None = None) -> None:
    """A process's engine; a worker process also takes the run's language (findings carry their messages
    written, in the worker, and a worker may start afresh rather than as a copy of the parent)."""
    from .engine import Engine  # the analysis: not loaded by a run the results cache answers whole

    global _ENGINE
    if language is not None and language != i18n.language():
        i18n.set_language(language)
    _ENGINE = Engine(settings)
    _ENGINE.project = ProjectIndex(_ENGINE.ruleset, roots)


def process_engine() -> Engine:
    assert _ENGINE is not None, "worker not initialised"
    return _ENGINE


def _scan_one(job: tuple[SourcePath, tuple[str, ...], bool, bool, ResultCache | None]) -> list[FileFindings]:
    """One file, read and parsed once, analysed for each target (and its record written to the results cache)."""
    source_path, targets, excerpts, line_text, cache = job
    engine = process_engine()
    if cache is None:
        return file_findings(source_path, engine.check_path_targets(source_path, targets), excerpts, line_text)
    results, pending = cache.analyse(engine, source_path, targets)
    found = file_findings(source_path, results, excerpts, line_text)
    if pending is not None:
        cache.store(engine, source_path, pending, found)
    return found


def check_path_cached(cache: ResultCache, engine: Engine, source_path: SourcePath) -> FileResult:
    """Engine.check_path through the results cache, for a caller that takes one file at a time (the language
    server's workspace diagnostics): the record's findings when it still holds, else the file analysed with
    `engine` and its record written. The file is read once, for both."""
    try:
        source = read_source(source_path.path, cache.settings.max_file_size) if cache.cacheable(source_path) else None
    except SkipFile:
        source = None
    if source is None:  # a binary kind, or a file that cannot be checked (the engine says why): a miss, as in check
        cache.misses += 1
        return engine.check_path(source_path)
    target = engine.settings.target
    found = cache.lookup(source_path, [target], source)
    if found.hit is not None:
        from .engine import FileResult

        result = FileResult(source_path.label, source_path.path, source_path.language, source=source)
        result.findings = cache.decode(source_path, found, [target]).findings[target]
        return result
    results, pending = cache.analyse(engine, source_path, [target], source)
    if pending is not None:
        cache.store(engine, source_path, pending, file_findings(source_path, results))
    return results[target]


def file_findings(
    source_path: SourcePath, results: dict[str, FileResult], excerpts: bool = False, line_text: bool = False
) -> list[FileFindings]:
    """One file's results for several targets (Engine.check_path_targets) as a run streams them, one per target;
    with `excerpts`, each with the text of the lines its diagnostics are on (as they are: `check --format full`);
    with `line_text`, each with the text of the lines that have a finding on any target (one dict, shared; trimmed
    as line_texts says: the report's)."""
    out = []
    index: LineIndex | None = None  # built once, and only for a file with findings
    data = b""
    for target, result in results.items():
        found = FileFindings(source_path.label, source_path.language, target, skipped=result.skipped)
        if result.source is not None:
            found.lines = line_count(result.source.data)
            found.error = result.error
            if result.findings:
                index = index or LineIndex(result.source.data)
                data = result.source.data
                found.diagnostics = locate(source_path.label, result.findings, index)
                if excerpts:
                    found.excerpts = _line_texts(result.source.data, index, {d.line for d in found.diagnostics})
        out.append(found)
    if line_text and index is not None:
        attach_line_texts(source_path, data, index, out)
    return out


def attach_line_texts(source_path: SourcePath, data: bytes, index: LineIndex, results: list[FileFindings]) -> None:
    """Give one file's results for every target the report's text of its lines with findings (one dict, shared;
    none for a binary)."""
    kind = file_kind(source_path.language)
    if kind is not None and kind.binary:
        return
    texts = line_texts(
        data,
        (d.line for found in results for d in found.diagnostics),
        index,
        notebook=source_path.language == "notebook",
    )
    for found in results:
        found.source_lines = texts


def _line_texts(data: bytes, index: LineIndex, lines: set[int]) -> dict[int, str]:
    """The text of these 1-based lines of the buffer."""
    return {
        line: data[index.line_start(line - 1) : index.line_end(line - 1)].decode("utf-8", "replace") for line in lines
    }


# ---- driving a run ----------------------------------------------------------------------------------------------
@record
class Run:
    files: list[SourcePath]
    skipped: list[Skipped]
    excluded: list[Excluded] = field(default_factory=list)


def collect(paths: list[str], settings: Settings) -> Run:
    """The files a run reads, in output order (by label: the order of the folder walk puts a folder's files before
    its subfolders, which sorting by path does not)."""
    files: list[SourcePath] = []
    skipped: list[Skipped] = []
    excluded: list[Excluded] = []
    for item in discover(paths, settings):
        if isinstance(item, Skipped):
            skipped.append(item)
        elif isinstance(item, Excluded):
            excluded.append(item)
        else:
            files.append(item)
    files.sort(key=lambda f: f.label)
    return Run(files, skipped, excluded)


def include_roots(paths: list[str], settings: Settings) -> list[Path]:
    """Where include names are looked for: the folders named, the configuration's root, and the checkout they
    are in (a repository's shared headers, such as cuda-samples' Common/, sit above the folder checked)."""
    roots = [Path(p).resolve() for p in paths if Path(p).is_dir()]
    roots.append(settings.root)
    checkout = checkout_root(settings.root)
    # not a checkout that ignores the project (a tree unpacked in an ignored folder of another one is no part of it)
    if checkout is not None and (
        checkout == settings.root or IgnoreRules().ignored_here_or_above(settings.root, True) is None
    ):
        roots.append(checkout)
    return roots


def _each(function: Callable[[Job], Any], chunk: list[Job], pack: Callable[[Any], Any] | None = None) -> list[Any]:
    if pack is None:
        return [function(job) for job in chunk]
    return [pack(function(job)) for job in chunk]


@record(frozen=True)
class Wire:
    """How a worker sends an outcome back (`pack`, run in the worker) and how the run reads it (`unpack`): module
    functions, so that they cross to the worker by name."""

    pack: Callable[[Any], Any]
    unpack: Callable[[Any], Any]


SCAN_WIRE = Wire(wire.pack, wire.unpack)


def run_jobs(
    function: Callable[[Job], Outcome],
    jobs: Sequence[Job],
    settings: Settings,
    roots: list[Path],
    workers: int,
    progress: Progress | None,
    through: Wire | None = None,
) -> Iterator[Outcome]:
    """`function` over `jobs`, results in the order of the jobs. With several workers, a bounded number of chunks
    is in flight: results wait for the consumer only as long as the slowest chunk ahead of them takes; `through`
    says how results cross from the workers (default: pickled as they are)."""
    count = len(jobs)
    if workers <= 1 or count < 2:
        _init_worker(settings, roots)
        for done, job in enumerate(jobs, start=1):
            yield function(job)
            if progress:
                progress(done, count)
        return
    from concurrent.futures import ProcessPoolExecutor  # a one-process run never loads multiprocessing

    pack = through.pack if through is not None else None
    unpack = through.unpack if through is not None else None
    size = max(1, min(16, count // (workers * 4)))
    chunks = (list(jobs[i : i + size]) for i in range(0, count, size))
    with ProcessPoolExecutor(
        max_workers=workers, initializer=_init_worker, initargs=(settings, roots, i18n.language())
    ) as pool:
        pending: deque[Future[list[Any]]] = deque(
            pool.submit(_each, function, chunk, pack) for chunk in itertools.islice(chunks, workers * CHUNKS_IN_FLIGHT)
        )
        done = 0
        try:
            while pending:
                outcomes = pending.popleft().result()
                following = next(chunks, None)
                if following is not None:
                    pending.append(pool.submit(_each, function, following, pack))
                for outcome in outcomes:
                    done += 1
                    yield outcome if unpack is None else unpack(outcome)
                    if progress:
                        progress(done, count)
        finally:
            for future in pending:  # the consumer stopped early (an error, ^C): do not wait for work nobody reads
                future.cancel()


def worker_count(requested: int, files: int) -> int:
    if requested > 0:
        return requested
    if files < PARALLEL_THRESHOLD:
        return 1
    return max(1, min(os.cpu_count() or 1, 8))


class Scan:
    """A run over a tree for one or more targets, as a stream of FileFindings: for each file in output order, one
    per target in the order given. Iterate it once; consumers (the output writers, RunTotals, the report's
    aggregator) each take the results of their target and keep what they need.

    What discovery found before any file was read (skipped paths, missing paths, excluded folders) is known at
    once, so a consumer can be given it before the stream starts."""

    def __init__(
        self,
        paths: list[str],
        settings: Settings,
        targets: Sequence[str],
        jobs: int = 1,
        progress: Progress | None = None,
        excerpts: bool = False,
        stdin: tuple[SourcePath, SourceFile] | None = None,
        line_text: bool = False,
        cache: ResultCache | None = None,
    ) -> None:
        """`excerpts`: each result carries the text of the lines its diagnostics are on. `stdin`: the one buffer to
        check (read from standard input, named as the file it stands for) instead of `paths`. `line_text`: each
        result carries the report's text of its file's lines with findings (file_findings). `cache`: the results
        cache to read unchanged files' results from and write the others' to (never for standard input)."""
        if not targets:
            raise ValueError("no target given")  # a programming error, not a user's
        self.targets = tuple(dict.fromkeys(targets))
        self._stdin = stdin
        self._excerpts = excerpts
        self._line_text = line_text
        run = collect(paths, settings) if stdin is None else Run([stdin[0]], [])
        self.files = len(run.files)
        self.skipped = [(s.label, s.reason) for s in run.skipped if not s.error]
        self.errors = [(s.label, s.reason) for s in run.skipped if s.error]
        self.excluded = [(e.label, e.reason) for e in run.excluded]
        self._jobs = [(f, self.targets, excerpts, line_text, None) for f in run.files]
        self._files = run.files
        self._lookups: list[Lookup] | None = None  # the results cache's, when answered() looked them up
        self._settings = settings
        self._roots = include_roots(paths, settings)
        self._workers = worker_count(jobs, len(run.files))
        self._requested = jobs
        self._cache = cache if stdin is None else None
        if self._cache is not None:
            self._cache.roots = self._roots
        self._progress = progress
        self._started = False

    def totals(self) -> dict[str, RunTotals]:
        """An empty RunTotals per target, holding what discovery found, to `add` the stream to."""
        return {t: RunTotals(t, self.skipped, self.errors, self.excluded) for t in self.targets}

    def answered(self) -> bytes | None:
        """With the results cache: every file looked up now (the stream then uses these lookups), and the run's
        seal when each has a record that holds (runanswers.run_seal); None otherwise, and without the cache."""
        if self._cache is None or self._started:
            return None
        if self._lookups is None:
            self._lookups = [self._cache.lookup(f, self.targets) for f in self._files]
        return self._seal(self._lookups)

    def seal_after(self) -> bytes | None:
        """Once streamed: the run's seal from the records it read and wrote (those it wrote looked up, uncounted),
        or None when a file has none (it could not be read, or failed, or is a binary kind)."""
        cache = self._cache
        if cache is None or not self._started:
            return None
        counted = cache.hits, cache.misses
        before: list[Lookup | None] = [None] * len(self._files) if self._lookups is None else list(self._lookups)
        try:
            lookups = []
            for source_path, known in zip(self._files, before, strict=True):
                # a hit of this run's start still holds (its record is the one it read); the others were written now
                found = known if known is not None and known.hit else cache.lookup(source_path, self.targets)
                if found.hit is None:
                    return None
                lookups.append(found)
            return self._seal(lookups)
        finally:
            cache.hits, cache.misses = counted

    def _seal(self, lookups: list[Lookup]) -> bytes | None:
        from .runanswers import run_seal

        labels = [(f.label, os.path.abspath(f.path)) for f in self._files]
        return run_seal(labels, lookups, (self.skipped, self.errors, self.excluded))

    def __iter__(self) -> Iterator[FileFindings]:
        if self._started:
            raise RuntimeError("a Scan is streamed once")
        self._started = True
        jobs, self._jobs = self._jobs, []
        if self._stdin is not None:
            source_path, source = self._stdin
            from .engine import Engine

            engine = Engine(self._settings, ProjectIndex(load_ruleset(self._settings.extra_rules), self._roots))
            yield from file_findings(
                source_path,
                engine.check_path_targets(source_path, self.targets, source),
                self._excerpts,
                self._line_text,
            )
            return
        if self._cache is not None:
            yield from self._cached([job[0] for job in jobs], self._cache)
            return
        for results in run_jobs(_scan_one, jobs, self._settings, self._roots, self._workers, self._progress, SCAN_WIRE):
            yield from results

    def _cached(self, files: list[SourcePath], cache: ResultCache) -> Iterator[FileFindings]:
        """The run with the results cache: unchanged files read back, the others analysed (on as many workers as
        they need) and recorded."""
        from . import resultcache

        targets, excerpts, line_text = self.targets, self._excerpts, self._line_text

        def answer(source_path: SourcePath, found: Lookup) -> list[FileFindings]:
            decoded = cache.decode(source_path, found, targets).results  # every target's at once
            results = [decoded[t] for t in targets]
            if (excerpts or line_text) and any(r.diagnostics for r in results):
                # The record keeps findings, not text: the lines are read back from the file as it is.
                data = read_source(source_path.path, self._settings.max_file_size).data
                index = LineIndex(data)
                if excerpts:
                    for result in results:
                        result.excerpts = _line_texts(data, index, {d.line for d in result.diagnostics})
                if line_text:
                    attach_line_texts(source_path, data, index, results)
            return results

        def run(
            jobs: list[tuple[SourcePath, tuple[str, ...], bool, bool, ResultCache | None]],
        ) -> Iterator[list[FileFindings]]:
            workers = worker_count(self._requested, len(jobs))
            return run_jobs(_scan_one, jobs, self._settings, self._roots, workers, None, SCAN_WIRE)

        looked_up = iter(self._lookups) if self._lookups is not None else None
        for results in resultcache.interleave(
            files,
            lambda source_path: next(looked_up) if looked_up is not None else cache.lookup(source_path, targets),
            answer,
            lambda source_path: (source_path, targets, excerpts, line_text, cache),
            run,
            self._progress,
        ):
            yield from results


def scan(
    paths: list[str],
    settings: Settings,
    targets: Sequence[str] | None = None,
    jobs: int = 1,
    progress: Progress | None = None,
    excerpts: bool = False,
    stdin: tuple[SourcePath, SourceFile] | None = None,
    line_text: bool = False,
    cache: ResultCache | None = None,
) -> Scan:
    """`check` over `paths` for `targets` (default: the configured one), streamed (see Scan); `line_text`: each
    file's results carry the text of its lines with findings (the report shows them)."""
    return Scan(paths, settings, targets or [settings.target], jobs, progress, excerpts, stdin, line_text, cache)
