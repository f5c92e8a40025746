"""The report as GitHub-flavoured Markdown, for a wiki page or a pull request.

Its size does not grow with the number of findings: the summary, the effort and the routes in full, then the
heaviest folders, APIs and files (each list cut at a stated length, saying how many more there are). Every finding
is in the JSON report and, grouped and collapsed, in the HTML one."""

from __future__ import annotations

import re
from collections import Counter, defaultdict

from ..models import Difficulty
from .effort import WORK, Hours
from .folders import Folder, focus
from .model import Availability, Report, WorkGroup
from .phrases import (
    DIFFICULTY_MEANINGS,
    EXAMPLE_FILES,
    FILE_ROWS,
    TALLY_ORDER,
    TOP_APIS,
    TOP_DEPENDENCIES,
    TOP_FILES,
    TOP_PROBLEMS,
    TOP_ROUTE_FILES,
    TOP_WORK,
    availability_words,
    cheapest_sentence,
    languages_text,
    per_1000_lines,
    route_words,
    share_text,
    tally_text,
    work_title,
)
from .routes import dual_stack_note
from .tally import DIFFICULTIES
from .verdict import RANKING_RULE, days_range, days_text, scale_meanings

_CODE_SPAN = re.compile(r"(`+)(.+?)\1")
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_\[\]<>|~&])")


def text(value: str) -> str:
    """Plain text made safe for Markdown and for a table cell: punctuation escaped, `code spans` kept as code."""
    out: list[str] = []
    position = 0
    value = " ".join(value.split())
    for match in _CODE_SPAN.finditer(value):
        out.append(_MARKDOWN_SPECIAL.sub(r"\\\1", value[position : match.start()]))
        out.append(code(match.group(2)))
        position = match.end()
    out.append(_MARKDOWN_SPECIAL.sub(r"\\\1", value[position:]))
    return "".join(out)


def code(value: str) -> str:
    """A code span that survives any content and table cells: a fence longer than any backtick run inside, and
    pipes escaped as GFM tables want them (`\\|`, shown as `|`)."""
    value = " ".join(value.split())
    longest = max((len(run) for run in re.findall(r"`+", value)), default=0)
    fence = "`" * (longest + 1)
    pad = " " if value.startswith("`") or value.endswith("`") else ""
    value = value.replace("|", "\\|")
    return f"{fence}{pad}{value}{pad}{fence}"


def _table(header: list[str], rows: list[list[str]], align_right: set[int] | None = None) -> list[str]:
    right = align_right or set()
    lines = ["| " + " | ".join(header) + " |"]
    lines.append("|" + "|".join("---:" if i in right else "---" for i in range(len(header))) + "|")
    lines.extend("| " + " | ".join(row) + " |" for row in rows)
    return lines


def _more(shown: int, total: int, what: str) -> list[str]:
    rest = total - shown
    if rest <= 0:
        return []
    return ["", f"…and {rest} more {what} (the JSON report lists them all; the HTML report shows them collapsed)."]


def render_markdown(report: Report) -> str:
    out: list[str] = []
    out += _header(report)
    out += _summary(report)
    out += _effort(report)
    out += _routes(report)
    out += _work(report)
    out += _dependencies(report)
    out += _verification(report)
    out += _details(report)
    return "\n".join(out) + "\n"


def _labels(report: Report) -> list[str]:
    return [text(report.label(t)) for t in report.target_names]


# ---- header and summary ---------------------------------------------------------------------------------------
def _header(report: Report) -> list[str]:
    targets = ", ".join(
        f"**{text(t.label)}** ({text(t.described)})" if t.described else f"**{text(t.label)}**" for t in report.targets
    )
    excluded = (
        f"; {len(report.excluded)} directories with sources excluded (see Scan details)." if report.excluded else "."
    )
    return [
        f"# CUDA migration assessment: {', '.join(code(p) for p in report.paths)}",
        "",
        f"Generated {report.generated} by cudaport {report.tool_version} for {targets}.",
        f"Scanned {report.files_scanned} files, {report.lines_scanned} lines ({text(languages_text(report))}); "
        f"{len(report.skipped)} skipped, {len(report.errors)} with errors{excluded}",
        "",
    ]


