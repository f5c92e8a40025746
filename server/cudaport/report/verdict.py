"""Where a port lands on the scale (zero, minor, moderate, major change), decided by its estimated effort per 1,000
lines of the project, and which target is cheapest: the one with the least estimated effort.

The thresholds come from `rules/effort.toml` and are stated in every report, so a reader can check the verdict
against the numbers."""

from __future__ import annotations

import enum
from collections.abc import Sequence

from ..i18n import N_, t
from ..knowledge.effort import EffortModel, Hours
from ..model.findings import Difficulty
from ..model.records import record
from .effort import Estimate
from .tally import Tally, percent
from .words import both, language_name, number, tn


class Scale(enum.IntEnum):
    ZERO_CHANGE = 0
    MINOR_CHANGE = 1
    MODERATE_CHANGE = 2
    MAJOR_CHANGE = 3

    @property
    def id(self) -> str:
        return self.name.lower().replace("_", "-")

    @property
    def title(self) -> str:
        """'Major change', in the active language (a heading, a badge)."""
        return t(_TITLES[self])

    @property
    def words(self) -> str:
        """'major change', in the active language (inside a sentence or a table)."""
        return t(_WORDS[self])


_TITLES = {
    Scale.ZERO_CHANGE: N_("Zero change"),
    Scale.MINOR_CHANGE: N_("Minor change"),
    Scale.MODERATE_CHANGE: N_("Moderate change"),
    Scale.MAJOR_CHANGE: N_("Major change"),
}
_WORDS = {
    Scale.ZERO_CHANGE: N_("zero change"),
    Scale.MINOR_CHANGE: N_("minor change"),
    Scale.MODERATE_CHANGE: N_("moderate change"),
    Scale.MAJOR_CHANGE: N_("major change"),
}


def scale_meanings(model: EffortModel) -> dict[Scale, str]:
    minor, moderate = days_text(model.minor), days_text(model.moderate)
    code = both(language_name(language) for language in model.code_languages)
    return {
        Scale.ZERO_CHANGE: t("runs unchanged: no finding needs any work (every one is portable, or there is none)"),
        Scale.MINOR_CHANGE: t(
            "the estimate's high end is at most {minor} person-days per 1,000 lines of code ({code}; a tree with "
            "fewer counts as {lines})",
            minor=minor,
            code=code,
            lines=number(model.lines_at_least),
        ),
        Scale.MODERATE_CHANGE: t(
            "more than {minor}, at most {moderate} person-days per 1,000 lines of code", minor=minor, moderate=moderate
        ),
        Scale.MAJOR_CHANGE: t(
            "more than {moderate} person-days per 1,000 lines of code: a large share of what writing the code anew "
            "would cost",
            moderate=moderate,
        ),
    }


# The English stays in the code; shown with t(RANKING_RULE).
RANKING_RULE = N_(
    "cheapest first: the least estimated effort (the middle of its range), then fewer blocker findings, fewer "
    "manual findings, fewer files that need a person"
)


@record(frozen=True)
class Verdict:
    scale: Scale
    density: float  # person-days (high end) per 1,000 lines
    reasons: tuple[str, ...]


def judge(
    estimate: Estimate,
    findings: Tally,
    lines: int,
    files_scanned: int,
    files_with_blockers: int,
    files_needing_person: int,
    fixable: int,
) -> Verdict:
    """The verdict for one target from its estimate and the project's lines of code, with the numbers that explain
    it."""
    model = estimate.model
    days = estimate.days
    counted = max(lines, model.lines_at_least)
    density = days.high * 1000 / counted
    blockers = findings[Difficulty.BLOCKER]
    manual = findings[Difficulty.MANUAL]
    mechanical = findings[Difficulty.MECHANICAL]
    if not (blockers or manual or mechanical):
        reason = t("every finding is portable") if findings.total else t("no CUDA dependency found")
        return Verdict(Scale.ZERO_CHANGE, 0.0, (reason,))
    if density <= model.minor:
        scale = Scale.MINOR_CHANGE
    elif density <= model.moderate:
        scale = Scale.MODERATE_CHANGE
    else:
        scale = Scale.MAJOR_CHANGE
    if counted != lines:
        size = t("{lines} lines of code, counted as {counted}", lines=number(lines), counted=number(counted))
    else:
        size = t("{lines} lines of code", lines=number(lines))
    reasons = [
        t(
            "{days} person-days estimated, {density} per 1,000 lines ({size})",
            days=days_range(days),
            density=days_text(density),
            size=size,
        )
    ]
    if blockers:
        reasons.append(
            t(
                "{findings} in {files}: no counterpart on this target, those parts are redesigned",
                findings=tn("{count} blocker finding", "{count} blocker findings", blockers),
                files=tn("{count} file", "{count} files", files_with_blockers),
            )
        )
    if manual:
        reasons.append(
            t(
                "{findings}; {count} of {total} files ({share}) need a person",
                findings=tn("{count} manual finding", "{count} manual findings", manual),
                count=number(files_needing_person),
                total=number(files_scanned),
                share=percent(files_needing_person, files_scanned),
            )
        )
    if mechanical:
        reasons.append(
            t(
                "{rewrites}, {fixable} of them applied by `cudaport fix`",
                rewrites=tn("{count} mechanical rewrite", "{count} mechanical rewrites", mechanical),
                fixable=number(fixable),
            )
        )
    return Verdict(scale, density, tuple(reasons))


def ranking_key(estimate: Estimate, findings: Tally, files_needing_person: int) -> tuple[float, ...]:
    return (
        round(estimate.days.middle, 6),
        findings[Difficulty.BLOCKER],
        findings[Difficulty.MANUAL],
        files_needing_person,
    )


def rank(keys: Sequence[tuple[str, tuple[float, ...]]]) -> list[str]:
    """Targets cheapest first; equal keys keep the order the user gave."""
    return [name for name, _ in sorted(keys, key=lambda item: item[1])]


def days_range(days: Hours) -> str:
    """'12–30' person-days."""
    return f"{days_text(days.low)}–{days_text(days.high)}"


def days_text(value: float) -> str:
    """Person-days as an estimate is read: two decimals below 1, one below 10, whole days above."""
    if value == 0:
        return "0"
    if value < 1:
        return f"{value:.2f}".rstrip("0").rstrip(".")
    if value < 10:
        return f"{value:.1f}".rstrip("0").rstrip(".")
    return f"{round(value):,}"
