"""The migration report as data, built from the engine's findings for each target (never a second analysis).

Every renderer (JSON, Markdown, HTML) reads this model, so the three formats carry the same numbers."""

from __future__ import annotations

import os
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import PurePath

from .. import __version__
from ..config import Settings
from ..models import Difficulty
from ..results import Diagnostic, RunResult
from ..ruleset import OTHER_AREA, RuleSet
from ..runner import MultiTargetRun
from .checklist import CheckItem, evaluate, load_checks
from .tally import Tally
from .verdict import Scale, judge, rank, ranking_key

LANGUAGE_NAMES = {"c": "C/C++/CUDA", "python": "Python"}
# Findings of these kinds are constructs matched by their shape (a literal 32, an `asm` block), not API names: they
# count under their family in the dependencies, never in the list of APIs.
# Findings about the user's own code (warp arithmetic, asm blocks, kernels and launches): rules, not APIs.
PATTERN_KINDS = frozenset({"warp", "inline_asm", "kernel", "launch"})


def language_name(language: str) -> str:
    return LANGUAGE_NAMES.get(language, language)


@dataclass(frozen=True)
class TargetInfo:
    name: str
    label: str
    platform: str
    assumes: str = ""  # the release the verdict assumes: "ROCm 6.4 (the newest cudaport knows)", "ROCm 5.2"

    @property
    def described(self) -> str:
        """The platform and, for versioned targets, the release the verdict is rated for."""
        return "; ".join(part for part in (self.platform, f"rated for {self.assumes}" if self.assumes else "") if part)


@dataclass
class TargetSummary:
    """The verdict for one target and the numbers behind it."""

    target: TargetInfo
    findings: Tally  # findings by difficulty
    files: Tally  # scanned files by their heaviest finding (a file without findings counts as portable)
    files_with_findings: int
    files_needing_person: int  # a manual or blocker finding
    files_with_blockers: int
    fixable: int  # findings `cudaport fix` rewrites
    scale: Scale
    reasons: tuple[str, ...]


@dataclass
class FileRow:
    path: str
    directory: str
    language: str
    lines: int
    findings: dict[str, Tally]  # per target
    fixable: dict[str, int]

    def weight(self) -> tuple[int, ...]:
        return _combined_weight(self.findings.values())


@dataclass
class DirectoryRow:
    path: str
    files: int = 0
    lines: int = 0
    findings: dict[str, Tally] = field(default_factory=dict)
    files_needing_person: dict[str, int] = field(default_factory=dict)

    def weight(self) -> tuple[int, ...]:
        return _combined_weight(self.findings.values())


@dataclass(frozen=True)
class WorkItem:
    """A manual or blocker finding: where it is and why a person must act."""

    path: str
    line: int
    column: int
    rule: str
    family: str
    difficulty: Difficulty
    symbol: str
    message: str


@dataclass
class Availability:
    """Whether a target has a counterpart for what the code uses of one library or API family."""

    uses: Tally
    replacements: Counter[str]  # counterpart names offered, most common first
    instead: str  # what to use instead, in words (from the rule data), when there is no name-for-name counterpart

    @property
    def status(self) -> str:
        """drop-in (every use maps or runs as is), adapt (a counterpart that needs a person), partial (some uses
        have none), none (no use has a counterpart), unused."""
        if not self.uses.total:
            return "unused"
        blockers = self.uses[Difficulty.BLOCKER]
        if blockers == self.uses.total:
            return "none"
        if blockers:
            return "partial"
        if self.uses[Difficulty.MANUAL]:
            return "adapt"
        return "drop-in"

    @property
    def with_counterpart(self) -> int:
        return self.uses.total - self.uses[Difficulty.BLOCKER]


@dataclass
class Dependency:
    """A CUDA library or API family (one rule), how much the code uses it, and what each target offers."""

    rule: str
    name: str
    family: str
    summary: str
    uses: int
    files: int
    apis: Counter[str]
    targets: dict[str, Availability]
    area: str = ""


@dataclass
class AreaSummary:
    """One part of the inventory (framework API, runtime API, libraries, kernels, build and environment,
    binaries): how much of the project's CUDA dependency is there, and how hard it is on each target."""

    name: str
    about: str
    uses: int
    files: int
    targets: dict[str, Tally]
    dependencies: list[Dependency]


@dataclass
class ApiUse:
    symbol: str
    rule: str
    family: str
    uses: int
    files: int
    targets: dict[str, Availability]


@dataclass(frozen=True)
class Problem:
    path: str
    reason: str
    target: str | None = None


@dataclass
class Report:
    tool_version: str
    generated: str
    paths: list[str]
    targets: list[TargetInfo]
    settings: Settings
    files_scanned: int
    lines_scanned: int
    languages: Counter[str]
    skipped: list[Problem]
    errors: list[Problem]
    excluded: list[Problem]  # directories with sources that an exclude left out
    summaries: dict[str, TargetSummary]
    ranking: list[str]
    directories: list[DirectoryRow]
    files: list[FileRow]
    work: dict[str, list[WorkItem]]
    dependencies: list[Dependency]
    apis: list[ApiUse]
    checks: list[CheckItem]
    areas: list[AreaSummary] = field(default_factory=list)

    @property
    def target_names(self) -> list[str]:
        return [t.name for t in self.targets]

    @property
    def cheapest(self) -> str:
        return self.ranking[0]

    def label(self, target: str) -> str:
        for info in self.targets:
            if info.name == target:
                return info.label
        return target


