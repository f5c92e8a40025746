"""Hover over a CUDA name: what it is, its counterpart and difficulty on every target the rule data knows, how it
rates for the configured target here (and why), and the fix cudaport offers.

Every row of the table is a rating of this construct here, by the analysis that makes the diagnostics, run with
each target's context (Engine.rate_across_targets): the hover never rates anything itself."""

from __future__ import annotations

import re

from lsprotocol import types

from ..i18n import N_, t
from ..knowledge.ruleset import REMOVED, Rule, RuleSet, Symbol
from ..model.findings import Difficulty, Finding
from ..model.words import difficulty_word
from .languages import profile
from .positions import to_offset, to_range
from .store import Snapshot

_WORD = re.compile(rb"[A-Za-z_][A-Za-z0-9_]*")
_KINDS = {
    "function": N_("function"),
    "type": N_("type"),
    "device_function": N_("device function"),
    "enum_value": N_("enum value"),
    "define": N_("macro"),
    "member": N_("member"),
    "guard": N_("guard"),
    "namespace": N_("namespace"),
    "header": N_("header"),
    "pattern": N_("construct"),
}
NOTHING = N_("nothing to port")  # the analysis for a target finds nothing to change here


def hover(snapshot: Snapshot, position: types.Position) -> types.Hover | None:
    """What the CUDA name under the cursor is and how it ports (None: nothing cudaport knows is there)."""
    if snapshot.language is None or snapshot.skipped is not None:
        return None
    unit = snapshot.unit
    offset = to_offset(snapshot.lines, position, unit)
    finding = _finding_at(snapshot, offset)
    if finding is not None:
        name, span = finding.symbol, (finding.start, finding.end)
    else:
        word = _word_at(snapshot, offset)
        if word is None:
            return None
        start, end, name = word
        span = (start, end)
        symbol = _lookup(snapshot.engine.ruleset, name, None)
        if symbol is None or symbol.quiet:
            return None
    # No tree: the document's first analysis is under way off the message loop (cudaport.lsp.background). Rating
    # the name for every target would parse the whole buffer here: the rule data's description alone, for now.
    ratings = rate(snapshot, span, finding, name) if snapshot.tree is not None else {}
    if finding is None and ratings:
        # No diagnostic here (a suppressed line, a rule switched off): the analysis still rates the name.
        finding = ratings.get(snapshot.resolved.settings.target)
        if finding is None and not any(ratings.values()):
            return None  # a known name where it does not count (a user's own function of that name, say)
    markdown = snapshot.capabilities.markdown_hover
    text = describe(snapshot, name, finding, ratings, markdown)
    if text is None:
        return None
    kind = types.MarkupKind.Markdown if markdown else types.MarkupKind.PlainText
    return types.Hover(
        contents=types.MarkupContent(kind=kind, value=text),
        range=to_range(snapshot.lines, span[0], span[1], unit),
    )


def rate(snapshot: Snapshot, span: tuple[int, int], finding: Finding | None, name: str) -> dict[str, Finding | None]:
    """Each target's finding for the construct at `span` (None: that target's analysis finds nothing to port).
    The configured target's is the diagnostic itself when there is one."""
    assert snapshot.language is not None
    engine = snapshot.engine
    configured = snapshot.resolved.settings.target
    targets = [t for t in engine.ruleset.targets if finding is None or t != configured]
    found = engine.rate_across_targets(snapshot.data, snapshot.language, snapshot.path, snapshot.tree, span, targets)
    ratings = {t: _same_construct(found[t], span, finding.rule if finding else None, name) for t in targets}
    if finding is not None:
        ratings[configured] = finding
    return ratings


def _same_construct(findings: list[Finding], span: tuple[int, int], rule: str | None, name: str) -> Finding | None:
    """Among a target's findings at `span`, the one for the same construct: the same rule where one is known
    (cudaMemcpy's call and the runtime's initialisation begin at one name), else the one naming it."""
    start, end = span
    here = [f for f in findings if f.start <= start < max(f.end, f.start + 1) or f.start == start]
    same = [f for f in here if f.rule == rule] if rule is not None else [f for f in here if name in f.symbol]
    if not same and rule is not None:
        same = [f for f in here if f.symbol == name and f.start == start and f.end == end]
    return min(same, key=lambda f: (f.start != start, f.end - f.start)) if same else None


def _finding_at(snapshot: Snapshot, offset: int) -> Finding | None:
    findings = snapshot.findings_overlapping(offset, offset)
    inside = [f for f in findings if f.start <= offset < f.end]
    if not inside:
        inside = [f for f in findings if f.start <= offset <= f.end]
    # The innermost one: a name inside a rewritten call rather than the whole call.
    return min(inside, key=lambda f: f.end - f.start) if inside else None


_LONGEST_NAME = 256


