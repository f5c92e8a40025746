"""Runs `check` and `fix` over many files, in one process or several (--jobs), as a stream: each file's results
come out in output order (by label) as soon as they are ready, and nothing of a file is kept once it has been
consumed, so memory follows the largest file, not the tree."""

from __future__ import annotations

import contextlib
import itertools
import os
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, TypeVar

from . import dualstack, i18n
from .analyzers.base import BadInput
from .config import Settings
from .dualstack import FileNeeds
from .engine import Engine, FileResult
from .files import Excluded, Skipped, SourcePath, discover
from .i18n import t
from .ignorefiles import IgnoreRules
from .models import Finding, FixStyle
from .project import ProjectIndex, checkout_root
from .results import Diagnostic, FileFindings, RunTotals
from .ruleset import load_ruleset
from .source import LineIndex, SkipFile, SourceFile, write_atomic

if TYPE_CHECKING:
    from concurrent.futures import Future

    from .outtree import OutputTree

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


# ---- per-process state ------------------------------------------------------------------------------------------
_ENGINE: Engine | None = None


def _init_worker(settings: Settings, roots: list[Path], language: str | None = None) -> None:
    """A process's engine; a worker process also takes the run's language (findings carry their messages
    written, in the worker, and a worker may start afresh rather than as a copy of the parent)."""
    global _ENGINE
    if language is not None and language != i18n.language():
        i18n.set_language(language)
    _ENGINE = Engine(settings)
    _ENGINE.project = ProjectIndex(_ENGINE.ruleset, roots)


def _engine() -> Engine:
    assert _ENGINE is not None, "worker not initialised"
    return _ENGINE


def _scan_one(job: tuple[SourcePath, tuple[str, ...]]) -> list[FileFindings]:
    """One file, read and parsed once, analysed for each target."""
    source_path, targets = job
    return file_findings(source_path, _engine().check_path_targets(source_path, targets))


def file_findings(source_path: SourcePath, results: dict[str, FileResult]) -> list[FileFindings]:
    """One file's results for several targets (Engine.check_path_targets) as a run streams them, one per target."""
    out = []
    index: LineIndex | None = None  # built once, and only for a file with findings
    for target, result in results.items():
        found = FileFindings(source_path.label, source_path.language, target, skipped=result.skipped)
        if result.source is not None:
            found.lines = line_count(result.source.data)
            found.error = result.error
            if result.findings:
                index = index or LineIndex(result.source.data)
                found.diagnostics = locate(source_path.label, result.findings, index)
        out.append(found)
    return out


# ---- driving a run ----------------------------------------------------------------------------------------------
@dataclass
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


def _roots(paths: list[str], settings: Settings) -> list[Path]:
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


def _each(function: Callable[[Job], Outcome], chunk: list[Job]) -> list[Outcome]:
    return [function(job) for job in chunk]


