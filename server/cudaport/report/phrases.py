"""Words shared by the Markdown and HTML renderers, so both say the same thing about the same numbers, in the
active language (`i18n`): each sentence is one template whose fields a translation may order as it needs."""

from __future__ import annotations

from ..i18n import N_, t
from ..model.findings import Difficulty
from .model import Availability, Report, TargetSummary, WorkGroup
from .tally import Tally, percent
from .verdict import days_range, days_text
from .words import language_name, number, tn

STATUS_WORDS = {
    "drop-in": N_("drop-in"),
    "adapt": N_("yes, needs a person"),
    "partial": N_("partly"),
    "none": N_("no counterpart"),
    "unused": N_("not used"),
}

# The status as a table cell says it (the class and data-status keep the English id).
STATUS_NAMES = {
    "drop-in": N_("drop-in"),
    "adapt": N_("adapt"),
    "partial": N_("partial"),
    "none": N_("none"),
    "unused": N_("unused"),
}

DIFFICULTY_MEANINGS = {
    Difficulty.PORTABLE: N_("runs unchanged on the target"),
    Difficulty.MECHANICAL: N_("a safe rewrite exists (`cudaport fix` applies it)"),
    Difficulty.MANUAL: N_("a person must change it"),
    Difficulty.BLOCKER: N_("the target has no counterpart: redesign"),
}

TOP_DIRECTORIES = 12  # bars in the chart of folders
TOP_APIS = 15  # bars in the chart of APIs
TOP_DEPENDENCIES = 8  # in the summary
TOP_WORK = 40  # work groups the Markdown lists (the HTML lists them all, collapsed)
TOP_FILES = 40  # files the Markdown lists, and the HTML shows before "show all"
TOP_ROUTE_FILES = 15  # files per route the Markdown lists
EXAMPLE_FILES = 3  # files named under each work group in the Markdown
TOP_PROBLEMS = 50  # skipped files and errors the Markdown lists


def status_name(status: str) -> str:
    return t(STATUS_NAMES[status])


def status_text(availability: Availability) -> str:
    """The status as a table cell says it, a partial one with its share: 'partial: 241 of 271 uses have one',
    'none but 8 of 1,121 uses' (under PARTIAL_FLOOR), else 'drop-in', 'adapt', 'none'."""
    if availability.status != "partial":
        return status_name(availability.status)
    count, total = number(availability.with_counterpart), number(availability.uses.total)
    if availability.reads == "none":
        return t("none but {count} of {total} uses", count=count, total=total)
    return t("partial: {count} of {total} uses have one", count=count, total=total)


def counterpart_names(availability: Availability, limit: int = 3) -> str:
    names = [name for name, _ in availability.replacements.most_common(limit)]
    return _more(names, len(availability.replacements))


def _more(names: list[str], total: int) -> str:
    """'`a`, `b`, `c` (+4 more)'."""
    listed = ", ".join(f"`{name}`" for name in names)
    more = total - len(names)
    return t("{names} (+{count} more)", names=listed, count=number(more)) if more > 0 else listed


def availability_words(availability: Availability) -> str:
    """'drop-in → hipMalloc, hipFree' / 'partly: 3 of 5 uses have a counterpart; none for `cufftXtMalloc`; use
    ...' / 'no counterpart but 8 of 1,121 uses (`nppGetGpuName`); use ...' / 'no counterpart; use ...'."""
    status = availability.status
    words = t(STATUS_WORDS[status])
    exceptions = availability.exceptions
    named = _more([name for name, _ in exceptions.most_common(3)], len(exceptions))
    count, total = number(availability.with_counterpart), number(availability.uses.total)
    if status == "partial" and availability.reads == "none":
        words = t("no counterpart but {count} of {total} uses ({names})", count=count, total=total, names=named)
    elif status == "partial":
        words = t(
            "partly: {count} of {total} uses have a counterpart; none for {names}",
            count=count,
            total=total,
            names=named,
        )
    names = counterpart_names(availability)
    if names and availability.reads != "none":
        words += f" → {names}"
    if availability.instead and status != "drop-in":
        words = t("{words}; use {instead}", words=words, instead=availability.instead)
    return words


