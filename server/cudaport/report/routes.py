"""The migration route per target, as the guides define them (`rules/routes.toml`): A framework-level migration,
B operator rewrite, C dual-stack coexistence. Each file with work falls under one route; the report recommends
the route that the estimated effort says shapes the port, and says why."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field

from ..models import Difficulty
from ..results import Diagnostic
from ..ruleset import RuleDataError, RuleSet
from .effort import NO_HOURS, EffortMeter, EffortModel, Hours

TABLE = "routes"
IDS = ("A", "B", "C")
KERNEL_KIND = "kernel"  # rules/effort.toml's kind of the project's kernel definitions
_KEYS = {"id", "name", "about", "fix", "kinds", "difficulty", "languages"}


@dataclass(frozen=True)
class Route:
    id: str
    name: str
    about: str
    fix: str = ""  # the command that writes this route's rewrites, where cudaport has one
    kinds: tuple[str, ...] = ()  # B: effort kinds whose findings at `difficulty` put a file here
    difficulty: Difficulty | None = None
    languages: Mapping[str, str] = field(default_factory=dict)

    @property
    def title(self) -> str:
        return f"Route {self.id}: {self.name}"

    def language(self, target: str) -> str:
        return self.languages.get(target, self.languages.get("default", ""))


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


@dataclass
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
@dataclass
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


@dataclass
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


@dataclass
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
    name: Callable[[str], str],
) -> RoutePlan:
    """The route whose files carry the most of the target's estimated effort (on a tie: B, then C, then A), and
    why, in numbers. `family` and `name` say a rule's library and its own name in words."""
    for share in shares.values():
        share.files.sort(key=lambda item: (-item[1].high, item[0]))
    whole = total.middle or 1.0

    def portion(route_id: str) -> float:
        return shares[route_id].hours.middle / whole

    with_files = [r for r in ("B", "C", "A") if shares[r].files]
    if not with_files:
        return RoutePlan("A", "nothing to port", shares)
    chosen = max(with_files, key=lambda r: (round(portion(r), 6), -("B", "C", "A").index(r)))
    others = ", ".join(f"{r}: {portion(r):.0%}" for r in IDS if r != chosen and shares[r].files)
    lead = f"{portion(chosen):.0%} of the estimated effort" + (f" (the rest: {others})" if others else "")
    b, c, a = shares["B"], shares["C"], shares["A"]
    if chosen == "B":
        device = ", ".join(f"{name(rule)} ({count})" for rule, count in b.causes.most_common() if count)
        what = (
            f"{b.kernels} kernel{_s(b.kernels)} and the device code around {'them' if b.kernels != 1 else 'it'}"
            if b.kernels
            else "device code"
        )
        why = (
            f"{lead} is in {len(b.files)} file{_s(len(b.files))} with {what} that {label} cannot run as written "
            f"({_first(device, 4)}): that code is rewritten in {routes['B'].language(target)}, and the rewrite "
            "shapes the port"
        )
        return RoutePlan("B", why, shares)
    if chosen == "C":
        parts = [
            f"{family(rule)} ({count} use{_s(count)})" for rule, count in c.causes.most_common() if rule != "dual-stack"
        ][:4]
        count = len(c.files) - c.dual_stack_files
        reasons = [f"{lead} is in {len(c.files)} file{_s(len(c.files))}"]
        if parts:
            reasons.append(
                f"{count} use{'' if count != 1 else 's'} what {label} has no counterpart for ({', '.join(parts)}) "
                f"and {'keep their' if count != 1 else 'keeps its'} CUDA path while the rest moves"
            )
        if c.dual_stack_files:
            done = c.dual_stack_files
            reasons.append(dual_stack_note(done, label))
        return RoutePlan("C", "; ".join(reasons), shares)
    findings = sum(a.causes.values())
    used = ", ".join(f"{name(rule)} ({count})" for rule, count in a.causes.most_common())
    why = (
        f"{lead} is in {len(a.files)} file{_s(len(a.files))} whose CUDA dependencies all have a counterpart on "
        f"{label} ({_first(used, 4)}): {a.renames} of their {findings} findings are renames `cudaport fix` applies, "
        "the rest are adapted by a person"
    )
    return RoutePlan("A", why, shares)


def dual_stack_note(count: int, label: str) -> str:
    """What the engine's `ported` mark says of route C's files, and no more."""
    return (
        f"{count} already {'holds' if count == 1 else 'hold'} code written for {label} (a dual-stack branch, a "
        "portability mapping, or its own definition of a CUDA name)"
    )


def _first(listed: str, count: int) -> str:
    parts = listed.split(", ")
    return ", ".join(parts[:count]) + (f" and {len(parts) - count} more" if len(parts) > count else "")


def _s(count: int) -> str:
    return "" if count == 1 else "s"
