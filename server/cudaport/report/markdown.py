"""The report as GitHub-flavoured Markdown, for a wiki page or a pull request.

Its size does not grow with the number of findings: the summary, the effort and the routes in full, then the
heaviest folders, APIs and files (each list cut at a stated length, saying how many more there are). Every finding
is in the JSON report and, grouped and collapsed, in the HTML one."""

from __future__ import annotations

import re
from collections import Counter, defaultdict

from ..i18n import N_, t
from ..knowledge.effort import WORK, Hours
from ..model.findings import Difficulty
from ..model.words import difficulty_word
from .folders import Folder, focus
from .model import Availability, Report, WorkGroup
from .operators import INTRO as OPERATORS_INTRO
from .operators import PYTHON_LANGUAGES, GapUse, effort_text, happens_text, sentences, summary_text, worth_showing
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
    names_text,
    per_1000_lines,
    route_words,
    scanned_text,
    share_text,
    status_text,
    tally_text,
    work_title,
)
from .routes import dual_stack_note
from .tally import DIFFICULTIES
from .verdict import RANKING_RULE, days_range, days_text, scale_meanings
from .words import clauses, number, tn, unit_name

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
    """The line under a list cut short; `what` is N_("…and {count} more <things> (...)")."""
    rest = total - shown
    if rest <= 0:
        return []
    return ["", t(what, count=number(rest))]


def render_markdown(report: Report) -> str:
    out: list[str] = []
    out += _header(report)
    out += _summary(report)
    out += _effort(report)
    out += _routes(report)
    out += _operators(report)
    out += _work(report)
    out += _dependencies(report)
    out += _verification(report)
    out += _details(report)
    return "\n".join(out) + "\n"


def _labels(report: Report) -> list[str]:
    return [text(report.label(n)) for n in report.target_names]


# ---- header and summary ---------------------------------------------------------------------------------------
def _header(report: Report) -> list[str]:
    targets = ", ".join(
        f"**{text(n.label)}** ({text(n.described)})" if n.described else f"**{text(n.label)}**" for n in report.targets
    )
    scanned = {
        "scanned": scanned_text(report),
        "languages": text(languages_text(report)),
        "skipped": number(len(report.skipped)),
        "errors": number(len(report.errors)),
    }
    if report.excluded:
        counts = t(
            "Scanned {scanned} ({languages}); {skipped} skipped, {errors} with errors; {count} directories with "
            "sources excluded (see Scan details).",
            count=number(len(report.excluded)),
            **scanned,
        )
    else:
        counts = t("Scanned {scanned} ({languages}); {skipped} skipped, {errors} with errors.", **scanned)
    return [
        t("# CUDA migration assessment: {project}", project=code(report.name)),
        "",
        t(
            "Generated {when} by cudaport {version} for {targets}.",
            when=report.generated,
            version=report.tool_version,
            targets=targets,
        ),
        counts,
        "",
    ]


