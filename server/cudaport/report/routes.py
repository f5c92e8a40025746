"""The migration route per target, as the guides define them (`rules/routes.toml`): A framework-level migration,
B operator rewrite, C dual-stack coexistence. Each file with work falls under one route; the report recommends
the route that the estimated effort says shapes the port, and says why."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping

from ..i18n import t
from ..knowledge.effort import NO_HOURS, EffortModel, Hours
from ..knowledge.ruleset import RuleDataError, RuleSet
from ..model.findings import Difficulty
from ..model.records import field, record
from ..model.results import Diagnostic
from .effort import EffortMeter
from .words import clauses, number, tn

TABLE = "routes"
IDS = ("A", "B", "C")
KERNEL_KIND = "kernel"  # rules/effort.toml's kind of the project's kernel definitions
_KEYS = {"id", "name", "about", "fix", "kinds", "difficulty", "languages"}


@record(frozen=True)
class Route:
    id: str
    name: str
    about: str
    fix: str = ""  # the command that writes this route's rewrites, where cudaport has one
    kinds: tuple[str, ...] = ()  # B: effort kinds whose findings at `difficulty` put a file here
    difficulty: Difficulty | None = None
    languages: Mapping[str, str] = field(default_factory=dict)

    # The rule data's English is kept as it is (JSON keys and tests read it); these give it in the active language.
    @property
    def title(self) -> str:
        return t("Route {id}: {name}", id=self.id, name=self.shown_name)

    @property
    def shown_name(self) -> str:
        return t(self.name)

    @property
    def shown_about(self) -> str:
        return t(self.about)

    def language(self, target: str) -> str:
        """What route B rewrites kernels in on `target`, in the active language."""
        text = self.languages.get(target, self.languages.get("default", ""))
        return t(text) if text else ""


def load_routes(ruleset: RuleSet, model: EffortModel) -> dict[str, Route]:
    data = ruleset.tables.get(TABLE, {})
    entries = data.get("route") if isinstance(data, dict) else None
    if not isinstance(entries, list):
        raise RuleDataError("rules/routes.toml: [[route]] tables expected")
    known_kinds = {kind.name for kind in model.kinds}
    routes: dict[str, Route] = {}
    for index, entry in enumerate(entries):
        where = f"rules/routes.toml: route #{index + 1}"
        if not isinstance(entry, dict):
            raise RuleDataError(f"{where}: must be a table")
        unknown = sorted(set(entry) - _KEYS)
        if unknown:
            raise RuleDataError(f"{where}: unknown key {unknown[0]!r} (known: {', '.join(sorted(_KEYS))})")
        route_id = entry.get("id")
        if route_id not in IDS or route_id in routes:
            raise RuleDataError(f"{where}: id must be one of {', '.join(IDS)}, each once")
        kinds = tuple(str(k) for k in entry.get("kinds", []))
        for kind in kinds:
            if kind not in known_kinds:
                raise RuleDataError(f"{where}: unknown effort kind {kind!r} (rules/effort.toml)")
        try:
            difficulty = Difficulty.parse(str(entry["difficulty"])) if "difficulty" in entry else None
        except ValueError as exc:
            raise RuleDataError(f"{where}: {exc}") from None
        routes[route_id] = Route(
            route_id,
            str(entry.get("name", "")),
            str(entry.get("about", "")),
            str(entry.get("fix", "")),
            kinds,
            difficulty,
            {str(k): str(v) for k, v in dict(entry.get("languages", {})).items()},
        )
    if set(routes) != set(IDS):
        raise RuleDataError(f"rules/routes.toml: routes {', '.join(IDS)} are each needed")
    return {route_id: routes[route_id] for route_id in IDS}


def is_dual_stack(diag: Diagnostic) -> bool:
    """Code the engine found already written for CUDA and the target (a dual-stack branch, a portability header)."""
    return diag.finding.data.get("ported") == "1"


@record
class FileRoute:
    route: str  # "A", "B" or "C"
    causes: Counter[str]  # the rules of the findings that put the file here (C also "dual-stack")
    kernels: int = 0  # B: the kernel definitions to rewrite
    renames: int = 0  # A: the findings `cudaport fix` rewrites


def classify(routes: Mapping[str, Route], meter: EffortMeter, diagnostics: Iterable[Diagnostic]) -> FileRoute | None:
    """The route of one file on the meter's target; None for a file with nothing to do and no dual-stack code."""
    rewrite, route_b = Counter[str](), routes["B"]
    stays, route_c = Counter[str](), routes["C"]
    other = Counter[str]()
    kernels = mechanical = 0
    for diag in diagnostics:
        if is_dual_stack(diag):
            stays["dual-stack"] += 1
        if diag.difficulty == Difficulty.PORTABLE:
            continue
        kind = meter.kind(diag.rule, diag.finding.data.get("kind", ""))
        if kind.name in route_b.kinds and diag.difficulty == route_b.difficulty:
            rewrite[diag.rule] += 1
            kernels += kind.name == KERNEL_KIND
        elif diag.difficulty == route_c.difficulty:
            stays[diag.rule] += 1
        else:
            other[diag.rule] += 1
            mechanical += diag.difficulty == Difficulty.MECHANICAL
    if rewrite:
        return FileRoute("B", rewrite, kernels)
    if stays:
        return FileRoute("C", stays)
    if other:
        return FileRoute("A", other, renames=mechanical)
    return None


