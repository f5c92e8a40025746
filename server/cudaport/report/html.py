"""The report as one self-contained HTML page: inline CSS, inline SVG charts, a little inline script. No network
access of any kind (a Content-Security-Policy forbids it), so it opens offline and prints well. Every text that
comes from the code base is escaped.

The page reads on a tree of any size: the summary first (verdicts, effort, routes, top dependencies), then work
grouped by folder, by API and by file, each collapsed. The first rows of each list are in the page; the rest, and
every finding's line, are in one compressed block (`details.py`) the script opens when a reader asks."""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Sequence
from functools import cache
from html import escape
from importlib import resources

from .. import i18n
from ..i18n import N_, plural, t
from ..knowledge.effort import WORK, Hours
from ..model.findings import Difficulty
from ..model.words import difficulty_word
from .checklist import CheckItem
from .details import availability_list, encode, payload, tally_list
from .folders import Folder, focus
from .model import ApiUse, Availability, Report, TargetSummary, WorkGroup
from .operators import INTRO as OPERATORS_INTRO
from .operators import PYTHON_LANGUAGES, effort_text, happens_text, sentences, summary_text, worth_showing
from .phrases import (
    DIFFICULTY_MEANINGS,
    FILE_ROWS,
    TOP_APIS,
    TOP_DEPENDENCIES,
    TOP_DIRECTORIES,
    TOP_FILES,
    availability_words,
    cheapest_sentence,
    languages_text,
    names_text,
    per_1000_lines,
    route_words,
    scanned_text,
    share_text,
    status_text,
)
from .routes import dual_stack_note
from .rows import FileRow
from .svg import Bar, Group, stacked_bars
from .tally import DIFFICULTIES, Tally, percent
from .verdict import RANKING_RULE, days_range, scale_meanings
from .words import clauses, number, tn, unit_name

_CODE_SPAN = re.compile(r"`([^`]+)`")
_HEAVIEST_FIRST = tuple(reversed(DIFFICULTIES))
TOP_ROWS = 50  # rows of the API and work tables in the page before "show all"
_LEVEL_SHORT = {
    Difficulty.BLOCKER: N_("blocker"),
    Difficulty.MANUAL: N_("manual"),
    Difficulty.MECHANICAL: N_("mech."),
    Difficulty.PORTABLE: N_("portable"),
}
# The page's fonts by language: Chinese text set in a CJK face first (its Latin follows it), so that no
# character falls back to a box; the stylesheet picks the stack by the page's lang attribute.
CJK_LANGUAGES = ("zh-CN",)


@cache
def _asset(name: str) -> str:
    return resources.files("cudaport.report").joinpath("assets").joinpath(name).read_text(encoding="utf-8")


def _hash(source: str) -> str:
    digest = hashlib.sha256(source.encode("utf-8")).digest()
    return "'sha256-" + base64.b64encode(digest).decode("ascii") + "'"


def inline(value: str) -> str:
    """Escaped text with its `code spans` shown as code."""
    out: list[str] = []
    position = 0
    for match in _CODE_SPAN.finditer(value):
        out.append(escape(value[position : match.start()]))
        out.append(f"<code>{escape(match.group(1))}</code>")
        position = match.end()
    out.append(escape(value[position:]))
    return "".join(out)


def _h(message: str, /, **fields: str) -> str:
    """A message as HTML: its words (in the active language) escaped, its fields already HTML."""
    return escape(t(message)).format(**fields)


def script_text() -> dict[str, object]:
    """The words the page's script writes when a reader opens a group, in the active language (a data block of
    the page: the script itself is the same in every language, its hash in the Content-Security-Policy too)."""
    return {
        "levels": [t(_LEVEL_SHORT[d]) for d in Difficulty],
        "difficulties": [difficulty_word(d) for d in Difficulty],
        "tally": t("{label}: {blocker} blocker, {manual} manual, {mechanical} mechanical, {portable} portable"),
        "counterpart": t("{tip}; counterpart {name}"),
        "line": t("line"),
        "code": t("code"),
        "lineOne": plural("{count} line", "{count} lines", 1),
        "lineOther": plural("{count} line", "{count} lines", 2),
        "file": t("file"),
        "uses": t("uses"),
        "personDays": t("person-days"),
        "opening": t("opening…"),
        "cannotOpen": t("Cannot open the details: {error}"),
        "noDetails": t("this page has no details block"),
        "noStream": t(
            "this browser cannot open the details (no DecompressionStream); the JSON report has every finding"
        ),
        "showFolders": t("show its folders"),
        "route": t("route {id}"),
        "days": t("{days} d"),
        "labelled": t("{label}: {text}"),
        "nameOne": plural("{count} name: {names}", "{count} names: {names}", 1),
        "nameOther": plural("{count} name: {names}", "{count} names: {names}", 2),
        "more": t("{names} (+{count} more)"),
    }


def render_html(report: Report) -> str:
    css = _asset("report.css")
    script = _asset("report.js")
    policy = (
        f"default-src 'none'; style-src {_hash(css)}; script-src {_hash(script)}; img-src data:; "
        "base-uri 'none'; form-action 'none'"
    )
    title = t("CUDA migration assessment — {project}", project=report.name)
    body = "".join(
        [
            _header(report),
            "<main>",
            _summary_section(report),
            _effort_section(report),
            _routes_section(report),
            _operators_section(report),
            _work_section(report),
            _dependency_section(report),
            _verification_section(report),
            _details_section(report),
            "</main>",
        ]
    )
    # A data block: never executed, so the policy's script-src does not apply to it.
    data = f'<script type="application/octet-stream" id="report-details">{encode(payload(report))}</script>'
    words = json.dumps(script_text(), ensure_ascii=False).replace("</", "<\\/")
    data += f'\n<script type="application/json" id="report-text">{words}</script>'
    return (
        "<!DOCTYPE html>\n"
        f'<html lang="{i18n.language()}">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{escape(policy)}">\n'
        f'<meta name="generator" content="cudaport {escape(report.tool_version)}">\n'
        f"<title>{escape(title)}</title>\n<style>{css}</style>\n</head>\n<body>\n"
        f"{body}\n{data}\n<script>{script}</script>\n</body>\n</html>\n"
    )