def _summary(report: Report) -> list[str]:
    names = report.target_names
    summaries = [report.summaries[n] for n in names]
    out = [t("## Summary"), "", text(cheapest_sentence(report)), ""]
    rows: list[list[str]] = [
        [t("**verdict**"), *[f"**{s.scale.words}**" for s in summaries]],
        [t("effort (person-days)"), *[days_range(s.effort.days) for s in summaries]],
        [t("person-days per 1,000 lines"), *[per_1000_lines(s) for s in summaries]],
        [t("route"), *[text(route_words(report, s)) for s in summaries]],
    ]
    if len(names) > 1:
        rows.append([t("rank"), *[number(report.ranking.index(n) + 1) for n in names]])
    for difficulty, words in FILE_ROWS:
        rows.append([text(t(words)), *[share_text(s.files[difficulty], s.files.total) for s in summaries]])
    for difficulty in DIFFICULTIES:
        rows.append(
            [
                text(t("findings {difficulty}", difficulty=difficulty_word(difficulty))),
                *[share_text(s.findings[difficulty], s.findings.total) for s in summaries],
            ]
        )
    rows.append([t("findings in all"), *[number(s.findings.total) for s in summaries]])
    rows.append(
        [t("files that need a person"), *[share_text(s.files_needing_person, s.files.total) for s in summaries]]
    )
    rows.append([t("fixable by {command}", command=code("cudaport fix")), *[number(s.fixable) for s in summaries]])
    out += _table(["", *_labels(report)], rows, set(range(1, len(names) + 1)))
    out += ["", t("A file counts under its heaviest finding; the four file rows add up to every file scanned."), ""]
    for summary in summaries:
        out.append(t("**{label}: {verdict}** because", label=text(summary.target.label), verdict=summary.scale.words))
        out.extend(f"- {text(reason)}" for reason in summary.reasons)
        if any(share.files for share in summary.plan.shares.values()):
            out.append(
                t(
                    "- route {route}: {why}",
                    route=text(route_words(report, summary)),
                    why=text(summary.plan.why),
                )
            )
        out.append("")
    out.append(t("The scale:"))
    out.append("")
    for scale, meaning in scale_meanings(report.effort).items():
        out.append(t("- **{scale}**: {meaning}", scale=scale.words, meaning=text(meaning)))
    out.append(t("- ranking of targets: {rule}", rule=text(t(RANKING_RULE))))
    out.append("")
    meanings = [
        t("**{difficulty}** {meaning}", difficulty=difficulty_word(d), meaning=text(t(DIFFICULTY_MEANINGS[d])))
        for d in DIFFICULTIES
    ]
    out.append(t("Difficulties: {meanings}.", meanings=clauses(meanings)))
    out.append("")
    top = report.dependencies[:TOP_DEPENDENCIES]
    if top:
        out.append(
            t(
                "Top dependencies ({count} of {total}; all under What the code depends on):",
                count=number(len(top)),
                total=number(len(report.dependencies)),
            )
        )
        out.append("")
        rows = [
            [f"{text(d.family)} ({d.rule})", number(d.uses), number(d.files)]
            + [text(status_text(d.targets[n])) for n in names]
            for d in top
        ]
        out += _table([t("library or API family"), t("uses"), t("files"), *_labels(report)], rows, {1, 2})
        out.append("")
    return out


# ---- effort ---------------------------------------------------------------------------------------------------
def _effort(report: Report) -> list[str]:
    names = report.target_names
    model = report.effort
    out = [t("## Effort"), ""]
    out.append(
        t(
            "Person-days per target, as a range: each finding costs what its kind and difficulty say (below), the "
            "first use of a unit of work in full and each further use less; every file with work adds its build and "
            "test. A person-day is {hours} productive hours.",
            hours=days_text(model.hours_per_day),
        )
    )
    out.append("")
    kinds = [k for k in model.kinds if any(report.summaries[n].effort.kinds[k.name].findings for n in names)]
    rows = []
    for kind in kinds:
        cells = []
        for n in names:
            total = report.summaries[n].effort.kinds[kind.name]
            cells.append(f"{days_range(model.days(total.hours))} ({number(total.findings)})" if total.findings else "—")
        rows.append([text(t(kind.name)), *cells])
    rows.append(
        [
            t("building and testing the files"),
            *[
                f"{days_range(model.days(effort.file_hours))} ({number(effort.files)})"
                for effort in (report.summaries[n].effort for n in names)
            ],
        ]
    )
    rows.append([t("**total**"), *[f"**{days_range(report.summaries[n].effort.days)}**" for n in names]])
    out += _table([t("kind (person-days, findings or files)"), *_labels(report)], rows, set(range(1, len(names) + 1)))
    out += [
        "",
        t("Assumptions (hours of one engineer; `rules/effort.toml`, overridable under `effort` in the configuration):"),
        "",
    ]
    for kind in kinds:
        costs = clauses(
            t(
                "{difficulty} {first} h first, {more} h each further use (per {unit})",
                difficulty=difficulty_word(d),
                first=_cost(kind.costs[d].first),
                more=_cost(kind.costs[d].more),
                unit=unit_name(kind.costs[d].per),
            )
            for d in WORK
        )
        out.append(
            t("- **{kind}** ({about}): {costs}", kind=text(t(kind.name)), about=text(t(kind.about)), costs=costs)
        )
    file_costs = clauses(
        t("{difficulty} {hours} h", difficulty=difficulty_word(d), hours=_cost(model.file_hours[d])) for d in WORK
    )
    out.append(t("- **building and testing a file**, by its heaviest finding: {costs}", costs=file_costs))
    if model.overridden:
        out.append(t("- changed by the configuration: {keys}", keys=", ".join(code(k) for k in model.overridden)))
    out.append("")
    return out


