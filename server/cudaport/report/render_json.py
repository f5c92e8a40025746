"""The report as JSON: the same numbers as the HTML and Markdown, and every finding, for other tools (shape
documented in README). Written piece by piece (`iter_json`), one top-level key per line and one list item per
line, so that a report of any size is never one string in memory.

Keys, ids, rule codes, difficulty and status names stay English whatever the language; the prose (verdict reasons,
routes, checks, summaries, messages) is in the report's `language`."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

from .. import i18n
from ..knowledge.effort import WORK, EffortModel, Hours
from ..model.findings import Difficulty
from .checklist import CheckItem
from .effort import Estimate
from .folders import Folder, Totals
from .model import ApiUse, AreaSummary, Availability, Dependency, Report, TargetSummary, WorkGroup
from .operators import TargetOperators, happens_text, summary_text
from .routes import RoutePlan
from .rows import FileRow
from .tally import Tally
from .verdict import RANKING_RULE, scale_meanings

SCHEMA_VERSION = 2


def render_json(report: Report) -> str:
    return "".join(iter_json(report))


def iter_json(report: Report) -> Iterator[str]:
    """The report as JSON text, piece by piece: the summary keys, then each list, the findings last (the only part
    that grows with the tree, streamed from the finding store)."""
    names = report.target_names
    yield "{\n"
    for key, value in _head(report):
        yield f"{_dump(key)}: {_dump(value)},\n"
    for key, items in _lists(report):
        yield from _list(key, items)
    yield '"findings": {\n'
    for index, target in enumerate(names):
        yield from _list(target, report.store.diagnostics(target), last=index == len(names) - 1)
    yield "}\n}\n"


def _head(report: Report) -> list[tuple[str, Any]]:
    """What the report says about the run and per target: the keys before the lists."""
    names = report.target_names
    settings = report.settings
    return [
        ("version", SCHEMA_VERSION),
        ("tool", {"name": "cudaport", "version": report.tool_version}),
        ("language", i18n.language()),
        ("generated", report.generated),
        ("paths", report.paths),
        ("name", report.name),
        (
            "targets",
            [
                {"name": t.name, "label": t.label, "platform": t.platform, "assumes": t.assumes, "kernels": t.kernels}
                for t in report.targets
            ],
        ),
        (
            "configuration",
            {
                "file": str(settings.config_path) if settings.config_path else None,
                "select": list(settings.select),
                "ignore": list(settings.ignore),
                "exclude": list(settings.all_excludes),
                "effort": dict(settings.effort),
            },
        ),
        (
            "scanned",
            {
                "files": report.files_scanned,
                "lines": report.lines_scanned,
                "code_lines": report.code_lines,
                "languages": dict(sorted(report.languages.items())),
            },
        ),
        ("skipped", [{"path": p.path, "reason": p.reason} for p in report.skipped]),
        ("excluded", [{"path": p.path, "reason": p.reason} for p in report.excluded]),
        ("errors", [{"target": p.target, "path": p.path, "message": p.reason} for p in report.errors]),
        (
            "scale",
            {
                "levels": [
                    {"id": s.id, "title": s.title, "meaning": m} for s, m in scale_meanings(report.effort).items()
                ],
                "unit": i18n.t("person-days (high end of the estimate) per 1,000 lines of code"),
                "code_languages": list(report.effort.code_languages),
                "minor": report.effort.minor,
                "moderate": report.effort.moderate,
                "lines_at_least": report.effort.lines_at_least,
            },
        ),
        ("effort", _model(report.effort)),
        (
            "routes",
            {
                r.id: {"name": r.shown_name, "about": r.shown_about, "fix": r.fix or None}
                for r in report.routes.values()
            },
        ),
        ("verdicts", {name: _verdict(report, report.summaries[name]) for name in names}),
        ("operators", {entry.target: _operators(entry, report.effort) for entry in report.operators}),
        ("ranking", report.ranking),
        ("ranking_rule", i18n.t(RANKING_RULE)),
        ("cheapest", report.cheapest),
        ("folders", _folder(report.folders, names)),
    ]


def _lists(report: Report) -> Iterator[tuple[str, Iterator[Any]]]:
    """The report's lists, in order: each a key and its items, made as they are written."""
    names = report.target_names
    yield "directories", (_directory(d, names) for d in report.directories)
    yield "files", (_file(f, names) for f in report.files)
    yield "areas", (_area(a) for a in report.areas)
    yield "dependencies", (_dependency(d) for d in report.dependencies)
    yield "apis", (_api(a) for a in report.api_names())
    yield "work", (_work(w) for w in report.work)
    yield "verification", (_check(c) for c in report.checks)


