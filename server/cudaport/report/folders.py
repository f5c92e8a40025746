"""The roll-up by folder: every folder under the files' common root with the totals of everything below it, so
the report can start from the top-level folders and open them one level at a time."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, TypeVar

from ..knowledge.effort import NO_HOURS, Hours
from ..model.findings import Difficulty
from ..model.records import field, record
from .tally import Tally, combined_weight

if TYPE_CHECKING:
    from .rows import FileRow

# The chart of folders opens the folder that holds at least this share of the work, until the work splits.
DOMINANT_SHARE = 0.6


_T = TypeVar("_T", bound="Totals")


@record
class Totals:
    """What a group of files adds up to, per target: the directory table's rows and the folder tree's nodes."""

    path: str  # as `check` prints paths: "cuda-samples/Samples"; "" for the root of several trees
    files: int = 0
    lines: int = 0
    findings: dict[str, Tally] = field(default_factory=dict)
    files_needing_person: dict[str, int] = field(default_factory=dict)

    @classmethod
    def empty(cls: type[_T], path: str, targets: Iterable[str]) -> _T:
        targets = list(targets)
        return cls(path, findings={t: Tally() for t in targets}, files_needing_person=dict.fromkeys(targets, 0))

    def add(self, row: FileRow, targets: Iterable[str]) -> None:
        """Count one file in."""
        self.files += 1
        self.lines += row.lines
        for target in targets:
            tally = row.findings[target]
            self.findings[target].merge(tally)
            if tally.at_least(Difficulty.MANUAL):
                self.files_needing_person[target] += 1

    def weight(self) -> tuple[int, ...]:
        """Heaviest first over every target (see Tally.weight)."""
        return combined_weight(self.findings.values())


@record
class Folder(Totals):
    effort: dict[str, Hours] = field(default_factory=dict)
    children: list[Folder] = field(default_factory=list)  # heaviest first
    own_files: int = 0  # files directly in this folder

    @property
    def name(self) -> str:
        return PurePosixPath(self.path).name or self.path or "."

    def work(self) -> int:
        """Findings that need any work, over every target."""
        return sum(tally.at_least(Difficulty.MECHANICAL) for tally in self.findings.values())


def folder_tree(rows: Sequence[FileRow], targets: Sequence[str]) -> Folder:
    parts = [_parts(row.directory) for row in rows]
    root = _common(parts)
    nodes: dict[tuple[str, ...], Folder] = {}

    def node(key: tuple[str, ...]) -> Folder:
        folder = nodes.get(key)
        if folder is None:
            folder = Folder.empty(str(PurePosixPath(*key)) if key else "", targets)
            folder.effort = dict.fromkeys(targets, NO_HOURS)
            nodes[key] = folder
            if len(key) > len(root):
                node(key[:-1]).children.append(folder)
        return folder

    top = node(root)
    for row, here in zip(rows, parts, strict=True):
        node(here).own_files += 1
        for depth in range(len(root), len(here) + 1):
            folder = node(here[:depth])
            folder.add(row, targets)
            for target in targets:
                folder.effort[target] = folder.effort[target] + row.effort.get(target, NO_HOURS)
    for folder in nodes.values():
        folder.children.sort(key=lambda f: (tuple(-w for w in f.weight()), f.path))
    return top


def focus(root: Folder, limit: int = 12) -> list[Folder]:
    """The folders a chart shows: the root's children, with a folder that holds most of the work opened into its
    own children (cuda-samples/Samples into 0_Introduction, 1_Utilities, ...), heaviest first."""
    shown = [f for f in root.children if f.work()] or ([root] if root.work() else [])
    total = sum(f.work() for f in shown)
    while shown:
        heaviest = max(shown, key=lambda f: f.work())
        opened = [c for c in heaviest.children if c.work()]
        if len(opened) < 2 or heaviest.work() < DOMINANT_SHARE * total:
            break
        shown = [f for f in shown if f is not heaviest] + opened
    shown.sort(key=lambda f: (tuple(-w for w in f.weight()), f.path))
    return shown[:limit]


def _parts(directory: str) -> tuple[str, ...]:
    return () if directory in (".", "") else PurePosixPath(directory).parts


def _common(parts: list[tuple[str, ...]]) -> tuple[str, ...]:
    if not parts:
        return ()
    first = parts[0]
    length = min(len(p) for p in parts)
    shared = 0
    while shared < length and all(p[shared] == first[shared] for p in parts):
        shared += 1
    return first[:shared]
