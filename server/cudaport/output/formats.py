"""Renderers: one function per output format, each returning the whole text to print."""

from __future__ import annotations

import json
from typing import Any

from .. import __version__
from ..models import Difficulty
from ..results import Diagnostic, RunResult
from ..ruleset import Rule, RuleSet
from .ruledoc import rule_markdown, rule_text


# ---- text -------------------------------------------------------------------------------------------------------
def render_text(run: RunResult, show_portable: bool = False, color: bool = False) -> str:
    lines = []
    hidden = 0
    for diag in run.diagnostics:
        if diag.difficulty == Difficulty.PORTABLE and not show_portable:
            hidden += 1
            continue
        code = _paint(diag.rule, _COLORS[diag.difficulty], color)
        level = _paint(f"[{diag.difficulty.label}]", _COLORS[diag.difficulty], color)
        fixable = " (fixable)" if diag.finding.fixable else ""
        lines.append(
            f"{diag.path}:{diag.line}:{diag.column}: {code} {level} {diag.finding.message}{fixable}{_cell(diag)}"
        )
    lines.append(summary_line(run, hidden))
    return "\n".join(lines) + "\n"


def summary_line(run: RunResult, hidden_portable: int = 0) -> str:
    counts = run.summary()
    total = len(run.diagnostics)
    files = len({d.path for d in run.diagnostics})
    parts = ", ".join(f"{counts[d.label]} {d.label}" for d in Difficulty)
    text = (
        f"Found {total} finding{'s' if total != 1 else ''} in {files} of {run.files_scanned} "
        f"file{'s' if run.files_scanned != 1 else ''} for {run.target} ({parts})"
    )
    fixable = run.fixable()
    if fixable:
        text += f"; {fixable} fixable with `cudaport fix`"
    if hidden_portable:
        text += f"; {hidden_portable} portable not shown (--show-portable)"
    text += "."
    if run.excluded:
        shown = ", ".join(label for label, _ in run.excluded[:_EXCLUDED_SHOWN])
        more = len(run.excluded) - _EXCLUDED_SHOWN
        text += f"\nExcluded, although they hold sources: {shown}{f' and {more} more' if more > 0 else ''}"
        text += " (exclude / extend-exclude in the configuration decide)."
    return text


_EXCLUDED_SHOWN = 8


_COLORS = {
    Difficulty.PORTABLE: "2",
    Difficulty.MECHANICAL: "36",
    Difficulty.MANUAL: "33",
    Difficulty.BLOCKER: "31",
}


def _paint(text: str, code: str, color: bool) -> str:
    return f"\x1b[{code}m{text}\x1b[0m" if color else text


# ---- json -------------------------------------------------------------------------------------------------------
def render_json(run: RunResult) -> str:
    """One diagnostic per line: readable and diffable, and every line encoded by json's C encoder (an indented
    dump goes through the pure-Python one, which dominated `check --format json` on large trees)."""
    head = {"version": 1, "target": run.target, "files_scanned": run.files_scanned}
    lines = [json.dumps(head, ensure_ascii=False)[:-1] + ', "diagnostics": [']
    items = [json.dumps(_json_diagnostic(d), ensure_ascii=False) for d in run.diagnostics]
    lines.append(",\n".join(f"  {item}" for item in items))
    excluded = [{"path": label, "reason": reason} for label, reason in run.excluded]
    lines.append(f'], "summary": {json.dumps(run.summary())}, "excluded": {json.dumps(excluded)}}}')
    return "\n".join(line for line in lines if line) + "\n"


def _cell(diag: Diagnostic) -> str:
    """Where a notebook finding is among the cells (its line and column are the notebook file's)."""
    data = diag.finding.data
    return f" [cell {data['cell']}, line {data.get('cell_line', '')}]" if "cell" in data else ""


def _json_diagnostic(diag: Diagnostic) -> dict[str, Any]:
    finding = diag.finding
    data = finding.data
    cell = {"cell": int(data["cell"]), "cell_line": int(data.get("cell_line", "0"))} if "cell" in data else {}
    return {
        **cell,
        "path": diag.path,
        "line": diag.line,
        "column": diag.column,
        "end_line": diag.end_line,
        "end_column": diag.end_column,
        "rule": finding.rule,
        "difficulty": finding.difficulty.label,
        "severity": finding.severity.label,
        "message": finding.message,
        "symbol": finding.symbol,
        "replacement": finding.replacement,
        "fixable": finding.fixable,
    }


# ---- github -----------------------------------------------------------------------------------------------------
_GITHUB_LEVEL = {
    Difficulty.PORTABLE: "notice",
    Difficulty.MECHANICAL: "notice",
    Difficulty.MANUAL: "warning",
    Difficulty.BLOCKER: "error",
}


def render_github(run: RunResult, show_portable: bool = False) -> str:
    lines = []
    for diag in run.diagnostics:
        if diag.difficulty == Difficulty.PORTABLE and not show_portable:
            continue
        props = ",".join(
            f"{key}={_gh_property(str(value))}"
            for key, value in (
                ("file", diag.path),
                ("line", diag.line),
                ("col", diag.column),
                ("endLine", diag.end_line),
                ("endColumn", diag.end_column),
                ("title", f"cudaport {diag.rule} ({diag.difficulty.label})"),
            )
        )
        lines.append(f"::{_GITHUB_LEVEL[diag.difficulty]} {props}::{_gh_data(diag.finding.message)}")
    return "\n".join(lines) + ("\n" if lines else "")


