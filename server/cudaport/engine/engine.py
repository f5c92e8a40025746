"""The one engine behind the CLI, the language server and the report: analyse a buffer, filter by configuration
and suppressions, assign severities, and rewrite."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..analyzers.common.base import Analyzer, BadInput, FileContext, search_windows
from ..analyzers.common.presence import Presence
from ..analyzers.common.suppress import Suppressions, find_suppressions
from ..i18n import N_, t
from ..knowledge.filekinds import file_kind, language_for
from ..knowledge.ruleset import RuleSet, load_ruleset
from ..model.findings import CompatEntry, Difficulty, Edit, Finding, Fix, FixStyle
from ..model.source import RAW, LineIndex, SkipFile, SourceFile, apply_edits, read_source
from ..project.config import Settings
from ..project.files import SourcePath
from ..project.includes import ProjectIndex
from . import consistency, dualplan, fixplan

if TYPE_CHECKING:
    from ..analyzers.common import comments

# Rounds of withholding the fixes whose result fails a check (each round drops the fixes at fault and judges the
# rest again); a buffer that still fails after them gets none of its fixes.
MAX_JUDGE_ROUNDS = 4
NOT_READ_THERE = N_("a comment there would not be read as one")
OVERLAPS = N_("its rewrite overlaps another rewrite on the same code")
NOT_JUDGED = N_("the rewrites of this file together do not leave it consistent")
WITHHELD = N_("{message}; not rewritten automatically: {reason}")


@dataclass
class IgnoreResult:
    """What `add_ignores` did to a buffer."""

    data: bytes
    directives: int = 0  # lines that got a directive, or more codes in theirs
    covered: int = 0  # findings those directives suppress
    refused: list[tuple[Finding, str]] = field(default_factory=list)  # findings none could cover, and why


@dataclass
class FileResult:
    label: str
    path: Path | None
    language: str
    source: SourceFile | None = None
    findings: list[Finding] = field(default_factory=list)
    skipped: str | None = None
    error: str | None = None

    _index: LineIndex | None = None

    @property
    def lines(self) -> LineIndex:
        if self._index is None:
            self._index = LineIndex(self.source.data if self.source is not None else b"")
        return self._index


_FACTORIES: dict[str, Callable[[RuleSet], Analyzer]] = {}


def register_analyzer(language: str, factory: Callable[[RuleSet], Analyzer]) -> None:
    _FACTORIES[language] = factory


# The analyzers of the sources (and notebooks, whose cells are Python), imported when a file of their language is
# first analysed: a .cu check never loads the Python analyzer, nor a .py check the C one (each module and its
# tables cost start-up time). The inventory's analyzers are registered by analyzers.inventory.
_SOURCE_ANALYZERS = {
    "c": "cudaport.analyzers.c.analyzer:CFamilyAnalyzer",
    "python": "cudaport.analyzers.python.analyzer:PythonAnalyzer",
    "notebook": "cudaport.analyzers.notebook:NotebookAnalyzer",
}


def _lazy(target: str) -> Callable[[RuleSet], Analyzer]:
    module_name, class_name = target.split(":")

    def build(ruleset: RuleSet) -> Analyzer:
        analyzer: Analyzer = getattr(import_module(module_name), class_name)(ruleset)
        return analyzer

    return build


def _default_factories() -> None:
    for language, target in _SOURCE_ANALYZERS.items():
        if language not in _FACTORIES:
            register_analyzer(language, _lazy(target))
    from ..analyzers.inventory import ANALYZERS, factory

    for language in ANALYZERS:
        if language not in _FACTORIES:
            register_analyzer(language, factory(language))


class Engine:
    """Holds the rule data and one analyzer per language. Analyzers keep a tree-sitter parser, which is not
    thread-safe: use one Engine per thread (or guard it), one per process with --jobs."""

    def __init__(self, settings: Settings, project: ProjectIndex | None = None) -> None:
        self.settings = settings
        self.ruleset = load_ruleset(settings.extra_rules).pinned(settings.versions)
        self.project = project
        self._analyzers: dict[str, Analyzer] = {}
        _default_factories()

    def analyzer(self, language: str) -> Analyzer:
        analyzer = self._analyzers.get(language)
        if analyzer is None:
            factory = _FACTORIES.get(language)
            if factory is None:
                raise KeyError(f"no analyzer for {language!r}")
            analyzer = factory(self.ruleset)
            self._analyzers[language] = analyzer
        return analyzer

    def supports(self, language: str) -> bool:
        return language in _FACTORIES

    # ---- analysis -------------------------------------------------------------------------------------------
    def context_for(self, path: Path | None, data: bytes | None, target: str | None = None) -> FileContext:
        target = target or self.settings.target
        context = FileContext(target, str(path) if path else "", project=self.project, file=path, data=data)
        context.dual = dualplan.plan_for(self.settings, self.ruleset, path)
        return context

    def check_data(
        self,
        data: bytes,
        language: str,
        path: Path | None = None,
        tree: Any | None = None,
        context: FileContext | None = None,
        ranges: list[tuple[int, int]] | None = None,
    ) -> tuple[list[Finding], Any]:
        """Findings for a buffer (filtered, suppressed, with severities) and the tree they came from."""
        analyzer = self.analyzer(language)
        if tree is None:
            tree = analyzer.parse(data)
        if context is None:
            context = self.context_for(path, data)
        findings = analyzer.analyze(data, tree, context, ranges)
        return self.finalize(findings, data, tree, language, ranges, context), tree

    def finalize(
        self,
        findings: list[Finding],
        data: bytes,
        tree: Any | None,
        language: str | None = None,
        ranges: list[tuple[int, int]] | None = None,
        context: FileContext | None = None,
    ) -> list[Finding]:
        """Enabled, unsuppressed findings with their severities; with `ranges`, the findings are those of a ranged
        analysis (they start in the ranges), and only the suppressions that can cover them are looked for."""
        settings = self.settings
        kept = [f for f in findings if settings.rule_enabled(f.rule)]
        if kept:
            kind = file_kind(language) if language is not None else None
            above = kind is not None and kind.comment_above
            windows = search_windows(data, ranges) if ranges is not None else None
            has = (lambda word: context.has(data, word)) if context is not None else None
            root = tree.root_node if tree is not None else None
            suppressions = find_suppressions(data, root, above, windows, has)
            if suppressions:
                kept = _unsuppressed(kept, suppressions, data)
        if tree is not None and language is not None and kept:
            # a ranged analysis judges the fixes it found: C's verdicts depend only on the statement rewritten
            self._judge(kept, data, tree, language)
        for finding in kept:
            finding.severity = settings.severity_for(finding.rule, finding.difficulty)
        return kept

    # ---- judging fixes whole ---------------------------------------------------------------------------------
    def _judge(self, findings: list[Finding], data: bytes, tree: Any, language: str) -> None:
        """Withhold the fixes whose result, all applied together as `fix` applies them, is not the same program
        (cudaport.consistency), predicted from the text before where it can be: what `check` counts as fixable is
        then what `fix` applies. Also the fixes that overlap another's without lying inside it."""
        styles = [FixStyle.RENAME] if self.settings.fix_style is FixStyle.RENAME else [FixStyle.DUAL_STACK]
        for style in styles:
            if not any(fixplan.chosen(f, style, False) is not None for f in findings):
                continue
            for _ in range(MAX_JUDGE_ROUNDS):
                selection = fixplan.select(findings, style=style)
                for finding in selection.conflicts:
                    self.withhold(finding, style, t(OVERLAPS))
                if not selection.edits:
                    break
                verdict = self.judge_edits(data, tree, language, selection.edits)
                if not verdict.problems:
                    break
                for finding, reason in self._at_fault(verdict.problems, selection, data, tree, language, style):
                    self.withhold(finding, style, reason)
            else:
                for finding in fixplan.select(findings, style=style).applied:
                    self.withhold(finding, style, t(NOT_JUDGED))

    def judge_edits(
        self,
        data: bytes,
        tree: Any,
        language: str,
        edits: Sequence[Edit],
        after: bytes | None = None,
        after_tree: Any | None = None,
    ) -> consistency.Verdict:
        """Whether the text `edits` make of `data` is still the same program (see cudaport.consistency)."""
        analyzer = self.analyzer(language)
        reader = getattr(analyzer, "names", None)
        return consistency.judge(reader, analyzer.parse, data, tree, edits, after, after_tree)

    def judge_fix(self, data: bytes, tree: Any, language: str, fix: Fix) -> str | None:
        """Why applying `fix` alone (a quick fix) would not leave the same program, or None."""
        if not fix.edits:
            return None
        problems = self.judge_edits(data, tree, language, fix.edits).problems
        return problems[0].reason if problems else None

    def _at_fault(
        self,
        problems: list[consistency.Problem],
        selection: fixplan.Selection,
        data: bytes,
        tree: Any,
        language: str,
        style: FixStyle,
    ) -> list[tuple[Finding, str]]:
        """The applied fixes that caused each problem: those whose edits touch its names, or, for a syntax error or
        a finding the result gained, those whose text the result holds there; all of them when none can be told."""
        analyzer = self.analyzer(language)
        reader = getattr(analyzer, "names", None)
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
        if style is self.settings.fix_style:
            finding.difficulty = max(finding.difficulty, Difficulty.MANUAL)
            finding.message = t(WITHHELD, message=finding.message, reason=reason)
            finding.data = {**finding.data, "withheld": reason}

    def rate_across_targets(
        self,
        data: bytes,
        language: str,
        path: Path | None,
        tree: Any | None,
        span: tuple[int, int],
        targets: Sequence[str],
    ) -> dict[str, list[Finding]]:
        """How the code at `span` rates under each of `targets`: the findings that start in it, from the analysis
        that makes the diagnostics, run with each target's context. Before rule selection and suppressions: this is
        what the construct means on each target (an editor's hover), not what a check reports."""
        analyzer = self.analyzer(language)
        if tree is None:
            tree = analyzer.parse(data)
        start, end = span
        ranges = [(start, max(end, start + 1))]
        presence = Presence()  # what the buffer contains does not depend on the target: counted once for all
        rated: dict[str, list[Finding]] = {}
        for target in targets:
            context = self.context_for(path, data, target)
            context.presence = presence
            rated[target] = analyzer.analyze(data, tree, context, ranges)
        return rated

    def check_path(self, source_path: SourcePath) -> FileResult:
        return self.check_path_targets(source_path, [self.settings.target])[self.settings.target]

    def check_path_targets(
        self, source_path: SourcePath, targets: Sequence[str], source: SourceFile | None = None
    ) -> dict[str, FileResult]:
        """`check_path` for several targets at once: the file is read and parsed once, then analysed per target
        (the analyzers' findings depend on the target, the tree does not). `source`: the file's text as the caller
        has it (an editor's unsaved buffer) instead of what is on disk."""
        results = {t: FileResult(source_path.label, source_path.path, source_path.language) for t in targets}
        if source is None:
            try:
                source = self.read(source_path)
            except SkipFile as exc:
                for result in results.values():
                    result.skipped = str(exc)
                return results
        tree: Any | None = None
        for target, result in results.items():
            result.source = source
            try:
                context = self.context_for(source_path.path, source.data, target)
                result.findings, tree = self.check_data(
                    source.data, source_path.language, source_path.path, tree=tree, context=context
                )
            except BadInput as exc:  # the analyzer's own word for bad input: a broken notebook, a truncated ELF
                result.error = str(exc)
            except Exception as exc:  # one bad file must not stop a run over a whole tree
                result.error = t("internal error while analysing: {kind}: {error}", kind=type(exc).__name__, error=exc)
        return results

    def read(self, source_path: SourcePath) -> SourceFile:
        """The file's text; a binary kind (ELF) is read by its analyzer, a header at a time, so nothing here."""
        kind = file_kind(source_path.language)
        if kind is not None and kind.binary:
            return SourceFile(b"", RAW)
        return read_source(source_path.path, self.settings.max_file_size)

    def check_text(self, text: str, path: str = "buffer.cu") -> list[Finding]:
        """Convenience for tools and tests: analyse a string as if it were the file `path`."""
        language = language_for(path) or "c"
        findings, _ = self.check_data(SourceFile.from_text(text).data, language, None)
        return findings

    # ---- rewriting ------------------------------------------------------------------------------------------
    def fix_data(
        self, data: bytes, language: str, path: Path | None = None, unsafe: bool = False
    ) -> tuple[bytes, int, list[Finding]]:
        """Apply every fix allowed (safe ones, or all with `unsafe`) until nothing more applies, in the configured
        style. Returns the new buffer, the number of fixes applied and the findings left in it."""
        plan = self.plan_fix(data, language, path, unsafe)
        return plan.data, plan.applied, plan.remaining

    def plan_fix(
        self,
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
        style = style or self.settings.fix_style
        findings, tree = self.check_data(data, language, path)
        withheld: list[Finding] = []
        new_data, remaining = data, findings
        selection = fixplan.Selection()
        for _ in range(MAX_JUDGE_ROUNDS + 1):
            selection = fixplan.select(findings, unsafe, style)
            if not selection.edits:
                new_data, remaining = data, [f for f in findings if f not in selection.subsumed]
                break
            new_data = apply_edits(data, selection.edits)
            remaining, new_tree = self.check_data(new_data, language, path)
            problems = self.judge_edits(data, tree, language, selection.edits, new_data, new_tree).problems
            problems += _unexpected(findings, selection, remaining)
            if not problems:
                break
            for finding, reason in self._at_fault(problems, selection, data, tree, language, style):
                self.withhold(finding, style, reason)
                withheld.append(finding)
        else:  # still not the same program: nothing is applied
            for finding in selection.applied:
                self.withhold(finding, style, t(NOT_JUDGED))
                withheld.append(finding)
            selection, new_data, remaining = fixplan.Selection(), data, findings
        compat: dict[CompatEntry, None] = {}  # in the order found, each once
        for finding in selection.fixed:
            fix = fixplan.chosen(finding, style, unsafe)
            if fix is not None:
                compat.update(dict.fromkeys(fix.compat))
        applied = len(selection.fixed)
        if style is FixStyle.DUAL_STACK:
            by_header = [
                f for f in remaining if (fix := fixplan.chosen(f, style, unsafe)) is not None and not fix.edits
            ]
            for finding in by_header:
                compat.update(dict.fromkeys(finding.dual.compat if finding.dual is not None else ()))
            applied += len(by_header)
            fixed = {id(f) for f in by_header}
            remaining = [f for f in remaining if id(f) not in fixed]
        return FixPlan(new_data, applied, remaining, list(compat), withheld)

    def add_ignores(self, data: bytes, language: str, path: Path | None, findings: list[Finding]) -> IgnoreResult:
        """`cudaport: ignore[CODE]` for each of `findings`, one directive per line in the file's comment syntax
        (comments.py; a notebook's cells through their analyzer). Each directive is checked by analysing the result:
        one the analysis would not honour where it went is taken back and its findings are refused."""
        if not findings:
            return IgnoreResult(data)
        from ..analyzers.common import comments  # only `fix --add-ignore` needs it

        analyzer = self.analyzer(language)
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
            remaining, _ = self.check_data(new_data, language, path)
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


@dataclass
class FixPlan:
    """A buffer's fixes in one style: the new buffer, how many fixes, the findings left, and what the project's
    portability header or helper module must provide (dual-stack fixes only)."""

    data: bytes
    applied: int  # findings fixed
    remaining: list[Finding]
    compat: list[CompatEntry]
    withheld: list[Finding] = field(default_factory=list)  # fixes `check` offered that failed on the result


def _unexpected(
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


def _unsuppressed(findings: list[Finding], suppressions: Suppressions, data: bytes) -> list[Finding]:
    if not suppressions.lines:
        return [f for f in findings if not suppressions.covers(f.rule, 0)]
    lines: dict[int, int] = {}  # start -> line, counted in one pass over the starts in order
    line, counted = 0, 0
    for start in sorted({f.start for f in findings}):
        line += data.count(b"\n", counted, start)
        counted = start
        lines[start] = line
    return [f for f in findings if not suppressions.covers(f.rule, lines[f.start])]