def _cost(hours: Hours) -> str:
    return f"{hours.low:g}–{hours.high:g}"


# ---- routes ---------------------------------------------------------------------------------------------------
def _routes(report: Report) -> list[str]:
    out = [t("## Routes"), ""]
    for route in report.routes.values():
        named = {"id": route.id, "name": text(route.shown_name), "about": text(route.shown_about)}
        if route.fix:
            out.append(t("- **{id}, {name}**: {about}. Written by {command}.", command=code(route.fix), **named))
        else:
            out.append(t("- **{id}, {name}**: {about}.", **named))
    out.append("")
    for name in report.target_names:
        summary = report.summaries[name]
        plan = summary.plan
        if not any(share.files for share in plan.shares.values()):
            continue
        route = report.routes[plan.recommended]
        heading = t(
            "{label}: route {id}, {name}", label=text(summary.target.label), id=route.id, name=text(route.shown_name)
        )
        out.append(f"### {heading}")
        out.append("")
        out.append(t("Why: {why}.", why=text(plan.why)))
        out.append("")
        for route_id, share in plan.shares.items():
            if not share.files:
                continue
            days = report.effort.days(share.hours)
            parts = [
                t(
                    "- **{id}** ({name}): {files}, {days} person-days",
                    id=route_id,
                    name=text(report.routes[route_id].shown_name),
                    files=tn("{count} file", "{count} files", len(share.files)),
                    days=days_range(days),
                )
            ]
            if route_id == "B" and report.routes["B"].language(name):
                parts.append(t("rewritten in {language}", language=text(report.routes["B"].language(name))))
            if route_id == "C":
                if report.routes["C"].fix:
                    parts.append(code(report.routes["C"].fix))
                if share.dual_stack_files:
                    parts.append(text(dual_stack_note(share.dual_stack_files, summary.target.label)))
                if share.coverage is not None:
                    parts.append(
                        t(
                            "the dual-stack fix covers {covered} of their findings, {remaining} remain for a person",
                            covered=number(share.coverage.covered),
                            remaining=number(share.coverage.remaining),
                        )
                    )
            shown = share.files[:TOP_ROUTE_FILES]
            listed = ", ".join(code(label) for label, _ in shown)
            if len(share.files) > len(shown):
                listed = t("{listed} and {count} more", listed=listed, count=number(len(share.files) - len(shown)))
            out.append(t("{label}: {text}", label=clauses(parts), text=listed))
        out.append("")
    return out


# ---- operator coverage ----------------------------------------------------------------------------------------
OPERATOR_FILES = 3  # files named under each API the plugin lacks
OPERATOR_LINES = 10  # lines named in each of them


def _operators(report: Report) -> list[str]:
    if not worth_showing(report.operators, sum(report.languages[k] for k in PYTHON_LANGUAGES)):
        return []
    out = [t("## Operator coverage"), "", text(t(OPERATORS_INTRO)), ""]
    builtin = [entry for entry in report.operators if entry.builtin]
    for entry in report.operators:
        if entry.builtin:
            continue
        out += [f"### {text(entry.label)}", ""]
        summary = text(t("{text}.", text=summary_text(entry)))
        if entry.apis:
            summary = sentences(summary, text(effort_text(days_range(report.effort.days(entry.hours)), entry.apis)))
        out += [summary, ""]
        if not entry.gaps:
            continue
        rows = [
            [
                code(gap.api),
                ", ".join(code(f"aten::{op}") for op in gap.operators),
                number(gap.calls),
                text(happens_text(entry, gap)),
                _where(gap),
            ]
            for gap in entry.gaps
        ]
        out += _table([t("PyTorch API"), t("ATen operators"), t("calls"), t("what happens"), t("where")], rows, {2})
        out.append("")
    for entry in builtin:
        out.append("- " + text(t("{text}.", text=summary_text(entry))))
    if builtin:
        out.append("")
    return out