# ---- cells shared by the tables --------------------------------------------------------------------------------
def _num(value: int | float, shown: str | None = None) -> str:
    if shown is None:
        shown = number(value) if isinstance(value, int) else str(value)
    return f'<td class="num" data-value="{value}">{escape(shown)}</td>'


def _heading(column: int, label: str, kind: str, css: str = "", title: str = "") -> str:
    """A sortable column heading (the script sorts by `data-col`; numbers heaviest first)."""
    klass = f' class="{css}"' if css else ""
    tip = f' title="{escape(title)}"' if title else ""
    return f'<th{klass}{tip} data-col="{column}" data-type="{kind}"><button type="button">{escape(label)}</button></th>'


def _plain_heading(label: str, css: str = "", title: str = "") -> str:
    klass = f' class="{css}"' if css else ""
    tip = f' title="{escape(title)}"' if title else ""
    return f"<th{klass}{tip}>{escape(label)}</th>"


def _tally_value(tally: Tally) -> float:
    """A sort key for a tally cell: blockers outweigh any number of manual findings, and so on down."""
    b, m, mech, _ = tally_list(tally)
    return b * 1e12 + m * 1e6 + mech


def _tally_cell(tally: Tally, label: str, target: str, note: str = "") -> str:
    """Blocker · manual · mechanical counts of one target, coloured; portable ones in the tooltip; `note` below."""
    b, m, mech, port = tally_list(tally)
    tip = t(
        "{label}: {blocker} blocker, {manual} manual, {mechanical} mechanical, {portable} portable",
        label=label,
        blocker=number(b),
        manual=number(m),
        mechanical=number(mech),
        portable=number(port),
    )
    parts = [
        f'<span class="d-{level}">{number(count)}</span>' if count else '<span class="zero">·</span>'
        for level, count in (("blocker", b), ("manual", m), ("mechanical", mech))
    ]
    return (
        f'<td class="tally" data-target="{escape(target)}" data-value="{_tally_value(tally)}" '
        f'data-counts="{b} {m} {mech} {port}" title="{escape(tip)}">{" ".join(parts)}'
        + (f'<small class="effort">{escape(note)}</small>' if note else "")
        + "</td>"
    )


def _availability_cell(availability: Availability, target: str, label: str) -> str:
    worst, counterpart, *_ = availability_list(availability)
    if worst < 0:
        return f'<td data-target="{escape(target)}" data-value="-1" class="muted">—</td>'
    level = Difficulty(worst)
    shown = f'<span class="d-{level.label}">{escape(t(_LEVEL_SHORT[level]))}</span>'
    if counterpart and level < Difficulty.BLOCKER:
        shown += f' <code class="counterpart">{escape(counterpart)}</code>'
    tip = t("{label}: {text}", label=label, text=availability_words(availability).replace("`", ""))
    return f'<td data-target="{escape(target)}" data-value="{worst}" title="{escape(tip)}">{shown}</td>'


def _days(hours: Hours, report: Report) -> str:
    return days_range(report.effort.days(hours))


def _target_headings(report: Report, first_column: int, kind: str = "number", title: str = "") -> str:
    return "".join(
        _heading(first_column + i, report.label(n), kind, "target", title.format(label=report.label(n)))
        for i, n in enumerate(report.target_names)
    )


# ---- header -------------------------------------------------------------------------------------------------------
def _header(report: Report) -> str:
    targets = ", ".join(
        f"<strong>{escape(info.label)}</strong>" + (f" ({escape(info.described)})" if info.described else "")
        for info in report.targets
    )
    paths = ", ".join(f"<code>{escape(p)}</code>" for p in report.paths)
    links = [
        ("summary", N_("Summary")),
        ("effort", N_("Effort")),
        ("routes", N_("Routes")),
        ("work", N_("Where the work is")),
        ("dependencies", N_("Dependencies")),
        ("verify", N_("What to verify")),
        ("details", N_("Scan details")),
    ]
    if _operators_shown(report):
        links.insert(3, ("operators", N_("Operator coverage")))
    nav = "".join(f'<li><a href="#{anchor}">{escape(t(text))}</a></li>' for anchor, text in links)
    meta = _h(
        N_("{paths} · generated {when} by cudaport {version}"),
        paths=paths,
        when=escape(report.generated),
        version=escape(report.tool_version),
    )
    scanned = _h(
        N_("Targets: {targets}. Scanned {scanned} ({languages}); {skipped} skipped, {errors} with errors{excluded}."),
        targets=targets,
        scanned=f"<strong>{escape(scanned_text(report))}</strong>",
        languages=escape(languages_text(report)),
        skipped=number(len(report.skipped)),
        errors=number(len(report.errors)),
        excluded=escape(_excluded_note(report)),
    )
    return (
        "<header>"
        f"<h1>{escape(t('CUDA migration assessment: {project}', project=report.name))}</h1>"
        f'<p class="meta">{meta}</p>'
        f"<p>{scanned}</p>"
        f"<nav><ul>{nav}</ul></nav>"
        "</header>"
    )


