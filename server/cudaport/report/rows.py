"""One file's row of the report: its findings per target, what `fix` rewrites, the effort and the route."""

from __future__ import annotations

from ..knowledge.effort import Hours
from ..model.records import record
from .tally import Tally, combined_weight


@record
class FileRow:
    path: str
    directory: str
    language: str
    lines: int
    findings: dict[str, Tally]  # per target
    fixable: dict[str, int]
    effort: dict[str, Hours]
    route: dict[str, str | None]  # A, B, C, or None: nothing to do
    stored: int = -1  # the file's index in the finding store, -1 without findings

    def weight(self) -> tuple[int, ...]:
        return combined_weight(self.findings.values())