def _map(
    function: Callable[[Job], Outcome],
    jobs: Sequence[Job],
    settings: Settings,
    roots: list[Path],
    workers: int,
    progress: Progress | None,
) -> Iterator[Outcome]:
    """`function` over `jobs`, results in the order of the jobs. With several workers, a bounded number of chunks
    is in flight: results wait for the consumer only as long as the slowest chunk ahead of them takes."""
    count = len(jobs)
    if workers <= 1 or count < 2:
        _init_worker(settings, roots)
        for done, job in enumerate(jobs, start=1):
            yield function(job)
            if progress:
                progress(done, count)
        return
    from concurrent.futures import ProcessPoolExecutor  # a one-process run never loads multiprocessing

    size = max(1, min(16, count // (workers * 4)))
    chunks = (list(jobs[i : i + size]) for i in range(0, count, size))
    with ProcessPoolExecutor(
        max_workers=workers, initializer=_init_worker, initargs=(settings, roots, i18n.language())
    ) as pool:
        pending: deque[Future[list[Outcome]]] = deque(
            pool.submit(_each, function, chunk) for chunk in itertools.islice(chunks, workers * CHUNKS_IN_FLIGHT)
        )
        done = 0
        try:
            while pending:
                outcomes = pending.popleft().result()
                following = next(chunks, None)
                if following is not None:
                    pending.append(pool.submit(_each, function, following))
                for outcome in outcomes:
                    done += 1
                    yield outcome
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
    ) -> None:
        if not targets:
            raise ValueError("no target given")  # a programming error, not a user's
        self.targets = tuple(dict.fromkeys(targets))
        run = collect(paths, settings)
        self.files = len(run.files)
        self.skipped = [(s.label, s.reason) for s in run.skipped if not s.error]
        self.errors = [(s.label, s.reason) for s in run.skipped if s.error]
        self.excluded = [(e.label, e.reason) for e in run.excluded]
        self._jobs = [(f, self.targets) for f in run.files]
        self._settings = settings
        self._roots = _roots(paths, settings)
        self._workers = worker_count(jobs, len(run.files))
        self._progress = progress
        self._started = False

    def totals(self) -> dict[str, RunTotals]:
        """An empty RunTotals per target, holding what discovery found, to `add` the stream to."""
        return {t: RunTotals(t, self.skipped, self.errors, self.excluded) for t in self.targets}

    def __iter__(self) -> Iterator[FileFindings]:
        if self._started:
            raise RuntimeError("a Scan is streamed once")
        self._started = True
        jobs, self._jobs = self._jobs, []
        for results in _map(_scan_one, jobs, self._settings, self._roots, self._workers, self._progress):
            yield from results


def scan(
    paths: list[str],
    settings: Settings,
    targets: Sequence[str] | None = None,
    jobs: int = 1,
    progress: Progress | None = None,
) -> Scan:
    """`check` over `paths` for `targets` (default: the configured one), streamed (see Scan)."""
    return Scan(paths, settings, targets or [settings.target], jobs, progress)


# ---- fix ------------------------------------------------------------------------------------------------------------
@dataclass
class FileOutcome:
    """What a worker sends back for one fixed file: the findings left, and the new contents if they changed."""

    label: str
    language: str
    target: str
    diagnostics: list[Diagnostic] = field(default_factory=list)
    skipped: str | None = None
    error: str | None = None
    fixed: int = 0
    ignores: int = 0  # suppression directives added (--add-ignore)
    ignored: int = 0  # findings they cover
    refused: list[tuple[int, str, str]] = field(default_factory=list)  # (line, rule, why) left without one
    # (line, rule, why): rewrites `check` offered that failed once the result was checked whole (none, if the
    # analyzers are right: `check` judges the same fixes on a prediction of the result)
    withheld: list[tuple[int, str, str]] = field(default_factory=list)
    diff: str = ""
    changed: bool = False
    path: Path | None = None
    rewritten: bytes | None = None  # the encoded new contents, written once every file has been planned
    needs: FileNeeds | None = None  # a dual-stack fix: what the portability header and helper module must add

    def findings(self) -> FileFindings:
        return FileFindings(
            self.label, self.language, self.target, 0, self.diagnostics, skipped=self.skipped, error=self.error
        )


def _fix_one(job: tuple[SourcePath, bool, bool, bool, FixStyle]) -> FileOutcome:
    source_path, unsafe, diff_only, add_ignore, style = job
    engine = _engine()
    outcome = FileOutcome(source_path.label, source_path.language, engine.settings.target)
    if source_path.path.is_symlink():
        outcome.skipped = t("symbolic link: fix the file it points to instead")
        return outcome
    try:
        source = engine.read(source_path)
    except SkipFile as exc:
        outcome.skipped = str(exc)
        return outcome
    try:
        plan = engine.plan_fix(source.data, source_path.language, source_path.path, unsafe, style)
        new_data, applied, remaining = plan.data, plan.applied, plan.remaining
        if plan.withheld:
            lines = LineIndex(source.data)
            outcome.withheld = [(lines.line_of(f.start) + 1, f.rule, f.data.get("withheld", "")) for f in plan.withheld]
        if plan.compat:
            outcome.needs = FileNeeds(source_path.path, plan.compat, _names_header(engine, source_path, source.data))
        if add_ignore:
            new_data, remaining = _add_ignores(engine, source_path, new_data, remaining, outcome)
    except BadInput as exc:
        outcome.error = str(exc)
        return outcome
    except Exception as exc:  # never let one file stop the run, and never write a file we failed on
        outcome.error = t("internal error while fixing: {kind}: {error}", kind=type(exc).__name__, error=exc)
        return outcome
    outcome.diagnostics = locate(source_path.label, remaining, LineIndex(new_data))
    outcome.fixed = applied  # a dual-stack fix may change only the portability header
    if new_data == source.data:
        return outcome
    outcome.changed = True
    if diff_only:
        outcome.diff = unified_diff(source_path.label, source.data, new_data)
        return outcome
    try:
        outcome.rewritten = source.encode(new_data)
    except UnicodeEncodeError as exc:
        outcome.error = t("cannot write: {error}", error=exc)
        outcome.changed = False
        outcome.fixed = outcome.ignores = outcome.ignored = 0
    outcome.path = source_path.path
    return outcome


def _add_ignores(
    engine: Engine, source_path: SourcePath, data: bytes, remaining: list[Finding], outcome: FileOutcome
) -> tuple[bytes, list[Finding]]:
    """`fix --add-ignore`: a suppression for each finding left that would fail the run (--fail-on)."""
    wanted = [f for f in remaining if f.difficulty >= engine.settings.fail_on]
    if not wanted:
        return data, remaining
    result = engine.add_ignores(data, source_path.language, source_path.path, wanted)
    outcome.ignores, outcome.ignored = result.directives, result.covered
    lines = LineIndex(data)
    refused = {(lines.line_of(f.start) + 1, f.rule, why): None for f, why in result.refused}
    outcome.refused = sorted(refused)
    if result.directives:
        remaining, _ = engine.check_data(result.data, source_path.language, source_path.path)
    return result.data, remaining


def _names_header(engine: Engine, source_path: SourcePath, data: bytes) -> Path | None:
    """The project's own portability header the file includes (the nearest), where its new names go."""
    if engine.project is None or source_path.language != "c":
        return None
    headers = engine.project.shim_headers(source_path.path, data, engine.settings.target)
    return headers[0] if headers else None


def unified_diff(label: str, before: bytes, after: bytes, new_file: bool = False) -> str:
    import difflib

    old = before.decode("utf-8", "replace").splitlines(keepends=True)
    new = after.decode("utf-8", "replace").splitlines(keepends=True)
    name = label.lstrip("/")  # `a/tmp/x.cu` for an absolute path, as git writes it, not `a//tmp/x.cu`
    lines = difflib.unified_diff(old, new, fromfile="/dev/null" if new_file else f"a/{name}", tofile=f"b/{name}")
    return "".join(line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines)


@dataclass
class FixResult:
    run: RunTotals
    fixed: int
    changed_files: list[str]
    ignores: int = 0  # suppression directives added (--add-ignore)
    ignored: int = 0  # findings they cover
    ignore_files: int = 0
    refused: list[tuple[str, int, str, str]] = field(default_factory=list)  # (file, line, rule, why)
    withheld: list[tuple[str, int, str, str]] = field(default_factory=list)  # (file, line, rule, why)
    # Dual-stack: the portability headers and helper modules written (or, with --diff, to write), and how many
    # entries each gains.
    support: list[tuple[str, bool, int]] = field(default_factory=list)  # (label, new file, entries)


@dataclass
class _Planned:
    """A rewrite waiting, on disk, for every file to be planned."""

    label: str
    path: Path
    spooled: Path
    fixed: int
    ignores: int
    ignored: int


def fix(
    paths: list[str],
    settings: Settings,
    jobs: int = 1,
    unsafe: bool = False,
    diff_only: bool = False,
    progress: Progress | None = None,
    output: OutputTree | None = None,
    on_diff: Callable[[str], Any] | None = None,
    add_ignore: bool = False,
) -> FixResult:
    """Apply the fixes in place, or (with `output`) to a copy of the tree written elsewhere; with `diff_only`,
    hand each file's diff to `on_diff` in output order instead. With `add_ignore`, then suppress what is left
    at or above the settings' fail-on difficulty."""
    run = collect(paths, settings)
    workers = worker_count(jobs, len(run.files))
    totals = RunTotals(
        settings.target,
        [(s.label, s.reason) for s in run.skipped if not s.error],
        [(s.label, s.reason) for s in run.skipped if s.error],
        [(e.label, e.reason) for e in run.excluded],
    )
    fixed = 0
    changed: list[str] = []
    ignores = ignored = ignore_files = 0
    refused: list[tuple[str, int, str, str]] = []
    withheld: list[tuple[str, int, str, str]] = []
    jobs_list = [(f, unsafe, diff_only, add_ignore, settings.fix_style) for f in run.files]
    needs: list[FileNeeds] = []
    # Every file is planned against the tree as it was, then written: a header rewritten early must not change
    # what the files that include it are told (the result would depend on the order of the workers). The plans
    # wait on disk, not in memory.
    import tempfile

    with tempfile.TemporaryDirectory(prefix="cudaport-fix-") as spool:
        planned: list[_Planned] = []
        for outcome in _map(_fix_one, jobs_list, settings, _roots(paths, settings), workers, progress):
            if outcome.rewritten is not None and outcome.path is not None:
                spooled = Path(spool) / str(len(planned))
                spooled.write_bytes(outcome.rewritten)
                planned.append(
                    _Planned(outcome.label, outcome.path, spooled, outcome.fixed, outcome.ignores, outcome.ignored)
                )
                outcome.rewritten = None
            elif outcome.changed:
                fixed += outcome.fixed
                changed.append(outcome.label)
                ignores += outcome.ignores
                ignored += outcome.ignored
                ignore_files += 1 if outcome.ignores else 0
            else:
                fixed += outcome.fixed  # a dual-stack fix that only needs lines in the portability header
            if outcome.needs is not None:
                needs.append(outcome.needs)
            if outcome.diff and on_diff is not None:
                on_diff(outcome.diff)
            refused += [(outcome.label, line, rule, why) for line, rule, why in outcome.refused]
            withheld += [(outcome.label, line, rule, why) for line, rule, why in outcome.withheld]
            totals.add(outcome.findings())
        # the portability headers and helper modules: raises OutsidePaths before anything is written
        ruleset = load_ruleset(settings.extra_rules).pinned(settings.versions)
        support = dualstack.support_files(needs, settings, ruleset, [Path(p) for p in paths]) if needs else []
        if output is not None:
            output.copy()
        for plan in planned:
            destination = output.place(plan.path) if output is not None else plan.path
            try:
                write_atomic(destination, plan.spooled.read_bytes())
            except OSError as exc:  # a file that cannot be written counts as not fixed
                totals.errors.append((plan.label, t("cannot write: {error}", error=exc)))
                continue
            finally:
                with contextlib.suppress(OSError):
                    plan.spooled.unlink()
            fixed += plan.fixed
            changed.append(plan.label)
            ignores += plan.ignores
            ignored += plan.ignored
            ignore_files += 1 if plan.ignores else 0
    written: list[tuple[str, bool, int]] = []
    for extra in support:  # after the files that need them, in a diff too
        label = _label(extra.path)
        if diff_only:
            before = extra.before.data if extra.before is not None else b""
            after = extra.after if extra.before is None else SourceFile.from_bytes(extra.after).data
            if on_diff is not None:
                on_diff(unified_diff(label, before, after, new_file=extra.before is None))
        else:
            write_atomic(output.place(extra.path) if output is not None else extra.path, extra.after)
        written.append((label, extra.before is None, extra.entries))
    return FixResult(totals, fixed, changed, ignores, ignored, ignore_files, refused, withheld, written)


def _label(path: Path) -> str:
    """How a file the run writes is named in messages: relative to the current folder when it is below it."""
    try:
        return Path(os.path.abspath(path)).relative_to(Path.cwd()).as_posix()
    except ValueError:
        return str(path)
