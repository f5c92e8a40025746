"""Where a port lands on the scale (zero, minor, moderate, major change), decided by its estimated effort per 1,000
lines of the project, and which target is cheapest: the one with the least estimated effort.

The thresholds come from `rules/effort.toml` and are stated in every report, so a reader can check the verdict
against the numbers."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from ..models import Difficulty
from .effort import EffortModel, Estimate, Hours
from .tally import Tally, percent

LANGUAGE_WORDS = {"c": "C/C++/CUDA", "python": "Python"}


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
        return self.name.capitalize().replace("_", " ")


def scale_meanings(model: EffortModel) -> dict[Scale, str]:
    minor, moderate = days_text(model.minor), days_text(model.moderate)
    code = " and ".join(LANGUAGE_WORDS.get(language, language) for language in model.code_languages)
    return {
        Scale.ZERO_CHANGE: "runs unchanged: no finding needs any work (every one is portable, or there is none)",
        Scale.MINOR_CHANGE: (
            f"the estimate's high end is at most {minor} person-days per 1,000 lines of code ({code}; a tree with "
            f"fewer counts as {model.lines_at_least:,})"
        ),
        Scale.MODERATE_CHANGE: f"more than {minor}, at most {moderate} person-days per 1,000 lines of code",
        Scale.MAJOR_CHANGE: (
            f"more than {moderate} person-days per 1,000 lines of code: a large share of what writing the code anew "
            "would cost"
        ),
    }


RANKING_RULE = (
    "cheapest first: the least estimated effort (the middle of its range), then fewer blocker findings, fewer "
    "manual findings, fewer files that need a person"
)


@dataclass(frozen=True)
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
        reason = "every finding is portable" if findings.total else "no CUDA dependency found"
        return Verdict(Scale.ZERO_CHANGE, 0.0, (reason,))
    if density <= model.minor:
        scale = Scale.MINOR_CHANGE
    elif density <= model.moderate:
        scale = Scale.MODERATE_CHANGE
    else:
        scale = Scale.MAJOR_CHANGE
    size = f"{lines:,} lines of code" + (f", counted as {counted:,}" if counted != lines else "")
    reasons = [f"{days_range(days)} person-days estimated, {days_text(density)} per 1,000 lines ({size})"]
    if blockers:
        reasons.append(
            f"{blockers} blocker finding{_s(blockers)} in {files_with_blockers} file{_s(files_with_blockers)}: "
            "no counterpart on this target, those parts are redesigned"
        )
    if manual:
        reasons.append(
            f"{manual} manual finding{_s(manual)}; {files_needing_person} of {files_scanned} files "
            f"({percent(files_needing_person, files_scanned)}) need a person"
        )
    if mechanical:
        reasons.append(f"{mechanical} mechanical rewrite{_s(mechanical)}, {fixable} of them applied by `cudaport fix`")
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


def _s(count: int) -> str:
    return "" if count == 1 else "s"
