"""Words shared by the Markdown and HTML renderers, so both say the same thing about the same numbers."""

from __future__ import annotations

from ..models import Difficulty
from .model import Availability, Report, language_name
from .tally import Tally, percent

STATUS_WORDS = {
    "drop-in": "drop-in",
    "adapt": "yes, needs a person",
    "partial": "partly",
    "none": "no counterpart",
    "unused": "not used",
}

DIFFICULTY_MEANINGS = {
    Difficulty.PORTABLE: "runs unchanged on the target",
    Difficulty.MECHANICAL: "a safe rewrite exists (`cudaport fix` applies it)",
    Difficulty.MANUAL: "a person must change it",
    Difficulty.BLOCKER: "the target has no counterpart: redesign",
}

TOP_DIRECTORIES = 12
TOP_APIS = 15


def counterpart_names(availability: Availability, limit: int = 3) -> str:
    names = [name for name, _ in availability.replacements.most_common(limit)]
    more = len(availability.replacements) - len(names)
    return ", ".join(f"`{name}`" for name in names) + (f" (+{more} more)" if more > 0 else "")


def availability_words(availability: Availability) -> str:
    """'drop-in → hipMalloc, hipFree' / 'partly: 3 of 5 uses have one; use MIGraphX' / 'no counterpart: ...'."""
    status = availability.status
    words = STATUS_WORDS[status]
    if status == "partial":
        words += f": {availability.with_counterpart} of {availability.uses.total} uses have one"
    names = counterpart_names(availability)
    if names and status != "none":
        words += f" → {names}"
    if availability.instead and status != "drop-in":
        words += f"; use {availability.instead}"
    return words


def share_text(part: int, whole: int) -> str:
    return f"{part} ({percent(part, whole)})"


def tally_text(tally: Tally) -> str:
    """'2 / 5 / 10 / 3' in the order blocker / manual / mechanical / portable."""
    return " / ".join(str(tally[d]) for d in reversed(tuple(Difficulty)))


TALLY_ORDER = "blocker / manual / mechanical / portable"


def cheapest_sentence(report: Report) -> str:
    if len(report.targets) == 1:
        only = report.summaries[report.cheapest]
        return f"Only {only.target.label} was assessed: {only.scale.title.lower()}."
    first = report.summaries[report.ranking[0]]
    rest = ", then ".join(report.label(t) for t in report.ranking[1:])
    return f"Cheapest target: {first.target.label} ({first.scale.title.lower()}), then {rest}."


def languages_text(report: Report) -> str:
    return ", ".join(f"{language_name(k)} {v}" for k, v in sorted(report.languages.items())) or "none"