# ---- building ---------------------------------------------------------------------------------------------------
def build_report(
    run: MultiTargetRun,
    ruleset: RuleSet,
    settings: Settings,
    paths: Sequence[str],
    generated: str | None = None,
) -> Report:
    targets = [_target_info(ruleset, name) for name in run.runs]
    names = [t.name for t in targets]
    file_rows = _file_rows(run, names)
    summaries = {info.name: _summary(info, run.runs[info.name], file_rows) for info in targets}
    ranking = rank([(n, ranking_key(s.scale, s.findings, s.files_needing_person)) for n, s in summaries.items()])
    dependencies, apis = _dependencies(run, ruleset, names)
    used: dict[str, set[str]] = defaultdict(set)
    for result in run.runs.values():
        for diag in result.diagnostics:
            used[diag.rule].add(diag.finding.symbol)
    checks = evaluate(load_checks(ruleset), used, names, any_dependency=bool(used))
    first = next(iter(run.runs.values()))
    errors = [Problem(path, reason, target) for target, result in run.runs.items() for path, reason in result.errors]
    return Report(
        tool_version=__version__,
        generated=generated or _now(),
        paths=list(paths),
        targets=targets,
        settings=settings,
        files_scanned=len(run.files),
        lines_scanned=sum(f.lines for f in run.files),
        languages=Counter(f.language for f in run.files),
        skipped=[Problem(path, reason) for path, reason in first.skipped],
        errors=errors,
        excluded=[Problem(path, reason) for path, reason in first.excluded],
        summaries=summaries,
        ranking=ranking,
        directories=_directory_rows(file_rows, names),
        files=sorted(file_rows.values(), key=lambda r: (_descending(r.weight()), r.path)),
        work={name: _work(run.runs[name], ruleset) for name in names},
        dependencies=dependencies,
        apis=apis,
        checks=checks,
        areas=_areas(run, ruleset, dependencies, names),
    )


def _areas(
    run: MultiTargetRun, ruleset: RuleSet, dependencies: list[Dependency], names: list[str]
) -> list[AreaSummary]:
    """The inventory by area, in rules.toml's order (areas without findings left out; house rules' own areas and
    "other" last)."""
    order = {area.name: index for index, area in enumerate(ruleset.areas)}
    about = {area.name: area.about for area in ruleset.areas}
    files: dict[str, set[str]] = defaultdict(set)
    tallies: dict[str, dict[str, Tally]] = defaultdict(lambda: {t: Tally() for t in names})
    for target, result in run.runs.items():
        for diag in result.diagnostics:
            area = _area(ruleset, diag.rule)
            files[area].add(diag.path)
            tallies[area][target].add(diag.difficulty)
    out = []
    for name in sorted(tallies, key=lambda a: (order.get(a, len(order)), a)):
        members = [d for d in dependencies if d.area == name]
        out.append(
            AreaSummary(
                name, about.get(name, ""), sum(d.uses for d in members), len(files[name]), tallies[name], members
            )
        )
    return out


def _area(ruleset: RuleSet, code: str) -> str:
    rule = ruleset.rules.get(code)
    return rule.area if rule is not None else OTHER_AREA