def _summary(report: Report) -> list[str]:
    names = report.target_names
    summaries = [report.summaries[t] for t in names]
    out = ["## Summary", "", text(cheapest_sentence(report)), ""]
    rows: list[list[str]] = [
        ["**verdict**", *[f"**{s.scale.title.lower()}**" for s in summaries]],
        ["effort (person-days)", *[days_range(s.effort.days) for s in summaries]],
        ["person-days per 1,000 lines", *[per_1000_lines(s) for s in summaries]],
        ["route", *[text(route_words(report, s)) for s in summaries]],
    ]
    if len(names) > 1:
        rows.append(["rank", *[str(report.ranking.index(t) + 1) for t in names]])
    for difficulty, words in FILE_ROWS:
        rows.append([words, *[share_text(s.files[difficulty], s.files.total) for s in summaries]])
    for difficulty in DIFFICULTIES:
        rows.append(
            [f"findings {difficulty.label}", *[share_text(s.findings[difficulty], s.findings.total) for s in summaries]]
        )
    rows.append(["findings in all", *[str(s.findings.total) for s in summaries]])
    rows.append(["files that need a person", *[share_text(s.files_needing_person, s.files.total) for s in summaries]])
    rows.append([f"fixable by {code('cudaport fix')}", *[str(s.fixable) for s in summaries]])
    out += _table(["", *_labels(report)], rows, set(range(1, len(names) + 1)))
    out += ["", "A file counts under its heaviest finding; the four file rows add up to every file scanned.", ""]
    for summary in summaries:
        out.append(f"**{text(summary.target.label)}: {summary.scale.title.lower()}** because")
        out.extend(f"- {text(reason)}" for reason in summary.reasons)
        if any(share.files for share in summary.plan.shares.values()):
            out.append(f"- route {text(route_words(report, summary))}: {text(summary.plan.why)}")
        out.append("")
    out.append("The scale:")
    out.append("")
    for scale, meaning in scale_meanings(report.effort).items():
        out.append(f"- **{scale.title.lower()}**: {text(meaning)}")
    out.append(f"- ranking of targets: {text(RANKING_RULE)}")
    out.append("")
    out.append(
        "Difficulties: " + "; ".join(f"**{d.label}** {text(DIFFICULTY_MEANINGS[d])}" for d in DIFFICULTIES) + "."
    )
    out.append("")
    top = report.dependencies[:TOP_DEPENDENCIES]
    if top:
        out.append(f"Top dependencies ({len(top)} of {len(report.dependencies)}; all under What the code depends on):")
        out.append("")
        rows = [
            [f"{text(d.family)} ({d.rule})", str(d.uses), str(d.files)] + [text(d.targets[t].status) for t in names]
            for d in top
        ]
        out += _table(["library or API family", "uses", "files", *_labels(report)], rows, {1, 2})
        out.append("")
    return out


# ---- effort ---------------------------------------------------------------------------------------------------
def _effort(report: Report) -> list[str]:
    names = report.target_names
    model = report.effort
    out = ["## Effort", ""]
    out.append(
        "Person-days per target, as a range: each finding costs what its kind and difficulty say (below), the first "
        "use of a unit of work in full and each further use less; every file with work adds its build and test. "
        f"A person-day is {days_text(model.hours_per_day)} productive hours."
    )
    out.append("")
    kinds = [k for k in model.kinds if any(report.summaries[t].effort.kinds[k.name].findings for t in names)]
    rows = []
    for kind in kinds:
        cells = []
        for t in names:
            total = report.summaries[t].effort.kinds[kind.name]
            cells.append(f"{days_range(model.days(total.hours))} ({total.findings})" if total.findings else "—")
        rows.append([text(kind.name), *cells])
    rows.append(
        [
            "building and testing the files",
            *[
                f"{days_range(model.days(report.summaries[t].effort.file_hours))} ({report.summaries[t].effort.files})"
                for t in names
            ],
        ]
    )
    rows.append(["**total**", *[f"**{days_range(report.summaries[t].effort.days)}**" for t in names]])
    out += _table(["kind (person-days, findings or files)", *_labels(report)], rows, set(range(1, len(names) + 1)))
    out += [
        "",
        "Assumptions (hours of one engineer; `rules/effort.toml`, overridable under `effort` in the configuration):",
        "",
    ]
    for kind in kinds:
        costs = "; ".join(
            f"{d.label} {_cost(kind.costs[d].first)} h first, {_cost(kind.costs[d].more)} h each further use "
            f"(per {kind.costs[d].per})"
            for d in WORK
        )
        out.append(f"- **{text(kind.name)}** ({text(kind.about)}): {costs}")
    out.append(
        "- **building and testing a file**, by its heaviest finding: "
        + "; ".join(f"{d.label} {_cost(model.file_hours[d])} h" for d in WORK)
    )
    if model.overridden:
        out.append(f"- changed by the configuration: {', '.join(code(k) for k in model.overridden)}")
    out.append("")
    return out


def _cost(hours: Hours) -> str:
    return f"{hours.low:g}–{hours.high:g}"