# ---- summary ------------------------------------------------------------------------------------------------------
def _summary_section(report: Report) -> str:
    cards = "".join(_card(report, report.summaries[name]) for name in report.target_names)
    groups = [
        Group(
            s.target.label,
            [
                Bar(t("findings"), s.findings, {"target": s.target.name, "measure": "findings"}, "findings"),
                Bar(t("files"), s.files, {"target": s.target.name, "measure": "files"}, "files"),
            ],
        )
        for s in (report.summaries[name] for name in report.target_names)
    ]
    chart = stacked_bars(
        "chart-targets", t("Difficulty per target: shares of findings and of files"), groups, share=True
    )
    scale = "".join(
        f"<dt>{escape(s.title)}</dt><dd>{inline(meaning)}</dd>" for s, meaning in scale_meanings(report.effort).items()
    )
    meanings = "".join(
        f'<dt><span class="dot d-{d.label}"></span>{escape(difficulty_word(d))}</dt>'
        f"<dd>{inline(t(DIFFICULTY_MEANINGS[d]))}</dd>"
        for d in DIFFICULTIES
    )
    caption = t(
        "Share of findings and of files per difficulty for each target (a file counts under its heaviest finding; "
        "a file without findings counts as portable)."
    )
    return (
        f'<section id="summary"><h2>{escape(t("Summary"))}</h2>'
        f'<p class="cheapest">{escape(cheapest_sentence(report))}</p>'
        f'<div class="cards">{cards}</div>'
        f"<figure>{chart}<figcaption>{escape(caption)}</figcaption></figure>"
        f"{_numbers_table(report)}{_top_dependencies(report)}"
        f'<details class="explain"><summary>{escape(t("How to read the verdict"))}</summary>'
        f"<h3>{escape(t('The scale'))}</h3>"
        f'<dl class="scale-list">{scale}<dt>{escape(t("Ranking of targets"))}</dt><dd>{escape(t(RANKING_RULE))}</dd>'
        f'</dl><h3>{escape(t("Difficulties"))}</h3><dl class="scale-list">{meanings}</dl></details>'
        "</section>"
    )


def _card(report: Report, summary: TargetSummary) -> str:
    files, findings = summary.files, summary.findings
    rank = report.ranking.index(summary.target.name) + 1
    rank_text = (
        f'<span class="rank">{escape(t("#{rank} of {count}", rank=rank, count=len(report.targets)))}</span>'
        if len(report.targets) > 1
        else ""
    )
    rows = [(t(words), files[difficulty], files.total, f"files.{difficulty.label}") for difficulty, words in FILE_ROWS]
    file_rows = "".join(
        f'<tr data-key="{key}"><th scope="row"><span class="dot d-{key.split(".")[1]}"></span>{escape(words)}</th>'
        f'<td class="num">{number(count)}</td><td class="num share">{percent(count, whole)}</td></tr>'
        for words, count, whole, key in rows
    )
    reasons = "".join(f"<li>{inline(r)}</li>" for r in summary.reasons[1:])
    scale = summary.scale.id
    route = report.routes[summary.plan.recommended]
    route_line = ""
    if any(share.files for share in summary.plan.shares.values()):
        named = _h(
            N_("{route}: {name}"),
            route=f"<strong>{escape(t('Route {id}', id=route.id))}</strong>",
            name=escape(route.shown_name),
        )
        route_line = (
            f'<p class="route" data-route="{route.id}">{named}'
            f' <a href="#routes-{escape(summary.target.name)}">{escape(t("why"))}</a></p>'
        )
    effort = _h(
        N_("{days} person-days {density}"),
        days=f"<strong>{escape(days_range(summary.effort.days))}</strong>",
        density=f"<small>{escape(t('({value} per 1,000 lines)', value=per_1000_lines(summary)))}</small>",
    )
    findings_line = _h(
        N_("{findings} findings; {fixable} fixable by {command}"),
        findings=number(findings.total),
        fixable=number(summary.fixable),
        command="<code>cudaport fix</code>",
    )
    return (
        f'<article class="card scale-{scale}" data-target="{escape(summary.target.name)}">'
        f"<h3>{escape(summary.target.label)}</h3>"
        f'<p class="platform">{escape(summary.target.described)}</p>'
        f'<p><span class="badge scale-{scale}" data-verdict="{scale}">{escape(summary.scale.title)}</span>'
        f"{rank_text}</p>"
        f'<p class="effort" data-low="{summary.effort.days.low:.2f}" data-high="{summary.effort.days.high:.2f}">'
        f"{effort}</p>"
        f"{route_line}"
        f'<table class="card-files"><caption>{escape(t("{count} files scanned", count=number(files.total)))}</caption>'
        f"<tbody>{file_rows}</tbody></table>"
        f'<p class="card-findings">{findings_line}</p>'
        f"<ul>{reasons}</ul></article>"
    )


