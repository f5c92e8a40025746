"""Words shared by the Markdown and HTML renderers, so both say the same thing about the same numbers."""

from __future__ import annotations

from ..models import Difficulty
from .model import Availability, Report, TargetSummary, WorkGroup, language_name
from .tally import Tally, percent
from .verdict import days_range, days_text

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

TOP_DIRECTORIES = 12  # bars in the chart of folders
TOP_APIS = 15  # bars in the chart of APIs
TOP_DEPENDENCIES = 8  # in the summary
TOP_WORK = 40  # work groups the Markdown lists (the HTML lists them all, collapsed)
TOP_FILES = 40  # files the Markdown lists, and the HTML shows before "show all"
TOP_ROUTE_FILES = 15  # files per route the Markdown lists
EXAMPLE_FILES = 3  # files named under each work group in the Markdown
TOP_PROBLEMS = 50  # skipped files and errors the Markdown lists


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
        return f"Only {only.target.label} was assessed: {verdict_words(only)}."
    first = report.summaries[report.ranking[0]]
    rest = ", then ".join(f"{report.label(t)} ({effort_words(report.summaries[t])})" for t in report.ranking[1:])
    return f"Cheapest target: {first.target.label} ({verdict_words(first)}), then {rest}."


def effort_words(summary: TargetSummary) -> str:
    """'12–30 person-days'."""
    return f"{days_range(summary.effort.days)} person-days"


def verdict_words(summary: TargetSummary) -> str:
    """'moderate change, 12–30 person-days'."""
    if not summary.effort.hours.high:
        return summary.scale.title.lower()
    return f"{summary.scale.title.lower()}, {effort_words(summary)}"


def route_words(report: Report, summary: TargetSummary) -> str:
    """'C: dual-stack coexistence'."""
    if not any(share.files for share in summary.plan.shares.values()):
        return "none needed"
    route = report.routes[summary.plan.recommended]
    return f"{route.id}: {route.name}"


def work_title(group: WorkGroup) -> str:
    """'`cudaMalloc` — 412 uses in 96 files' (a construct by its summary)."""
    name = f"`{group.title}`" if not group.pattern else group.title
    uses, files = group.uses, group.files
    return f"{name} — {uses} use{'s' if uses != 1 else ''} in {files} file{'s' if files != 1 else ''}"


def per_1000_lines(summary: TargetSummary) -> str:
    return days_text(summary.density)


# The partition of the scanned files each verdict card and table shows; the rows add up to every file scanned.
FILE_ROWS = (
    (Difficulty.PORTABLE, "files unchanged (portable or no finding)"),
    (Difficulty.MECHANICAL, "files with safe rewrites only"),
    (Difficulty.MANUAL, "files a person changes (no blocker)"),
    (Difficulty.BLOCKER, "files with a blocker"),
)


def languages_text(report: Report) -> str:
    return ", ".join(f"{language_name(k)} {v}" for k, v in sorted(report.languages.items())) or "none"
