"""Where a port lands on the usual scale (zero-change, minor change, major change), and which target is cheapest.

The thresholds are stated in every report, so a reader can check the verdict against the numbers."""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass

from ..models import Difficulty
from .tally import Tally, percent

# A port stays "minor" while at most this share of the scanned files needs a person (a manual finding).
MINOR_MAX_PERSON_FILE_SHARE = 0.10


class Scale(enum.IntEnum):
    ZERO_CHANGE = 0
    MINOR_CHANGE = 1
    MAJOR_CHANGE = 2

    @property
    def id(self) -> str:
        return self.name.lower().replace("_", "-")

    @property
    def title(self) -> str:
        return self.name.capitalize().replace("_", " ")


def scale_meanings() -> dict[Scale, str]:
    limit = f"{MINOR_MAX_PERSON_FILE_SHARE:.0%}"
    return {
        Scale.ZERO_CHANGE: "runs unchanged: every finding is portable (or there is none)",
        Scale.MINOR_CHANGE: (
            f"no blocker, and at most {limit} of the files need a person (a manual finding); "
            "everything else is a mechanical rewrite that `cudaport fix` applies"
        ),
        Scale.MAJOR_CHANGE: (
            f"at least one blocker (no counterpart on the target: that part is redesigned), "
            f"or more than {limit} of the files need a person"
        ),
    }


RANKING_RULE = (
    "cheapest first: the lower verdict on the scale, then fewer blocker findings, fewer manual findings, "
    "fewer files that need a person, fewer mechanical findings"
)


@dataclass(frozen=True)
class Verdict:
    scale: Scale
    reasons: tuple[str, ...]


def judge(findings: Tally, files_scanned: int, files_with_blockers: int, files_needing_person: int) -> Verdict:
    """The verdict for one target from its findings and the files they are in."""
    reasons: list[str] = []
    blockers = findings[Difficulty.BLOCKER]
    manual = findings[Difficulty.MANUAL]
    mechanical = findings[Difficulty.MECHANICAL]
    person_share = files_needing_person / files_scanned if files_scanned else 0.0
    if blockers:
        reasons.append(
            f"{blockers} blocker finding{_s(blockers)} in {files_with_blockers} file{_s(files_with_blockers)}: "
            "no counterpart on this target, those parts must be redesigned"
        )
    if person_share > MINOR_MAX_PERSON_FILE_SHARE:
        reasons.append(
            f"{files_needing_person} of {files_scanned} files ({percent(files_needing_person, files_scanned)}) "
            f"need a person, more than {MINOR_MAX_PERSON_FILE_SHARE:.0%}"
        )
    if reasons:
        return Verdict(Scale.MAJOR_CHANGE, tuple(reasons))
    if manual or mechanical:
        if manual:
            reasons.append(
                f"{manual} manual finding{_s(manual)} in {files_needing_person} of {files_scanned} files "
                f"({percent(files_needing_person, files_scanned)}), within the {MINOR_MAX_PERSON_FILE_SHARE:.0%} "
                "limit; no blocker"
            )
        else:
            reasons.append("no manual or blocker finding")
        if mechanical:
            reasons.append(f"{mechanical} mechanical rewrite{_s(mechanical)} that `cudaport fix` applies")
        return Verdict(Scale.MINOR_CHANGE, tuple(reasons))
    return Verdict(
        Scale.ZERO_CHANGE, ("every finding is portable",) if findings.total else ("no CUDA dependency found",)
    )


def ranking_key(scale: Scale, findings: Tally, files_needing_person: int) -> tuple[int, ...]:
    return (
        int(scale),
        findings[Difficulty.BLOCKER],
        findings[Difficulty.MANUAL],
        files_needing_person,
        findings[Difficulty.MECHANICAL],
    )


def rank(keys: Sequence[tuple[str, tuple[int, ...]]]) -> list[str]:
    """Targets cheapest first; equal keys keep the order the user gave."""
    return [name for name, _ in sorted(keys, key=lambda item: item[1])]


def _s(count: int) -> str:
    return "" if count == 1 else "s"
