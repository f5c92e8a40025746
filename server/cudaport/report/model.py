"""The migration report as data, built from the engine's findings for each target (never a second analysis).

`ReportBuilder` is fed one file's results at a time (`add`), keeps the aggregates and a compact store of every
finding, and `finish()` gives the `Report` that every renderer (JSON, Markdown, HTML) reads, so the three formats
carry the same numbers. Memory grows with the number of files and distinct names, not with what each file held."""

from __future__ import annotations

import os
import time
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping, Sequence
from pathlib import Path, PurePath

from .. import __version__
from ..i18n import N_, english, t
from ..knowledge.effort import EffortModel, Hours, load_model
from ..knowledge.ruleset import OTHER_AREA, RuleSet
from ..model.findings import Difficulty
from ..model.records import field, record
from ..model.results import Diagnostic, FileFindings
from ..project.config import Settings
from .checklist import CheckItem, evaluate, load_checks
from .effort import EffortMeter, Estimate
from .folders import Folder, Totals, folder_tree
from .operators import OperatorTally, TargetOperators, route_reason
from .routes import (
    DualStackCoverage,
    DualStackCovers,
    Route,
    RoutePlan,
    RouteShare,
    classify,
    covered_by_dual_stack_fix,
    load_routes,
    recommend,
)
from .rows import FileRow
from .store import FindingStore
from .tally import Tally, combined_weight
from .verdict import Scale, judge, rank, ranking_key
from .words import clauses, listing

# Findings of these kinds are constructs matched by their shape (a literal 32, an `asm` block) or the user's own
# kernels and launches, not API names: they count under their family, never in the list of APIs.
PATTERN_KINDS = frozenset({"warp", "inline_asm", "kernel", "launch"})
# Below this share of uses with a counterpart, a library that is partly available reads as having none, its few
# uses with one named as the exceptions.
PARTIAL_FLOOR = 0.05
# Names that a program declares with, not calls (types and their fields, enum values and macros, headers and
# namespaces: the analyzers' kinds of finding), by what the work list calls them: each library's own are one row of
# it, beside the calls that use them. The order is the one a row's title lists them in.
DECLARATION_KINDS = {
    "type": N_("types"),
    "member": N_("types"),
    "enum_value": N_("constants"),
    "define": N_("constants"),
    "guard": N_("constants"),
    "header": N_("headers"),
    "include": N_("headers"),
    "namespace": N_("namespaces"),
}
_DECLARATION_ORDER = tuple(dict.fromkeys(DECLARATION_KINDS.values()))


@record(frozen=True)
class TargetInfo:
    """A target as the report names it: its label and platform in the active language (the rule data's English
    looked up in the catalogue), `name` the id machine output keys by."""

    name: str
    label: str
    platform: str
    assumes: str = ""  # the release the verdict assumes: "ROCm 6.4 (the newest cudaport knows)", "ROCm 5.2"
    kernels: str = "rewrite"  # targets.toml `kernels`: unchanged, rename, rewrite

    @property
    def described(self) -> str:
        """The platform and, for versioned targets, the release the verdict is rated for."""
        rated = t("rated for {release}", release=self.assumes) if self.assumes else ""
        return clauses(part for part in (self.platform, rated) if part)


@record
class TargetSummary:
    """The verdict for one target and the numbers behind it."""

    target: TargetInfo
    findings: Tally  # findings by difficulty
    files: Tally  # scanned files by their heaviest finding (a file without findings counts as portable)
    files_with_findings: int
    files_needing_person: int  # a manual or blocker finding
    files_with_blockers: int
    fixable: int  # findings `cudaport fix` rewrites
    effort: Estimate
    scale: Scale
    density: float  # person-days (high end) per 1,000 lines
    reasons: tuple[str, ...]
    plan: RoutePlan


@record
class DirectoryRow(Totals):
    """The files directly in one directory (a folder of the tree counts those below it too)."""


