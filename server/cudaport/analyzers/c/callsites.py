"""Calls at their sites: the whole-call rewrite (calls.toml) that fits a call, the arguments of such a rewrite
written as they read once ported, and the calls and statements left whole for a person, whose arguments keep
their CUDA names."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Iterable

from tree_sitter import Node

from ...i18n import t
from ...knowledge.ruleset import RuleSet
from ...model.findings import Difficulty, Edit, Finding, Fix
from ...model.source import apply_edits
from ..common.base import whole_words
from ..common.syntax import ancestor, call_of, node_at
from .calls import CallRewrite, CallSite
from .scan import Scan

# A statement with one of these left for a person keeps its other CUDA names: `cudaStream_t s =
# at::cuda::getStreamFromPool();` must not become half ACL, half CUDA.
_WHOLE_STATEMENT_RULES = frozenset({"CP1040"})
_STATEMENTS = frozenset({"declaration", "expression_statement", "return_statement", "field_declaration"})
_SIDE_EFFECTS = frozenset({"call_expression", "update_expression", "assignment_expression", "comma_expression"})


def fit_call(scan: Scan, node: Node, calls: tuple[CallRewrite, ...]) -> tuple[CallRewrite, Fix] | None:
    """The first template that fits this call, with its edit; None when none does (or it is no call)."""
    expression = call_of(node)
    if expression is None:
        return None
    arguments = expression.child_by_field_name("arguments")
    if arguments is None or arguments.has_error:
        return None
    nodes = [a for a in arguments.named_children if a.type != "comment"]
    args = [scan.data[a.start_byte : a.end_byte].decode() for a in nodes]

    def pure(index: int) -> bool:
        return _side_effect_free(nodes[index - 1])

    for call in calls:
        if any(_mentions(scan.data, word) for word in call.unless_file_mentions):
            continue
        rendered = call.render(args, pure=pure)
        if rendered is None:
            continue
        start, end = expression.start_byte, expression.end_byte
        fix = Fix(title=call.title(rendered), edits=(Edit(start, end, rendered),), applicability=call.applicability)
        spans = tuple((a.start_byte, a.end_byte) for a in nodes)
        scan.call_sites.append(CallSite(call, start, end, spans, tuple(args), pure, rendered))
        return call, fix
    return None


class ArgumentPorter:
    """Folds the safe renames inside a rewritten call's arguments into its rewrite. `find_names` finds the rule
    data's names in a scan, for an argument that a ranged analysis saw only part of."""

    def __init__(self, ruleset: RuleSet, find_names: Callable[[Scan], Iterable[Finding]]) -> None:
        self.ruleset = ruleset
        self.find_names = find_names

    def port(self, scan: Scan, findings: list[Finding]) -> None:
        """A call rewritten whole writes its arguments as they read once ported (`aclrtMemcpy(p, n, q, n,
        ACL_MEMCPY_HOST_TO_DEVICE)`), with the safe renames of the names inside them: its title shows what the
        fix writes, and one pass of `fix` gives what two gave (the CUDA copy kind was renamed on the second)."""
        by_edit: dict[tuple[int, int, str], Finding] = {}
        for finding in findings:
            if finding.fix is not None and len(finding.fix.edits) == 1:
                edit = finding.fix.edits[0]
                by_edit[(edit.start, edit.end, edit.text)] = finding
        by_start = sorted(findings, key=lambda f: f.start)  # an argument's findings by bisection, not a pass each
        starts = [f.start for f in by_start]
        for site in sorted(scan.call_sites, key=lambda s: s.end - s.start):  # a call inside an argument first
            call = by_edit.get((site.start, site.end, site.text))
            if call is None or call.fix is None:
                continue
            stuck = self._stuck_in_repeated(site, by_start, starts)
            if stuck is not None:
                call.fix = None
                call.difficulty = max(call.difficulty, Difficulty.MANUAL)
                call.message = t(
                    "{message}; the rewrite writes `{argument}` twice, and `{name}` in it needs a person first",
                    message=call.message,
                    argument=stuck[0],
                    name=stuck[1],
                )
                inside = [f for f in findings if f.fix is not None or f.dual is not None]
                leave_calls_whole([(site.start, site.end, call.symbol)], inside)
                continue
            written = [
                self._ported_argument(scan, by_start, starts, lo, hi, spelled)
                for (lo, hi), spelled in zip(site.arguments, site.spelled, strict=True)
            ]
            if written == list(site.spelled):
                continue
            rendered = site.rewrite.render(site.spelled, pure=site.pure, written=written)
            if rendered is None:
                continue
            applicability = call.fix.applicability
            call.fix = Fix(site.rewrite.title(rendered), (Edit(site.start, site.end, rendered),), applicability)

    @staticmethod
    def _stuck_in_repeated(site: CallSite, by_start: list[Finding], starts: list[int]) -> tuple[str, str] | None:
        """An argument the template writes twice with a finding in it that no safe fix ports: the rewrite would
        make a second copy of work left for a person. (argument, name), or None."""
        for index in site.rewrite.repeated:
            if index > len(site.arguments):
                continue
            lo, hi = site.arguments[index - 1]
            for finding in by_start[bisect.bisect_left(starts, lo) : bisect.bisect_left(starts, hi)]:
                unported = finding.fix is None or not finding.fix.is_safe
                if unported and finding.difficulty > Difficulty.PORTABLE:
                    return " ".join(site.spelled[index - 1].split()), finding.symbol
        return None

    def _ported_argument(
        self, scan: Scan, by_start: list[Finding], starts: list[int], lo: int, hi: int, spelled: str
    ) -> str:
        """An argument with the safe fixes of the findings inside it applied (those that do not overlap);
        `by_start` holds the findings sorted by their start, `starts` those starts."""
        if scan.ranges is not None and not any(a <= lo and hi <= b for a, b in scan.ranges):
            # A ranged analysis that saw only part of the call (an edit on one line of a call over several): the
            # argument's own names are looked for as a whole-file analysis finds them.
            inner = Scan(scan.data, scan.root, scan.context, self.ruleset, [(lo, hi)])
            found = list(self.find_names(inner))
            self.port(inner, found)
        else:
            found = by_start[bisect.bisect_left(starts, lo) : bisect.bisect_left(starts, hi)]
        edits: list[Edit] = []
        taken = lo
        for finding in sorted(found, key=Finding.sort_key):
            fix = finding.fix
            if fix is None or not fix.is_safe or not all(lo <= e.start and e.end <= hi for e in fix.edits):
                continue
            ordered = sorted(fix.edits, key=lambda e: (e.start, e.end))
            if ordered[0].start < taken:
                continue  # overlaps a fix already taken (a rename inside a call rewritten whole)
            edits.extend(ordered)
            taken = ordered[-1].end
        if not edits:
            return spelled
        piece = apply_edits(scan.data[lo:hi], [Edit(e.start - lo, e.end - lo, e.text) for e in edits])
        return piece.decode("utf-8", "replace")