# ---- routes ---------------------------------------------------------------------------------------------------
def _routes(report: Report) -> list[str]:
    out = ["## Routes", ""]
    for route in report.routes.values():
        fix = f" Written by {code(route.fix)}." if route.fix else ""
        out.append(f"- **{route.id}, {text(route.name)}**: {text(route.about)}.{fix}")
    out.append("")
    for name in report.target_names:
        summary = report.summaries[name]
        plan = summary.plan
        if not any(share.files for share in plan.shares.values()):
            continue
        route = report.routes[plan.recommended]
        out.append(f"### {text(summary.target.label)}: route {route.id}, {text(route.name)}")
        out.append("")
        out.append(f"Why: {text(plan.why)}.")
        out.append("")
        for route_id, share in plan.shares.items():
            if not share.files:
                continue
            days = report.effort.days(share.hours)
            line = (
                f"- **{route_id}** ({text(report.routes[route_id].name)}): {len(share.files)} "
                f"file{'s' if len(share.files) != 1 else ''}, {days_range(days)} person-days"
            )
            if route_id == "B" and report.routes["B"].language(name):
                line += f"; rewritten in {text(report.routes['B'].language(name))}"
            if route_id == "C":
                line += f"; {code(report.routes['C'].fix)}" if report.routes["C"].fix else ""
                if share.dual_stack_files:
                    line += f"; {text(dual_stack_note(share.dual_stack_files, summary.target.label))}"
                if share.coverage is not None:
                    line += (
                        f"; the dual-stack fix covers {share.coverage.covered} of their findings, "
                        f"{share.coverage.remaining} remain for a person"
                    )
            shown = share.files[:TOP_ROUTE_FILES]
            line += ": " + ", ".join(code(label) for label, _ in shown)
            if len(share.files) > len(shown):
                line += f" and {len(share.files) - len(shown)} more"
            out.append(line)
        out.append("")
    return out


# ---- where the work is ----------------------------------------------------------------------------------------
def _work(report: Report) -> list[str]:
    names = report.target_names
    labels = _labels(report)
    out = ["## Where the work is", "", f"Findings per target as {TALLY_ORDER}, heaviest first.", ""]
    out += ["### By folder", ""]
    shown = _folder_rows(report.folders)
    rows = [
        [code(f.path or "."), str(f.files), str(f.lines)]
        + [tally_text(f.findings[t]) for t in names]
        + [days_range(report.effort.days(f.effort[t])) for t in names]
        for f in shown
    ]
    out += _table(
        ["folder", "files", "lines", *labels, *[f"{label}: person-days" for label in labels]],
        rows,
        set(range(1, 3 + 2 * len(names))),
    )
    out.append("")
    out.append(
        "Top-level folders, with the folder that holds most of the work opened one level; each row counts "
        "everything below it."
    )
    out.append("")

    out += ["### By API", ""]
    work = report.work[:TOP_WORK]
    examples = _examples(report, work)
    for group in work:
        out.append(f"- {text(work_title(group))} ({text(group.family)}, {group.rule})")
        cells = "; ".join(f"{text(report.label(t))}: {text(_availability_short(group.targets[t]))}" for t in names)
        out.append(f"  {cells}")
        if examples.get(group.key):
            out.append(
                "  in "
                + ", ".join(f"{code(path)} ({count})" for path, count in examples[group.key])
                + (
                    f" and {group.files - len(examples[group.key])} more"
                    if group.files > len(examples[group.key])
                    else ""
                )
            )
    out += _more(len(work), len(report.work), "APIs and constructs")
    out.append("")

    out += ["### By file", ""]
    touched = [f for f in report.files if any(f.findings[t].total for t in names)]
    rows = [
        [code(f.path), str(f.lines)] + [tally_text(f.findings[t]) for t in names] + [f.route[t] or "—" for t in names]
        for f in touched[:TOP_FILES]
    ]
    out += _table(
        ["file", "lines", *labels, *[f"{label}: route" for label in labels]], rows, set(range(1, 2 + len(names)))
    )
    out += _more(min(TOP_FILES, len(touched)), len(touched), "files with findings")
    untouched = report.files_scanned - len(touched)
    out += ["", f"{untouched} more file{'s' if untouched != 1 else ''} have no finding.", ""]
    return out


def _folder_rows(root: Folder) -> list[Folder]:
    """The top-level folders with the dominant one opened (as the HTML chart shows them)."""
    return focus(root, limit=25) or [root]


def _examples(report: Report, groups: list[WorkGroup]) -> dict[str, list[tuple[str, int]]]:
    """The files with the most uses of each group, read from the store for these groups only."""
    wanted: dict[int, str] = {member: group.key for group in groups for member in group.members}
    counts: dict[str, Counter[int]] = defaultdict(Counter)
    store = report.store
    for file in range(len(store.paths)):
        for row in store.rows_of(file):
            key = wanted.get(store.group_of(row))
            if key is not None:
                counts[key][file] += 1
    return {
        key: [
            (store.paths[file], n)
            for file, n in sorted(c.items(), key=lambda i: (-i[1], store.paths[i[0]]))[:EXAMPLE_FILES]
        ]
        for key, c in counts.items()
    }


