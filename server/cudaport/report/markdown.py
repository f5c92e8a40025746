"""The report as GitHub-flavoured Markdown, for a wiki page or a pull request."""

from __future__ import annotations

import re

from .model import Availability, Report
from .phrases import (
    DIFFICULTY_MEANINGS,
    TALLY_ORDER,
    TOP_APIS,
    availability_words,
    cheapest_sentence,
    languages_text,
    share_text,
    tally_text,
)
from .tally import DIFFICULTIES, Tally
from .verdict import RANKING_RULE, scale_meanings

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


def render_markdown(report: Report) -> str:
    out: list[str] = []
    names = report.target_names
    labels = [text(report.label(t)) for t in names]
    out.append(f"# CUDA migration assessment: {', '.join(code(p) for p in report.paths)}")
    out.append("")
    out.append(
        f"Generated {report.generated} by cudaport {report.tool_version} for "
        + ", ".join(
            f"**{text(t.label)}** ({text(t.described)})" if t.described else f"**{text(t.label)}**"
            for t in report.targets
        )
        + "."
    )
    out.append(
        f"Scanned {report.files_scanned} files, {report.lines_scanned} lines ({text(languages_text(report))}); "
        f"{len(report.skipped)} skipped, {len(report.errors)} with errors"
        + (
            f"; {len(report.excluded)} directories with sources excluded (see Scan details)."
            if report.excluded
            else "."
        )
    )
    out.append("")

    # ---- verdict -----------------------------------------------------------------------------------------------
    out.append("## Verdict")
    out.append("")
    out.append(text(cheapest_sentence(report)))
    out.append("")
    summaries = [report.summaries[t] for t in names]
    rows: list[list[str]] = [["**verdict**", *[f"**{s.scale.title.lower()}**" for s in summaries]]]
    for difficulty in DIFFICULTIES:
        rows.append([f"files {difficulty.label}", *[share_text(s.files[difficulty], s.files.total) for s in summaries]])
    for difficulty in DIFFICULTIES:
        rows.append(
            [f"findings {difficulty.label}", *[share_text(s.findings[difficulty], s.findings.total) for s in summaries]]
        )
    rows.append(["findings in all", *[str(s.findings.total) for s in summaries]])
    rows.append(["files that need a person", *[share_text(s.files_needing_person, s.files.total) for s in summaries]])
    rows.append([f"fixable by {code('cudaport fix')}", *[str(s.fixable) for s in summaries]])
    if len(names) > 1:
        rows.append(["rank", *[str(report.ranking.index(t) + 1) for t in names]])
    out.extend(_table(["", *labels], rows, set(range(1, len(names) + 1))))
    out.append("")
    out.append("A file counts under its heaviest finding; a file without findings counts as portable.")
    out.append("")
    for summary in summaries:
        out.append(f"**{text(summary.target.label)}: {summary.scale.title.lower()}** because")
        out.extend(f"- {text(reason)}" for reason in summary.reasons)
        out.append("")
    out.append("The scale:")
    out.append("")
    for scale, meaning in scale_meanings().items():
        out.append(f"- **{scale.title.lower()}**: {text(meaning)}")
    out.append(f"- ranking of targets: {text(RANKING_RULE)}")
    out.append("")
    out.append(
        "Difficulties: " + "; ".join(f"**{d.label}** {text(DIFFICULTY_MEANINGS[d])}" for d in DIFFICULTIES) + "."
    )
    out.append("")

    # ---- where the work is ---------------------------------------------------------------------------------------
    out.append("## Where the work is")
    out.append("")
    out.append(f"Findings per target as {TALLY_ORDER}, heaviest first.")
    out.append("")
    out.append("### By directory")
    out.append("")
    dir_rows = [
        [code(d.path), str(d.files), str(d.lines)]
        + [tally_text(d.findings[t]) for t in names]
        + [str(d.files_needing_person[t]) for t in names]
        for d in report.directories
    ]
    header = ["directory", "files", "lines", *labels, *[f"{label}: files needing a person" for label in labels]]
    out.extend(_table(header, dir_rows, set(range(1, len(header)))))
    out.append("")
    out.append("### By file")
    out.append("")
    touched = [f for f in report.files if any(f.findings[t].total for t in names)]
    untouched = report.files_scanned - len(touched)
    file_rows = [
        [code(f.path), str(f.lines)] + [tally_text(f.findings[t]) for t in names] + [str(f.fixable[t]) for t in names]
        for f in touched
    ]
    out.extend(
        _table(
            ["file", "lines", *labels, *[f"{label}: fixable" for label in labels]],
            file_rows,
            set(range(1, 2 + 2 * len(names))),
        )
    )
    out.append("")
    out.append(f"{untouched} more file{'s' if untouched != 1 else ''} have no finding.")
    out.append("")
    for name in names:
        items = report.work[name]
        out.append(f"### Blocker and manual findings for {text(report.label(name))} ({len(items)})")
        out.append("")
        if not items:
            out.append("None.")
            out.append("")
            continue
        work_rows = [
            [
                code(f"{w.path}:{w.line}:{w.column}"),
                w.difficulty.label,
                f"{w.rule} {text(w.family)}",
                text(w.message),
            ]
            for w in items
        ]
        out.extend(_table(["location", "difficulty", "rule", "why"], work_rows))
        out.append("")

    # ---- dependencies ---------------------------------------------------------------------------------------------
    out.append("## What the code depends on")
    out.append("")
    area_rows = [
        [text(area.name), str(area.uses), str(area.files)] + [tally_text(area.targets[t]) for t in names]
        for area in report.areas
    ]
    out.append(f"By area (findings per target: {TALLY_ORDER}):")
    out.append("")
    out.extend(_table(["area", "uses", "files", *labels], area_rows, {1, 2}))
    for area in report.areas:
        out.append("")
        out.append(f"### {text(area.name[:1].upper() + area.name[1:])}")
        out.append("")
        out.append(f"{text(area.about)}.")
        out.append("")
        dep_rows = []
        for dep in area.dependencies:
            apis = ", ".join(f"{code(name)} {count}" for name, count in dep.apis.most_common(4))
            more = len(dep.apis) - 4
            if more > 0:
                apis += f" (+{more} more)"
            dep_rows.append(
                [f"{text(dep.family)} ({dep.rule})", str(dep.uses), str(dep.files), apis]
                + [text(availability_words(dep.targets[t])) for t in names]
            )
        out.extend(
            _table(
                [
                    "library or API family",
                    "uses",
                    "files",
                    "names and constructs used",
                    *[f"{label} counterpart" for label in labels],
                ],
                dep_rows,
                {1, 2},
            )
        )
    out.append("")
    if report.apis:
        out.append(f"### Most used APIs (top {min(TOP_APIS, len(report.apis))} of {len(report.apis)})")
        out.append("")
        api_rows = [
            [code(a.symbol), f"{text(a.family)} ({a.rule})", str(a.uses), str(a.files)]
            + [
                f"{_worst_label(a.targets[t].uses)}" + (f" → {code(n)}" if (n := _top_name(a.targets[t])) else "")
                for t in names
            ]
            for a in report.apis[:TOP_APIS]
        ]
        out.extend(_table(["API", "family", "uses", "files", *labels], api_rows, {2, 3}))
        out.append("")

    # ---- verification ---------------------------------------------------------------------------------------------
    out.append("## What to verify after porting")
    out.append("")
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
    skipped_checks = [c for c in report.checks if not c.applies]
    if skipped_checks:
        out.append("")
        out.append(
            "Not indicated by what was found (add them if the code does this anyway): "
            + ", ".join(text(c.spec.title) for c in skipped_checks)
            + "."
        )
    out.append("")

    # ---- scan details -------------------------------------------------------------------------------------------
    out.append("## Scan details")
    out.append("")
    settings = report.settings
    out.append(f"- configuration: {code(str(settings.config_path)) if settings.config_path else 'defaults'}")
    out.append(f"- rules selected: {', '.join(code(s) for s in settings.select)}")
    if settings.ignore:
        out.append(f"- rules ignored: {', '.join(code(s) for s in settings.ignore)}")
    out.append(f"- excluded: {', '.join(code(s) for s in settings.all_excludes) or 'nothing'}")
    if report.excluded:
        out.append(f"- directories with sources that were excluded ({len(report.excluded)}):")
        out.extend(f"  - {code(p.path)}: {text(p.reason)}" for p in report.excluded)
    if report.skipped:
        out.append(f"- skipped ({len(report.skipped)}):")
        out.extend(f"  - {code(p.path)}: {text(p.reason)}" for p in report.skipped)
    if report.errors:
        out.append(f"- errors ({len(report.errors)}):")
        out.extend(
            f"  - {code(p.path)} ({text(report.label(p.target or ''))}): {text(p.reason)}" for p in report.errors
        )
    out.append("")
    return "\n".join(out)


def _worst_label(tally: Tally) -> str:
    worst = tally.worst
    return worst.label if worst is not None else "—"


def _top_name(availability: Availability) -> str:
    return availability.replacements.most_common(1)[0][0] if availability.replacements else ""