def leave_manual_calls_whole(scan: Scan, findings: list[Finding]) -> None:
    """The calls the finders left for a person (`scan.manual_calls`), and the statements around a finding of a
    whole-statement rule left for a person, keep every CUDA name inside them."""
    for finding in findings:
        if finding.rule in _WHOLE_STATEMENT_RULES and finding.fix is None and finding.difficulty == Difficulty.MANUAL:
            statement = ancestor(node_at(scan.root, finding.start, finding.end), _STATEMENTS)
            if statement is not None:
                scan.manual_calls.append((statement.start_byte, statement.end_byte, finding.symbol))
    if scan.manual_calls:
        leave_calls_whole(scan.manual_calls, findings)


def leave_calls_whole(calls: list[tuple[int, int, str]], findings: list[Finding]) -> None:
    """A call a person rewrites keeps every argument as it is: renaming `cudaMemcpyHostToDevice` inside a
    `cudaMemcpy` left for a person would leave a line half CUDA, half the target's, that builds for neither."""
    for finding in findings:
        for start, end, callee in calls:
            if start <= finding.start < end and finding.symbol != callee:
                finding.fix = None
                finding.dual = None
                finding.replacement = None
                if finding.difficulty < Difficulty.MANUAL:
                    finding.difficulty = Difficulty.MANUAL
                finding.message = t(
                    "{message}; left as it is with `{callee}`, which a person rewrites",
                    message=finding.message,
                    callee=callee,
                )
                break


def _side_effect_free(node: Node) -> bool:
    """An argument that may be written twice: no calls (sizeof is not one), increments or assignments."""
    stack = [node]
    while stack:
        current = stack.pop()
        if current.type in _SIDE_EFFECTS:
            return False
        stack.extend(current.named_children)
    return True


def _mentions(data: bytes, word: str) -> bool:
    """Whether the buffer names `word` as a whole word (bytes.find, stopping at the first: a look-behind regex
    would try every position of the buffer, for every call an editor re-analyses)."""
    return next(whole_words(data, word.encode()), None) is not None
