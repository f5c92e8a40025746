"""The report as one self-contained HTML page: inline CSS, inline SVG charts, a few lines of inline script for
sorting tables. No network access of any kind (a Content-Security-Policy forbids it), so it opens offline and
prints well. Every text that comes from the code base is escaped."""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Sequence
from functools import cache
from html import escape
from importlib import resources
from pathlib import PurePosixPath

from ..models import Difficulty
from .checklist import CheckItem
from .model import Availability, Report, TargetSummary, WorkItem
from .phrases import (
    DIFFICULTY_MEANINGS,
    TALLY_ORDER,
    TOP_APIS,
    TOP_DIRECTORIES,
    availability_words,
    cheapest_sentence,
    languages_text,
    share_text,
    tally_text,
)
from .svg import Bar, Group, stacked_bars
from .tally import DIFFICULTIES, Tally
from .verdict import RANKING_RULE, scale_meanings

_CODE_SPAN = re.compile(r"`([^`]+)`")
_HEAVIEST_FIRST = tuple(reversed(DIFFICULTIES))
# Columns per target in the directory and file tables: (heading, title, difficulties counted). From four targets
# on, four columns each would not fit an A4 page: what needs a person, and what `fix` does, remain.
_FULL_GROUPS = tuple((d.label, d.label, (d,)) for d in _HEAVIEST_FIRST)
_COMPACT_FROM = 4
_COMPACT_GROUPS = (
    ("person", "blocker and manual", (Difficulty.BLOCKER, Difficulty.MANUAL)),
    ("mech.", "mechanical", (Difficulty.MECHANICAL,)),
)
_SHORT = {
    Difficulty.BLOCKER: "block.",
    Difficulty.MANUAL: "man.",
    Difficulty.MECHANICAL: "mech.",
    Difficulty.PORTABLE: "port.",
}


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


def render_html(report: Report) -> str:
    css = _asset("report.css")
    script = _asset("report.js")
    policy = (
        f"default-src 'none'; style-src {_hash(css)}; script-src {_hash(script)}; img-src data:; "
        "base-uri 'none'; form-action 'none'"
    )
    title = "CUDA migration assessment — " + ", ".join(report.paths)
    body = "".join(
        [
            _header(report),
            "<main>",
            _verdict_section(report),
            _work_section(report),
            _dependency_section(report),
            _verification_section(report),
            _details_section(report),
            "</main>",
        ]
    )
    return (
        "<!DOCTYPE html>\n"
        '<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        '<meta name="viewport" content="width=device-width, initial-scale=1">\n'
        f'<meta http-equiv="Content-Security-Policy" content="{escape(policy)}">\n'
        f'<meta name="generator" content="cudaport {escape(report.tool_version)}">\n'
        f"<title>{escape(title)}</title>\n<style>{css}</style>\n</head>\n<body>\n"
        f"{body}\n<script>{script}</script>\n</body>\n</html>\n"
    )


def _num(value: int) -> str:
    return f'<td class="num" data-value="{value}">{value}</td>'


def _heading(column: int, label: str, kind: str, css: str = "", title: str = "") -> str:
    """A sortable column heading (the script sorts by `data-col`; numbers heaviest first)."""
    klass = f' class="{css}"' if css else ""
    tip = f' title="{escape(title)}"' if title else ""
    return f'<th{klass}{tip} data-col="{column}" data-type="{kind}"><button type="button">{escape(label)}</button></th>'


# ---- header -------------------------------------------------------------------------------------------------------
def _header(report: Report) -> str:
    targets = ", ".join(
        f"<strong>{escape(t.label)}</strong>" + (f" ({escape(t.described)})" if t.described else "")
        for t in report.targets
    )
    paths = ", ".join(f"<code>{escape(p)}</code>" for p in report.paths)
    return (
        "<header>"
        "<h1>CUDA migration assessment</h1>"
        f'<p class="meta">{paths} · generated {escape(report.generated)} by cudaport {escape(report.tool_version)}</p>'
        f"<p>Targets: {targets}. Scanned <strong>{report.files_scanned}</strong> files, "
        f"{report.lines_scanned} lines ({escape(languages_text(report))}); {len(report.skipped)} skipped, "
        f"{len(report.errors)} with errors{_excluded_note(report)}.</p>"
        '<nav><ul><li><a href="#verdict">Verdict</a></li><li><a href="#work">Where the work is</a></li>'
        '<li><a href="#dependencies">Dependencies</a></li><li><a href="#verify">What to verify</a></li>'
        '<li><a href="#details">Scan details</a></li></ul></nav>'
        "</header>"
    )


