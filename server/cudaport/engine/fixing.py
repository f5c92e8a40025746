"""Rewriting a buffer: its fixes applied together in one pass and the result checked whole (plan_fix: what `fix`,
fix-all and the editor's commands apply), and `cudaport: ignore[...]` directives added for what is left
(add_ignores: `fix --add-ignore`), each checked by analysing the result."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from ..i18n import N_, t
from ..model.findings import CompatEntry, Edit, Finding, FixStyle
from ..model.records import field, record
from ..model.source import apply_edits
from . import fixplan
from .engine import Engine
from .judging import MAX_JUDGE_ROUNDS, NOT_JUDGED, unexpected

if TYPE_CHECKING:
    from ..analyzers.common import comments

NOT_READ_THERE = N_("a comment there would not be read as one")


@record
class IgnoreResult:
    """What `add_ignores` did to a buffer."""

    data: bytes
    directives: int = 0  # lines that got a directive, or more codes in theirs
    covered: int = 0  # findings those directives suppress
    refused: list[tuple[Finding, str]] = field(default_factory=list)  # findings none could cover, and why


@record
class FixPlan:
    """A buffer's fixes in one style: the new buffer, how many fixes, the findings left, and what the project's
    portability header or helper module must provide (dual-stack fixes only)."""

    data: bytes
    applied: int  # findings fixed
    remaining: list[Finding]
    compat: list[CompatEntry]
    withheld: list[Finding] = field(default_factory=list)  # fixes `check` offered that failed on the result


# ---- rewriting ------------------------------------------------------------------------------------------
def fix_data(
    engine: Engine, data: bytes, language: str, path: Path | None = None, unsafe: bool = False
) -> tuple[bytes, int, list[Finding]]:
    """Apply every fix allowed (safe ones, or all with `unsafe`) until nothing more applies, in the configured
    style. Returns the new buffer, the number of fixes applied and the findings left in it."""
    plan = plan_fix(engine, data, language, path, unsafe)
    return plan.data, plan.applied, plan.remaining


def plan_fix(
    engine: Engine,
    data: bytes,
    language: str,
    path: Path | None = None,
    unsafe: bool = False,
    style: FixStyle | None = None,
) -> FixPlan:
    """The fixed buffer and, for a dual-stack fix, what the portability header and helper module must add.

    The fixes `check` offers are applied together, in one pass (see fixplan), and the result is checked whole:
    it must be the same program (cudaport.consistency, on the parsed result) and its findings must be those
    before less the fixed ones, none new and none harder. A fix that fails is withheld (its finding becomes
    `manual`, saying why) and the rest is applied again; `withheld` lists them, as `check` had not.

    A dual-stack fix that only needs a line in the portability header (`#define cudaFree hipFree`) edits
    nothing here: its finding counts as fixed once the header has its entry, so it is not among `remaining`."""
    style = style or engine.settings.fix_style
    judge = engine.judge_for(language)
    findings, tree = engine.check_data(data, language, path)
    withheld: list[Finding] = []
    new_data, remaining = data, findings
    selection = fixplan.Selection()
    for _ in range(MAX_JUDGE_ROUNDS + 1):
        selection = fixplan.select(findings, unsafe, style)
        if not selection.edits:
            new_data, remaining = data, [f for f in findings if f not in selection.subsumed]
            break
        new_data = apply_edits(data, selection.edits)
        remaining, new_tree = engine.check_data(new_data, language, path)
        problems = judge.judge_edits(data, tree, selection.edits, new_data, new_tree).problems
        problems += unexpected(findings, selection, remaining)
        if not problems:
            break
        for finding, reason in judge.at_fault(problems, selection, data, tree, style):
            judge.withhold(finding, style, reason)
            withheld.append(finding)
    else:  # still not the same program: nothing is applied
        for finding in selection.applied:
            judge.withhold(finding, style, t(NOT_JUDGED))
            withheld.append(finding)
        selection, new_data, remaining = fixplan.Selection(), data, findings
    compat: dict[CompatEntry, None] = {}  # in the order found, each once
    for finding in selection.fixed:
        fix = fixplan.chosen(finding, style, unsafe)
        if fix is not None:
            compat.update(dict.fromkeys(fix.compat))
    applied = len(selection.fixed)
    if style is FixStyle.DUAL_STACK:
        by_header = [f for f in remaining if (fix := fixplan.chosen(f, style, unsafe)) is not None and not fix.edits]
        for finding in by_header:
            compat.update(dict.fromkeys(finding.dual.compat if finding.dual is not None else ()))
        applied += len(by_header)
        fixed = {id(f) for f in by_header}
        remaining = [f for f in remaining if id(f) not in fixed]
    return FixPlan(new_data, applied, remaining, list(compat), withheld)


def add_ignores(engine: Engine, data: bytes, language: str, path: Path | None, findings: list[Finding]) -> IgnoreResult:
    """`cudaport: ignore[CODE]` for each of `findings`, one directive per line in the file's comment syntax
    (comments.py; a notebook's cells through their analyzer). Each directive is checked by analysing the result:
    one the analysis would not honour where it went is taken back and its findings are refused."""
    if not findings:
        return IgnoreResult(data)
    from ..analyzers.common import comments  # only `fix --add-ignore` needs it

    analyzer = engine.analyzer(language)
    tree = analyzer.parse(data)
    starts = [(f.start, f.rule) for f in findings]
    placer = getattr(analyzer, "suppression_edits", None)
    if placer is not None:
        placed: comments.Placed = placer(data, tree, starts)
    else:
        root = tree.root_node if tree is not None else None
        placed = comments.suppression_edits(data, root, starts, comments.syntax_for(language))
    refused = [(findings[i], why) for i, why in placed.refused]
    edits = placed.edits
    while edits:
        new_data = apply_edits(data, [Edit(s, e, t.decode("utf-8")) for (s, e, t), _ in edits])
        remaining, _ = engine.check_data(new_data, language, path)
        failed = _uncovered(edits, findings, remaining)
        if not failed:
            return IgnoreResult(new_data, len(edits), sum(len(ix) for _, ix in edits), refused)
        refused += [(findings[i], t(NOT_READ_THERE)) for k in sorted(failed) for i in edits[k][1]]
        edits = [e for k, e in enumerate(edits) if k not in failed]
    return IgnoreResult(data, refused=refused)


def _uncovered(
    edits: list[tuple[comments.ByteEdit, list[int]]], findings: list[Finding], remaining: list[Finding]
) -> set[int]:
    """The edits (by index) some of whose findings are still reported once the edits are applied."""
    ordered = sorted(range(len(edits)), key=lambda k: edits[k][0][0])
    moves = []  # (where the edit's text ends in the new buffer, how far it moved what follows)
    shift = 0
    for k in ordered:
        start, end, text = edits[k][0]
        shift += len(text) - (end - start)
        moves.append((end + shift, shift))
    still = set()
    for finding in remaining:
        offset = finding.start
        for text_end, moved in reversed(moves):
            if offset >= text_end:
                offset -= moved
                break
        still.add((finding.rule, offset))
    return {
        k
        for k, (_, indexes) in enumerate(edits)
        if any((findings[i].rule, findings[i].start) in still for i in indexes)
    }