def _file(f: FileRow, names: list[str]) -> dict[str, Any]:
    return {
        "path": f.path,
        "directory": f.directory,
        "language": f.language,
        "lines": f.lines,
        "targets": {
            t: {
                "findings": f.findings[t].as_dict(),
                "fixable": f.fixable[t],
                "worst": _label(f.findings[t].worst),
                "effort_hours": _hours(f.effort[t]),
                "route": f.route[t],
            }
            for t in names
        },
    }


def _area(a: AreaSummary) -> dict[str, Any]:
    return {
        "name": a.name,
        "about": a.about,
        "uses": a.uses,
        "files": a.files,
        "targets": {t: tally.as_dict() for t, tally in a.targets.items()},
        "rules": [d.rule for d in a.dependencies],
    }


def _dependency(d: Dependency) -> dict[str, Any]:
    return {
        "rule": d.rule,
        "name": d.name,
        "area": d.area,
        "family": d.family,
        "summary": d.summary,
        "uses": d.uses,
        "files": d.files,
        "apis": dict(sorted(d.apis.items(), key=lambda item: (-item[1], item[0]))),
        "targets": {t: _availability(a) for t, a in d.targets.items()},
    }


def _api(a: ApiUse) -> dict[str, Any]:
    return {
        "symbol": a.symbol,
        "rule": a.rule,
        "family": a.family,
        "uses": a.uses,
        "files": a.files,
        "targets": {t: _availability(av) for t, av in a.targets.items()},
    }


def _work(w: WorkGroup) -> dict[str, Any]:
    return {
        "title": w.title,
        "rule": w.rule,
        "family": w.family,
        "construct": w.pattern,
        "declarations": w.declarations,
        "symbols": list(w.symbols),
        "uses": w.uses,
        "files": w.files,
        "targets": {t: _availability(av) for t, av in w.targets.items()},
    }


def _check(c: CheckItem) -> dict[str, Any]:
    return {
        "id": c.spec.id,
        "title": c.spec.title,
        "applies": c.applies,
        "check": c.spec.check,
        "threshold": c.spec.threshold or None,
        "why": c.spec.why,
        "triggers": [{"rule": t.rule, "names": list(t.names)} for t in c.triggers],
        "targets": dict(c.details),
    }


def _list(key: str, items: Iterator[Any], last: bool = False) -> Iterator[str]:
    yield f"{_dump(key)}: ["
    first = True
    for item in items:
        yield ("\n" if first else ",\n") + _dump(item)
        first = False
    yield ("]" if first else "\n]") + ("\n" if last else ",\n")


def _dump(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False)


def _model(model: EffortModel) -> dict[str, Any]:
    return {
        "hours_per_day": model.hours_per_day,
        "file_hours": {d.label: _weight(model.file_hours[d]) for d in WORK},
        "kinds": [
            {
                "name": k.name,
                "about": i18n.t(k.about) if k.about else k.about,
                "rules": list(k.rules),
                "areas": list(k.areas),
                "findings": list(k.findings),
                "kernels": list(k.kernels),
                "hours": {
                    d.label: {"first": _weight(c.first), "more": _weight(c.more), "per": c.per}
                    for d, c in k.costs.items()
                },
            }
            for k in model.kinds
        ],
        "overridden": list(model.overridden),
    }


def _estimate(estimate: Estimate) -> dict[str, Any]:
    return {
        "days": _hours(estimate.days),
        "hours": _hours(estimate.hours),
        "kinds": [
            {
                "kind": total.kind.name,
                "findings": total.findings,
                "units": total.units,
                "days": _hours(estimate.model.days(total.hours)),
            }
            for total in estimate.kinds.values()
            if total.findings
        ],
        "files": {"count": estimate.files, "days": _hours(estimate.model.days(estimate.file_hours))},
    }


