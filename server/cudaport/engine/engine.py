"""The one engine behind the CLI, the language server and the report: analyse a buffer, filter by configuration
and suppressions, assign severities, and rewrite."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from importlib import import_module
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ..analyzers.common.base import Analyzer, BadInput, FileContext, search_windows
from ..analyzers.common.presence import Presence
from ..analyzers.common.suppress import Suppressions, find_suppressions
from ..i18n import t
from ..knowledge.filekinds import file_kind, language_for
from ..knowledge.ruleset import RuleSet, load_ruleset
from ..model.findings import Finding
from ..model.records import field, record
from ..model.source import RAW, LineIndex, SkipFile, SourceFile, read_source
from ..project.config import Settings
from ..project.files import SourcePath
from ..project.includes import ProjectIndex
from . import dualplan
from .judging import Judge

if TYPE_CHECKING:
    pass


@record
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

    # Whether check_path_targets asks an analyzer that has a prefilter (`skips`) if a file can give any finding
    # before parsing it (off: every file is parsed and analysed, what the tests compare the prefilter with).
    prefilter = True

    def __init__(self, settings: Settings, project: ProjectIndex | None = None) -> None:
        self.settings = settings
        self.ruleset = load_ruleset(settings.extra_rules).pinned(settings.versions)
        self.project = project
        self._analyzers: dict[str, Analyzer] = {}
        # What makes each file's FileContext (the results cache records what the analyzers ask through it).
        self.context_factory: Callable[..., FileContext] = FileContext
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

    def judge_for(self, language: str) -> Judge:
        """Who judges the fixes of this language's buffers whole (see engine.judging)."""
        return Judge(self.analyzer(language), self.settings.fix_style)

    # ---- analysis -------------------------------------------------------------------------------------------
    def context_for(self, path: Path | None, data: bytes | None, target: str | None = None) -> FileContext:
        target = target or self.settings.target
        context = self.context_factory(target, str(path) if path else "", project=self.project, file=path, data=data)
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
            self.judge_for(language).judge_findings(kept, data, tree)
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
                if self.prefilter and self._skips(source_path, source.data, target):
                    continue  # sure to find nothing: not even parsed
                context = self.context_for(source_path.path, source.data, target)
                result.findings, tree = self.check_data(
                    source.data, source_path.language, source_path.path, tree=tree, context=context
                )
            except BadInput as exc:  # the analyzer's own word for bad input: a broken notebook, a truncated ELF
                result.error = str(exc)
            except Exception as exc:  # one bad file must not stop a run over a whole tree
                result.error = t("internal error while analysing: {kind}: {error}", kind=type(exc).__name__, error=exc)
        return results

    def _skips(self, source_path: SourcePath, data: bytes, target: str) -> bool:
        skips = getattr(self.analyzer(source_path.language), "skips", None)
        return skips is not None and bool(skips(data, str(source_path.path) if source_path.path else "", target))

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