# ---- verdict ------------------------------------------------------------------------------------------------------
def _verdict_section(report: Report) -> str:
    cards = "".join(_card(report, report.summaries[name]) for name in report.target_names)
    groups = [
        Group(
            s.target.label,
            [
                Bar("findings", s.findings, {"target": s.target.name, "measure": "findings"}, "findings"),
                Bar("files", s.files, {"target": s.target.name, "measure": "files"}, "files"),
            ],
        )
        for s in (report.summaries[name] for name in report.target_names)
    ]
    chart = stacked_bars("chart-targets", "Difficulty per target: shares of findings and of files", groups, share=True)
    scale = "".join(f"<dt>{escape(s.title)}</dt><dd>{inline(meaning)}</dd>" for s, meaning in scale_meanings().items())
    meanings = "".join(
        f'<dt><span class="dot d-{d.label}"></span>{d.label}</dt><dd>{inline(DIFFICULTY_MEANINGS[d])}</dd>'
        for d in DIFFICULTIES
    )
    return (
        '<section id="verdict"><h2>Verdict</h2>'
        f'<p class="cheapest">{escape(cheapest_sentence(report))}</p>'
        f'<div class="cards">{cards}</div>'
        f"<figure>{chart}<figcaption>Share of findings and of files per difficulty for each target "
        "(a file counts under its heaviest finding; a file without findings counts as portable).</figcaption></figure>"
        f"{_numbers_table(report)}"
        '<h3>The scale</h3><dl class="scale-list">'
        f"{scale}<dt>Ranking of targets</dt><dd>{escape(RANKING_RULE)}</dd></dl>"
        f'<h3>Difficulties</h3><dl class="scale-list">{meanings}</dl>'
        "</section>"
    )


def _card(report: Report, summary: TargetSummary) -> str:
    files, findings = summary.files, summary.findings
    rank = report.ranking.index(summary.target.name) + 1
    rank_text = f'<span class="rank">#{rank} of {len(report.targets)}</span>' if len(report.targets) > 1 else ""
    rows = [
        ("files unchanged (portable)", share_text(files[Difficulty.PORTABLE], files.total)),
        ("files with safe rewrites only", share_text(files[Difficulty.MECHANICAL], files.total)),
        ("files that need a person", share_text(summary.files_needing_person, files.total)),
        ("files with a blocker", share_text(summary.files_with_blockers, files.total)),
        ("findings", str(findings.total)),
        *((f"findings {d.label}", share_text(findings[d], findings.total)) for d in _HEAVIEST_FIRST),
        ("fixable by cudaport fix", str(summary.fixable)),
    ]
    details = "".join(f"<dt>{escape(k)}</dt><dd>{escape(v)}</dd>" for k, v in rows)
    reasons = "".join(f"<li>{inline(r)}</li>" for r in summary.reasons)
    scale = summary.scale.id
    return (
        f'<article class="card scale-{scale}" data-target="{escape(summary.target.name)}">'
        f"<h3>{escape(summary.target.label)}</h3>"
        f'<p class="platform">{escape(summary.target.described)}</p>'
        f'<p><span class="badge scale-{scale}" data-verdict="{scale}">{escape(summary.scale.title)}</span>'
        f"{rank_text}</p>"
        f"<dl>{details}</dl><ul>{reasons}</ul></article>"
    )


