"""What a ranged analysis (the language server after an edit) must look up outside its windows: whether a library
took its one finding at a use before them, and the uses of an alias whose import a fix in them rewrites. Both are
answered by running the analyzer's own hit at those few places, on a whole-file view of the state."""

from __future__ import annotations

from collections.abc import Callable

from ...knowledge.python import ApiEntry
from .filestate import FileState
from .imports import word_starts

# The analyzer's look at one word of the buffer: (state, start, end, word).
Hit = Callable[[FileState, int, int, bytes], None]


class OutsideWindows:
    """Looks at single places outside a ranged analysis's windows with the analyzer's `hit`."""

    def __init__(self, hit: Hit) -> None:
        self.hit = hit

    def library_used_before(self, file: FileState, entry: ApiEntry, before: int) -> bool:
        """For a ranged analysis: whether a use of library `entry` before `before`, outside the windows, took the
        one finding a library gets (the hits before it inside the windows were analysed already)."""
        if file.windows is None:
            return False
        parts = entry.name.split(".")
        bases = [
            local for local, bound in file.imports.bindings.items() if parts[: len(bound.qualified)] == bound.qualified
        ]
        if parts[0] in ("torch", "os") and parts[0] not in file.imports.bindings:
            bases.append(parts[0])
        probe = file.whole_file_view()
        outside = uncovered(file.windows, 0, before)
        hits = sorted((start, local) for local in bases for start in word_starts(file.data, local.encode(), outside))
        for start, local in hits:
            self.hit(probe, start, start + len(local.encode()), local.encode())
            if entry.name in probe.reported_imports:
                return True
        return False

    def alias_uses_elsewhere(self, file: FileState) -> None:
        """For a ranged analysis: the uses outside the windows of each alias whose import a fix in the windows
        rewrites (whether all its uses can follow decides whether the import may be rewritten)."""
        assert file.windows is not None
        probe: FileState | None = None
        for local, rewrite in file.alias_edits.items():
            held = set(rewrite.edits)
            carried = any(f.fix is not None and f.fix.is_safe and held.intersection(f.fix.edits) for f in file.findings)
            if not carried:
                continue
            probe = probe or file.whole_file_view()
            word = local.encode()
            for start in word_starts(file.data, word, uncovered(file.windows, 0, len(file.data))):
                self.hit(probe, start, start + len(word), word)
            file.alias_uses.setdefault(local, []).extend(probe.alias_uses.pop(local, []))


def uncovered(windows: list[tuple[int, int]], lo: int, hi: int) -> list[tuple[int, int]]:
    """The parts of [lo, hi) that no window covers (the windows are sorted and disjoint)."""
    out = []
    for start, end in windows:
        if start > lo:
            out.append((lo, min(start, hi)))
        lo = max(lo, end)
        if lo >= hi:
            break
    if lo < hi:
        out.append((lo, hi))
    return [(a, b) for a, b in out if a < b]
