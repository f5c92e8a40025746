"""Judging fixes whole, for every front end: which fixes of a buffer `check` counts and `fix` applies, once their
result (predicted, or parsed) is checked to be the same program (consistency) and to have the findings before less
the fixed ones; the fixes that fail are withheld, their findings `manual`, saying why."""

from __future__ import annotations

import bisect
from collections.abc import Sequence
from typing import Any

from ..analyzers.common.base import Analyzer
from ..i18n import N_, t
from ..model.findings import Difficulty, Edit, Finding, Fix, FixStyle
from . import consistency, fixplan

# Rounds of withholding the fixes whose result fails a check (each round drops the fixes at fault and judges the
# rest again); a buffer that still fails after them gets none of its fixes.
MAX_JUDGE_ROUNDS = 4
OVERLAPS = N_("its rewrite overlaps another rewrite on the same code")
NOT_JUDGED = N_("the rewrites of this file together do not leave it consistent")
WITHHELD = N_("{message}; not rewritten automatically: {reason}")


class Judge:
    """The fixes of one kind of file judged: its analyzer reads the names and parses the result; `configured` is
    the fix style the configuration asks for (the one whose withheld fixes make a finding manual)."""

    def __init__(self, analyzer: Analyzer, configured: FixStyle) -> None:
        self.analyzer = analyzer
        self.configured = configured

    def judge_findings(self, findings: list[Finding], data: bytes, tree: Any) -> None:
        """Withhold the fixes whose result, all applied together as `fix` applies them, is not the same program
        (cudaport.consistency), predicted from the text before where it can be: what `check` counts as fixable is
        then what `fix` applies. Also the fixes that overlap another's without lying inside it."""
        styles = [FixStyle.RENAME] if self.configured is FixStyle.RENAME else [FixStyle.DUAL_STACK]
        for style in styles:
            if not any(fixplan.chosen(f, style, False) is not None for f in findings):
                continue
            for _ in range(MAX_JUDGE_ROUNDS):
                selection = fixplan.select(findings, style=style)
                for finding in selection.conflicts:
                    self.withhold(finding, style, t(OVERLAPS))
                if not selection.edits:
                    break
                verdict = self.judge_edits(data, tree, selection.edits)
                if not verdict.problems:
                    break
                for finding, reason in self.at_fault(verdict.problems, selection, data, tree, style):
                    self.withhold(finding, style, reason)
            else:
                for finding in fixplan.select(findings, style=style).applied:
                    self.withhold(finding, style, t(NOT_JUDGED))

    def judge_edits(
        self,
        data: bytes,
        tree: Any,
        edits: Sequence[Edit],
        after: bytes | None = None,
        after_tree: Any | None = None,
    ) -> consistency.Verdict:
        """Whether the text `edits` make of `data` is still the same program (see cudaport.consistency)."""
        reader = getattr(self.analyzer, "names", None)
        return consistency.judge(reader, self.analyzer.parse, data, tree, edits, after, after_tree)

    def judge_fix(self, data: bytes, tree: Any, fix: Fix) -> str | None:
        """Why applying `fix` alone (a quick fix) would not leave the same program, or None."""
        if not fix.edits:
            return None
        problems = self.judge_edits(data, tree, fix.edits).problems
        return problems[0].reason if problems else None

    def at_fault(
        self,
        problems: list[consistency.Problem],
        selection: fixplan.Selection,
        data: bytes,
        tree: Any,
        style: FixStyle,
    ) -> list[tuple[Finding, str]]:
        """The applied fixes that caused each problem: those whose edits touch its names, or, for a syntax error or
        a finding the result gained, those whose text the result holds there; all of them when none can be told."""
        reader = getattr(self.analyzer, "names", None)
        spans = dict(zip(selection.edits, fixplan.after_spans(selection.edits), strict=True))
        out: dict[int, tuple[Finding, str]] = {}
        for problem in problems:
            found = []
            for finding in selection.applied:
                fix = fixplan.chosen(finding, style, True)
                edits = fix.edits if fix is not None else ()
                if problem.words and reader is not None:
                    touched = reader.affected(data, tree.root_node, list(edits))
                    if problem.words & (touched.words | touched.strings):
                        found.append(finding)
                elif problem.span is not None:
                    lo, hi = problem.span
                    if any(e in spans and spans[e][0] <= hi and lo <= spans[e][1] for e in edits):
                        found.append(finding)
            for finding in found or selection.applied:
                out.setdefault(id(finding), (finding, problem.reason))
        return list(out.values())

    def withhold(self, finding: Finding, style: FixStyle, reason: str) -> None:
        """The finding keeps no fix of `style`: a person makes the change, for the reason given."""
        if style is FixStyle.DUAL_STACK:
            finding.dual = None
        else:
            if finding.dual is finding.fix:  # the same edit serves both styles (a cast both compilers accept)
                finding.dual = None
            finding.fix = None  # the counterpart (`replacement`) stays what it is: only the rewrite is withheld
        if style is self.configured:
            finding.difficulty = max(finding.difficulty, Difficulty.MANUAL)
            finding.message = t(WITHHELD, message=finding.message, reason=reason)
            finding.data = {**finding.data, "withheld": reason}


