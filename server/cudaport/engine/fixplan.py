"""Which fixes one `fix` applies together, and how the findings before map onto the text after.

The fixes of a buffer are taken in one pass, outer rewrites first (a whole call before the names inside it): a fix
whose edits lie inside edits already taken is *subsumed* (the outer rewrite writes its change too), one that only
overlaps them is a *conflict* and is not applied. `check` counts as fixable exactly what this selection applies,
so the count it prints is the count `fix` applies."""

from __future__ import annotations

import bisect

from ..model.findings import Edit, Finding, Fix, FixStyle
from ..model.records import field, record


@record
class Selection:
    edits: list[Edit] = field(default_factory=list)
    applied: list[Finding] = field(default_factory=list)  # their fixes' edits are among `edits`
    subsumed: list[Finding] = field(default_factory=list)  # their edits lie inside edits of the applied ones
    conflicts: list[Finding] = field(default_factory=list)  # their edits overlap applied ones without lying inside

    @property
    def fixed(self) -> list[Finding]:
        return self.applied + self.subsumed


def chosen(finding: Finding, style: FixStyle, unsafe: bool) -> Fix | None:
    fix = finding.fix_for(style)
    return fix if fix is not None and (fix.is_safe or unsafe) else None


def select(findings: list[Finding], unsafe: bool = False, style: FixStyle = FixStyle.RENAME) -> Selection:
    """The fixes of `style` (safe ones, or all with `unsafe`) applied together; an edit identical to one taken (the
    same import inserted by several fixes) is shared, not a conflict."""
    dual = style is FixStyle.DUAL_STACK
    candidates: list[tuple[int, int, int, Finding, tuple[Edit, ...]]] = []
    for index, finding in enumerate(findings):
        fix = finding.dual if dual else finding.fix
        if fix is None or not fix.edits or not (unsafe or fix.is_safe):
            continue
        start, neg_end = _primary(finding, fix)
        candidates.append((start, neg_end, index, finding, fix.edits))
    candidates.sort(key=lambda c: (c[0], c[1], c[3].start, c[3].end, c[3].rule))
    out = Selection()
    taken: dict[Edit, None] = {}  # in the order taken: insertions at one point go in that order
    spans: list[tuple[int, int]] = []  # sorted (start, end) of the taken edits
    reach = -1  # the end of the taken edit that reaches furthest: an edit starting past it overlaps none
    for _, _, _, finding, edits in candidates:
        new = [edit for edit in edits if edit not in taken]
        if any(edit.start <= reach and _overlaps(edit, spans) for edit in new):
            if all(_inside(edit, spans) for edit in new):
                out.subsumed.append(finding)
            else:
                out.conflicts.append(finding)
            continue
        for edit in new:
            taken[edit] = None
            if spans and (edit.start, edit.end) < spans[-1]:
                bisect.insort(spans, (edit.start, edit.end))
            else:
                spans.append((edit.start, edit.end))
            reach = max(reach, edit.end)
        out.applied.append(finding)
    out.edits = sorted(taken, key=lambda e: (e.start, e.end))
    return out


def _primary(finding: Finding, fix: Fix) -> tuple[int, int]:
    """Where a fix rewrites its own finding (not the import it shares with others): outer rewrites sort first."""
    edits = fix.edits
    if len(edits) == 1:
        return edits[0].start, -edits[0].end
    own = [
        e for e in edits if e.start <= finding.start < max(e.end, e.start + 1) or finding.start <= e.start < finding.end
    ]
    edit = min(own or list(edits), key=lambda e: (e.start, -e.end))
    return edit.start, -edit.end


def _overlaps(edit: Edit, spans: list[tuple[int, int]]) -> bool:
    index = bisect.bisect_left(spans, (edit.start, -1))
    for start, end in spans[max(0, index - 1) : index + 2]:
        if edit.start < end and start < edit.end:
            return True
        if edit.start == edit.end and start < edit.start < end:
            return True
    return False


def _inside(edit: Edit, spans: list[tuple[int, int]]) -> bool:
    """Whether a larger taken edit holds `edit` whole (taken edits do not overlap: only the last one that starts
    at or before it can)."""
    index = bisect.bisect_right(spans, (edit.start, 1 << 62))
    if index == 0:
        return False
    start, end = spans[index - 1]
    return start <= edit.start and edit.end <= end and end - start > edit.end - edit.start


def moved(offset: int, edits: list[Edit]) -> int:
    """Where `offset` of the text before lands in the text after `edits` (sorted, not overlapping): an offset inside
    a replaced span goes to where its replacement starts."""
    shift = 0
    for edit in edits:
        if offset < edit.start:
            break
        if edit.start < edit.end and offset < edit.end:
            return edit.start + shift
        shift += len(edit.text.encode()) - (edit.end - edit.start)
    return offset + shift


def moved_all(offsets: list[int], edits: list[Edit]) -> list[int]:
    """`moved` for sorted offsets, in one pass over the sorted edits."""
    out = []
    index, shift = 0, 0
    for offset in offsets:
        while index < len(edits) and edits[index].start <= offset:
            edit = edits[index]
            if edit.start < edit.end and offset < edit.end:
                break  # inside this replacement
            shift += len(edit.text.encode()) - (edit.end - edit.start)
            index += 1
        current = edits[index] if index < len(edits) else None
        if current is not None and current.start <= offset < current.end:
            out.append(current.start + shift)
        else:
            out.append(offset + shift)
    return out


def after_spans(edits: list[Edit]) -> list[tuple[int, int]]:
    """Where each edit's text stands in the text after all of them."""
    out = []
    shift = 0
    for edit in edits:
        start = edit.start + shift
        size = len(edit.text.encode())
        out.append((start, start + size))
        shift += size - (edit.end - edit.start)
    return out