def _numbers_table(report: Report) -> str:
    names = report.target_names
    summaries = [report.summaries[n] for n in names]
    head = "".join(f'<th class="num target">{escape(report.label(n))}</th>' for n in names)
    rows: list[str] = []

    def row(label: str, cells: Sequence[tuple[float, str]], key: str, css: str = "num") -> None:
        tds = "".join(
            f'<td class="{css}" data-target="{escape(n)}" data-key="{key}" data-value="{value}">{escape(shown)}</td>'
            for n, (value, shown) in zip(names, cells, strict=True)
        )
        rows.append(f"<tr><th>{escape(label)}</th>{tds}</tr>")

    row(t("verdict"), [(int(s.scale), s.scale.words) for s in summaries], "verdict", "words")
    row(
        t("effort, person-days"),
        [(round(s.effort.days.middle, 2), days_range(s.effort.days)) for s in summaries],
        "effort",
    )
    row(t("route"), [(0, route_words(report, s)) for s in summaries], "route", "words")
    for difficulty, words in FILE_ROWS:
        row(t(words), [(s.files[difficulty], share_text(s.files[difficulty], s.files.total)) for s in summaries],
            f"files.{difficulty.label}")  # fmt: skip
    for d in DIFFICULTIES:
        row(
            t("findings {difficulty}", difficulty=difficulty_word(d)),
            [(s.findings[d], share_text(s.findings[d], s.findings.total)) for s in summaries],
            f"findings.{d.label}",
        )
    row(t("findings in all"), [(s.findings.total, number(s.findings.total)) for s in summaries], "findings.total")
    row(
        t("files that need a person"),
        [(s.files_needing_person, share_text(s.files_needing_person, s.files.total)) for s in summaries],
        "files_needing_person",
    )
    row(t("fixable by cudaport fix"), [(s.fixable, number(s.fixable)) for s in summaries], "fixable")
    return (
        '<div class="scroll"><table class="numbers" id="verdict-numbers">'
        f"<caption>{escape(t('The numbers behind the verdicts'))}"
        f"</caption><thead><tr><th></th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


def _top_dependencies(report: Report) -> str:
    top = report.dependencies[:TOP_DEPENDENCIES]
    if not top:
        return ""
    names = report.target_names
    rows = "".join(
        f'<tr data-rule="{escape(d.rule)}"><td><strong>{escape(d.family)}</strong> <small>{escape(d.rule)}</small>'
        f"</td>{_num(d.uses)}{_num(d.files)}"
        + "".join(_status_cell(d.targets[n], n, report.label(n)) for n in names)
        + "</tr>"
        for d in top
    )
    head = "".join(_plain_heading(report.label(n), "target") for n in names)
    caption = _h(
        N_(
            "The {count} most used of {total} CUDA libraries and API families, and whether each target has a "
            "counterpart (all of them under {link})."
        ),
        count=number(len(top)),
        total=number(len(report.dependencies)),
        link=f'<a href="#dependencies">{escape(t("Dependencies"))}</a>',
    )
    return (
        f'<h3>{escape(t("Top dependencies"))}</h3><div class="scroll"><table id="top-dependencies"><caption>'
        f"{caption}</caption><thead><tr>"
        f"{_plain_heading(t('library or API family'))}{_plain_heading(t('uses'), 'num')}"
        f"{_plain_heading(t('files'), 'num')}{head}</tr></thead><tbody>{rows}</tbody></table></div>"
    )


def _status_cell(availability: Availability, target: str, label: str) -> str:
    status = availability.status
    tip = t("{label}: {text}", label=label, text=availability_words(availability).replace("`", ""))
    return (
        f'<td class="status-{availability.reads}" data-target="{escape(target)}" data-status="{status}" '
        f'data-reads="{availability.reads}" title="{escape(tip)}">{escape(status_text(availability))}</td>'
    )


# ---- effort -------------------------------------------------------------------------------------------------------
def _effort_section(report: Report) -> str:
    names = report.target_names
    model = report.effort
    kinds = [k for k in model.kinds if any(report.summaries[n].effort.kinds[k.name].findings for n in names)]
    head = "".join(_plain_heading(report.label(n), "num target") for n in names)
    rows = []
    for kind in kinds:
        cells = []
        for n in names:
            total = report.summaries[n].effort.kinds[kind.name]
            if not total.findings:
                cells.append('<td class="num muted">—</td>')
                continue
            cells.append(
                f'<td class="num" data-target="{escape(n)}" data-kind="{escape(kind.name)}" '
                f'data-findings="{total.findings}">{escape(_days(total.hours, report))}'
                f"<small>{escape(tn('{count} finding', '{count} findings', total.findings))}</small></td>"
            )
        rows.append(f'<tr><th title="{escape(t(kind.about))}">{escape(t(kind.name))}</th>{"".join(cells)}</tr>')
    files_cells = "".join(
        f'<td class="num">{escape(_days(report.summaries[n].effort.file_hours, report))}'
        f"<small>{escape(t('{count} files', count=number(report.summaries[n].effort.files)))}</small></td>"
        for n in names
    )
    rows.append(f"<tr><th>{escape(t('building and testing the files'))}</th>{files_cells}</tr>")
    totals = "".join(
        f'<td class="num total" data-target="{escape(n)}"><strong>{escape(days_range(report.summaries[n].effort.days))}'
        "</strong></td>"
        for n in names
    )
    rows.append(f"<tr><th>{escape(t('total'))}</th>{totals}</tr>")
    weights = "".join(
        f'<tr><th title="{escape(t(k.about))}">{escape(t(k.name))}<small>{inline(t(k.about))}</small></th>'
        + "".join(
            f"<td>{escape(t('{hours} first', hours=_hours_text(k.costs[d].first)))}<br><small>"
            + escape(
                t(
                    "{hours} each further, per {unit}",
                    hours=_hours_text(k.costs[d].more),
                    unit=unit_name(k.costs[d].per),
                )
            )
            + "</small></td>"
            for d in WORK
        )
        + "</tr>"
        for k in kinds
    )
    file_weights = "".join(f"<td>{_hours_text(model.file_hours[d])}</td>" for d in WORK)
    overridden = ""
    if model.overridden:
        keys = ", ".join(f"<code>{escape(k)}</code>" for k in model.overridden)
        overridden = f"<p>{_h(N_('Changed by the configuration: {keys}.'), keys=keys)}</p>"
    intro = t(
        "Person-days per target, as a range. Each finding costs what its kind and difficulty say: the first use of "
        "a unit of work (a name across the project, a library in one file, or each use) in full, each further use "
        "less; every file with work adds its build and test once. A person-day is {hours} productive hours.",
        hours=f"{model.hours_per_day:g}",
    )
    assumptions = t(
        "From `rules/effort.toml`; a project changes any of them under `effort` in its configuration "
        "(`[tool.cudaport.effort]`). They are a planning aid from typical porting work, not a measurement of this "
        "team: calibrate them with the first weeks of the port."
    )
    return (
        f'<section id="effort"><h2>{escape(t("Effort"))}</h2>'
        f"<p>{escape(intro)}</p>"
        '<div class="scroll"><table class="numbers" id="effort-table">'
        f"<caption>{escape(t('Estimated person-days by kind of finding'))}</caption>"
        f"<thead><tr><th>{escape(t('kind'))}</th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
        '<details class="explain" id="effort-assumptions">'
        f"<summary>{escape(t('The assumptions: hours of one engineer'))}</summary>"
        f"<p>{inline(assumptions)}</p>"
        f"{overridden}"
        f'<div class="scroll"><table id="effort-weights"><thead><tr><th>{escape(t("kind"))}</th>'
        + "".join(f"<th>{escape(difficulty_word(d))}</th>" for d in WORK)
        + f"</tr></thead><tbody>{weights}<tr><th>{escape(t('building and testing a file, by its heaviest finding'))}"
        f"</th>{file_weights}</tr></tbody></table></div></details></section>"
    )


def _hours_text(hours: Hours) -> str:
    return t("{low}–{high} h", low=f"{hours.low:g}", high=f"{hours.high:g}")


# ---- routes -------------------------------------------------------------------------------------------------------
def _routes_section(report: Report) -> str:
    definitions = "".join(
        f'<dt id="route-{route.id}">{escape(route.title)}</dt><dd>'
        + (
            _h(
                N_("{about}; written by {command}"),
                about=inline(route.shown_about),
                command=f"<code>{escape(route.fix)}</code>",
            )
            if route.fix
            else inline(route.shown_about)
        )
        + "</dd>"
        for route in report.routes.values()
    )
    parts = []
    for name in report.target_names:
        summary = report.summaries[name]
        plan = summary.plan
        label = summary.target.label
        if not any(share.files for share in plan.shares.values()):
            parts.append(f'<h3 id="routes-{escape(name)}">{escape(label)}</h3><p>{escape(t("Nothing to port."))}</p>')
            continue
        route = report.routes[plan.recommended]
        rows = []
        for route_id, share in plan.shares.items():
            notes = []
            if route_id == "B" and share.files:
                notes.append(escape(t("rewritten in {language}", language=report.routes["B"].language(name))))
            if route_id == "C" and share.files:
                if report.routes["C"].fix:
                    notes.append(f"<code>{escape(report.routes['C'].fix)}</code>")
                if share.dual_stack_files:
                    notes.append(escape(dual_stack_note(share.dual_stack_files, label)))
                if share.coverage is not None:
                    notes.append(
                        escape(
                            t(
                                "the dual-stack fix covers {covered} of their findings; {remaining} remain for a "
                                "person",
                                covered=number(share.coverage.covered),
                                remaining=number(share.coverage.remaining),
                            )
                        )
                    )
            count = escape(t("{count} files", count=number(len(share.files))))
            button = (
                f'<button type="button" class="expand" data-expand="route:{escape(name)}:{route_id}" '
                f'aria-expanded="false">{count}</button>'
                if share.files
                else count
            )
            rows.append(
                f'<tr data-route="{route_id}"><th>{route_id}: {escape(report.routes[route_id].shown_name)}</th>'
                f"<td>{button}</td>{_num(round(share.hours.middle, 2), _days(share.hours, report))}"
                f"<td>{clauses(notes)}</td></tr>"
            )
        heading = t("{label}: route {id}, {name}", label=label, id=route.id, name=route.shown_name)
        parts.append(
            f'<h3 id="routes-{escape(name)}">{escape(heading)}</h3>'
            f'<p class="why" data-target="{escape(name)}" data-route="{route.id}">'
            f"{inline(t('{why}.', why=plan.why))}</p>"
            f'<div class="scroll"><table class="routes" data-target="{escape(name)}"><thead><tr>'
            f"<th>{escape(t('route'))}</th><th>{escape(t('files'))}</th>"
            f'<th class="num">{escape(t("person-days"))}</th><th>{escape(t("notes"))}</th></tr></thead>'
            f"<tbody>{''.join(rows)}</tbody></table></div>"
        )
    intro = t(
        "The migration routes; each file with work on a target falls under one of them. The recommendation follows "
        "where the estimated effort is."
    )
    return (
        f'<section id="routes"><h2>{escape(t("Routes"))}</h2><p>{escape(intro)}</p><dl class="scale-list">'
        f"{definitions}</dl>{''.join(parts)}</section>"
    )


# ---- operator coverage ----------------------------------------------------------------------------------------------
def _operators_shown(report: Report) -> bool:
    return worth_showing(report.operators, sum(report.languages[k] for k in PYTHON_LANGUAGES))


def _operators_section(report: Report) -> str:
    """Per target with a PyTorch plugin, the APIs it has no kernel for that the project calls, each opening to its
    files and lines (the work list's); a target whose PyTorch is built from CUDA's kernels in a line."""
    if not _operators_shown(report):
        return ""
    parts = []
    for entry in report.operators:
        name = escape(entry.target)
        if entry.builtin:
            line = inline(t("{text}.", text=summary_text(entry)))
            parts.append(f'<p class="operators-builtin" data-target="{name}">{line}</p>')
            continue
        summary = inline(t("{text}.", text=summary_text(entry)))
        if entry.apis:
            summary = sentences(summary, escape(effort_text(_days(entry.hours, report), entry.apis)))
        parts.append(
            f'<h3 id="operators-{name}">{escape(entry.label)}</h3>'
            f'<p class="operators-summary" data-target="{name}" data-apis="{entry.apis}" data-calls="{entry.calls}">'
            f"{summary}</p>"
        )
        if not entry.gaps:
            continue
        rows = []
        for gap in entry.gaps:
            api = f"<code>{escape(gap.api)}</code>"
            if gap.work >= 0:
                api = (
                    f'<button type="button" class="expand" data-expand="work:{gap.work}" aria-expanded="false">'
                    f"{api}</button>"
                )
            operators = ", ".join(f"<code>aten::{escape(op)}</code>" for op in gap.operators)
            rows.append(
                f'<tr data-api="{escape(gap.api)}" data-happens="{entry.happens(gap)}">'
                f'<td class="name" data-value="{escape(gap.api)}">{api}</td><td>{operators}</td>'
                f"{_num(gap.calls)}{_num(gap.files)}<td>{inline(happens_text(entry, gap))}</td></tr>"
            )
        caption = t(
            "The PyTorch APIs {plugin} has no kernel for that the project calls, most called first. Open one for its "
            "files, and a file for its lines. Click a heading to sort.",
            plugin=entry.plugin,
        )
        parts.append(
            f'<div class="scroll"><table class="sortable operators" data-target="{name}"><caption>{escape(caption)}'
            f"</caption><thead><tr>{_heading(0, t('PyTorch API'), 'text')}{_plain_heading(t('ATen operators'))}"
            f"{_heading(2, t('calls'), 'number', 'num')}{_heading(3, t('files'), 'number', 'num')}"
            f"{_plain_heading(t('what happens'))}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
        )
    return (
        f'<section id="operators"><h2>{escape(t("Operator coverage"))}</h2><p>{escape(t(OPERATORS_INTRO))}</p>'
        f"{''.join(parts)}</section>"
    )


# ---- where the work is ----------------------------------------------------------------------------------------------
def _work_section(report: Report) -> str:
    names = report.target_names
    shown = focus(report.folders, TOP_DIRECTORIES)
    chart = ""
    if shown:
        labels = _relative(report.folders, shown)
        groups = [
            Group(f.path or ".", [Bar(report.label(n), f.findings[n], {"target": n}) for n in names], label)
            for f, label in zip(shown, labels, strict=True)
        ]
        svg = stacked_bars("chart-folders", t("Findings per folder"), groups)
        caption = t(
            "Findings per folder by difficulty, heaviest first: the top-level folders, the one that holds most of "
            "the work opened into its own."
        )
        chart = f"<figure>{svg}<figcaption>{escape(caption)}</figcaption></figure>"
    touched = [f for f in report.files if any(f.findings[n].total for n in names)]
    untouched = report.files_scanned - len(touched)
    return (
        f'<section id="work"><h2>{escape(t("Where the work is"))}</h2>'
        f"{chart}<h3>{escape(t('By folder'))}</h3>{_folder_table(report)}"
        f"<h3>{escape(t('By API'))}</h3>{_work_table(report)}"
        f"<h3>{escape(t('By file'))}</h3>{_files_table(report, touched, untouched)}"
        "</section>"
    )


def _relative(root: Folder, folders: list[Folder]) -> list[str]:
    """Chart labels: the folders' paths below the common root (the tables keep the paths as `check` prints them)."""
    prefix = root.path + "/" if root.path else ""
    return [f.path[len(prefix) :] if prefix and f.path.startswith(prefix) else (f.path or ".") for f in folders]


def _folder_row(report: Report, folder: Folder, depth: int) -> str:
    names = report.target_names
    name = folder.path or "."
    shown = name if depth == 0 else folder.name
    opened = "true" if depth == 0 else "false"  # the root comes with its folders shown
    toggle = (
        f'<button type="button" class="expand" data-expand="folder:{escape(folder.path)}" '
        f'aria-expanded="{opened}" title="{escape(t("show its folders"))}">{escape(shown)}</button>'
        if folder.children
        else f"<span>{escape(shown)}</span>"
    )
    tallies = "".join(
        _tally_cell(folder.findings[n], report.label(n), n, t("{days} d", days=_days(folder.effort[n], report)))
        for n in names
    )
    return (
        f'<tr data-folder="{escape(folder.path)}" data-depth="{depth}"><td class="path depth-{min(depth, 8)}" '
        f'title="{escape(name)}">{toggle}</td>{_num(folder.files)}{_num(folder.lines)}{tallies}</tr>'
    )


def _folder_table(report: Report) -> str:
    root = report.folders
    rows = [_folder_row(report, root, 0)] + [_folder_row(report, child, 1) for child in root.children]
    tally_head = "".join(_plain_heading(report.label(n), "num target") for n in report.target_names)
    caption = t(
        "Every folder with the totals of everything below it: findings per target (blocker · manual · mechanical; "
        "portable in the tooltip) and, below them, the estimated person-days. Open a folder to see its own."
    )
    return (
        f'<div class="scroll"><table id="folders" class="tree"><caption>{escape(caption)}</caption><thead>'
        f"<tr>{_plain_heading(t('folder'))}{_plain_heading(t('files'), 'num')}{_plain_heading(t('lines'), 'num')}"
        f"{tally_head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


def _work_row(report: Report, index: int, group: WorkGroup) -> str:
    names = report.target_names
    if group.pattern or group.declarations:
        title = f'<span class="construct">{inline(group.title)}</span>'
    else:
        title = f"<code>{escape(group.title)}</code>"
    about = f"{escape(group.family)} · {escape(group.rule)}"
    if group.declarations:
        about += f" · {inline(names_text(group))}"
    cells = "".join(_availability_cell(group.targets[n], n, report.label(n)) for n in names)
    grouped = f' data-names="{group.names}"' if group.declarations else ""
    return (
        f'<tr data-work="{index}"{grouped}><td class="name" data-value="{escape(group.title)}">'
        f'<button type="button" class="expand" data-expand="work:{index}" aria-expanded="false">{title}</button>'
        f"<small>{about}</small></td>"
        f"{_num(group.uses)}{_num(group.files)}{cells}</tr>"
    )


def _work_table(report: Report) -> str:
    work = report.work
    if not work:
        return f"<p>{escape(t('Nothing to port: every finding is portable on every target.'))}</p>"
    rows = "".join(_work_row(report, i, g) for i, g in enumerate(work[:TOP_ROWS]))
    more = _show_all("work", len(work), TOP_ROWS, t("Show all {count} APIs and constructs", count=number(len(work))))
    caption = t(
        "Every CUDA API and construct with work on some target, heaviest first: its uses, and on each target the "
        "heaviest difficulty and the counterpart. Open one for its files, and a file for its lines. Click a heading "
        "to sort."
    )
    return (
        f'<div class="scroll"><table class="sortable" id="work-apis"><caption>{escape(caption)}</caption><thead><tr>'
        f"{_heading(0, t('API or construct'), 'text')}{_heading(1, t('uses'), 'number', 'num')}"
        f"{_heading(2, t('files'), 'number', 'num')}{_target_headings(report, 3)}</tr></thead>"
        f"<tbody>{rows}</tbody></table></div>{more}"
    )


def _show_all(kind: str, total: int, shown: int, label: str) -> str:
    """The button that shows the rest of a list; `label` says what it shows ('Show all 120 CUDA names')."""
    if total <= shown:
        return ""
    return (
        f'<p class="more"><button type="button" class="show-all" data-show-all="{kind}">{escape(label)}</button> '
        f"{escape(t('({count} more)', count=number(total - shown)))}</p>"
    )


def _file_row(report: Report, row: FileRow) -> str:
    names = report.target_names
    tallies = "".join(
        _tally_cell(row.findings[n], report.label(n), n, t("route {id}", id=row.route[n]) if row.route[n] else "")
        for n in names
    )
    return (
        f'<tr data-file="{row.stored}"><td class="path" data-value="{escape(row.path)}">'
        f'<button type="button" class="expand" data-expand="file:{row.stored}" aria-expanded="false">'
        f"{escape(row.path)}</button></td>{_num(row.lines)}{tallies}</tr>"
    )


def _files_table(report: Report, touched: list[FileRow], untouched: int) -> str:
    rows = "".join(_file_row(report, f) for f in touched[:TOP_FILES])
    more = _show_all(
        "files", len(touched), TOP_FILES, t("Show all {count} files with findings", count=number(len(touched)))
    )
    caption = tn(
        "Files with findings, heaviest first (blocker · manual · mechanical per target, and the route the file "
        "takes there); {count} more file have none. Open a file for its lines. Click a heading to sort.",
        "Files with findings, heaviest first (blocker · manual · mechanical per target, and the route the file "
        "takes there); {count} more files have none. Open a file for its lines. Click a heading to sort.",
        untouched,
    )
    return (
        f'<div class="scroll"><table class="sortable" id="files"><caption>{escape(caption)}'
        f"</caption><thead><tr>{_heading(0, t('file'), 'text')}{_heading(1, t('lines'), 'number', 'num')}"
        f"{_target_headings(report, 2)}</tr></thead><tbody>{rows}</tbody></table></div>{more}"
    )


# ---- dependencies -------------------------------------------------------------------------------------------------
def _dependency_section(report: Report) -> str:
    names = report.target_names
    tables = []
    for area in report.areas:
        rows = []
        for dep in area.dependencies:
            used = ", ".join(f"<code>{escape(name)}</code> {number(count)}" for name, count in dep.apis.most_common(5))
            if len(dep.apis) > 5:
                used = _h(N_("{names} (+{count} more)"), names=used, count=number(len(dep.apis) - 5))
            cells = "".join(_availability_words_cell(dep.targets[n], n) for n in names)
            rows.append(
                f'<tr data-rule="{escape(dep.rule)}"><td data-value="{escape(dep.family)}">'
                f"<strong>{escape(dep.family)}</strong> <small>{escape(dep.rule)}</small><br>"
                f"<small>{inline(dep.summary)}</small></td>{_num(dep.uses)}{_num(dep.files)}"
                f"<td>{used}</td>{cells}</tr>"
            )
        head = "".join(_heading(4 + i, report.label(n), "text", "target") for i, n in enumerate(names))
        shown = t(area.name)
        caption = t("{about}: most used first, and what each target offers. Click a heading to sort.", about=area.about)
        tables.append(
            f'<h3 id="area-{_slug(area.name)}">{escape(shown[:1].upper() + shown[1:])}</h3>'
            f'<div class="scroll"><table class="sortable deps" data-area="{escape(area.name)}"><caption>'
            f"{escape(caption)}</caption><thead><tr>"
            f"{_heading(0, t('library or API family'), 'text')}{_heading(1, t('uses'), 'number', 'num')}"
            f"{_heading(2, t('files'), 'number', 'num')}{_heading(3, t('names and constructs used'), 'text')}"
            f"{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
        )
    apis = report.api_names()
    top = apis[:TOP_APIS]
    chart = ""
    if top:
        groups = [
            Group(a.symbol, [Bar(report.label(n), a.targets[n].uses, {"target": n}, "uses") for n in names])
            for a in top
        ]
        caption = t(
            "The {count} most used of {total} CUDA names, by difficulty on each target.",
            count=number(len(top)),
            total=number(len(apis)),
        )
        chart = (
            f"<figure>{stacked_bars('chart-apis', t('Most used CUDA APIs'), groups)}"
            f"<figcaption>{escape(caption)}</figcaption></figure>"
        )
    return (
        f'<section id="dependencies"><h2>{escape(t("What the code depends on"))}</h2>'
        f"{_area_table(report)}{''.join(tables)}<h3>{escape(t('Most used APIs'))}</h3>{chart}"
        f"{_api_table(report, apis)}</section>"
    )


def _availability_words_cell(availability: Availability, target: str) -> str:
    status = availability.status
    return (
        f'<td class="status-{availability.reads}" data-target="{escape(target)}" data-status="{status}" '
        f'data-reads="{availability.reads}" data-value="{status}">{inline(availability_words(availability))}</td>'
    )


def _area_table(report: Report) -> str:
    """The inventory by area, as the migration guides take it: where the work is before what it is."""
    names = report.target_names
    rows = []
    for area in report.areas:
        cells = "".join(_tally_cell(area.targets[n], report.label(n), n) for n in names)
        rows.append(
            f'<tr data-area="{escape(area.name)}"><td data-value="{escape(area.name)}">'
            f'<a href="#area-{_slug(area.name)}">{escape(t(area.name))}</a><br><small>{escape(area.about)}</small>'
            f"</td>{_num(area.uses)}{_num(area.files)}{cells}</tr>"
        )
    caption = t(
        "The inventory by area: uses, files, and findings per target (blocker · manual · mechanical; portable in the "
        "tooltip)."
    )
    return (
        f'<div class="scroll"><table class="sortable" id="areas-table"><caption>{escape(caption)}</caption><thead><tr>'
        f"{_heading(0, t('area'), 'text')}{_heading(1, t('uses'), 'number', 'num')}"
        f"{_heading(2, t('files'), 'number', 'num')}"
        f"{_target_headings(report, 3)}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def _api_row(report: Report, api: ApiUse) -> str:
    cells = "".join(_availability_cell(api.targets[n], n, report.label(n)) for n in report.target_names)
    return (
        f'<tr><td class="name" data-value="{escape(api.symbol)}"><code>{escape(api.symbol)}</code></td>'
        f'<td class="family">{escape(api.family)} <small>{escape(api.rule)}</small></td>'
        f"{_num(api.uses)}{_num(api.files)}{cells}</tr>"
    )


def _api_table(report: Report, apis: list[ApiUse]) -> str:
    rows = "".join(_api_row(report, a) for a in apis[:TOP_ROWS])
    caption = t(
        "The CUDA names found, most used first, with the heaviest difficulty and the counterpart on each target."
    )
    return (
        f'<div class="scroll"><table class="sortable" id="apis-table"><caption>{escape(caption)}</caption><thead><tr>'
        f"{_heading(0, t('name'), 'text')}{_heading(1, t('family'), 'text')}"
        f"{_heading(2, t('uses'), 'number', 'num')}{_heading(3, t('files'), 'number', 'num')}"
        f"{_target_headings(report, 4)}</tr></thead><tbody>{rows}</tbody></table></div>"
        f"{_show_all('apis', len(apis), TOP_ROWS, t('Show all {count} CUDA names', count=number(len(apis))))}"
    )


# ---- verification -------------------------------------------------------------------------------------------------
def _excluded_note(report: Report) -> str:
    count = len(report.excluded)
    if not count:
        return ""
    return tn("; {count} directory with sources excluded", "; {count} directories with sources excluded", count)


def _verification_section(report: Report) -> str:
    applying = [c for c in report.checks if c.applies]
    items = "".join(_check_item(report, c) for c in applying)
    rest = [c for c in report.checks if not c.applies]
    skipped = ""
    if rest:
        listed = _h(
            N_("Not indicated by what was found (add them if the code does this anyway): {checks}."),
            checks=", ".join(escape(c.spec.title) for c in rest),
        )
        skipped = f'<p class="note">{listed}</p>'
    intro = t("After porting, run these checks against the CUDA build; they follow from what this code uses.")
    if not applying:
        intro = t("No CUDA dependency was found, so there is nothing to compare against a CUDA run.")
    return (
        f'<section id="verify"><h2>{escape(t("What to verify after porting"))}</h2><p>{escape(intro)}</p>'
        f'<ul class="checklist">{items}</ul>{skipped}</section>'
    )


def _check_item(report: Report, check: CheckItem) -> str:
    spec = check.spec
    threshold = f'<span class="threshold">{inline(spec.threshold)}</span>' if spec.threshold else ""
    found = ""
    if check.triggers:
        triggers = "; ".join(
            f"{escape(trigger.rule)} ("
            + ", ".join(f"<code>{escape(n)}</code>" for n in trigger.names[:4])
            + (" …" if len(trigger.names) > 4 else "")
            + ")"
            for trigger in check.triggers
        )
        found = _h(N_(" Found: {triggers}"), triggers=triggers)
    details = "".join(
        f"<p><strong>{escape(t('{label}:', label=report.label(target)))}</strong> {inline(text)}</p>"
        for target, text in check.details.items()
    )
    box = f"check-{escape(spec.id)}"
    return (
        f'<li data-check="{escape(spec.id)}"><input type="checkbox" id="{box}"> '
        f'<label for="{box}">{escape(spec.title)}</label>'
        f'{threshold}<p>{inline(spec.check)}</p><p class="note">{inline(spec.why)}{found}</p>{details}</li>'
    )


# ---- details ------------------------------------------------------------------------------------------------------
TOP_PROBLEMS = 100


def _details_section(report: Report) -> str:
    settings = report.settings
    config = f"<code>{escape(str(settings.config_path))}</code>" if settings.config_path else escape(t("defaults"))
    items = [
        f"<li>{_h(N_('configuration: {file}'), file=config)}</li>",
        f"<li>{_h(N_('rules selected: {codes}'), codes=_codes(settings.select))}</li>",
    ]
    if settings.ignore:
        items.append(f"<li>{_h(N_('rules ignored: {codes}'), codes=_codes(settings.ignore))}</li>")
    excluded = _codes(settings.all_excludes) or escape(t("nothing"))
    items.append(f"<li>{_h(N_('excluded: {globs}'), globs=excluded)}</li>")
    problems = ""
    for title, listed, with_target in (
        (N_("Directories with sources that were excluded"), report.excluded, False),
        (N_("Skipped"), report.skipped, False),
        (N_("Errors"), report.errors, True),
    ):
        if not listed:
            continue
        entries = "".join(
            "<li>"
            + _h(
                N_("{path}: {reason}"),
                path=f"<code>{escape(p.path)}</code>"
                + (f" ({escape(report.label(p.target))})" if with_target and p.target else ""),
                reason=escape(p.reason),
            )
            + "</li>"
            for p in listed[:TOP_PROBLEMS]
        )
        if len(listed) > TOP_PROBLEMS:
            more = t("…and {count} more (the JSON report lists them all)", count=number(len(listed) - TOP_PROBLEMS))
            entries += f"<li>{escape(more)}</li>"
        problems += f"<h3>{escape(t(title))} ({number(len(listed))})</h3><ul>{entries}</ul>"
    return f'<section id="details"><h2>{escape(t("Scan details"))}</h2><ul>{"".join(items)}</ul>{problems}</section>'


def _codes(values: Sequence[str]) -> str:
    return ", ".join(f"<code>{escape(value)}</code>" for value in values)
