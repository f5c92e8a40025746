"""What a run produces, for every front end: diagnostics placed in files, each file's results as a run streams
them (FileFindings), what they add up to (RunTotals).
The runner builds them; the output formats, the report and the CLI read them."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from .findings import Difficulty, Finding, Severity
from .records import field, record


@record(frozen=True, slots=True)
class Diagnostic:
    """A finding placed in a file: 1-based lines, 1-based columns in Unicode code points."""

    path: str
    line: int
    column: int
    end_line: int
    end_column: int
    finding: Finding

    @property
    def rule(self) -> str:
        return self.finding.rule

    @property
    def difficulty(self) -> Difficulty:
        return self.finding.difficulty

    @property
    def severity(self) -> Severity:
        return self.finding.severity


@record(slots=True)
class FileFindings:
    """What one file gave for one target, as a run streams it (`runner.scan`): its diagnostics in output order,
    or why it was skipped (nothing else is then set), or the error that stopped its analysis."""

    path: str  # the file's label, as the user named it (relative stays relative)
    language: str
    target: str
    lines: int = 0  # its size in lines (the report weighs directories by it)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    skipped: str | None = None
    error: str | None = None
    # The text of the lines its diagnostics start on (line number -> text), when the output shows them (`full`).
    excerpts: dict[int, str] = field(default_factory=dict)
    # the text of each line that has a finding (1-based, trimmed), when the run was asked for it (the report's)
    source_lines: dict[int, str] = field(default_factory=dict)


class RunTotals:
    """What a run adds up to for one target, file by file, without keeping the findings: the summary line,
    --statistics, the exit code and SARIF's rule list need only these counts."""

    def __init__(
        self,
        target: str,
        skipped: Iterable[tuple[str, str]] = (),
        errors: Iterable[tuple[str, str]] = (),
        excluded: Iterable[tuple[str, str]] = (),
    ) -> None:
        self.target = target
        self.skipped = list(skipped)
        self.errors = list(errors)
        self.excluded = list(excluded)  # directories with sources an exclude left out
        self.files_scanned = 0
        self.files_with_findings = 0
        self.findings = 0
        self.by_difficulty: Counter[Difficulty] = Counter()
        self.by_rule: Counter[str] = Counter()
        self.fixable_by_rule: Counter[str] = Counter()
        self.levels: dict[str, Counter[Difficulty]] = {}  # rule -> its findings per difficulty

    def add(self, result: FileFindings) -> None:
        if result.skipped:
            self.skipped.append((result.path, result.skipped))
            return
        self.files_scanned += 1
        if result.error:
            self.errors.append((result.path, result.error))
        if not result.diagnostics:
            return
        self.files_with_findings += 1
        self.findings += len(result.diagnostics)
        for diag in result.diagnostics:
            rule, difficulty = diag.finding.rule, diag.finding.difficulty
            self.by_difficulty[difficulty] += 1
            self.by_rule[rule] += 1
            if diag.finding.fixable:
                self.fixable_by_rule[rule] += 1
            levels = self.levels.get(rule)
            if levels is None:
                levels = self.levels[rule] = Counter()
            levels[difficulty] += 1

    def summary(self) -> dict[str, int]:
        return {d.label: self.by_difficulty.get(d, 0) for d in Difficulty}

    @property
    def fixable(self) -> int:
        return sum(self.fixable_by_rule.values())

    def any_at_or_above(self, difficulty: Difficulty) -> bool:
        return any(count and level >= difficulty for level, count in self.by_difficulty.items())


def sort_diagnostics(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """In output order: by file, then position, then rule (a run streams files by label, so within one file
    this is the whole order)."""
    return sorted(diagnostics, key=lambda d: (d.path, d.line, d.column, d.rule))
