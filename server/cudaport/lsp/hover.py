"""Hover over a CUDA name: what it is, its counterpart and difficulty on every target the rule data knows, how it
rates for the configured target here (and why), and the fix cudaport offers."""

from __future__ import annotations

import re

from lsprotocol import types

from ..models import Difficulty, Finding
from ..ruleset import REMOVED, Rule, RuleSet, Symbol
from .configuration import Resolved
from .languages import profile
from .positions import to_offset, to_range
from .store import Snapshot

_WORD = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
_KINDS = {"device_function": "device function", "enum_value": "enum value", "define": "macro", "pattern": "construct"}


def hover(snapshot: Snapshot, position: types.Position) -> types.Hover | None:
    """What the CUDA name under the cursor is and how it ports (None: nothing cudaport knows is there)."""
    if snapshot.language is None or snapshot.skipped is not None:
        return None
    unit = snapshot.unit
    offset = to_offset(snapshot.lines, position, unit)
    finding = _finding_at(snapshot, offset)
    markdown = snapshot.capabilities.markdown_hover
    if finding is not None:
        text = describe(snapshot.resolved, finding.symbol, finding, markdown)
        span = (finding.start, finding.end)
    else:
        word = _word_at(snapshot, offset)
        if word is None:
            return None
        start, end, name = word
        text = describe(snapshot.resolved, name, None, markdown)
        span = (start, end)
    if text is None:
        return None
    kind = types.MarkupKind.Markdown if markdown else types.MarkupKind.PlainText
    return types.Hover(
        contents=types.MarkupContent(kind=kind, value=text),
        range=to_range(snapshot.lines, span[0], span[1], unit),
    )


def _finding_at(snapshot: Snapshot, offset: int) -> Finding | None:
    findings = snapshot.findings_overlapping(offset, offset)
    inside = [f for f in findings if f.start <= offset < f.end]
    if not inside:
        inside = [f for f in findings if f.start <= offset <= f.end]
    # The innermost one: a name inside a rewritten call rather than the whole call.
    return min(inside, key=lambda f: f.end - f.start) if inside else None


def _word_at(snapshot: Snapshot, offset: int) -> tuple[int, int, str] | None:
    """A name the rule data knows under the cursor, outside comments and strings (no finding there: a rule that is
    switched off, a suppressed line, a name in a position that does not count)."""
    lines = snapshot.lines
    line = lines.line_of(offset)
    start = lines.line_start(line)
    for match in _WORD.finditer(snapshot.data, start, lines.line_end(line)):
        if match.start() <= offset <= match.end():
            if snapshot.tree is not None and snapshot.language is not None:
                node = snapshot.tree.root_node.descendant_for_byte_range(match.start(), match.end())
                if node is not None and node.type in profile(snapshot.language).literals:
                    return None
            return match.start(), match.end(), match.group(0).decode()
    return None


def _lookup(ruleset: RuleSet, name: str, finding: Finding | None) -> Symbol | None:
    kind = finding.data.get("kind") if finding is not None else None
    if kind == "header":
        return ruleset.header(name)
    if kind == "namespace":
        return ruleset.namespaces.get(name)
    return ruleset.symbol(name) or (ruleset.namespaces.get(name) if finding is None else None)


def describe(resolved: Resolved, name: str, finding: Finding | None, markdown: bool = True) -> str | None:
    ruleset = resolved.engine.ruleset
    symbol = _lookup(ruleset, name, finding)
    if finding is None and (symbol is None or symbol.quiet):
        return None
    code = finding.rule if finding is not None else symbol.rule if symbol is not None else None
    if code is None or code not in ruleset.rules:
        return None
    rule = ruleset.rule(code)
    target = resolved.settings.target
    labels = {name: t.label for name, t in ruleset.targets.items()}
    here = labels.get(target, target)
    rows = _target_rows(ruleset, rule, symbol, target)
    if finding is not None:
        rating, message = finding.difficulty.label, finding.message
    else:
        assert symbol is not None
        outcome = ruleset.outcome(symbol, target)
        rating, message = outcome.difficulty.label, outcome.message
    why = _first_paragraph(rule.docs.why)
    fix = finding.fix if finding is not None else None
    if not markdown:
        what = f"{rule.subject} {_KINDS.get(symbol.kind, symbol.kind)}" if symbol is not None else rule.subject
        lines = [f"{name} — {what} ({rule.code} {rule.name})", f"{here}: {rating} — {message}"]
        lines += [f"  {label}: {counterpart} ({difficulty})" for label, counterpart, difficulty, _ in rows]
        if why:
            lines.append(f"Why: {why}")
        if fix is not None:
            lines.append(f"Fix: {fix.title} ({'safe' if fix.is_safe else 'unsafe: review'})")
        lines.append(ruleset.rule_url(rule.code))
        return "\n".join(lines)
    what = f"{rule.subject} {_KINDS.get(symbol.kind, symbol.kind)}" if symbol is not None else rule.subject
    parts = [
        f"**`{name}`** — {what} · [{rule.code}]({ruleset.rule_url(rule.code)}) `{rule.name}`",
        f"**{here}: {rating}** — {message}",
        "| target | counterpart | difficulty |\n|---|---|---|\n"
        + "\n".join(
            f"| {'**' + label + '** (configured)' if configured else label} | {counterpart} | {difficulty} |"
            for label, counterpart, difficulty, configured in rows
        ),
    ]
    if why:
        parts.append(f"**Why:** {why}")
    if fix is not None:
        parts.append(f"**Fix:** {fix.title} ({'safe' if fix.is_safe else 'unsafe: review the result'})")
    return "\n\n".join(parts)


def _target_rows(ruleset: RuleSet, rule: Rule, symbol: Symbol | None, target: str) -> list[tuple[str, str, str, bool]]:
    """One row per target in the rule data: (label, counterpart, difficulty, whether it is the configured one)."""
    rows = []
    for name, info in ruleset.targets.items():
        if symbol is not None:
            outcome = ruleset.outcome(symbol, name)
            mapping = ruleset.mapping(symbol, name)
            replacement = mapping.replacement if mapping is not None else ""
            if replacement == symbol.name:
                counterpart = "same name"
            elif replacement == REMOVED:
                counterpart = "not needed (removed)"
            elif replacement:
                counterpart = f"`{replacement}`"
            else:
                counterpart = rule.counterparts.get(name) or "none"
            difficulty = outcome.difficulty.label
        else:
            counterpart = rule.counterparts.get(name) or "—"
            level = rule.unmapped.get(name, rule.difficulty.get(name))
            difficulty = level.label if isinstance(level, Difficulty) else "—"
        rows.append((info.label, counterpart.replace("|", "\\|"), difficulty, name == target))
    return rows


def _first_paragraph(text: str) -> str:
    paragraph = text.strip().split("\n\n", 1)[0]
    return " ".join(paragraph.split())
