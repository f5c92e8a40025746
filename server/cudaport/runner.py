"""Runs `check` and `fix` over many files, in one process or several (--jobs)."""

from __future__ import annotations

import difflib
import os
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from .analyzers.base import BadInput
from .config import Settings
from .engine import Engine, FileResult
from .files import Excluded, Skipped, SourcePath, discover
from .models import Finding
from .outtree import OutputTree
from .project import ProjectIndex, checkout_root
from .results import Diagnostic, RunResult, sort_diagnostics
from .source import LineIndex, SkipFile, write_atomic

Progress = Callable[[int, int], None]
Outcome = TypeVar("Outcome")
PARALLEL_THRESHOLD = 48


@dataclass
class FileOutcome:
    """What a worker sends back for one file: positions already computed; from `fix`, the new file contents."""

    label: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    skipped: str | None = None
    error: str | None = None
    fixed: int = 0
    diff: str = ""
    changed: bool = False
    path: Path | None = None
    rewritten: bytes | None = None  # the encoded new contents, written once every file has been planned


def locate(label: str, findings: Iterable[Finding], lines: LineIndex) -> list[Diagnostic]:
    out = []
    for finding in findings:
        line, column = lines.position(finding.start)
        end_line, end_column = lines.position(finding.end)
        out.append(Diagnostic(label, line + 1, column + 1, end_line + 1, end_column + 1, finding))
    return out


# ---- per-process state ------------------------------------------------------------------------------------------
_ENGINE: Engine | None = None


def _init_worker(settings: Settings, roots: list[Path]) -> None:
    global _ENGINE
    _ENGINE = Engine(settings)
    _ENGINE.project = ProjectIndex(_ENGINE.ruleset, roots)


def _engine() -> Engine:
    assert _ENGINE is not None, "worker not initialised"
    return _ENGINE


def _check_one(source_path: SourcePath) -> FileOutcome:
    result: FileResult = _engine().check_path(source_path)
    outcome = FileOutcome(source_path.label, skipped=result.skipped, error=result.error)
    if result.source is not None and result.findings:
        outcome.diagnostics = locate(source_path.label, result.findings, result.lines)
    return outcome


def _fix_one(job: tuple[SourcePath, bool, bool]) -> FileOutcome:
    source_path, unsafe, diff_only = job
    engine = _engine()
    outcome = FileOutcome(source_path.label)
    if source_path.path.is_symlink():
        outcome.skipped = "symbolic link: fix the file it points to instead"
        return outcome
    try:
        source = engine.read(source_path)
    except SkipFile as exc:
        outcome.skipped = str(exc)
        return outcome
    try:
        new_data, applied, remaining = engine.fix_data(source.data, source_path.language, source_path.path, unsafe)
    except BadInput as exc:
        outcome.error = str(exc)
        return outcome
    except Exception as exc:  # never let one file stop the run, and never write a file we failed on
        outcome.error = f"internal error while fixing: {type(exc).__name__}: {exc}"
        return outcome
    outcome.diagnostics = locate(source_path.label, remaining, LineIndex(new_data))
    if new_data == source.data:
        return outcome
    outcome.fixed = applied
    outcome.changed = True
    if diff_only:
        outcome.diff = unified_diff(source_path.label, source.data, new_data)
        return outcome
    try:
        outcome.rewritten = source.encode(new_data)
    except UnicodeEncodeError as exc:
        outcome.error = f"cannot write: {exc}"
        outcome.changed = False
        outcome.fixed = 0
    outcome.path = source_path.path
    return outcome


def _write(outcome: FileOutcome) -> None:
    """Write a planned rewrite; a file that cannot be written counts as not fixed."""
    assert outcome.path is not None and outcome.rewritten is not None
    try:
        write_atomic(outcome.path, outcome.rewritten)
    except OSError as exc:
        outcome.error = f"cannot write: {exc}"
        outcome.changed = False
        outcome.fixed = 0
    outcome.rewritten = None


