"""Counts per difficulty: the unit every number in the report is made of."""

from __future__ import annotations

from collections.abc import Iterable

from ..model.findings import Difficulty

DIFFICULTIES: tuple[Difficulty, ...] = tuple(Difficulty)


class Tally:
    """How many of something (findings, files) fall on each difficulty."""

    __slots__ = ("_counts",)

    def __init__(self, difficulties: Iterable[Difficulty] = ()) -> None:
        self._counts = [0] * len(DIFFICULTIES)
        for difficulty in difficulties:
            self._counts[difficulty] += 1

    def add(self, difficulty: Difficulty, count: int = 1) -> None:
        self._counts[difficulty] += count

    def merge(self, other: Tally) -> None:
        for index, count in enumerate(other._counts):
            self._counts[index] += count

    def __getitem__(self, difficulty: Difficulty) -> int:
        return self._counts[difficulty]

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Tally) and self._counts == other._counts

    def __repr__(self) -> str:
        return f"Tally({self.as_dict()})"

    @property
    def total(self) -> int:
        return sum(self._counts)

    @property
    def worst(self) -> Difficulty | None:
        """The heaviest difficulty counted, None when nothing was."""
        for difficulty in reversed(DIFFICULTIES):
            if self._counts[difficulty]:
                return difficulty
        return None

    def at_least(self, difficulty: Difficulty) -> int:
        return sum(self._counts[difficulty:])

    def weight(self) -> tuple[int, ...]:
        """Sort key, heaviest first when sorted in reverse: blockers, then manual, then mechanical, then portable."""
        return tuple(reversed(self._counts))

    def share(self, difficulty: Difficulty) -> float:
        total = self.total
        return self._counts[difficulty] / total if total else 0.0

    def as_dict(self) -> dict[str, int]:
        out = {d.label: self._counts[d] for d in DIFFICULTIES}
        out["total"] = self.total
        return out


def percent(part: int, whole: int) -> str:
    """A share as people read it: '0%', '<1%', '37%'."""
    if whole <= 0 or part <= 0:
        return "0%"
    value = 100.0 * part / whole
    if value < 1:
        return "<1%"
    if value > 99 and part < whole:
        return ">99%"
    return f"{value:.0f}%"


def combined_weight(tallies: Iterable[Tally]) -> tuple[int, ...]:
    """Heaviest first over all the report's targets: blockers, then manual, mechanical, portable findings."""
    total = Tally()
    for tally in tallies:
        total.merge(tally)
    return total.weight()