@record
class Availability:
    """Whether a target has a counterpart for what the code uses of one library or API family."""

    uses: Tally
    replacements: Counter[str]  # counterpart names offered, most common first
    instead: str  # what to use instead, in words (from the rule data), when there is no name-for-name counterpart
    # the names used, by how many of their uses have a counterpart and how many have none
    covered: Counter[str] = field(default_factory=Counter)
    blocked: Counter[str] = field(default_factory=Counter)

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

    @property
    def share(self) -> float:
        """The share of the uses that have a counterpart."""
        return self.with_counterpart / self.uses.total if self.uses.total else 0.0

    @property
    def reads(self) -> str:
        """The status as the report's words give it: a partial one where under PARTIAL_FLOOR of the uses have a
        counterpart reads as none (with those uses named as the exceptions), so that 8 of 1,121 is not "partial"."""
        status = self.status
        return "none" if status == "partial" and self.share < PARTIAL_FLOOR else status

    @property
    def exceptions(self) -> Counter[str]:
        """The names a partial status names: with a counterpart where it reads as none, else those without one."""
        if self.status != "partial":
            return Counter()
        return self.covered if self.reads == "none" else self.blocked

    @classmethod
    def of(cls, members: Iterable[Availability], instead: str) -> Availability:
        """The availability of several names (a library, a row of the work list) from each one's."""
        merged = cls(Tally(), Counter(), instead)
        for one in members:
            merged.uses.merge(one.uses)
            merged.replacements.update(one.replacements)
            merged.covered.update(one.covered)
            merged.blocked.update(one.blocked)
        return merged


@record
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


@record
class AreaSummary:
    """One part of the inventory (framework API, runtime API, libraries, kernels, build and environment,
    binaries): how much of the project's CUDA dependency is there, and how hard it is on each target."""

    name: str
    about: str
    uses: int
    files: int
    targets: dict[str, Tally]
    dependencies: list[Dependency]


@record
class ApiUse:
    """One name of one rule (`cudaMalloc` of CP1001), or one construct found by its shape: its uses on each
    target, in how many files."""

    symbol: str
    rule: str
    family: str
    uses: int
    files: int
    targets: dict[str, Availability]
    index: int = -1  # the group id its findings carry in the store
    pattern: bool = False
    kind: str = ""  # what the analyzer found it as: function, type, enum_value, header, ...

    @property
    def declaration(self) -> bool:
        return not self.pattern and self.kind in DECLARATION_KINDS


@record
class WorkGroup:
    """The report's unit of work: an API (`cudaMalloc` — 412 uses in 96 files), a library's declarations (NPP's
    types and constants — 700 uses of 48 names), or a construct family (warp-size arithmetic), with what it means
    on each target. `members` are the store's group ids it covers, `symbols` its names, most used first."""

    key: str
    title: str
    rule: str
    family: str
    uses: int
    files: int
    targets: dict[str, Availability]
    members: tuple[int, ...]
    pattern: bool
    declarations: bool = False
    symbols: tuple[str, ...] = ()

    @property
    def names(self) -> int:
        """How many names the row stands for."""
        return len(self.symbols)

    def weight(self) -> tuple[int, ...]:
        return combined_weight(a.uses for a in self.targets.values())


@record(frozen=True)
class Problem:
    path: str
    reason: str
    target: str | None = None


@record
class Report:
    tool_version: str
    generated: str
    paths: list[str]
    name: str  # what the report calls the project: the folders' own names ("cuda-samples" for `report .`)
    targets: list[TargetInfo]
    settings: Settings
    files_scanned: int
    lines_scanned: int
    code_lines: int  # of the files in the scale's code languages: what the verdict is measured against
    languages: Counter[str]
    skipped: list[Problem]
    errors: list[Problem]
    excluded: list[Problem]  # directories with sources that an exclude left out
    summaries: dict[str, TargetSummary]
    ranking: list[str]
    directories: list[DirectoryRow]
    folders: Folder  # the tree of folders under the common root, totals rolled up
    files: list[FileRow]
    dependencies: list[Dependency]
    apis: list[ApiUse]  # every group of the store, by its id
    work: list[WorkGroup]  # groups with work on some target, heaviest first
    checks: list[CheckItem]
    store: FindingStore
    effort: EffortModel
    routes: dict[str, Route]
    areas: list[AreaSummary] = field(default_factory=list)
    # per target the operator data knows, in the targets' order: the PyTorch APIs its plugin lacks a kernel for
    operators: list[TargetOperators] = field(default_factory=list)

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

    def api_names(self) -> list[ApiUse]:
        """API names (not constructs), most used first."""
        return [a for a in sorted(self.apis, key=lambda a: (-a.uses, a.symbol, a.rule)) if not a.pattern]


# ---- building ---------------------------------------------------------------------------------------------------
@record
class _Group:
    symbol: str
    rule: str
    pattern: bool
    tallies: dict[str, Tally]
    replacements: dict[str, Counter[str]]
    files: int = 0
    kind: str = ""

    @property
    def bucket(self) -> str:
        """The row of the work list it shares with others of its rule: "construct", "declarations", or "" for a
        name that is a row of its own (one declared name alone keeps its own: see _work_groups)."""
        if self.pattern:
            return "construct"
        return "declarations" if self.kind in DECLARATION_KINDS else ""


