"""The report's operator coverage: per target whose PyTorch comes as a device plugin (torch_npu, torch_mlu,
torch_musa), which PyTorch APIs the project calls that the plugin has no kernel for, how often, what happens to
those calls and where they are. Read from CP7100's findings (their `operators` and `plugin` data) as the report is
built, never a second analysis; the plugin's facts (its release, what a missing kernel does) from the rule data's
operator coverage, at the release the findings assume. A target whose PyTorch is built from PyTorch's own CUDA
kernels (ROCm's, MACA's, CoreX's) has no gaps to list, and the report says so in a line."""

from __future__ import annotations

from collections.abc import Sequence

from ..i18n import N_, t
from ..knowledge.effort import NO_HOURS, Hours, Kind
from ..knowledge.operators import OperatorCoverage
from ..knowledge.ruleset import RuleSet
from ..model.findings import Difficulty
from ..model.records import field, record
from ..model.results import Diagnostic
from .words import number, tn

RULE = "CP7100"  # operator-without-kernel

# What a call of an API the plugin lacks does (plugins.toml `missing`), and a call on tensors on the CPU.
FALLBACK = "cpu-fallback"
FAILS = "error"
ON_CPU = "cpu"


@record
class GapUse:
    """One PyTorch API the plugin has no kernel for, as the project calls it on one target."""

    api: str
    operators: tuple[str, ...]  # the ATen operators the plugin lacks (`lgamma`, without `aten::`)
    calls: int = 0
    on_cpu: int = 0  # of the calls, on tensors provably on the CPU: they run there whatever the plugin has
    where: dict[str, list[int]] = field(default_factory=dict)  # path -> its lines with a call, in order
    hours: Hours = NO_HOURS
    unlisted: bool = False  # the plugin's own API support list marks the API unsupported too
    limited: bool = False  # ... or notes a limitation of it
    work: int = -1  # its row in the report's work list (the HTML opens its files and lines from there)

    @property
    def files(self) -> int:
        return len(self.where)

    @property
    def on_device(self) -> int:
        return self.calls - self.on_cpu


@record
class TargetOperators:
    """A target's operator coverage: its plugin (None where PyTorch itself is built for the target) and the gaps
    the project meets, most called first."""

    target: str
    label: str
    package: str = ""
    release: str = ""
    torch: str = ""  # the PyTorch release the plugin is built for
    missing: str = ""  # FALLBACK or FAILS
    strict: str = ""  # what makes a fallback fail instead (an environment variable)
    gaps: list[GapUse] = field(default_factory=list)

    @property
    def builtin(self) -> bool:
        return not self.package

    @property
    def plugin(self) -> str:
        return f"{self.package} {self.release}" if self.package else ""

    @property
    def apis(self) -> int:
        """The APIs that meet a missing kernel on the device (those only ever called on CPU tensors do not)."""
        return sum(1 for gap in self.gaps if gap.on_device)

    @property
    def calls(self) -> int:
        return sum(gap.on_device for gap in self.gaps)

    @property
    def hours(self) -> Hours:
        total = NO_HOURS
        for gap in self.gaps:
            total = total + gap.hours
        return total

    def happens(self, gap: GapUse) -> str:
        """What a call of `gap` does on the target: FALLBACK, FAILS, or ON_CPU when every call is on the CPU."""
        return ON_CPU if not gap.on_device else self.missing


class OperatorTally:
    """CP7100's findings, one file at a time, per target (only targets the operator data knows)."""

    def __init__(self, ruleset: RuleSet, targets: Sequence[tuple[str, str]]) -> None:
        self.targets: dict[str, TargetOperators] = {}
        self._coverage: dict[str, OperatorCoverage] = {}
        self._gaps: dict[str, dict[str, GapUse]] = {}
        data = ruleset.operators
        for name, label in targets:
            coverage = data.coverage(name, ruleset.version_of(name)) if data is not None else None
            if coverage is None:
                continue
            plugin = coverage.plugin
            if plugin is None:
                self.targets[name] = TargetOperators(name, label, torch=coverage.torch)
            else:
                self.targets[name] = TargetOperators(
                    name, label, plugin.package, plugin.release, plugin.torch, plugin.missing, plugin.strict
                )
            self._coverage[name] = coverage
            self._gaps[name] = {}

    def add(
        self, target: str, label: str, diagnostics: Sequence[Diagnostic], costs: Sequence[tuple[Kind, Hours] | None]
    ) -> None:
        gaps = self._gaps.get(target)
        if gaps is None:
            return
        for diag, cost in zip(diagnostics, costs, strict=True):
            if diag.rule != RULE:
                continue
            api = diag.finding.symbol
            gap = gaps.get(api)
            if gap is None:
                operators = diag.finding.data.get("operators", "")
                gap = gaps[api] = GapUse(api, tuple(op for op in operators.split(",") if op))
                known = self._coverage[target].gap(api)
                if known is not None:
                    gap.unlisted, gap.limited = known.unlisted, known.limited
            gap.calls += 1
            gap.on_cpu += diag.difficulty == Difficulty.PORTABLE
            lines = gap.where.setdefault(label, [])
            if diag.line not in lines:
                lines.append(diag.line)
            if cost is not None:
                gap.hours = gap.hours + cost[1]

    def finish(self, work_rows: dict[str, int]) -> list[TargetOperators]:
        """The targets' coverage, each gap given its row of the work list (`work_rows`: a row's key -> index)."""
        out = []
        for name, entry in self.targets.items():
            entry.gaps = sorted(self._gaps[name].values(), key=lambda g: (-g.on_device, -g.calls, g.api))
            for gap in entry.gaps:
                gap.work = work_rows.get(f"{RULE}:{gap.api}", -1)
            out.append(entry)
        return out