# ---- the plan per target ------------------------------------------------------------------------------------------
@record
class DualStackCoverage:
    """What `fix --style dual-stack` writes in route C's files on a target, and what it leaves for a person."""

    covered: int = 0
    remaining: int = 0


# Whether the dual-stack fix covers a finding on a target. The engine's own answer (the finding carries a safe
# dual-stack fix) is the default; a caller may pass another (None: the report lists route C's files and does not
# claim what the fix would do in them).
DualStackCovers = Callable[[str, Diagnostic], bool]


def covered_by_dual_stack_fix(_target: str, diag: Diagnostic) -> bool:
    """What `cudaport fix --style dual-stack` writes: the findings with a safe dual-stack fix."""
    return diag.finding.dual_fixable


@record
class RouteShare:
    """The files of one route on one target, heaviest first, and what they add to the estimate."""

    route: Route
    files: list[tuple[str, Hours]] = field(default_factory=list)
    hours: Hours = NO_HOURS
    causes: Counter[str] = field(default_factory=Counter)
    dual_stack_files: int = 0  # files already written for both
    kernels: int = 0
    renames: int = 0
    coverage: DualStackCoverage | None = None

    def add(self, label: str, hours: Hours, file_route: FileRoute) -> None:
        self.files.append((label, hours))
        self.hours = self.hours + hours
        self.causes.update(file_route.causes)
        self.kernels += file_route.kernels
        self.renames += file_route.renames
        if file_route.causes.get("dual-stack"):
            self.dual_stack_files += 1


@record
class RoutePlan:
    recommended: str
    why: str
    shares: dict[str, RouteShare]


def recommend(
    routes: Mapping[str, Route],
    shares: dict[str, RouteShare],
    total: Hours,
    target: str,
    label: str,
    family: Callable[[str], str],
    also: str = "",
) -> RoutePlan:
    """The route whose files carry the most of the target's estimated effort (on a tie: B, then C, then A), and
    why, in numbers. `family` names a rule's library or API family in the active language; `also` is a further
    reason, whatever the route (the PyTorch calls the target's plugin has no kernel for)."""
    plan = _recommend(routes, shares, total, target, label, family)
    if also and any(share.files for share in shares.values()):
        plan.why = clauses([plan.why, also])
    return plan


