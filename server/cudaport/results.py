"""What a run produces, for every front end: diagnostics placed in files, and the result of one `check` run
(the runner builds it; the output formats, the report and the CLI read it)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

from .models import Difficulty, Finding, Severity


@dataclass(frozen=True, slots=True)
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


@dataclass
class RunResult:
    """Everything a formatter needs about one `check` run."""

    target: str
    files_scanned: int
    diagnostics: list[Diagnostic]
    skipped: list[tuple[str, str]]
    errors: list[tuple[str, str]]
    excluded: list[tuple[str, str]] = field(default_factory=list)  # directories with sources an exclude left out

    def summary(self) -> dict[str, int]:
        counts = Counter(d.difficulty for d in self.diagnostics)
        return {d.label: counts.get(d, 0) for d in Difficulty}

    def by_rule(self) -> Counter[str]:
        return Counter(d.rule for d in self.diagnostics)

    def fixable(self) -> int:
        return sum(1 for d in self.diagnostics if d.finding.fixable)


def sort_diagnostics(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    return sorted(diagnostics, key=lambda d: (d.path, d.line, d.column, d.rule))