class ReportBuilder:
    """The report, one file's results at a time: `add(outcome)` for each file analysed, `skip`/`exclude` for what
    was left out, then `finish()`."""

    def __init__(
        self,
        ruleset: RuleSet,
        settings: Settings,
        targets: Sequence[str],
        paths: Sequence[str],
        generated: str | None = None,
        dual_stack: DualStackCovers | None = covered_by_dual_stack_fix,
        name: str | None = None,
    ) -> None:
        self.ruleset = ruleset
        self.settings = settings
        self.paths = list(paths)
        self.name = name or project_name(self.paths)
        self.generated = generated
        self.targets = [_target_info(ruleset, name) for name in dict.fromkeys(targets)]
        self.names = [t.name for t in self.targets]
        self.model = load_model(ruleset, settings.effort)
        self.routes = load_routes(ruleset, self.model)
        self.meters = {t.name: EffortMeter(self.model, ruleset, t.kernels) for t in self.targets}
        self.shares = {t: {r: RouteShare(route) for r, route in self.routes.items()} for t in self.names}
        self.dual_stack = dual_stack
        self.store = FindingStore(self.names)
        self.files: list[FileRow] = []
        self.lines = 0
        self.code_lines = 0
        self.languages: Counter[str] = Counter()
        self.skipped: list[Problem] = []
        self.errors: list[Problem] = []
        self.excluded: list[Problem] = []
        self._group_ids: dict[tuple[str, str], int] = {}
        self._groups: list[_Group] = []
        self._rule_files: Counter[str] = Counter()
        self._area_files: Counter[str] = Counter()
        self._bucket_files: Counter[tuple[str, str]] = Counter()  # files with a construct or declaration of a rule
        self._fixable = dict.fromkeys(self.names, 0)
        self.operators = OperatorTally(ruleset, [(t.name, t.label) for t in self.targets])

    def skip(self, label: str, reason: str) -> None:
        self.skipped.append(Problem(label, reason))

    def exclude(self, label: str, reason: str) -> None:
        self.excluded.append(Problem(label, reason))

    def error(self, label: str, reason: str) -> None:
        """A path the run could not read at all (a missing path): an error of every target."""
        self.errors.append(Problem(label, reason))

    def add(self, results: Sequence[FileFindings]) -> None:
        """One file's results, one per target (as `runner.scan` streams them)."""
        first = results[0]
        if first.skipped:
            self.skip(first.path, first.skipped)
            return
        errors = {r.target: r.error for r in results if r.error}
        diagnostics = {r.target: r.diagnostics for r in results}
        self.add_file(first.path, first.language, first.lines, diagnostics, errors, first.source_lines)

    def add_file(
        self,
        label: str,
        language: str,
        lines: int,
        diagnostics: Mapping[str, Sequence[Diagnostic]],
        errors: Mapping[str, str] | None = None,
        texts: Mapping[int, str] | None = None,
    ) -> None:
        """One analysed file: its findings per target (in `check`'s order), the targets whose analysis failed and
        the text of its lines with findings (by line number). The findings are stored compactly and counted;
        nothing else of them is kept."""
        for target in self.names:
            if errors and target in errors:
                self.errors.append(Problem(label, errors[target], target))
        self.lines += lines
        if language in self.model.code_languages:
            self.code_lines += lines
        self.languages[language] += 1
        per_target = {t: diagnostics.get(t, ()) for t in self.names}
        row = FileRow(
            label,
            _directory_of(label),
            language,
            lines,
            {t: Tally(d.difficulty for d in per_target[t]) for t in self.names},
            {t: sum(1 for d in per_target[t] if d.finding.fixable) for t in self.names},
            {},
            {},
        )
        groups_here: set[int] = set()
        group_of: dict[int, int] = {}
        costs = {}
        for target, found in per_target.items():
            self._fixable[target] += row.fixable[target]
            for diag in found:
                group = self._group(diag)
                group_of[id(diag)] = group
                groups_here.add(group)
                info = self._groups[group]
                info.tallies[target].add(diag.difficulty)
                if diag.finding.replacement:
                    info.replacements[target][diag.finding.replacement] += 1
            row.effort[target], costs[target] = self.meters[target].file(found)
            self.operators.add(target, label, found, costs[target])
            row.route[target] = self._route(target, label, row.effort[target], found)
        for group in groups_here:
            self._groups[group].files += 1
        rules = {self._groups[g].rule for g in groups_here}
        self._rule_files.update(rules)
        self._bucket_files.update({(self._groups[g].rule, self._groups[g].bucket) for g in groups_here})
        self._area_files.update({_area(self.ruleset, rule) for rule in rules})
        if group_of:
            row.stored = self.store.add_file(label, per_target, group_of, costs, texts or {})
        self.files.append(row)

    def _group(self, diag: Diagnostic) -> int:
        kind = diag.finding.data.get("kind", "")
        pattern = kind in PATTERN_KINDS
        key = (diag.finding.symbol, diag.rule)
        index = self._group_ids.get(key)
        if index is None:
            index = len(self._groups)
            self._group_ids[key] = index
            self._groups.append(
                _Group(
                    diag.finding.symbol,
                    diag.rule,
                    pattern,
                    {t: Tally() for t in self.names},
                    {t: Counter() for t in self.names},
                    kind=kind,
                )
            )
        return index

    def _route(self, target: str, label: str, hours: Hours, diagnostics: Sequence[Diagnostic]) -> str | None:
        placed = classify(self.routes, self.meters[target], diagnostics)
        if placed is None:
            return None
        share = self.shares[target][placed.route]
        share.add(label, hours, placed)
        if placed.route == "C" and self.dual_stack is not None:
            coverage = share.coverage or DualStackCoverage()
            for diag in diagnostics:
                if diag.difficulty > Difficulty.PORTABLE:
                    if self.dual_stack(target, diag):
                        coverage.covered += 1
                    else:
                        coverage.remaining += 1
            share.coverage = coverage
        return placed.route

    # ---- the result -------------------------------------------------------------------------------------------------
    def finish(self) -> Report:
        names = self.names
        apis = [self._api(index, group) for index, group in enumerate(self._groups)]
        dependencies = self._dependencies(apis)
        work = _work_groups(apis, self.ruleset, self._bucket_files)
        operators = self.operators.finish({group.key: index for index, group in enumerate(work)})
        summaries = {info.name: self._summary(info) for info in self.targets}
        ranking = rank([(n, ranking_key(s.effort, s.findings, s.files_needing_person)) for n, s in summaries.items()])
        used: dict[str, set[str]] = defaultdict(set)
        for group in self._groups:
            used[group.rule].add(group.symbol)
        checks = evaluate(load_checks(self.ruleset), used, names, any_dependency=bool(used))
        return Report(
            tool_version=__version__,
            generated=self.generated or _now(),
            paths=self.paths,
            name=self.name,
            targets=self.targets,
            settings=self.settings,
            files_scanned=len(self.files),
            lines_scanned=self.lines,
            code_lines=self.code_lines,
            languages=self.languages,
            skipped=self.skipped,
            errors=self.errors,
            excluded=self.excluded,
            summaries=summaries,
            ranking=ranking,
            directories=_directory_rows(self.files, names),
            folders=folder_tree(self.files, names),
            files=sorted(self.files, key=lambda r: (_descending(r.weight()), r.path)),
            dependencies=dependencies,
            apis=apis,
            work=work,
            checks=checks,
            store=self.store,
            effort=self.model,
            routes=self.routes,
            areas=self._areas(dependencies),
            operators=operators,
        )

    def _summary(self, info: TargetInfo) -> TargetSummary:
        name = info.name
        findings = Tally()
        files = Tally()
        with_findings = needing_person = with_blockers = 0
        for row in self.files:
            tally = row.findings[name]
            findings.merge(tally)
            worst = tally.worst
            files.add(worst if worst is not None else Difficulty.PORTABLE)
            if worst is None:
                continue
            with_findings += 1
            if worst >= Difficulty.MANUAL:
                needing_person += 1
            if worst == Difficulty.BLOCKER:
                with_blockers += 1
        estimate = self.meters[name].estimate
        verdict = judge(
            estimate, findings, self.code_lines, len(self.files), with_blockers, needing_person, self._fixable[name]
        )
        plan = recommend(
            self.routes,
            self.shares[name],
            estimate.hours,
            name,
            info.label,
            lambda code: _family(self.ruleset, code),
            route_reason(self.operators.targets.get(name)),
        )
        return TargetSummary(
            target=info,
            findings=findings,
            files=files,
            files_with_findings=with_findings,
            files_needing_person=needing_person,
            files_with_blockers=with_blockers,
            fixable=self._fixable[name],
            effort=estimate,
            scale=verdict.scale,
            density=verdict.density,
            reasons=verdict.reasons,
            plan=plan,
        )

    def _api(self, index: int, group: _Group) -> ApiUse:
        rule = self.ruleset.rules.get(group.rule)
        instead = {name: _shown(rule.counterparts.get(name, "")) if rule else "" for name in self.names}
        return ApiUse(
            symbol=group.symbol,
            rule=group.rule,
            family=_family(self.ruleset, group.rule),
            uses=max(tally.total for tally in group.tallies.values()),
            files=group.files,
            targets={n: _availability(group, n, instead[n]) for n in self.names},
            index=index,
            pattern=group.pattern,
            kind=group.kind,
        )

    def _dependencies(self, apis: list[ApiUse]) -> list[Dependency]:
        by_rule: dict[str, list[ApiUse]] = defaultdict(list)
        for api in apis:
            by_rule[api.rule].append(api)
        out = []
        for code, members in by_rule.items():
            rule = self.ruleset.rules.get(code)
            targets = {
                target: Availability.of(
                    (api.targets[target] for api in members),
                    _shown(rule.counterparts.get(target, "")) if rule else "",
                )
                for target in self.names
            }
            out.append(
                Dependency(
                    rule=code,
                    name=rule.name if rule else code,
                    family=_family(self.ruleset, code),
                    summary=_shown(rule.summary) if rule else "",
                    uses=max(a.uses.total for a in targets.values()),
                    files=self._rule_files[code],
                    apis=Counter({api.symbol: api.uses for api in members}),
                    targets=targets,
                    area=_area(self.ruleset, code),
                )
            )
        out.sort(key=lambda d: (-d.uses, d.rule))
        return out

    def _areas(self, dependencies: list[Dependency]) -> list[AreaSummary]:
        """The inventory by area, in rules.toml's order (areas without findings left out; house rules' own areas
        and "other" last)."""
        order = {area.name: index for index, area in enumerate(self.ruleset.areas)}
        about = {area.name: _shown(area.about) for area in self.ruleset.areas}
        members: dict[str, list[Dependency]] = defaultdict(list)
        for dep in dependencies:
            members[dep.area].append(dep)
        out = []
        for name in sorted(members, key=lambda a: (order.get(a, len(order)), a)):
            tallies = {target: Tally() for target in self.names}
            for dep in members[name]:
                for target in self.names:
                    tallies[target].merge(dep.targets[target].uses)
            out.append(
                AreaSummary(
                    name,
                    about.get(name, ""),
                    sum(d.uses for d in members[name]),
                    self._area_files[name],
                    tallies,
                    members[name],
                )
            )
        return out