def _now() -> str:
    """UTC time of the report; SOURCE_DATE_EPOCH makes it reproducible."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    seconds = float(epoch) if epoch and epoch.strip().isdigit() else time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def _target_info(ruleset: RuleSet, name: str) -> TargetInfo:
    target = ruleset.targets.get(name)
    if target is None:
        return TargetInfo(name, name, "")
    assumes = ""
    if target.versions is not None:
        given = ruleset.versions.get(name)
        release = given or target.versions.newest
        if release:
            assumes = f"{target.versions.product} {release}" + ("" if given else " (the newest cudaport knows)")
    return TargetInfo(name, target.label, target.platform, assumes)


def _directory_of(path: str) -> str:
    parent = PurePath(path).parent.as_posix()
    return parent if parent else "."


def _file_rows(run: MultiTargetRun, targets: list[str]) -> dict[str, FileRow]:
    rows = {
        f.label: FileRow(
            f.label,
            _directory_of(f.label),
            f.language,
            f.lines,
            {t: Tally() for t in targets},
            dict.fromkeys(targets, 0),
        )
        for f in run.files
    }
    for target, result in run.runs.items():
        for diag in result.diagnostics:
            row = rows.get(diag.path)
            if row is None:  # cannot happen: every diagnostic comes from a scanned file
                continue
            row.findings[target].add(diag.difficulty)
            if diag.finding.fixable:
                row.fixable[target] += 1
    return rows


def _summary(info: TargetInfo, result: RunResult, rows: dict[str, FileRow]) -> TargetSummary:
    findings = Tally(d.difficulty for d in result.diagnostics)
    files = Tally()
    with_findings = needing_person = with_blockers = 0
    for row in rows.values():
        worst = row.findings[info.name].worst
        files.add(worst if worst is not None else Difficulty.PORTABLE)
        if worst is None:
            continue
        with_findings += 1
        if worst >= Difficulty.MANUAL:
            needing_person += 1
        if worst == Difficulty.BLOCKER:
            with_blockers += 1
    verdict = judge(findings, len(rows), with_blockers, needing_person)
    return TargetSummary(
        target=info,
        findings=findings,
        files=files,
        files_with_findings=with_findings,
        files_needing_person=needing_person,
        files_with_blockers=with_blockers,
        fixable=result.fixable(),
        scale=verdict.scale,
        reasons=verdict.reasons,
    )


def _directory_rows(rows: dict[str, FileRow], targets: list[str]) -> list[DirectoryRow]:
    directories: dict[str, DirectoryRow] = {}
    for row in rows.values():
        directory = directories.get(row.directory)
        if directory is None:
            directory = DirectoryRow(
                row.directory, findings={t: Tally() for t in targets}, files_needing_person=dict.fromkeys(targets, 0)
            )
            directories[row.directory] = directory
        directory.files += 1
        directory.lines += row.lines
        for target in targets:
            tally = row.findings[target]
            directory.findings[target].merge(tally)
            if tally.at_least(Difficulty.MANUAL):
                directory.files_needing_person[target] += 1
    return sorted(directories.values(), key=lambda d: (_descending(d.weight()), d.path))


def _work(result: RunResult, ruleset: RuleSet) -> list[WorkItem]:
    items = [
        WorkItem(
            d.path,
            d.line,
            d.column,
            d.rule,
            _family(ruleset, d.rule),
            d.difficulty,
            d.finding.symbol,
            d.finding.message,
        )
        for d in result.diagnostics
        if d.difficulty >= Difficulty.MANUAL
    ]
    items.sort(key=lambda w: (-int(w.difficulty), w.path, w.line, w.column, w.rule))
    return items


def _family(ruleset: RuleSet, code: str) -> str:
    rule = ruleset.rules.get(code)
    return (rule.subject or rule.name) if rule is not None else code


def _dependencies(run: MultiTargetRun, ruleset: RuleSet, targets: list[str]) -> tuple[list[Dependency], list[ApiUse]]:
    by_rule: dict[str, dict[str, list[Diagnostic]]] = defaultdict(lambda: defaultdict(list))
    by_api: dict[tuple[str, str], dict[str, list[Diagnostic]]] = defaultdict(lambda: defaultdict(list))
    for target, result in run.runs.items():
        for diag in result.diagnostics:
            by_rule[diag.rule][target].append(diag)
            if diag.finding.data.get("kind") not in PATTERN_KINDS:
                by_api[(diag.finding.symbol, diag.rule)][target].append(diag)
    dependencies = []
    for code, per_target in by_rule.items():
        rule = ruleset.rules.get(code)
        availability = {
            t: _availability(per_target.get(t, []), rule.counterparts.get(t, "") if rule else "") for t in targets
        }
        widest = max(per_target.values(), key=len)
        dependencies.append(
            Dependency(
                rule=code,
                name=rule.name if rule else code,
                family=_family(ruleset, code),
                summary=rule.summary if rule else "",
                uses=len(widest),
                files=len({d.path for diags in per_target.values() for d in diags}),
                apis=Counter(d.finding.symbol for d in widest),
                targets=availability,
                area=_area(ruleset, code),
            )
        )
    dependencies.sort(key=lambda d: (-d.uses, d.rule))
    apis = []
    for (symbol, code), per_target in by_api.items():
        rule = ruleset.rules.get(code)
        widest = max(per_target.values(), key=len)
        apis.append(
            ApiUse(
                symbol=symbol,
                rule=code,
                family=_family(ruleset, code),
                uses=len(widest),
                files=len({d.path for diags in per_target.values() for d in diags}),
                targets={
                    t: _availability(per_target.get(t, []), rule.counterparts.get(t, "") if rule else "")
                    for t in targets
                },
            )
        )
    apis.sort(key=lambda a: (-a.uses, a.symbol, a.rule))
    return dependencies, apis


def _availability(diagnostics: list[Diagnostic], instead: str) -> Availability:
    return Availability(
        uses=Tally(d.difficulty for d in diagnostics),
        replacements=Counter(d.finding.replacement for d in diagnostics if d.finding.replacement),
        instead=instead,
    )


def _combined_weight(tallies: Iterable[Tally]) -> tuple[int, ...]:
    """Heaviest first over all the report's targets: blockers, then manual, mechanical, portable findings."""
    total = Tally()
    for tally in tallies:
        total.merge(tally)
    return total.weight()


def _descending(weight: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(-w for w in weight)
