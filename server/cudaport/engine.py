"""The one engine behind the CLI, the language server and the report: analyse a buffer, filter by configuration
and suppressions, assign severities, and rewrite."""

from __future__ import annotations

import bisect
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import dualstack
from .analyzers.base import Analyzer, BadInput, FileContext, search_windows
from .config import Settings
from .files import SourcePath, file_kind, language_for
from .i18n import N_, t
from .models import CompatEntry, Edit, Finding, Fix, FixStyle
from .presence import Presence
from .project import ProjectIndex
from .ruleset import RuleSet, load_ruleset
from .source import RAW, LineIndex, SkipFile, SourceFile, apply_edits, read_source
from .suppress import Suppressions, find_suppressions

if TYPE_CHECKING:
    from . import comments
    from .session import Session

MAX_FIX_PASSES = 4
NOT_READ_THERE = N_("a comment there would not be read as one")


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


# The analyzers of the sources, imported when a file of their language is first analysed: a .cu check never loads
# the Python analyzer, nor a .py check the C one (each module and its tables cost start-up time).
_SOURCE_ANALYZERS = {
    "c": "cudaport.analyzers.cfamily:CFamilyAnalyzer",
    "python": "cudaport.analyzers.python:PythonAnalyzer",
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
    from .analyzers.inventory import ANALYZERS, factory

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
    def open(self, path: Path | None, data: bytes, language: str | None) -> Session:
        """An analysis session for a buffer that is edited (see cudaport.session)."""
        from .session import Session

        return Session(self, path, data, language)

    def context_for(self, path: Path | None, data: bytes | None, target: str | None = None) -> FileContext:
        target = target or self.settings.target
        context = FileContext(target, str(path) if path else "", project=self.project, file=path, data=data)
        context.dual = dualstack.plan_for(self.settings, self.ruleset, path)
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
        for finding in kept:
            finding.severity = settings.severity_for(finding.rule, finding.difficulty)
        return kept

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

        A dual-stack fix that only needs a line in the portability header (`#define cudaFree hipFree`) edits
        nothing here: its finding counts as fixed once the header has its entry, so it is not among `remaining`."""
        style = style or self.settings.fix_style
        applied = 0
        compat: dict[CompatEntry, None] = {}  # in the order found, each once
        findings, _ = self.check_data(data, language, path)
        for _ in range(MAX_FIX_PASSES):
            for finding in findings:
                fix = _chosen(finding, style, unsafe)
                if fix is not None:
                    compat.update(dict.fromkeys(fix.compat))
            edits = fix_edits(findings, unsafe, style)
            if not edits:
                break
            new_data = apply_edits(data, edits)
            if new_data == data:
                break
            applied += len({(e.start, e.end) for e in edits})
            data = new_data
            findings, _ = self.check_data(data, language, path)
        remaining = findings
        if style is FixStyle.DUAL_STACK:
            by_header = [f for f in findings if (fix := _chosen(f, style, unsafe)) is not None and not fix.edits]
            for finding in by_header:
                compat.update(dict.fromkeys(finding.dual.compat if finding.dual is not None else ()))
            applied += len(by_header)
            fixed = {id(f) for f in by_header}
            remaining = [f for f in findings if id(f) not in fixed]
        return FixPlan(data, applied, remaining, list(compat))

    def add_ignores(self, data: bytes, language: str, path: Path | None, findings: list[Finding]) -> IgnoreResult:
        """`cudaport: ignore[CODE]` for each of `findings`, one directive per line in the file's comment syntax
        (comments.py; a notebook's cells through their analyzer). Each directive is checked by analysing the result:
        one the analysis would not honour where it went is taken back and its findings are refused."""
        if not findings:
            return IgnoreResult(data)
        from . import comments  # only `fix --add-ignore` needs it

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
    applied: int
    remaining: list[Finding]
    compat: list[CompatEntry]


def _chosen(finding: Finding, style: FixStyle, unsafe: bool) -> Fix | None:
    fix = finding.fix_for(style)
    return fix if fix is not None and (fix.is_safe or unsafe) else None


def fix_edits(findings: list[Finding], unsafe: bool = False, style: FixStyle = FixStyle.RENAME) -> list[Edit]:
    """Non-overlapping edits of the applicable fixes of `style`, earliest first. A fix whose edits overlap edits
    already taken is skipped whole (the next pass picks it up); an edit identical to one taken (the same import
    inserted by several fixes, say) is shared, not a conflict."""
    taken: dict[Edit, None] = {}
    spans: list[tuple[int, int]] = []  # sorted (start, end) of the taken edits
    for finding in sorted(findings, key=Finding.sort_key):
        fix = _chosen(finding, style, unsafe)
        if fix is None:
            continue
        new = [edit for edit in fix.edits if edit not in taken]
        if any(_overlaps(edit, spans) for edit in new):
            continue
        for edit in new:
            taken[edit] = None
            bisect.insort(spans, (edit.start, edit.end))
    return list(taken)


def _overlaps(edit: Edit, spans: list[tuple[int, int]]) -> bool:
    index = bisect.bisect_left(spans, (edit.start, -1))
    for start, end in spans[max(0, index - 1) : index + 2]:
        if edit.start < end and start < edit.end:
            return True
        if edit.start == edit.end == start == end:  # two different insertions at one point
            return True
    return False


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