def _availability(group: _Group, target: str, instead: str) -> Availability:
    tally = group.tallies[target]
    blocked = tally[Difficulty.BLOCKER]
    covered = Counter({group.symbol: tally.total - blocked} if tally.total > blocked else {})
    return Availability(
        tally, group.replacements[target], instead, covered, Counter({group.symbol: blocked}) if blocked else Counter()
    )


def _work_groups(apis: list[ApiUse], ruleset: RuleSet, bucket_files: Counter[tuple[str, str]]) -> list[WorkGroup]:
    """API names each on their own; constructs found by their shape (and the project's kernels) one row per rule;
    a rule's declarations (types, constants, headers) one row per rule where there are several, so that the list
    reads as the calls to port and, beside them, each library's declarations."""
    out: list[WorkGroup] = []
    english: dict[str, str] = {}  # a group's title in English: ties are ordered the same in every language
    shared: dict[tuple[str, str], list[ApiUse]] = defaultdict(list)
    for api in apis:
        if api.pattern:
            shared[api.rule, "construct"].append(api)
        elif api.declaration:
            shared[api.rule, "declarations"].append(api)
        else:
            out.append(_name_group(api))
    for (code, bucket), members in shared.items():
        if bucket == "declarations" and len(members) == 1:
            out.append(_name_group(members[0]))  # one declared name is a row of its own, by its name
            continue
        members.sort(key=lambda a: (-a.uses, a.symbol))
        rule = ruleset.rules.get(code)
        if bucket == "construct":
            title = _shown(rule.summary) if rule else code
            english[code] = rule.summary if rule else code
        else:
            title, english[f"{code}:{bucket}"] = _declarations_title(ruleset, code, members)
        targets = {
            target: Availability.of((api.targets[target] for api in members), members[0].targets[target].instead)
            for target in members[0].targets
        }
        out.append(
            WorkGroup(
                code if bucket == "construct" else f"{code}:{bucket}",
                title,
                code,
                _family(ruleset, code),
                max(a.uses.total for a in targets.values()),
                bucket_files[code, bucket],
                targets,
                tuple(api.index for api in members),
                bucket == "construct",
                declarations=bucket == "declarations",
                symbols=tuple(api.symbol for api in members),
            )
        )
    busy = [g for g in out if any(a.uses.at_least(Difficulty.MECHANICAL) for a in g.targets.values())]
    busy.sort(key=lambda g: (_descending(g.weight()), -g.uses, english.get(g.key, g.title), g.rule))
    return busy


