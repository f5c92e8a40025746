"""The effort estimate: person-days per target from the findings, by their kind and difficulty.

The weights are data (`rules/effort.toml`, read by knowledge.effort), overridable in the configuration (`effort`).
Each finding is given the first kind whose selectors match it; its cost is the kind's `first` hours for the first
use of a unit of work (a name across the project, a rule in one file, or every use) and `more` for each further use
of it. Every file with work adds its build-and-test hours once. The result is a range: the sum of the low figures
and of the high ones."""

from __future__ import annotations

from collections.abc import Sequence

from ..knowledge.effort import NO_HOURS, EffortModel, Hours, Kind
from ..knowledge.ruleset import OTHER_AREA, RuleSet
from ..model.findings import Difficulty
from ..model.records import field, record
from ..model.results import Diagnostic


# ---- estimating -------------------------------------------------------------------------------------------------
@record
class KindTotal:
    """What one kind of finding adds to a target's estimate."""

    kind: Kind
    findings: int = 0
    units: int = 0  # units of work begun (first uses)
    hours: Hours = NO_HOURS


@record
class Estimate:
    """A target's estimate: hours per kind of finding and for building and testing the files, as a range."""

    model: EffortModel
    kinds: dict[str, KindTotal] = field(default_factory=dict)
    file_hours: Hours = NO_HOURS
    files: int = 0

    @property
    def hours(self) -> Hours:
        total = self.file_hours
        for kind in self.kinds.values():
            total = total + kind.hours
        return total

    @property
    def days(self) -> Hours:
        return self.model.days(self.hours)


class EffortMeter:
    """Adds one file's findings at a time to a target's estimate; `file()` returns what that file adds, so the
    routes can add up the files that fall under each."""

    def __init__(self, model: EffortModel, ruleset: RuleSet, kernels: str) -> None:
        self.model = model
        self.ruleset = ruleset
        self.kernels = kernels
        self.estimate = Estimate(model, {k.name: KindTotal(k) for k in model.kinds})
        self._kind_of: dict[tuple[str, str], Kind] = {}
        self._names: set[tuple[str, str, str, int]] = set()

    def kind(self, rule: str, finding_kind: str) -> Kind:
        key = (rule, finding_kind)
        kind = self._kind_of.get(key)
        if kind is None:
            known = self.ruleset.rules.get(rule)
            area = known.area if known is not None else OTHER_AREA
            kind = next(k for k in self.model.kinds if k.matches(rule, area, finding_kind, self.kernels))
            self._kind_of[key] = kind
        return kind

    def file(self, diagnostics: Sequence[Diagnostic]) -> tuple[Hours, list[tuple[Kind, Hours] | None]]:
        """What one file adds: its hours in all, and each finding's kind and hours (None for a portable one)."""
        hours = NO_HOURS
        each: list[tuple[Kind, Hours] | None] = []
        in_file: set[tuple[str, str, int]] = set()
        worst: Difficulty | None = None
        for diag in diagnostics:
            difficulty = diag.difficulty
            if difficulty == Difficulty.PORTABLE:
                each.append(None)
                continue
            worst = difficulty if worst is None or difficulty > worst else worst
            kind = self.kind(diag.rule, diag.finding.data.get("kind", ""))
            cost = kind.costs[difficulty]
            total = self.estimate.kinds[kind.name]
            total.findings += 1
            if cost.per == "use":
                first = True
            elif cost.per == "file":
                file_key = (kind.name, diag.rule, int(difficulty))
                first = file_key not in in_file
                in_file.add(file_key)
            else:
                name_key = (kind.name, diag.rule, diag.finding.symbol, int(difficulty))
                first = name_key not in self._names
                self._names.add(name_key)
            spent = cost.first if first else cost.more
            total.units += first
            total.hours = total.hours + spent
            hours = hours + spent
            each.append((kind, spent))
        if worst is not None:
            overhead = self.model.file_hours[worst]
            self.estimate.file_hours = self.estimate.file_hours + overhead
            self.estimate.files += 1
            hours = hours + overhead
        return hours, each
