"""The report as JSON: the same numbers as the HTML and Markdown, for other tools (shape documented in README)."""

from __future__ import annotations

import json
from typing import Any

from ..models import Difficulty
from .model import Availability, Report
from .tally import Tally
from .verdict import MINOR_MAX_PERSON_FILE_SHARE, RANKING_RULE, scale_meanings

SCHEMA_VERSION = 1


def report_document(report: Report) -> dict[str, Any]:
    settings = report.settings
    return {
        "version": SCHEMA_VERSION,
        "tool": {"name": "cudaport", "version": report.tool_version},
        "generated": report.generated,
        "paths": report.paths,
        "targets": [
            {"name": t.name, "label": t.label, "platform": t.platform, "assumes": t.assumes} for t in report.targets
        ],
        "configuration": {
            "file": str(settings.config_path) if settings.config_path else None,
            "select": list(settings.select),
            "ignore": list(settings.ignore),
            "exclude": list(settings.all_excludes),
        },
        "scanned": {
            "files": report.files_scanned,
            "lines": report.lines_scanned,
            "languages": dict(sorted(report.languages.items())),
        },
        "skipped": [{"path": p.path, "reason": p.reason} for p in report.skipped],
        "excluded": [{"path": p.path, "reason": p.reason} for p in report.excluded],
        "errors": [{"target": p.target, "path": p.path, "message": p.reason} for p in report.errors],
        "scale": {
            "levels": [{"id": s.id, "title": s.title, "meaning": m} for s, m in scale_meanings().items()],
            "minor_max_person_file_share": MINOR_MAX_PERSON_FILE_SHARE,
        },
        "verdicts": {name: _verdict(report, name) for name in report.target_names},
        "ranking": report.ranking,
        "ranking_rule": RANKING_RULE,
        "cheapest": report.cheapest,
        "directories": [
            {
                "path": d.path,
                "files": d.files,
                "lines": d.lines,
                "targets": {
                    t: {
                        "findings": d.findings[t].as_dict(),
                        "files_needing_person": d.files_needing_person[t],
                        "worst": _label(d.findings[t].worst),
                    }
                    for t in report.target_names
                },
            }
            for d in report.directories
        ],
        "files": [
            {
                "path": f.path,
                "directory": f.directory,
                "language": f.language,
                "lines": f.lines,
                "targets": {
                    t: {
                        "findings": f.findings[t].as_dict(),
                        "fixable": f.fixable[t],
                        "worst": _label(f.findings[t].worst),
                    }
                    for t in report.target_names
                },
            }
            for f in report.files
        ],
        "work": {
            t: [
                {
                    "path": w.path,
                    "line": w.line,
                    "column": w.column,
                    "rule": w.rule,
                    "family": w.family,
                    "difficulty": w.difficulty.label,
                    "symbol": w.symbol,
                    "message": w.message,
                }
                for w in items
            ]
            for t, items in report.work.items()
        },
        "areas": [
            {
                "name": a.name,
                "about": a.about,
                "uses": a.uses,
                "files": a.files,
                "targets": {t: tally.as_dict() for t, tally in a.targets.items()},
                "rules": [d.rule for d in a.dependencies],
            }
            for a in report.areas
        ],
        "dependencies": [
            {
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
            for d in report.dependencies
        ],
        "apis": [
            {
                "symbol": a.symbol,
                "rule": a.rule,
                "family": a.family,
                "uses": a.uses,
                "files": a.files,
                "targets": {t: _availability(av) for t, av in a.targets.items()},
            }
            for a in report.apis
        ],
        "verification": [
            {
                "id": c.spec.id,
                "title": c.spec.title,
                "applies": c.applies,
                "check": c.spec.check,
                "threshold": c.spec.threshold or None,
                "why": c.spec.why,
                "triggers": [{"rule": t.rule, "names": list(t.names)} for t in c.triggers],
                "targets": dict(c.details),
            }
            for c in report.checks
        ],
    }


def render_json(report: Report) -> str:
    return json.dumps(report_document(report), ensure_ascii=False, indent=2) + "\n"


def _verdict(report: Report, target: str) -> dict[str, Any]:
    s = report.summaries[target]
    return {
        "label": s.target.label,
        "platform": s.target.platform,
        "verdict": s.scale.id,
        "reasons": list(s.reasons),
        "findings": s.findings.as_dict(),
        "findings_share": _shares(s.findings),
        "files": s.files.as_dict(),
        "files_share": _shares(s.files),
        "files_with_findings": s.files_with_findings,
        "files_needing_person": s.files_needing_person,
        "files_with_blockers": s.files_with_blockers,
        "fixable": s.fixable,
        "rank": report.ranking.index(target) + 1,
    }


def _shares(tally: Tally) -> dict[str, float]:
    return {d.label: round(tally.share(d), 4) for d in Difficulty}


def _availability(availability: Availability) -> dict[str, Any]:
    return {
        "status": availability.status,
        "uses": availability.uses.as_dict(),
        "with_counterpart": availability.with_counterpart,
        "replacements": dict(availability.replacements.most_common()),
        "instead": availability.instead or None,
    }


def _label(difficulty: Difficulty | None) -> str | None:
    return difficulty.label if difficulty is not None else None