def _recommend(
    routes: Mapping[str, Route],
    shares: dict[str, RouteShare],
    total: Hours,
    target: str,
    label: str,
    family: Callable[[str], str],
) -> RoutePlan:
    for share in shares.values():
        share.files.sort(key=lambda item: (-item[1].high, item[0]))
    whole = total.middle or 1.0

    def portion(route_id: str) -> float:
        return shares[route_id].hours.middle / whole

    with_files = [r for r in ("B", "C", "A") if shares[r].files]
    if not with_files:
        return RoutePlan("A", t("nothing to port"), shares)
    chosen = max(with_files, key=lambda r: (round(portion(r), 6), -("B", "C", "A").index(r)))
    others = ", ".join(f"{r}: {portion(r):.0%}" for r in IDS if r != chosen and shares[r].files)
    chosen_share = f"{portion(chosen):.0%}"
    if others:
        lead = t("{share} of the estimated effort (the rest: {others})", share=chosen_share, others=others)
    else:
        lead = t("{share} of the estimated effort", share=chosen_share)
    b, c, a = shares["B"], shares["C"], shares["A"]
    if chosen == "B":
        device = [f"{family(rule)} ({number(count)})" for rule, count in b.causes.most_common() if count]
        what = (
            tn(
                "{count} kernel and the device code around it",
                "{count} kernels and the device code around them",
                b.kernels,
            )
            if b.kernels
            else t("device code")
        )
        why = t(
            "{lead} is in {files} with {what} that {label} cannot run as written ({causes}): that code is rewritten "
            "in {language}, and the rewrite shapes the port",
            lead=lead,
            files=_files(len(b.files)),
            what=what,
            label=label,
            causes=_first(device, 4),
            language=routes["B"].language(target),
        )
        return RoutePlan("B", why, shares)
    if chosen == "C":
        parts = [
            tn("{name} ({count} use)", "{name} ({count} uses)", count, name=family(rule))
            for rule, count in c.causes.most_common()
            if rule != "dual-stack"
        ][:4]
        count = len(c.files) - c.dual_stack_files
        reasons = [t("{lead} is in {files}", lead=lead, files=_files(len(c.files)))]
        if parts:
            reasons.append(
                tn(
                    "{count} uses what {label} has no counterpart for ({parts}) and keeps its CUDA path while the "
                    "rest moves",
                    "{count} use what {label} has no counterpart for ({parts}) and keep their CUDA path while the "
                    "rest moves",
                    count,
                    label=label,
                    parts=", ".join(parts),
                )
            )
        if c.dual_stack_files:
            done = c.dual_stack_files
            reasons.append(dual_stack_note(done, label))
        return RoutePlan("C", clauses(reasons), shares)
    findings = sum(a.causes.values())
    used = [f"{family(rule)} ({number(count)})" for rule, count in a.causes.most_common()]
    why = t(
        "{lead} is in {files} whose CUDA dependencies all have a counterpart on {label} ({causes}): {renames} of "
        "their {findings} findings are renames `cudaport fix` applies, the rest are adapted by a person",
        lead=lead,
        files=_files(len(a.files)),
        label=label,
        causes=_first(used, 4),
        renames=number(a.renames),
        findings=number(findings),
    )
    return RoutePlan("A", why, shares)


def dual_stack_note(count: int, label: str) -> str:
    """What the engine's `ported` mark says of route C's files, and no more."""
    return tn(
        "{count} already holds code written for {label} (a dual-stack branch, a portability mapping, or its own "
        "definition of a CUDA name)",
        "{count} already hold code written for {label} (a dual-stack branch, a portability mapping, or its own "
        "definition of a CUDA name)",
        count,
        label=label,
    )


def _first(parts: list[str], count: int) -> str:
    listed = ", ".join(parts[:count])
    if len(parts) > count:
        return t("{listed} and {count} more", listed=listed, count=number(len(parts) - count))
    return listed


def _files(count: int) -> str:
    return tn("{count} file", "{count} files", count)