def unexpected(
    findings: list[Finding], selection: fixplan.Selection, remaining: list[Finding]
) -> list[consistency.Problem]:
    """The findings the result gains, or has harder, in the text the fixes wrote: an argument a rewrite writes
    twice with an unported name in it, say. Each rewrite's text is compared with what it replaced (the findings
    there that no fix ports, which a rewrite may move: a call's arguments change places). A portable one is no
    work left (the target's own name a rewrite writes)."""
    edits = [e for e in selection.edits if e.text]
    if not edits:
        return []
    fixed = {id(f) for f in selection.fixed}
    reviewed = {id(f) for f in findings if f.fix is not None and not f.fix.is_safe}  # a person checks their result
    before = sorted(findings, key=lambda f: f.start)
    starts = [f.start for f in before]
    # where the findings no fix ports land: one placed by the whole file (CP1032 at the first runtime call)
    # stays where it was and names the call's new spelling
    moved = fixplan.moved_all(starts, selection.edits)
    placed: dict[tuple[str, int], Difficulty] = {}
    for finding, landed in zip(before, moved, strict=True):
        if id(finding) not in fixed or id(finding) in reviewed:
            key = (finding.rule, landed)
            placed[key] = max(placed.get(key, Difficulty.PORTABLE), finding.difficulty)
    after = sorted(remaining, key=lambda f: f.start)
    after_starts = [f.start for f in after]
    problems = []
    for edit, (lo, hi) in zip(edits, fixplan.after_spans(edits), strict=True):
        written = after[bisect.bisect_left(after_starts, lo) : bisect.bisect_left(after_starts, hi)]
        written = [f for f in written if f.difficulty is not Difficulty.PORTABLE]
        if not written:
            continue
        was: dict[tuple[str, str], list[Difficulty]] = {}
        for finding in before[bisect.bisect_left(starts, edit.start) : bisect.bisect_left(starts, edit.end)]:
            if id(finding) not in fixed or id(finding) in reviewed:
                was.setdefault((finding.rule, finding.symbol), []).append(finding.difficulty)
        for finding in written:
            if placed.get((finding.rule, finding.start), Difficulty.PORTABLE) >= finding.difficulty:
                continue
            earlier = was.get((finding.rule, finding.symbol))
            if not earlier:
                reason = t("the rewrite would write {name} again, which needs a person", name=f"`{finding.symbol}`")
            elif finding.difficulty > max(earlier):
                reason = t("the result would make a finding harder: {message}", message=finding.message)
            else:
                earlier.remove(max(earlier))
                continue
            problems.append(consistency.Problem(reason, frozenset(), (finding.start, finding.end)))
    return problems