def _word_at(snapshot: Snapshot, offset: int) -> tuple[int, int, str] | None:
    """A name under the cursor, outside comments and strings (no finding there: a rule that is switched off, a
    suppressed line, a name in a position that does not count)."""
    lines = snapshot.lines
    line = lines.line_of(offset)
    # Around the cursor only: a line can be a 20 MB buffer, and no name the rules know is this long (a word that
    # reaches the edge of the window is longer).
    start = max(lines.line_start(line), offset - _LONGEST_NAME)
    end = min(lines.line_end(line), offset + _LONGEST_NAME)
    for match in _WORD.finditer(snapshot.data, start, end):
        if match.start() <= offset <= match.end():
            if (match.start() == start and start > lines.line_start(line)) or (
                match.end() == end and end < lines.line_end(line)
            ):
                return None
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


def describe(
    snapshot: Snapshot, name: str, finding: Finding | None, ratings: dict[str, Finding | None], markdown: bool = True
) -> str | None:
    ruleset = snapshot.engine.ruleset
    rated = finding or next((f for f in ratings.values() if f is not None), None)
    code = rated.rule if rated is not None else None
    if code is None or code not in ruleset.rules:
        return None
    rule = ruleset.rule(code)
    symbol = _lookup(ruleset, rated.symbol if rated is not None else name, rated)
    target = snapshot.resolved.settings.target
    here = t(ruleset.targets[target].label) if target in ruleset.targets else target
    if finding is not None:
        rating, message = difficulty_word(finding.difficulty), finding.message
    else:
        rating, message = t(NOTHING), t("the analysis for {target} finds nothing to change here", target=here)
    rows = [
        (t(info.label), *_row(ruleset, rule, symbol, ratings.get(t_name), t_name), t_name == target)
        for t_name, info in ruleset.targets.items()
    ]
    # Rule prose is data, kept in English in the rule set: translated here, where it is shown.
    why = _first_paragraph(t(rule.docs.why)) if rule.docs.why else ""
    fix = finding.fix if finding is not None else None
    subject = t(rule.subject)
    what = t("{subject} {kind}", subject=subject, kind=t(_kind(symbol.kind))) if symbol is not None else subject
    if not markdown:
        lines = [f"{name} — {what} ({rule.code} {rule.name})", f"{here}: {rating} — {message}"]
        lines += [f"  {label}: {counterpart} ({difficulty})" for label, counterpart, difficulty, _ in rows]
        if why:
            lines.append(t("Why: {why}", why=why))
        if fix is not None:
            safety = t("safe") if fix.is_safe else t("unsafe: review")
            lines.append(t("Fix: {title} ({safety})", title=fix.title, safety=safety))
        lines.append(ruleset.rule_url(rule.code))
        return "\n".join(lines)
    parts = [
        f"**`{name}`** — {what} · [{rule.code}]({ruleset.rule_url(rule.code)}) `{rule.name}`",
        f"**{here}: {rating}** — {message}",
        t("| target | counterpart | difficulty |")
        + "\n|---|---|---|\n"
        + "\n".join(
            f"| {_configured(label) if configured else label} | {counterpart} | {difficulty} |"
            for label, counterpart, difficulty, configured in rows
        ),
    ]
    if why:
        parts.append(t("**Why:** {why}", why=why))
    if fix is not None:
        safety = t("safe") if fix.is_safe else t("unsafe: review the result")
        parts.append(t("**Fix:** {title} ({safety})", title=fix.title, safety=safety))
    return "\n\n".join(parts)


def _configured(label: str) -> str:
    return t("**{target}** (configured)", target=label)


def _kind(kind: str) -> str:
    """A symbol kind of the rule data as a person says it (English, for t())."""
    return _KINDS.get(kind, kind)


def _row(ruleset: RuleSet, rule: Rule, symbol: Symbol | None, finding: Finding | None, target: str) -> tuple[str, str]:
    """(counterpart, difficulty) of one target's row: the difficulty is that target's finding's; the counterpart is
    what its fix writes, else the counterpart the rule data names."""
    if finding is None:
        return "—", t(NOTHING)
    counterpart = ""
    replacement = finding.replacement
    if replacement is None and symbol is not None:
        replacement = ruleset.mapping(symbol, target).replacement or None
    if replacement is not None:
        if replacement == finding.symbol:
            counterpart = t("same name")
        elif replacement in ("", REMOVED):
            counterpart = t("not needed (removed)")
        else:
            counterpart = f"`{replacement}`"
    if not counterpart:
        portable = finding.difficulty == Difficulty.PORTABLE
        named = rule.counterparts.get(target)
        counterpart = t(named) if named else (t("as it is") if portable else t("none"))
    return counterpart.replace("|", "\\|"), difficulty_word(finding.difficulty)


def _first_paragraph(text: str) -> str:
    paragraph = text.strip().split("\n\n", 1)[0]
    return " ".join(paragraph.split())