def _name_group(api: ApiUse) -> WorkGroup:
    return WorkGroup(
        f"{api.rule}:{api.symbol}",
        api.symbol,
        api.rule,
        api.family,
        api.uses,
        api.files,
        api.targets,
        (api.index,),
        False,
        symbols=(api.symbol,),
    )


def _declarations_title(ruleset: RuleSet, code: str, members: list[ApiUse]) -> tuple[str, str]:
    """'NPP: types and constants', in the active language and in English: the rule's family and what its names
    are, in DECLARATION_KINDS' order."""
    present = {DECLARATION_KINDS[api.kind] for api in members}
    what = [word for word in _DECLARATION_ORDER if word in present]
    rule = ruleset.rules.get(code)
    family = (rule.family or rule.subject or rule.name) if rule else code
    shown = t("{family}: {what}", family=_family(ruleset, code), what=listing(t(word) for word in what))
    return shown, english("{family}: {what}", family=family, what=", ".join(what))


def project_name(paths: Sequence[str]) -> str:
    """The project as a person names it: each path's own name once it is resolved (`.` is the folder it stands
    for), the names of several paths joined; a path with no name of its own (the root) as it was given."""
    names = []
    for given in paths:
        resolved = Path(given).resolve()
        names.append(resolved.name or given)
    return ", ".join(dict.fromkeys(names)) or "."


