"""Words the human outputs share: the difficulty names as a person reads them, and counts of them.

Machine outputs (JSON, SARIF properties, --fail-on's values) keep the English names (Difficulty.label); text,
GitHub annotations and rule docs show these, which are the English names in English."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from ..i18n import N_, t
from .findings import Difficulty

_WORDS = {
    Difficulty.PORTABLE: N_("portable"),
    Difficulty.MECHANICAL: N_("mechanical"),
    Difficulty.MANUAL: N_("manual"),
    Difficulty.BLOCKER: N_("blocker"),
}


def difficulty_word(difficulty: Difficulty) -> str:
    return t(_WORDS[difficulty])


def label_word(label: str) -> str:
    """A difficulty given by its English name (`mechanical`), or anything else as it is (`-`)."""
    try:
        return difficulty_word(Difficulty.parse(label))
    except ValueError:
        return label


def difficulty_count(count: int, difficulty: Difficulty) -> str:
    """`3 mechanical`."""
    return t("{count} {difficulty}", count=count, difficulty=difficulty_word(difficulty))


def difficulty_counts(counts: Mapping[str, int], difficulties: Iterable[Difficulty] = Difficulty) -> str:
    """`0 portable, 3 mechanical, 1 manual, 0 blocker` from counts by English name."""
    return t(", ").join(difficulty_count(counts[d.label], d) for d in difficulties)