def share_text(part: int, whole: int) -> str:
    return f"{number(part)} ({percent(part, whole)})"


def tally_text(tally: Tally) -> str:
    """'2 / 5 / 10 / 3' in the order blocker / manual / mechanical / portable."""
    return " / ".join(number(tally[d]) for d in reversed(tuple(Difficulty)))


TALLY_ORDER = N_("blocker / manual / mechanical / portable")


def cheapest_sentence(report: Report) -> str:
    if len(report.targets) == 1:
        only = report.summaries[report.cheapest]
        return t("Only {label} was assessed: {verdict}.", label=only.target.label, verdict=verdict_words(only))
    first = report.summaries[report.ranking[0]]
    rest = [
        t("{label} ({effort})", label=report.label(name), effort=effort_words(report.summaries[name]))
        for name in report.ranking[1:]
    ]
    then = rest[0]
    for item in rest[1:]:
        then = t("{first}, then {next}", first=then, next=item)
    return t(
        "Cheapest target: {label} ({verdict}), then {rest}.",
        label=first.target.label,
        verdict=verdict_words(first),
        rest=then,
    )


def effort_words(summary: TargetSummary) -> str:
    """'12–30 person-days'."""
    return t("{days} person-days", days=days_range(summary.effort.days))


def verdict_words(summary: TargetSummary) -> str:
    """'moderate change, 12–30 person-days'."""
    if not summary.effort.hours.high:
        return summary.scale.words
    return t("{verdict}, {effort}", verdict=summary.scale.words, effort=effort_words(summary))


def route_words(report: Report, summary: TargetSummary) -> str:
    """'C: dual-stack coexistence'."""
    if not any(share.files for share in summary.plan.shares.values()):
        return t("none needed")
    route = report.routes[summary.plan.recommended]
    return t("{route}: {name}", route=route.id, name=route.shown_name)


def work_title(group: WorkGroup) -> str:
    """'`cudaMalloc` — 412 uses in 96 files' (a construct or a library's declarations by its words)."""
    name = group.title if group.pattern or group.declarations else f"`{group.title}`"
    return t(
        "{name} — {uses} in {files}",
        name=name,
        uses=tn("{count} use", "{count} uses", group.uses),
        files=tn("{count} file", "{count} files", group.files),
    )


def names_text(group: WorkGroup, shown: int = 3) -> str:
    """What a grouped row stands for: '48 names: `Npp8u`, `Npp32s`, `Npp32f` (+45 more)'."""
    listed = ", ".join(f"`{name}`" for name in group.symbols[:shown])
    more = group.names - shown
    if more > 0:
        listed = t("{names} (+{count} more)", names=listed, count=number(more))
    return tn("{count} name: {names}", "{count} names: {names}", group.names, names=listed)


def per_1000_lines(summary: TargetSummary) -> str:
    return days_text(summary.density)


# The partition of the scanned files each verdict card and table shows; the rows add up to every file scanned.
FILE_ROWS = (
    (Difficulty.PORTABLE, N_("files unchanged (portable or no finding)")),
    (Difficulty.MECHANICAL, N_("files with safe rewrites only")),
    (Difficulty.MANUAL, N_("files a person changes (no blocker)")),
    (Difficulty.BLOCKER, N_("files with a blocker")),
)


def languages_text(report: Report) -> str:
    """The files scanned by kind, most first, the first with its unit: 'C/C++/CUDA 748 files, CMake 215, JSON 3'."""
    ranked = sorted(report.languages.items(), key=lambda item: (-item[1], item[0]))
    parts = [
        tn("{language} {count} file", "{language} {count} files", count, language=language_name(language))
        if index == 0
        else t("{language} {count}", language=language_name(language), count=number(count))
        for index, (language, count) in enumerate(ranked)
    ]
    return t(", ").join(parts) or t("none")


def scanned_text(report: Report) -> str:
    """'248,892 lines in 1,536 files': what the scan read."""
    return t(
        "{lines} lines in {files}",
        lines=number(report.lines_scanned),
        files=tn("{count} file", "{count} files", report.files_scanned),
    )