def _target_info(ruleset: RuleSet, name: str) -> TargetInfo:
    target = ruleset.targets.get(name)
    if target is None:
        return TargetInfo(name, name, "")
    assumes = ""
    given = ruleset.versions.get(name)
    coverage = ruleset.operators.coverage(name, given) if ruleset.operators is not None and given else None
    if coverage is not None and coverage.plugin is not None and coverage.plugin.release == given:
        assumes = f"{coverage.plugin.package} {given}"  # `npu@2.13`: a release of the PyTorch plugin
    elif target.versions is not None:
        release = given or target.versions.newest
        if release:
            assumes = f"{target.versions.product} {release}"
            if not given:
                assumes = t("{release} (the newest cudaport knows)", release=assumes)
    return TargetInfo(name, _shown(target.label), _shown(target.platform), assumes, target.kernels)


def _area(ruleset: RuleSet, code: str) -> str:
    rule = ruleset.rules.get(code)
    return rule.area if rule is not None else OTHER_AREA


def _family(ruleset: RuleSet, code: str) -> str:
    """A rule's library or API family as the report names it (its `family`, else its subject), in the active
    language: the rule data's words through the catalogue, never its kebab-case id."""
    rule = ruleset.rules.get(code)
    return _shown(rule.family or rule.subject or rule.name) if rule is not None else code


def _shown(text: str) -> str:
    """Prose from the rule data (a summary, a platform, what to use instead) in the active language; the rule
    data keeps its English, and the catalogues translate what its owners declare."""
    return t(text) if text else text


def _now() -> str:
    """UTC time of the report; SOURCE_DATE_EPOCH makes it reproducible."""
    epoch = os.environ.get("SOURCE_DATE_EPOCH")
    seconds = float(epoch) if epoch and epoch.strip().isdigit() else time.time()
    return time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(seconds))


def _directory_of(path: str) -> str:
    parent = PurePath(path).parent.as_posix()
    return parent if parent else "."


def _directory_rows(rows: Iterable[FileRow], targets: list[str]) -> list[DirectoryRow]:
    directories: dict[str, DirectoryRow] = {}
    for row in rows:
        directory = directories.get(row.directory)
        if directory is None:
            directory = directories[row.directory] = DirectoryRow.empty(row.directory, targets)
        directory.add(row, targets)
    return sorted(directories.values(), key=lambda d: (_descending(d.weight()), d.path))


def _descending(weight: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(-w for w in weight)