def _plan(plan: RoutePlan, model: EffortModel) -> dict[str, Any]:
    out: dict[str, Any] = {"recommended": plan.recommended, "why": plan.why, "routes": {}}
    for route_id, share in plan.shares.items():
        entry: dict[str, Any] = {
            "files": [label for label, _ in share.files],
            "days": _hours(model.days(share.hours)),
        }
        if route_id == "C":
            entry["dual_stack_files"] = share.dual_stack_files
            if share.coverage is not None:
                entry["dual_stack_fix"] = {"covered": share.coverage.covered, "remaining": share.coverage.remaining}
        out["routes"][route_id] = entry
    return out


def _operators(entry: TargetOperators, model: EffortModel) -> dict[str, Any]:
    """A target's operator coverage: its plugin (null where PyTorch is built for the target from CUDA's kernels),
    the APIs the project calls that it has no kernel for and their calls (those on the device), what the estimate
    counts for them, and each API's calls, what happens to them and where they are."""
    plugin = None
    if not entry.builtin:
        plugin = {
            "package": entry.package,
            "release": entry.release,
            "torch": entry.torch,
            "missing": entry.missing,
            "strict": entry.strict or None,
        }
    return {
        "plugin": plugin,
        "builtin": entry.builtin,
        "summary": summary_text(entry),
        "apis": entry.apis,
        "calls": entry.calls,
        "days": _hours(model.days(entry.hours)),
        "gaps": [
            {
                "api": gap.api,
                "operators": [f"aten::{op}" for op in gap.operators],
                "calls": gap.calls,
                "on_cpu": gap.on_cpu,
                "files": gap.files,
                "happens": entry.happens(gap),
                "reads": happens_text(entry, gap),
                "unlisted": gap.unlisted,
                "limited": gap.limited,
                "where": [{"path": path, "lines": lines} for path, lines in gap.where.items()],
            }
            for gap in entry.gaps
        ],
    }


def _verdict(report: Report, s: TargetSummary) -> dict[str, Any]:
    return {
        "label": s.target.label,
        "platform": s.target.platform,
        "verdict": s.scale.id,
        "reasons": list(s.reasons),
        "effort": _estimate(s.effort),
        "days_per_1000_lines": round(s.density, 3),
        "route": _plan(s.plan, report.effort),
        "findings": s.findings.as_dict(),
        "findings_share": _shares(s.findings),
        "files": s.files.as_dict(),
        "files_share": _shares(s.files),
        "files_with_findings": s.files_with_findings,
        "files_needing_person": s.files_needing_person,
        "files_with_blockers": s.files_with_blockers,
        "fixable": s.fixable,
        "rank": report.ranking.index(s.target.name) + 1,
    }


def _directory(directory: Totals, names: list[str]) -> dict[str, Any]:
    return _totals(directory, names, lambda t: {"worst": _label(directory.findings[t].worst)})


def _folder(folder: Folder, names: list[str]) -> dict[str, Any]:
    out = _totals(folder, names, lambda t: {"effort_hours": _hours(folder.effort[t])})
    out["folders"] = [_folder(child, names) for child in folder.children]
    return out


def _totals(totals: Totals, names: list[str], more: Callable[[str], dict[str, Any]]) -> dict[str, Any]:
    """A directory's or folder's totals; `more(target)`: what else each target's entry says."""
    return {
        "path": totals.path,
        "files": totals.files,
        "lines": totals.lines,
        "targets": {
            t: {
                "findings": totals.findings[t].as_dict(),
                "files_needing_person": totals.files_needing_person[t],
                **more(t),
            }
            for t in names
        },
    }


def _hours(hours: Hours, digits: int = 2) -> list[float]:
    return [round(hours.low, digits), round(hours.high, digits)]


def _weight(hours: Hours) -> list[float]:
    """A weight of the model, as precise as the data gives it."""
    return _hours(hours, 4)


def _shares(tally: Tally) -> dict[str, float]:
    return {d.label: round(tally.share(d), 4) for d in Difficulty}


def _availability(availability: Availability) -> dict[str, Any]:
    return {
        "status": availability.status,
        "uses": availability.uses.as_dict(),
        "with_counterpart": availability.with_counterpart,
        "share": round(availability.share, 4),
        "reads": availability.reads,
        "exceptions": dict(availability.exceptions.most_common()),
        "replacements": dict(availability.replacements.most_common()),
        "instead": availability.instead or None,
    }


def _label(difficulty: Difficulty | None) -> str | None:
    return difficulty.label if difficulty is not None else None
