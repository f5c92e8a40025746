"""The state of one Python buffer under analysis, shared by the passes that find its findings: the buffer, its
tree and imports, the windows a ranged analysis scans, what was reported already, and how its alias imports are
rewritten."""

from __future__ import annotations

from tree_sitter import Node

from ...model.findings import Edit, Finding
from ...model.records import field, record
from ..common.base import FileContext
from .imports import Imports


@record(frozen=True, slots=True)
class AliasRewrite:
    """How an import that binds a module alias is rewritten, and what the alias then stands for."""

    edits: tuple[Edit, ...]
    qualified: tuple[str, ...]


@record
class FileState:
    """Per-buffer state: the imports, the target's facts, what was reported already."""

    data: bytes
    root: Node
    context: FileContext
    imports: Imports
    # A ranged analysis scans only these (statements around the requested ranges); None: the whole buffer.
    windows: list[tuple[int, int]] | None = None
    findings: list[Finding] = field(default_factory=list)
    seen: set[tuple[int, int]] = field(default_factory=set)
    reported_imports: set[str] = field(default_factory=set)  # library entries reported at an import
    alias_edits: dict[str, AliasRewrite] = field(default_factory=dict)  # local name -> how its import changes
    alias_uses: dict[str, list[Finding]] = field(default_factory=dict)  # local name -> findings of its uses
    insertion: Edit | None = None
    insertion_known: bool = False
    own_attributes: dict[str, int] = field(default_factory=dict)  # name -> where the file defines it (-1: nowhere)

    @property
    def target(self) -> str:
        return self.context.target

    def add(self, finding: Finding) -> None:
        key = (finding.start, finding.end)
        if key not in self.seen:
            self.seen.add(key)
            self.findings.append(finding)

    def whole_file_view(self) -> FileState:
        """A whole-file view of this state for looking at single places outside the windows: the same imports and
        import findings' facts, its own findings."""
        probe = FileState(self.data, self.root, self.context, self.imports)
        probe.reported_imports = set(self.reported_imports)
        probe.alias_edits = self.alias_edits
        probe.insertion, probe.insertion_known = self.insertion, self.insertion_known
        return probe