def unified_diff(label: str, before: bytes, after: bytes) -> str:
    old = before.decode("utf-8", "replace").splitlines(keepends=True)
    new = after.decode("utf-8", "replace").splitlines(keepends=True)
    name = label.lstrip("/")  # `a/tmp/x.cu` for an absolute path, as git writes it, not `a//tmp/x.cu`
    lines = difflib.unified_diff(old, new, fromfile=f"a/{name}", tofile=f"b/{name}")
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


# ---- driving a run ----------------------------------------------------------------------------------------------
@dataclass
class Run:
    files: list[SourcePath]
    skipped: list[Skipped]
    excluded: list[Excluded] = field(default_factory=list)


def collect(paths: list[str], settings: Settings) -> Run:
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
    return Run(files, skipped, excluded)


def _roots(paths: list[str], settings: Settings) -> list[Path]:
    """Where include names are looked for: the folders named, the configuration's root, and the checkout they
    are in (a repository's shared headers, such as cuda-samples' Common/, sit above the folder checked)."""
    roots = [Path(p).resolve() for p in paths if Path(p).is_dir()]
    roots.append(settings.root)
    checkout = checkout_root(settings.root)
    if checkout is not None:
        roots.append(checkout)
    return roots


def _map(
    function: Callable[[Any], Outcome],
    jobs: Iterable[object],
    count: int,
    settings: Settings,
    roots: list[Path],
    workers: int,
    progress: Progress | None,
) -> Iterator[Outcome]:
    if workers <= 1 or count < 2:
        _init_worker(settings, roots)
        for done, job in enumerate(jobs, start=1):
            yield function(job)
            if progress:
                progress(done, count)
        return
    chunk = max(1, min(16, count // (workers * 4)))
    with ProcessPoolExecutor(max_workers=workers, initializer=_init_worker, initargs=(settings, roots)) as pool:
        for done, outcome in enumerate(pool.map(function, jobs, chunksize=chunk), start=1):
            yield outcome
            if progress:
                progress(done, count)


def worker_count(requested: int, files: int) -> int:
    if requested > 0:
        return requested
    if files < PARALLEL_THRESHOLD:
        return 1
    return max(1, min(os.cpu_count() or 1, 8))


def check(paths: list[str], settings: Settings, jobs: int = 1, progress: Progress | None = None) -> RunResult:
    run = collect(paths, settings)
    workers = worker_count(jobs, len(run.files))
    tally = _Tally(run)
    for outcome in _map(_check_one, run.files, len(run.files), settings, _roots(paths, settings), workers, progress):
        tally.add(outcome)
    return tally.result(settings.target)


class _Tally:
    """Skips, errors and diagnostics gathered from the per-file outcomes of a run."""

    def __init__(self, run: Run) -> None:
        self.skipped = [(s.label, s.reason) for s in run.skipped if not s.error]
        self.errors = [(s.label, s.reason) for s in run.skipped if s.error]
        self.excluded = [(e.label, e.reason) for e in run.excluded]
        self.diagnostics: list[Diagnostic] = []
        self.scanned = 0

    def add(self, outcome: FileOutcome) -> bool:
        """Count one file's outcome; False when the file was skipped."""
        if outcome.skipped:
            self.skipped.append((outcome.label, outcome.skipped))
            return False
        self.scanned += 1
        if outcome.error:
            self.errors.append((outcome.label, outcome.error))
        self.diagnostics.extend(outcome.diagnostics)
        return True

    def result(self, target: str) -> RunResult:
        diagnostics = sort_diagnostics(self.diagnostics)
        return RunResult(target, self.scanned, diagnostics, self.skipped, self.errors, self.excluded)


@dataclass
class FixResult:
    run: RunResult
    fixed: int
    changed_files: list[str]
    diffs: list[str]


def fix(
    paths: list[str],
    settings: Settings,
    jobs: int = 1,
    unsafe: bool = False,
    diff_only: bool = False,
    progress: Progress | None = None,
    output: OutputTree | None = None,
) -> FixResult:
    """Apply the fixes in place, or (with `output`) to a copy of the tree written elsewhere."""
    run = collect(paths, settings)
    workers = worker_count(jobs, len(run.files))
    tally = _Tally(run)
    fixed = 0
    changed: list[str] = []
    diffs: list[str] = []
    jobs_list = [(f, unsafe, diff_only) for f in run.files]
    # Every file is planned against the tree as it was, then written: a header rewritten early must not change
    # what the files that include it are told (the result would depend on the order of the workers).
    planned = list(_map(_fix_one, jobs_list, len(jobs_list), settings, _roots(paths, settings), workers, progress))
    if output is not None:
        output.copy()
    for outcome in planned:
        if outcome.rewritten is not None:
            if output is not None and outcome.path is not None:
                outcome.path = output.place(outcome.path)
            _write(outcome)
    for outcome in planned:
        if not tally.add(outcome):
            continue
        fixed += outcome.fixed
        if outcome.changed:
            changed.append(outcome.label)
        if outcome.diff:
            diffs.append(outcome.diff)
    return FixResult(tally.result(settings.target), fixed, changed, diffs)


# ---- several targets in one pass (the migration report) -----------------------------------------------------------
@dataclass(frozen=True, slots=True)
class ScannedFile:
    """A file that was analysed: its label, language and size in lines (the report weighs directories by it)."""

    label: str
    language: str
    lines: int


@dataclass
class MultiTargetRun:
    """One `check` result per target over the same files, plus the files themselves."""

    files: list[ScannedFile]
    runs: dict[str, RunResult]


@dataclass
class TargetsOutcome:
    """What a worker sends back for one file analysed for several targets."""

    label: str
    language: str
    lines: int = 0
    skipped: str | None = None
    errors: dict[str, str] = field(default_factory=dict)
    diagnostics: dict[str, list[Diagnostic]] = field(default_factory=dict)


def _check_targets_one(job: tuple[SourcePath, tuple[str, ...]]) -> TargetsOutcome:
    source_path, targets = job
    results = _engine().check_path_targets(source_path, targets)
    first = results[targets[0]]
    outcome = TargetsOutcome(source_path.label, source_path.language, skipped=first.skipped)
    if first.source is None:
        return outcome
    data = first.source.data
    outcome.lines = data.count(b"\n") + (0 if not data or data.endswith(b"\n") else 1)
    index: LineIndex | None = None  # built once, and only for a file with findings
    for target, result in results.items():
        if result.error:
            outcome.errors[target] = result.error
        if result.findings:
            index = index or LineIndex(data)
            outcome.diagnostics[target] = locate(source_path.label, result.findings, index)
    return outcome


def check_targets(
    paths: list[str],
    settings: Settings,
    targets: Sequence[str],
    jobs: int = 1,
    progress: Progress | None = None,
) -> MultiTargetRun:
    """`check` for each of `targets` over the same files, reading and parsing every file once.

    Each target's RunResult is what `check --target T` gives with the same settings."""
    if not targets:
        raise ValueError("no target given")
    wanted = tuple(dict.fromkeys(targets))
    run = collect(paths, settings)
    workers = worker_count(jobs, len(run.files))
    skipped = [(s.label, s.reason) for s in run.skipped]
    files: list[ScannedFile] = []
    diagnostics: dict[str, list[Diagnostic]] = {t: [] for t in wanted}
    errors: dict[str, list[tuple[str, str]]] = {t: [] for t in wanted}
    jobs_list = [(f, wanted) for f in run.files]
    roots = _roots(paths, settings)
    for outcome in _map(_check_targets_one, jobs_list, len(jobs_list), settings, roots, workers, progress):
        if outcome.skipped:
            skipped.append((outcome.label, outcome.skipped))
            continue
        files.append(ScannedFile(outcome.label, outcome.language, outcome.lines))
        for target in wanted:
            if target in outcome.errors:
                errors[target].append((outcome.label, outcome.errors[target]))
            diagnostics[target].extend(outcome.diagnostics.get(target, ()))
    excluded = [(e.label, e.reason) for e in run.excluded]
    runs = {
        t: RunResult(t, len(files), sort_diagnostics(diagnostics[t]), list(skipped), errors[t], list(excluded))
        for t in wanted
    }
    return MultiTargetRun(files, runs)