def _numbers_table(report: Report) -> str:
    names = report.target_names
    summaries = [report.summaries[n] for n in names]
    head = "".join(f'<th class="num">{escape(report.label(n))}</th>' for n in names)
    rows: list[str] = []

    def row(label: str, cells: Sequence[tuple[int, str]], key: str) -> None:
        tds = "".join(
            f'<td class="num" data-target="{escape(n)}" data-key="{key}" data-value="{value}">{escape(shown)}</td>'
            for n, (value, shown) in zip(names, cells, strict=True)
        )
        rows.append(f"<tr><th>{escape(label)}</th>{tds}</tr>")

    row("verdict", [(int(s.scale), s.scale.title.lower()) for s in summaries], "verdict")
    for d in DIFFICULTIES:
        row(
            f"files {d.label}",
            [(s.files[d], share_text(s.files[d], s.files.total)) for s in summaries],
            f"files.{d.label}",
        )
    for d in DIFFICULTIES:
        row(
            f"findings {d.label}",
            [(s.findings[d], share_text(s.findings[d], s.findings.total)) for s in summaries],
            f"findings.{d.label}",
        )
    row("findings in all", [(s.findings.total, str(s.findings.total)) for s in summaries], "findings.total")
    row(
        "files that need a person",
        [(s.files_needing_person, share_text(s.files_needing_person, s.files.total)) for s in summaries],
        "files_needing_person",
    )
    row("fixable by cudaport fix", [(s.fixable, str(s.fixable)) for s in summaries], "fixable")
    return (
        '<div class="scroll"><table class="numbers" id="verdict-numbers"><caption>The numbers behind the verdict'
        f"</caption><thead><tr><th></th>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


# ---- where the work is ----------------------------------------------------------------------------------------------
def _work_section(report: Report) -> str:
    names = report.target_names
    heavy = [d for d in report.directories if any(d.findings[n].total for n in names)][:TOP_DIRECTORIES]
    chart = ""
    if heavy:
        labels = _without_common_folder([d.path for d in heavy])
        groups = [
            Group(d.path, [Bar(report.label(n), d.findings[n], {"target": n}) for n in names], label)
            for d, label in zip(heavy, labels, strict=True)
        ]
        more = len([d for d in report.directories if any(d.findings[n].total for n in names)]) - len(heavy)
        caption = f"Findings per directory by difficulty, heaviest first (top {len(heavy)}"
        caption += f"; {more} more in the table)." if more > 0 else ")."
        svg = stacked_bars("chart-directories", "Findings per directory", groups)
        chart = f"<figure>{svg}<figcaption>{escape(caption)}</figcaption></figure>"
    parts = ['<section id="work"><h2>Where the work is</h2>', chart]
    parts.append("<h3>By directory</h3>")
    parts.append(
        _tally_table(
            "directories",
            "Directories, heaviest first (blockers, then manual, mechanical, portable over all targets). "
            "Click a heading to sort.",
            [("directory", "text"), ("files", "number"), ("lines", "number")],
            [
                ([(d.path, None, "path"), (str(d.files), d.files, "num"), (str(d.lines), d.lines, "num")], d.findings)
                for d in report.directories
            ],
            report,
        )
    )
    touched = [f for f in report.files if any(f.findings[n].total for n in names)]
    untouched = report.files_scanned - len(touched)
    parts.append("<h3>By file</h3>")
    parts.append(
        _tally_table(
            "files",
            f"Files with findings, heaviest first; {untouched} more file{'s' if untouched != 1 else ''} "
            "have none. Click a heading to sort.",
            [("file", "text"), ("lines", "number")],
            [([(f.path, None, "path"), (str(f.lines), f.lines, "num")], f.findings) for f in touched],
            report,
        )
    )
    for name in names:
        parts.append(_work_table(report, name, report.work[name]))
    parts.append("</section>")
    return "".join(parts)


_WORK_COLUMNS = (
    '<colgroup><col class="w-location"><col class="w-difficulty"><col class="w-rule"><col class="w-family">'
    '<col class="w-name"><col class="w-why"></colgroup>'
)


def _without_common_folder(paths: list[str]) -> list[str]:
    """Chart labels: the paths without the folders they all share (the tables keep the paths as `check` prints
    them)."""
    parts = [PurePosixPath(p).parts for p in paths]
    shared = 0
    while parts and all(len(p) > shared + 1 and p[shared] == parts[0][shared] for p in parts):
        shared += 1
    return [str(PurePosixPath(*p[shared:])) if shared else path for p, path in zip(parts, paths, strict=True)]


Cell = tuple[str, int | None, str]  # shown text, sort value, css class


def _tally_table(
    table_id: str,
    caption: str,
    leading: list[tuple[str, str]],
    rows: list[tuple[list[Cell], dict[str, Tally]]],
    report: Report,
) -> str:
    names = report.target_names
    many = len(names) > 1
    groups = _COMPACT_GROUPS if len(names) >= _COMPACT_FROM else _FULL_GROUPS
    top = ""
    if many:
        top = (
            '<tr class="targets">'
            + "".join("<th></th>" for _ in leading)
            + "".join(f'<th colspan="{len(groups)}">{escape(report.label(n))}</th>' for n in names)
            + "</tr>"
        )
    headings: list[str] = []
    column = 0
    for label, kind in leading:
        headings.append(_heading(column, label, kind, "num" if kind == "number" else ""))
        column += 1
    short = len(names) >= 3  # side by side, full words would not fit an A4 page
    if groups is _COMPACT_GROUPS:
        caption += " Per target: findings that need a person (blocker and manual), and mechanical ones."
    for _name in names:
        for label, title, _levels in groups:
            shown = (_SHORT[_levels[0]] if short else label) if len(_levels) == 1 else label
            headings.append(_heading(column, shown, "number", "num", title=title if short else ""))
            column += 1
    body: list[str] = []
    for cells, tallies in rows:
        tds = [
            f'<td class="{css}"' + (f' data-value="{value}"' if value is not None else "") + f">{escape(text)}</td>"
            for text, value, css in cells
        ]
        for name in names:
            for label, _title, levels in groups:
                count = sum(tallies[name][level] for level in levels)
                zero = " zero" if count == 0 else ""
                tds.append(
                    f'<td class="num{zero}" data-target="{escape(name)}" data-difficulty="{label}" '
                    f'data-value="{count}">{count}</td>'
                )
        body.append("<tr>" + "".join(tds) + "</tr>")
    return (
        f'<div class="scroll"><table class="sortable{" many" if groups is _COMPACT_GROUPS else ""}" '
        f'id="{table_id}"><caption>{escape(caption)}</caption>'
        f"<thead>{top}<tr>{''.join(headings)}</tr></thead><tbody>{''.join(body)}</tbody></table></div>"
    )


def _work_table(report: Report, target: str, items: list[WorkItem]) -> str:
    label = report.label(target)
    heading = f'<h3 id="work-{escape(target)}">Blocker and manual findings for {escape(label)} ({len(items)})</h3>'
    if not items:
        return heading + "<p>None: nothing on this target needs a person.</p>"
    rows = "".join(
        "<tr>"
        f'<td class="path" data-value="{escape(w.path)}:{w.line:09d}:{w.column:06d}">'
        f"<code>{escape(w.path)}:{w.line}:{w.column}</code></td>"
        f'<td class="d-{w.difficulty.label}" data-value="{int(w.difficulty)}">{w.difficulty.label}</td>'
        f"<td>{escape(w.rule)}</td><td>{escape(w.family)}</td><td><code>{escape(w.symbol)}</code></td>"
        f'<td class="why">{inline(w.message)}</td>'
        "</tr>"
        for w in items
    )
    headings = "".join(
        _heading(i, name, kind)
        for i, (name, kind) in enumerate(
            [
                ("location", "text"),
                ("difficulty", "number"),
                ("rule", "text"),
                ("family", "text"),
                ("name", "text"),
                ("why", "text"),
            ]
        )
    )
    return (
        f'{heading}<div class="scroll"><table class="sortable work" id="work-table-{escape(target)}" '
        f'data-target="{escape(target)}"><caption>Every finding on {escape(label)} that a person must handle, blockers '
        f"first.</caption>{_WORK_COLUMNS}<thead><tr>{headings}</tr></thead><tbody>{rows}</tbody></table></div>"
    )


# ---- dependencies -------------------------------------------------------------------------------------------------
def _dependency_section(report: Report) -> str:
    names = report.target_names
    head = "".join(_heading(4 + i, f"{report.label(n)} counterpart", "text") for i, n in enumerate(names))
    tables = []
    for area in report.areas:
        rows = []
        for dep in area.dependencies:
            apis = ", ".join(f"<code>{escape(name)}</code> {count}" for name, count in dep.apis.most_common(5))
            if len(dep.apis) > 5:
                apis += f" (+{len(dep.apis) - 5} more)"
            cells = "".join(_availability_cell(dep.targets[n], n) for n in names)
            rows.append(
                f'<tr data-rule="{escape(dep.rule)}"><td data-value="{escape(dep.family)}">'
                f"<strong>{escape(dep.family)}</strong> <small>{escape(dep.rule)}</small><br>"
                f"<small>{inline(dep.summary)}</small></td>{_num(dep.uses)}{_num(dep.files)}"
                f"<td>{apis}</td>{cells}</tr>"
            )
        tables.append(
            f'<h3 id="area-{_slug(area.name)}">{escape(area.name[:1].upper() + area.name[1:])}</h3>'
            f'<div class="scroll"><table class="sortable" data-area="{escape(area.name)}"><caption>'
            f"{escape(area.about)}: most used first, and what each target offers. Click a heading to sort."
            "</caption><thead><tr>"
            f"{_heading(0, 'library or API family', 'text')}{_heading(1, 'uses', 'number', 'num')}"
            f"{_heading(2, 'files', 'number', 'num')}{_heading(3, 'names and constructs used', 'text')}"
            f"{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
        )
    table = _area_table(report) + "".join(tables)
    top = report.apis[:TOP_APIS]
    chart = ""
    if top:
        groups = [
            Group(a.symbol, [Bar(report.label(n), a.targets[n].uses, {"target": n}, "uses") for n in names])
            for a in top
        ]
        chart = (
            f"<figure>{stacked_bars('chart-apis', 'Most used CUDA APIs', groups)}<figcaption>The {len(top)} most used "
            f"of {len(report.apis)} CUDA names, by difficulty on each target.</figcaption></figure>"
        )
    return (
        '<section id="dependencies"><h2>What the code depends on</h2>'
        f"{table}<h3>Most used APIs</h3>{chart}{_api_table(report)}</section>"
    )


def _area_table(report: Report) -> str:
    """The inventory by area, as the migration guides take it: where the work is before what it is."""
    names = report.target_names
    head = "".join(
        _heading(3 + i, report.label(n), "text", title=f"findings on {report.label(n)}: {TALLY_ORDER}")
        for i, n in enumerate(names)
    )
    rows = []
    for area in report.areas:
        cells = "".join(f'<td data-value="{area.targets[n].total}">{tally_text(area.targets[n])}</td>' for n in names)
        rows.append(
            f'<tr data-area="{escape(area.name)}"><td data-value="{escape(area.name)}">'
            f'<a href="#area-{_slug(area.name)}">{escape(area.name)}</a><br><small>{escape(area.about)}</small></td>'
            f"{_num(area.uses)}{_num(area.files)}{cells}</tr>"
        )
    return (
        '<div class="scroll"><table class="sortable" id="areas-table"><caption>The inventory by area: uses, files, '
        f"and findings per target ({TALLY_ORDER}).</caption><thead><tr>{_heading(0, 'area', 'text')}"
        f"{_heading(1, 'uses', 'number', 'num')}{_heading(2, 'files', 'number', 'num')}{head}</tr></thead>"
        f"<tbody>{''.join(rows)}</tbody></table></div>"
    )


def _slug(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def _availability_cell(availability: Availability, target: str) -> str:
    status = availability.status
    return (
        f'<td class="status-{status}" data-target="{escape(target)}" data-status="{status}" '
        f'data-value="{status}">{inline(availability_words(availability))}</td>'
    )


def _api_table(report: Report) -> str:
    names = report.target_names
    head = "".join(_heading(4 + i, report.label(n), "number") for i, n in enumerate(names))
    rows = []
    for api in report.apis:
        cells = []
        for n in names:
            availability = api.targets[n]
            worst = availability.uses.worst
            label = worst.label if worst is not None else "—"
            replacement = availability.replacements.most_common(1)[0][0] if availability.replacements else ""
            shown = f'<span class="d-{label}">{label}</span>' + (
                f" → <code>{escape(replacement)}</code>" if replacement else ""
            )
            cells.append(
                f'<td data-target="{escape(n)}" data-value="{int(worst) if worst is not None else -1}">{shown}</td>'
            )
        rows.append(
            f'<tr><td data-value="{escape(api.symbol)}"><code>{escape(api.symbol)}</code></td>'
            f"<td>{escape(api.family)} <small>{escape(api.rule)}</small></td>"
            f"{_num(api.uses)}{_num(api.files)}{''.join(cells)}</tr>"
        )
    return (
        '<div class="scroll"><table class="sortable" id="apis-table"><caption>Every CUDA name found, most used first, '
        "with its heaviest difficulty and counterpart on each target.</caption><thead><tr>"
        f"{_heading(0, 'name', 'text')}{_heading(1, 'family', 'text')}"
        f"{_heading(2, 'uses', 'number', 'num')}{_heading(3, 'files', 'number', 'num')}"
        f"{head}</tr></thead><tbody>{''.join(rows)}</tbody></table></div>"
    )


# ---- verification -------------------------------------------------------------------------------------------------
def _excluded_note(report: Report) -> str:
    count = len(report.excluded)
    return f"; {count} director{'y' if count == 1 else 'ies'} with sources excluded" if count else ""


def _verification_section(report: Report) -> str:
    applying = [c for c in report.checks if c.applies]
    items = "".join(_check_item(report, c) for c in applying)
    rest = [c for c in report.checks if not c.applies]
    skipped = ""
    if rest:
        skipped = (
            '<p class="note">Not indicated by what was found (add them if the code does this anyway): '
            + ", ".join(escape(c.spec.title) for c in rest)
            + ".</p>"
        )
    intro = "<p>After porting, run these checks against the CUDA build; they follow from what this code uses.</p>"
    if not applying:
        intro = "<p>No CUDA dependency was found, so there is nothing to compare against a CUDA run.</p>"
    return (
        f'<section id="verify"><h2>What to verify after porting</h2>{intro}<ul class="checklist">{items}</ul>'
        f"{skipped}</section>"
    )


def _check_item(report: Report, check: CheckItem) -> str:
    spec = check.spec
    threshold = f'<span class="threshold">{inline(spec.threshold)}</span>' if spec.threshold else ""
    found = ""
    if check.triggers:
        found = " Found: " + "; ".join(
            f"{escape(t.rule)} ("
            + ", ".join(f"<code>{escape(n)}</code>" for n in t.names[:4])
            + (" …" if len(t.names) > 4 else "")
            + ")"
            for t in check.triggers
        )
    details = "".join(
        f"<p><strong>{escape(report.label(target))}:</strong> {inline(text)}</p>"
        for target, text in check.details.items()
    )
    box = f"check-{escape(spec.id)}"
    return (
        f'<li data-check="{escape(spec.id)}"><input type="checkbox" id="{box}"> '
        f'<label for="{box}">{escape(spec.title)}</label>'
        f'{threshold}<p>{inline(spec.check)}</p><p class="note">{inline(spec.why)}{found}</p>{details}</li>'
    )


# ---- details ------------------------------------------------------------------------------------------------------
def _details_section(report: Report) -> str:
    settings = report.settings
    config = f"<code>{escape(str(settings.config_path))}</code>" if settings.config_path else "defaults"
    items = [
        f"<li>configuration: {config}</li>",
        "<li>rules selected: " + ", ".join(f"<code>{escape(s)}</code>" for s in settings.select) + "</li>",
    ]
    if settings.ignore:
        items.append("<li>rules ignored: " + ", ".join(f"<code>{escape(s)}</code>" for s in settings.ignore) + "</li>")
    excluded = ", ".join(f"<code>{escape(s)}</code>" for s in settings.all_excludes) or "nothing"
    items.append(f"<li>excluded: {excluded}</li>")
    problems = ""
    if report.excluded:
        problems += (
            f"<h3>Directories with sources that were excluded ({len(report.excluded)})</h3><ul>"
            + "".join(f"<li><code>{escape(p.path)}</code>: {escape(p.reason)}</li>" for p in report.excluded)
            + "</ul>"
        )
    if report.skipped:
        problems += (
            f"<h3>Skipped ({len(report.skipped)})</h3><ul>"
            + "".join(f"<li><code>{escape(p.path)}</code>: {escape(p.reason)}</li>" for p in report.skipped)
            + "</ul>"
        )
    if report.errors:
        problems += (
            f"<h3>Errors ({len(report.errors)})</h3><ul>"
            + "".join(
                f"<li><code>{escape(p.path)}</code> ({escape(report.label(p.target or ''))}): {escape(p.reason)}</li>"
                for p in report.errors
            )
            + "</ul>"
        )
    return f'<section id="details"><h2>Scan details</h2><ul>{"".join(items)}</ul>{problems}</section>'