def _gh_data(value: str) -> str:
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _gh_property(value: str) -> str:
    return _gh_data(value).replace(":", "%3A").replace(",", "%2C")


# ---- sarif ------------------------------------------------------------------------------------------------------
_SARIF_LEVEL = {
    Difficulty.PORTABLE: "note",
    Difficulty.MECHANICAL: "note",
    Difficulty.MANUAL: "warning",
    Difficulty.BLOCKER: "error",
}


def render_sarif(run: RunResult, ruleset: RuleSet) -> str:
    used = sorted(run.by_rule())
    rules = [ruleset.rules[code] for code in used if code in ruleset.rules]
    index = {rule.code: i for i, rule in enumerate(rules)}
    results = [_sarif_result(d, index) for d in run.diagnostics]
    document = {
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "cudaport",
                        "version": __version__,
                        "semanticVersion": __version__,
                        "informationUri": "https://github.com/cudaport/cudaport",
                        "rules": [_sarif_rule(rule, run.target, ruleset.rule_url(rule.code)) for rule in rules],
                    }
                },
                "columnKind": "unicodeCodePoints",
                "properties": {
                    "target": run.target,
                    "filesScanned": run.files_scanned,
                    "summary": run.summary(),
                },
                "results": results,
            }
        ],
    }
    return json.dumps(document, ensure_ascii=False) + "\n"  # compact: json's C encoder (see render_json)


def _sarif_rule(rule: Rule, target: str, url: str) -> dict[str, Any]:
    difficulty = rule.difficulty.get(target) or rule.unmapped.get(target) or Difficulty.MANUAL
    return {
        "id": rule.code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.docs.what or rule.summary},
        "help": {"text": rule_text(rule), "markdown": rule_markdown(rule)},
        "helpUri": url,
        "defaultConfiguration": {"level": _SARIF_LEVEL[difficulty]},
        "properties": {"tags": ["cuda", "portability", target]},
    }


def _sarif_result(diag: Diagnostic, index: dict[str, int]) -> dict[str, Any]:
    finding = diag.finding
    result: dict[str, Any] = {
        "ruleId": finding.rule,
        "level": _SARIF_LEVEL[finding.difficulty],
        "message": {"text": finding.message},
        "locations": [
            {
                "physicalLocation": {
                    "artifactLocation": {"uri": diag.path.replace("\\", "/")},
                    "region": {
                        "startLine": diag.line,
                        "startColumn": diag.column,
                        "endLine": diag.end_line,
                        "endColumn": diag.end_column,
                    },
                }
            }
        ],
        "properties": {"difficulty": finding.difficulty.label, "symbol": finding.symbol},
    }
    if finding.rule in index:
        result["ruleIndex"] = index[finding.rule]
    if finding.replacement is not None:
        result["properties"]["replacement"] = finding.replacement
    return result


# ---- statistics -------------------------------------------------------------------------------------------------
def render_statistics(run: RunResult, ruleset: RuleSet, as_json: bool = False) -> str:
    by_rule = run.by_rule()
    fixable_by_rule: dict[str, int] = {}
    for diag in run.diagnostics:
        if diag.finding.fixable:
            fixable_by_rule[diag.rule] = fixable_by_rule.get(diag.rule, 0) + 1
    rows = sorted(by_rule.items(), key=lambda item: (-item[1], item[0]))
    levels: dict[str, dict[str, int]] = {}
    for diag in run.diagnostics:
        per_rule = levels.setdefault(diag.rule, {})
        per_rule[diag.difficulty.label] = per_rule.get(diag.difficulty.label, 0) + 1
    if as_json:
        data = {
            "target": run.target,
            "files_scanned": run.files_scanned,
            "rules": [
                {
                    "code": code,
                    "name": ruleset.rules[code].name if code in ruleset.rules else "",
                    "count": count,
                    "fixable": fixable_by_rule.get(code, 0),
                    "difficulty": {d.label: levels[code].get(d.label, 0) for d in Difficulty},
                }
                for code, count in rows
            ],
            "summary": run.summary(),
        }
        return json.dumps(data, indent=2) + "\n"
    width = max((len(str(count)) for _, count in rows), default=1)
    lines = []
    for code, count in rows:
        name = ruleset.rules[code].name if code in ruleset.rules else ""
        fixable = fixable_by_rule.get(code, 0)
        mark = f"  [{fixable} fixable]" if fixable else ""
        spread = ", ".join(
            f"{levels[code][d.label]} {d.label}" for d in reversed(Difficulty) if levels[code].get(d.label)
        )
        lines.append(f"{count:>{width}}  {code}  {name}  ({spread}){mark}")
    summary = run.summary()
    lines.append("")
    lines.append("By difficulty: " + ", ".join(f"{d.label} {summary[d.label]}" for d in Difficulty))
    lines.append(f"Files scanned: {run.files_scanned}; findings: {len(run.diagnostics)}")
    return "\n".join(lines) + "\n"
