"""`fix` over many files: each file planned by the engine (fixes applied together, the result checked whole), in
one process or several, against the tree as it was; then the rewrites written at once (in place, or into an output
tree), with the portability header and helper module a dual-stack fix needs, or their diffs shown instead."""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..analyzers.common.base import BadInput
from ..engine import fixing, fixplan
from ..engine.engine import Engine
from ..engine.runner import collect, include_roots, locate, process_engine, run_jobs, worker_count
from ..engine.runner import file_findings as runner_file_findings
from ..i18n import t
from ..knowledge.ruleset import load_ruleset
from ..model.findings import Finding, FixStyle
from ..model.records import field, record
from ..model.results import Diagnostic, FileFindings, RunTotals
from ..model.source import LineIndex, SkipFile, SourceFile, write_atomic
from ..project.config import Settings
from ..project.files import SourcePath
from . import dualstack
from .dualstack import FileNeeds
from .outtree import OutputTree

if TYPE_CHECKING:
    from ..engine.resultcache import Lookup, ResultCache

Progress = Callable[[int, int], None]
FixJob = tuple[SourcePath, bool, bool, bool, FixStyle, "ResultCache | None"]


@record
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


def nothing_to_fix(
    findings: list[Finding], unsafe: bool, style: FixStyle, add_ignore: bool, settings: Settings
) -> bool:
    """Whether fixing a file with these findings leaves it as it is, with these findings (plan_fix applies no
    edit and counts no fix, --add-ignore adds nothing): what the results cache tells without planning."""
    if fixplan.select(findings, unsafe, style).edits:
        return False
    if style is FixStyle.DUAL_STACK and any(
        (fix := fixplan.chosen(f, style, unsafe)) is not None and not fix.edits for f in findings
    ):
        return False  # a fix by a line in the portability header alone
    return not (add_ignore and any(f.difficulty >= settings.fail_on for f in findings))


def _fix_one(job: FixJob) -> FileOutcome:
    source_path, unsafe, diff_only, add_ignore, style, cache = job
    engine = process_engine()
    outcome = FileOutcome(source_path.label, source_path.language, engine.settings.target)
    if source_path.path.is_symlink():
        outcome.skipped = t("symbolic link: fix the file it points to instead")
        return outcome
    if cache is not None:  # the file's findings recorded, and the fix planned only if there is one to plan
        target = engine.settings.target
        results, pending = cache.analyse(engine, source_path, [target])
        if pending is not None:
            found = runner_file_findings(source_path, results)
            cache.store(engine, source_path, pending, found)
            result = results[target]
            if nothing_to_fix(result.findings, unsafe, style, add_ignore, engine.settings):
                outcome.diagnostics = found[0].diagnostics
                return outcome
    try:
        source = engine.read(source_path)
    except SkipFile as exc:
        outcome.skipped = str(exc)
        return outcome
    try:
        plan = fixing.plan_fix(engine, source.data, source_path.language, source_path.path, unsafe, style)
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


def _cached_outcomes(
    files: list[SourcePath],
    settings: Settings,
    roots: list[Path],
    jobs: int,
    cache: ResultCache,
    progress: Progress | None,
    flags: tuple[bool, bool, bool],
) -> Any:
    """`fix` with the results cache: a file whose record says there is nothing to fix is answered from it, the
    others are planned (and their findings recorded)."""
    from ..engine import resultcache

    unsafe, diff_only, add_ignore = flags
    target, style = settings.target, settings.fix_style
    cache.roots = roots

    def usable(source_path: SourcePath, found: Lookup) -> bool:
        if source_path.path.is_symlink():
            cache.declined()
            return False
        findings = cache.decode(source_path, found, [target]).findings[target]
        if nothing_to_fix(findings, unsafe, style, add_ignore, settings):
            return True
        cache.declined()  # planned from what it holds now
        return False

    def answer(source_path: SourcePath, found: Lookup) -> FileOutcome:
        outcome = FileOutcome(source_path.label, source_path.language, target)
        outcome.diagnostics = cache.decode(source_path, found, [target]).results[target].diagnostics
        return outcome

    def run(jobs_list: list[FixJob]) -> Any:
        return run_jobs(_fix_one, jobs_list, settings, roots, worker_count(jobs, len(jobs_list)), None)

    return resultcache.interleave(
        files,
        lambda source_path: cache.lookup(source_path, [target]),
        answer,
        lambda source_path: (source_path, unsafe, diff_only, add_ignore, style, cache),
        run,
        progress,
        usable,
    )


def _add_ignores(
    engine: Engine, source_path: SourcePath, data: bytes, remaining: list[Finding], outcome: FileOutcome
) -> tuple[bytes, list[Finding]]:
    """`fix --add-ignore`: a suppression for each finding left that would fail the run (--fail-on)."""
    wanted = [f for f in remaining if f.difficulty >= engine.settings.fail_on]
    if not wanted:
        return data, remaining
    result = fixing.add_ignores(engine, data, source_path.language, source_path.path, wanted)
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


@record
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


@record
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
    cache: ResultCache | None = None,
) -> FixResult:
    """Apply the fixes in place, or (with `output`) to a copy of the tree written elsewhere; with `diff_only`,
    hand each file's diff to `on_diff` in output order instead. With `add_ignore`, then suppress what is left
    at or above the settings' fail-on difficulty. With `cache` (the results cache), a file whose recorded
    findings have nothing to fix is not planned again; every other file is planned from what it holds now."""
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
    style = settings.fix_style
    roots = include_roots(paths, settings)
    needs: list[FileNeeds] = []
    # Every file is planned against the tree as it was, then written: a header rewritten early must not change
    # what the files that include it are told (the result would depend on the order of the workers). The plans
    # wait on disk, not in memory.
    import tempfile

    with tempfile.TemporaryDirectory(prefix="cudaport-fix-") as spool:
        planned: list[_Planned] = []
        outcomes: Any
        if cache is None:
            jobs_list: list[FixJob] = [(f, unsafe, diff_only, add_ignore, style, None) for f in run.files]
            outcomes = run_jobs(_fix_one, jobs_list, settings, roots, workers, progress)
        else:
            outcomes = _cached_outcomes(
                run.files, settings, roots, jobs, cache, progress, (unsafe, diff_only, add_ignore)
            )
        for outcome in outcomes:
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