def _availability_short(availability: Availability) -> str:
    worst = availability.uses.worst
    if worst is None:
        return "not used"
    top = availability.replacements.most_common(1)
    return worst.label + (f" → `{top[0][0]}`" if top and worst < Difficulty.BLOCKER else "")


# ---- dependencies ---------------------------------------------------------------------------------------------
def _dependencies(report: Report) -> list[str]:
    names = report.target_names
    labels = _labels(report)
    out = ["## What the code depends on", ""]
    area_rows = [
        [text(area.name), str(area.uses), str(area.files)] + [tally_text(area.targets[t]) for t in names]
        for area in report.areas
    ]
    out += [f"By area (findings per target: {TALLY_ORDER}):", ""]
    out += _table(["area", "uses", "files", *labels], area_rows, {1, 2})
    for area in report.areas:
        out += ["", f"### {text(area.name[:1].upper() + area.name[1:])}", "", f"{text(area.about)}.", ""]
        dep_rows = []
        for dep in area.dependencies:
            used = ", ".join(f"{code(name)} {count}" for name, count in dep.apis.most_common(4))
            more = len(dep.apis) - 4
            if more > 0:
                used += f" (+{more} more)"
            dep_rows.append(
                [f"{text(dep.family)} ({dep.rule})", str(dep.uses), str(dep.files), used]
                + [text(availability_words(dep.targets[t])) for t in names]
            )
        out += _table(
            [
                "library or API family",
                "uses",
                "files",
                "names and constructs used",
                *[f"{x} counterpart" for x in labels],
            ],
            dep_rows,
            {1, 2},
        )
    out.append("")
    apis = report.api_names()
    if apis:
        out += [f"### Most used APIs (top {min(TOP_APIS, len(apis))} of {len(apis)})", ""]
        api_rows = [
            [code(a.symbol), f"{text(a.family)} ({a.rule})", str(a.uses), str(a.files)]
            + [text(_availability_short(a.targets[t])) for t in names]
            for a in apis[:TOP_APIS]
        ]
        out += _table(["API", "family", "uses", "files", *labels], api_rows, {2, 3})
        out.append("")
    return out


# ---- verification and scan details ----------------------------------------------------------------------------
def _verification(report: Report) -> list[str]:
    out = ["## What to verify after porting", ""]
    for check in (c for c in report.checks if c.applies):
        line = f"- [ ] **{text(check.spec.title)}**"
        if check.spec.threshold:
            line += f" — {text(check.spec.threshold)}"
        out.append(line)
        out.append(f"  {text(check.spec.check)}")
        why = text(check.spec.why)
        if check.triggers:
            why += " Found: " + "; ".join(
                f"{t.rule} ({', '.join(code(n) for n in t.names[:4])}{' …' if len(t.names) > 4 else ''})"
                for t in check.triggers
            )
        out.append(f"  _Why:_ {why}")
        for target, detail in check.details.items():
            out.append(f"  _{text(report.label(target))}:_ {text(detail)}")
    skipped = [c for c in report.checks if not c.applies]
    if skipped:
        out += [
            "",
            "Not indicated by what was found (add them if the code does this anyway): "
            + ", ".join(text(c.spec.title) for c in skipped)
            + ".",
        ]
    out.append("")
    return out


def _details(report: Report) -> list[str]:
    settings = report.settings
    out = ["## Scan details", ""]
    out.append(f"- configuration: {code(str(settings.config_path)) if settings.config_path else 'defaults'}")
    out.append(f"- rules selected: {', '.join(code(s) for s in settings.select)}")
    if settings.ignore:
        out.append(f"- rules ignored: {', '.join(code(s) for s in settings.ignore)}")
    out.append(f"- excluded: {', '.join(code(s) for s in settings.all_excludes) or 'nothing'}")
    for title, problems, with_target in (
        ("directories with sources that were excluded", report.excluded, False),
        ("skipped", report.skipped, False),
        ("errors", report.errors, True),
    ):
        if not problems:
            continue
        out.append(f"- {title} ({len(problems)}):")
        for p in problems[:TOP_PROBLEMS]:
            where = f" ({text(report.label(p.target))})" if with_target and p.target else ""
            out.append(f"  - {code(p.path)}{where}: {text(p.reason)}")
        if len(problems) > TOP_PROBLEMS:
            out.append(f"  - …and {len(problems) - TOP_PROBLEMS} more (the JSON report lists them all)")
    out.append("")
    return out