def _where(gap: GapUse) -> str:
    """`path` and its lines, for the first files of an API's calls (the JSON has them all)."""
    shown = []
    for path, lines in list(gap.where.items())[:OPERATOR_FILES]:
        listed = ", ".join(number(line) for line in lines[:OPERATOR_LINES])
        if len(lines) > OPERATOR_LINES:
            listed = t("{listed} and {count} more", listed=listed, count=number(len(lines) - OPERATOR_LINES))
        shown.append(t("{path}: {lines}", path=code(path), lines=listed))
    where = "; ".join(shown)
    if gap.files > OPERATOR_FILES:
        where = t("{listed} and {count} more files", listed=where, count=number(gap.files - OPERATOR_FILES))
    return where


# ---- where the work is ----------------------------------------------------------------------------------------
def _work(report: Report) -> list[str]:
    names = report.target_names
    labels = _labels(report)
    out = [
        t("## Where the work is"),
        "",
        t("Findings per target as {order}, heaviest first.", order=t(TALLY_ORDER)),
        "",
    ]
    out += [t("### By folder"), ""]
    shown = _folder_rows(report.folders)
    rows = [
        [code(f.path or "."), number(f.files), number(f.lines)]
        + [tally_text(f.findings[n]) for n in names]
        + [days_range(report.effort.days(f.effort[n])) for n in names]
        for f in shown
    ]
    out += _table(
        [t("folder"), t("files"), t("lines"), *labels, *[t("{label}: person-days", label=label) for label in labels]],
        rows,
        set(range(1, 3 + 2 * len(names))),
    )
    out.append("")
    out.append(
        t(
            "Top-level folders, with the folder that holds most of the work opened one level; each row counts "
            "everything below it."
        )
    )
    out.append("")

    out += [t("### By API"), ""]
    work = report.work[:TOP_WORK]
    examples = _examples(report, work)
    for group in work:
        out.append(f"- {text(work_title(group))} ({text(group.family)}, {group.rule})")
        cells = clauses(
            t("{label}: {text}", label=text(report.label(n)), text=text(_availability_short(group.targets[n])))
            for n in names
        )
        out.append(f"  {cells}")
        if group.declarations:
            out.append(f"  {text(names_text(group, 5))}")
        if examples.get(group.key):
            listed = ", ".join(f"{code(path)} ({number(count)})" for path, count in examples[group.key])
            if group.files > len(examples[group.key]):
                listed = t(
                    "{listed} and {count} more", listed=listed, count=number(group.files - len(examples[group.key]))
                )
            out.append("  " + t("in {files}", files=listed))
    out += _more(
        len(work),
        len(report.work),
        N_(
            "…and {count} more APIs and constructs (the JSON report lists them all; the HTML report shows them "
            "collapsed)."
        ),
    )
    out.append("")

    out += [t("### By file"), ""]
    touched = [f for f in report.files if any(f.findings[n].total for n in names)]
    rows = [
        [code(f.path), number(f.lines)]
        + [tally_text(f.findings[n]) for n in names]
        + [f.route[n] or "—" for n in names]
        for f in touched[:TOP_FILES]
    ]
    out += _table(
        [t("file"), t("lines"), *labels, *[t("{label}: route", label=label) for label in labels]],
        rows,
        set(range(1, 2 + len(names))),
    )
    out += _more(
        min(TOP_FILES, len(touched)),
        len(touched),
        N_(
            "…and {count} more files with findings (the JSON report lists them all; the HTML report shows them "
            "collapsed)."
        ),
    )
    untouched = report.files_scanned - len(touched)
    out += ["", tn("{count} more file have no finding.", "{count} more files have no finding.", untouched), ""]
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
        return t("not used")
    top = availability.replacements.most_common(1)
    return difficulty_word(worst) + (f" → `{top[0][0]}`" if top and worst < Difficulty.BLOCKER else "")