# ---- the words ------------------------------------------------------------------------------------------------
def happens_text(entry: TargetOperators, gap: GapUse) -> str:
    """What a call of the API does on the target, and the vendor's list where it agrees."""
    happens = entry.happens(gap)
    if happens == ON_CPU:
        words = t("runs on the CPU: its tensors are there")
    elif happens == FALLBACK:
        words = t("falls back to the CPU")
    else:
        words = t("fails (NotImplementedError)")
    if gap.on_cpu and gap.on_device:
        words = t("{happens} ({count} on CPU tensors, which run there anyway)", happens=words, count=number(gap.on_cpu))
    if gap.unlisted:
        words = t(
            "{happens}; {package}'s API support list marks it unsupported too", happens=words, package=entry.package
        )
    elif gap.limited:
        words = t("{happens}; {package}'s API support list notes a limitation", happens=words, package=entry.package)
    return words


def summary_text(entry: TargetOperators) -> str:
    """One sentence of what the target's plugin lacks for this project: how many APIs and calls, and what a call
    without a kernel does there; or that PyTorch is built for the target from CUDA's kernels."""
    if entry.builtin:
        return t(
            "{label}: its PyTorch is built from PyTorch's own CUDA kernels, so every operator that has a CUDA kernel "
            "has one here; no call is checked",
            label=entry.label,
        )
    if not entry.apis:
        return t(
            "{label} ({plugin}, for PyTorch {torch}): no PyTorch call found meets an operator the plugin has no "
            "kernel for",
            label=entry.label,
            plugin=entry.plugin,
            torch=entry.torch,
        )
    if entry.missing == FALLBACK:
        then = t(
            "such a call falls back to the CPU, slowly and with a warning ({strict} makes it fail)",
            strict=f"`{entry.strict}`",
        )
    else:
        then = t("such a call fails (NotImplementedError)")
    return tn(
        "{label} ({plugin}, for PyTorch {torch}): {count} PyTorch API the project calls has no kernel in the plugin, "
        "in {calls}; {then}",
        "{label} ({plugin}, for PyTorch {torch}): {count} PyTorch APIs the project calls have no kernel in the "
        "plugin, in {calls}; {then}",
        entry.apis,
        label=entry.label,
        plugin=entry.plugin,
        torch=entry.torch,
        calls=tn("{count} call", "{count} calls", entry.calls),
        then=then,
    )


def route_reason(entry: TargetOperators | None) -> str:
    """The route's reason the operator gaps give ("" when there are none)."""
    if entry is None or not entry.apis:
        return ""
    if entry.missing == FALLBACK:
        calls = tn("{count} call falls back to the CPU", "{count} calls fall back to the CPU", entry.calls)
    else:
        calls = tn("{count} call fails", "{count} calls fail", entry.calls)
    return tn(
        "{count} PyTorch API it calls has no kernel in {plugin}: {calls}, until it is replaced or given one",
        "{count} PyTorch APIs it calls have no kernel in {plugin}: {calls}, until each is replaced or given one",
        entry.apis,
        plugin=entry.plugin,
        calls=calls,
    )


PYTHON_LANGUAGES = ("python", "notebook")


def worth_showing(entries: Sequence[TargetOperators], python_files: int) -> bool:
    """Whether the HTML and the Markdown give the section: a target the operator data knows, and Python code
    scanned (a C++ tree calls no PyTorch API from Python; the JSON keeps the section whatever)."""
    return bool(entries) and (python_files > 0 or any(entry.gaps for entry in entries))


INTRO = N_(
    "PyTorch calls whose ATen operators the target's PyTorch plugin has no kernel for (rule CP7100), per target: the "
    "plugin release the findings assume, what such a call does there, and where the calls are. The count of APIs "
    "and calls is of those on the device; a call on tensors on the CPU runs there anyway."
)


def sentences(first: str, second: str) -> str:
    """Two sentences one after the other (a space between them in English, none in Chinese)."""
    return t("{sentence} {next}", sentence=first, next=second)


def effort_text(days: str, apis: int) -> str:
    """What the estimate counts for the calls of `apis` APIs the plugin lacks."""
    return tn(
        "The estimate counts {days} person-days for it.",
        "The estimate counts {days} person-days for them.",
        apis,
        days=days,
    )