# ---- dependencies ---------------------------------------------------------------------------------------------
def _dependencies(report: Report) -> list[str]:
    names = report.target_names
    labels = _labels(report)
    out = [t("## What the code depends on"), ""]
    area_rows = [
        [text(t(area.name)), number(area.uses), number(area.files)] + [tally_text(area.targets[n]) for n in names]
        for area in report.areas
    ]
    out += [t("By area (findings per target: {order}):", order=t(TALLY_ORDER)), ""]
    out += _table([t("area"), t("uses"), t("files"), *labels], area_rows, {1, 2})
    for area in report.areas:
        shown = t(area.name)
        out += ["", f"### {text(shown[:1].upper() + shown[1:])}", "", text(t("{about}.", about=area.about)), ""]
        dep_rows = []
        for dep in area.dependencies:
            used = ", ".join(f"{code(name)} {number(count)}" for name, count in dep.apis.most_common(4))
            more = len(dep.apis) - 4
            if more > 0:
                used = t("{names} (+{count} more)", names=used, count=number(more))
            dep_rows.append(
                [f"{text(dep.family)} ({dep.rule})", number(dep.uses), number(dep.files), used]
                + [text(availability_words(dep.targets[n])) for n in names]
            )
        out += _table(
            [
                t("library or API family"),
                t("uses"),
                t("files"),
                t("names and constructs used"),
                *[t("{label} counterpart", label=x) for x in labels],
            ],
            dep_rows,
            {1, 2},
        )
    out.append("")
    apis = report.api_names()
    if apis:
        out += [
            t(
                "### Most used APIs (top {count} of {total})",
                count=number(min(TOP_APIS, len(apis))),
                total=number(len(apis)),
            ),
            "",
        ]
        api_rows = [
            [code(a.symbol), f"{text(a.family)} ({a.rule})", number(a.uses), number(a.files)]
            + [text(_availability_short(a.targets[n])) for n in names]
            for a in apis[:TOP_APIS]
        ]
        out += _table([t("API"), t("family"), t("uses"), t("files"), *labels], api_rows, {2, 3})
        out.append("")
    return out


# ---- verification and scan details ----------------------------------------------------------------------------
def _verification(report: Report) -> list[str]:
    out = [t("## What to verify after porting"), ""]
    for check in (c for c in report.checks if c.applies):
        line = f"- [ ] **{text(check.spec.title)}**"
        if check.spec.threshold:
            line += f" — {text(check.spec.threshold)}"
        out.append(line)
        out.append(f"  {text(check.spec.check)}")
        why = text(check.spec.why)
        if check.triggers:
            triggers = "; ".join(
                f"{trigger.rule} ({', '.join(code(name) for name in trigger.names[:4])}"
                f"{' …' if len(trigger.names) > 4 else ''})"
                for trigger in check.triggers
            )
            why += t(" Found: {triggers}", triggers=triggers)
        out.append(t("  _Why:_ {why}", why=why))
        for target, detail in check.details.items():
            out.append(t("  _{label}:_ {detail}", label=text(report.label(target)), detail=text(detail)))
    skipped = [c for c in report.checks if not c.applies]
    if skipped:
        out += [
            "",
            t(
                "Not indicated by what was found (add them if the code does this anyway): {checks}.",
                checks=", ".join(text(c.spec.title) for c in skipped),
            ),
        ]
    out.append("")
    return out


def _details(report: Report) -> list[str]:
    settings = report.settings
    out = [t("## Scan details"), ""]
    config = code(str(settings.config_path)) if settings.config_path else t("defaults")
    out.append("- " + t("configuration: {file}", file=config))
    out.append("- " + t("rules selected: {codes}", codes=", ".join(code(s) for s in settings.select)))
    if settings.ignore:
        out.append("- " + t("rules ignored: {codes}", codes=", ".join(code(s) for s in settings.ignore)))
    excluded = ", ".join(code(s) for s in settings.all_excludes) or t("nothing")
    out.append("- " + t("excluded: {globs}", globs=excluded))
    for title, problems, with_target in (
        (N_("directories with sources that were excluded"), report.excluded, False),
        (N_("skipped"), report.skipped, False),
        (N_("errors"), report.errors, True),
    ):
        if not problems:
            continue
        out.append(f"- {t(title)} ({number(len(problems))}):")
        for p in problems[:TOP_PROBLEMS]:
            where = f" ({text(report.label(p.target))})" if with_target and p.target else ""
            out.append("  - " + t("{path}: {reason}", path=f"{code(p.path)}{where}", reason=text(p.reason)))
        if len(problems) > TOP_PROBLEMS:
            more = t("…and {count} more (the JSON report lists them all)", count=number(len(problems) - TOP_PROBLEMS))
            out.append(f"  - {more}")
    out.append("")
    return out
