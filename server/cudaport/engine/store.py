"""The findings of an edited buffer, kept so that an edit costs what it touches, not the number of findings.

Findings are sorted by start and held in blocks of about `_BLOCK`. An edit moves every block after it by a pending
shift (one integer per block, applied to the block's findings and their fix edits when the block is next read):
typing near the top of a file with 5,000 findings changes ~80 integers, not 5,000 findings and their fixes. Each
block has a version, new whenever its findings change other than by such a shift, so a front end can keep what it
made of a block (rendered diagnostics) until then; a shifted block's lines all move by the same count.

A few findings cannot move with a block: one with a fix edit far after it or wider than a block can tell, one
whose message names another line (code already ported names the directive that selects the target's path), a
file-level one. Those are kept apart ("extras", sorted by start), always at their current offsets, moved one by
one on every edit, each with its own version.

A fix that inserts text before its finding (the #include or import a fix adds at the top of the file, which every
dual-stack fix of a file shares) does not put the finding apart: the store's `anchor` is the end of the last such
insertion, a pending shift moves only the edits after it, and on the rare change at or before the anchor (typing
among the first lines) the session moves every finding one by one and analyses the file whole."""

from __future__ import annotations

import bisect
import heapq
import itertools
from collections.abc import Callable, Iterable, Iterator

from ..model.findings import Edit, Finding

_BLOCK = 64
_VERSIONS = itertools.count(1)


def next_version() -> int:
    return next(_VERSIONS)


class Block:
    """Consecutive findings and the shift their offsets still owe."""

    __slots__ = ("items", "shift", "version")

    def __init__(self, items: list[Finding]) -> None:
        self.items = items
        self.shift = 0
        self.version = next(_VERSIONS)

    @property
    def start(self) -> int:
        return self.items[0].start + self.shift

    @property
    def last_start(self) -> int:
        return self.items[-1].start + self.shift

    def settled(self, anchor: int) -> list[Finding]:
        """The findings at their current offsets (the pending shift applied to them and to their fix edits after
        `anchor`: every change the shift stands for came after it)."""
        delta = self.shift
        if delta:
            self.shift = 0
            for finding in self.items:
                _move(finding, delta, anchor)
        return self.items


class _BlockStarts:
    """The blocks' current first starts as a sequence for bisect."""

    __slots__ = ("_blocks",)

    def __init__(self, blocks: list[Block]) -> None:
        self._blocks = blocks

    def __len__(self) -> int:
        return len(self._blocks)

    def __getitem__(self, index: int) -> int:
        return self._blocks[index].start


class _Starts:
    __slots__ = ("_findings",)

    def __init__(self, findings: list[Finding]) -> None:
        self._findings = findings

    def __len__(self) -> int:
        return len(self._findings)

    def __getitem__(self, index: int) -> int:
        return self._findings[index].start


class FindingStore:
    def __init__(
        self,
        findings: Iterable[Finding] = (),
        special: Callable[[Finding], bool] | None = None,
        head: Callable[[Finding], int] | None = None,
    ) -> None:
        """`findings` sorted by Finding.sort_key; `special(finding)`: whether it is kept apart; `head(finding)`: where
        its fix inserts text before it ends, or -1 (see above)."""
        self._special = special or (lambda finding: False)
        self._head = head or (lambda finding: -1)
        self.anchor = -1
        ordinary: list[Finding] = []
        self.extras: list[Finding] = []
        self.extra_versions: dict[int, int] = {}
        for finding in findings:
            if self._special(finding):
                self._add_extra_at_end(finding)
            else:
                ordinary.append(finding)
                self.anchor = max(self.anchor, self._head(finding))
        self.blocks = [Block(ordinary[i : i + _BLOCK]) for i in range(0, len(ordinary), _BLOCK)]
        self._count = len(ordinary)
        self._flat: list[Finding] | None = None

    # ---- reading ------------------------------------------------------------------------------------------------
    def __len__(self) -> int:
        return self._count + len(self.extras)

    def all(self) -> list[Finding]:
        """Every finding, at its current offsets, sorted (settles every block: not for every keystroke)."""
        if self._flat is None:
            ordinary = [f for block in self.blocks for f in block.settled(self.anchor)]
            self._flat = list(heapq.merge(ordinary, self.extras, key=Finding.sort_key)) if self.extras else ordinary
        return self._flat

    def starting_in(self, lo: int, hi: int, extras: bool = True) -> list[Finding]:
        """The findings that start in [lo, hi): ordinary ones in order, then (with `extras`) the extras."""
        found = [f for block in self._blocks_over(lo, hi) for f in block.settled(self.anchor) if lo <= f.start < hi]
        if extras:
            found.extend(self._extras_in(lo, hi))
        return found

    def settled(self, block: Block) -> list[Finding]:
        """One of the store's blocks, at current offsets."""
        return block.settled(self.anchor)

    def any(self, test: Callable[[Finding], bool]) -> bool:
        """Whether a finding passes `test`, which must not depend on offsets (blocks are not settled for it)."""
        return any(test(f) for block in self.blocks for f in block.items) or any(test(f) for f in self.extras)

    def extras_where(self, test: Callable[[Finding], bool]) -> list[Finding]:
        return [f for f in self.extras if test(f)]

    # ---- changing -----------------------------------------------------------------------------------------------
    def pop(self, lo: int, hi: int) -> list[Finding]:
        """Remove and return the ordinary findings that start in [lo, hi)."""
        taken: list[Finding] = []
        blocks = self.blocks
        index = max(0, bisect.bisect_left(_BlockStarts(blocks), lo) - 1)
        while index < len(blocks) and blocks[index].start < hi:
            block = blocks[index]
            if block.last_start < lo:
                index += 1
                continue
            items = block.settled(self.anchor)
            first = bisect.bisect_left(_Starts(items), lo)
            last = bisect.bisect_left(_Starts(items), hi, first)
            if first == last:
                index += 1
                continue
            taken.extend(items[first:last])
            del items[first:last]
            block.version = next(_VERSIONS)
            if items:
                index += 1
            else:
                del blocks[index]
        self._count -= len(taken)
        if taken:
            self._flat = None
        return taken

    def remove(self, finding: Finding) -> None:
        """Remove one ordinary finding (at its current offsets)."""
        for block in self._blocks_over(finding.start, finding.start + 1):
            items = block.settled(self.anchor)
            for index, item in enumerate(items):
                if item is finding:
                    del items[index]
                    block.version = next(_VERSIONS)
                    if not items:
                        self.blocks.remove(block)
                    self._count -= 1
                    self._flat = None
                    return
        raise ValueError("not in the store")

    def pop_extras(self, test: Callable[[Finding], bool]) -> list[Finding]:
        taken = [f for f in self.extras if test(f)]
        if taken:
            ids = {id(f) for f in taken}
            self.extras = [f for f in self.extras if id(f) not in ids]
            for key in ids:
                del self.extra_versions[key]
            self._flat = None
        return taken

    def shift(self, after: int, delta: int) -> None:
        """Ordinary findings that start after `after` move by `delta` (their fix edits with them). Blocks wholly
        after it only owe the shift; one that straddles it is moved finding by finding."""
        if not delta:
            return
        blocks = self.blocks
        index = bisect.bisect_right(_BlockStarts(blocks), after)
        if index > 0 and blocks[index - 1].last_start > after:
            block = blocks[index - 1]
            for finding in block.settled(self.anchor):
                if finding.start > after:
                    _move(finding, delta, self.anchor)
            block.version = next(_VERSIONS)
        for block in blocks[index:]:
            block.shift += delta
        self._flat = None

    def insert(self, findings: Iterable[Finding]) -> None:
        """Put findings (at current offsets) in their places."""
        for finding in findings:
            if self._special(finding):
                self._insert_extra(finding)
                continue
            self._raise_anchor(self._head(finding))
            self._count += 1
            blocks = self.blocks
            if not blocks:
                blocks.append(Block([finding]))
                continue
            index = max(0, bisect.bisect_right(_BlockStarts(blocks), finding.start) - 1)
            key = finding.sort_key()
            while index > 0 and blocks[index].settled(self.anchor)[0].sort_key() > key:
                index -= 1  # a tie on the start: the order of the whole list stays that of sort_key
            block = blocks[index]
            items = block.settled(self.anchor)
            bisect.insort(items, finding, key=Finding.sort_key)
            block.version = next(_VERSIONS)
            if len(items) > 2 * _BLOCK:
                blocks[index : index + 1] = [Block(items[:_BLOCK]), Block(items[_BLOCK:])]
        self._flat = None

    def take_ordinary(self) -> list[Finding]:
        """Remove and return every ordinary finding, settled, in order (to be moved one by one and put back with
        `put_ordinary`)."""
        taken = [f for block in self.blocks for f in block.settled(self.anchor)]
        self.blocks = []
        self._count = 0
        self._flat = None
        return taken

    def put_ordinary(self, findings: list[Finding]) -> None:
        """Ordinary findings (at current offsets, sorted) into an empty store of ordinary findings; the anchor is
        worked out again."""
        assert not self.blocks
        self.anchor = max((self._head(f) for f in itertools.chain(findings, self.extras)), default=-1)
        self.blocks = [Block(findings[i : i + _BLOCK]) for i in range(0, len(findings), _BLOCK)]
        self._count = len(findings)
        self._flat = None

    def moved_extra(self, finding: Finding) -> None:
        """An extra whose line or column may have changed: what was made of it is stale."""
        self.extra_versions[id(finding)] = next(_VERSIONS)

    # ---- internals ----------------------------------------------------------------------------------------------
    def _raise_anchor(self, head: int) -> None:
        if head > self.anchor:
            # pending shifts stand for changes after the old anchor: settle them before it moves down
            for block in self.blocks:
                block.settled(self.anchor)
            self.anchor = head

    def _blocks_over(self, lo: int, hi: int) -> Iterator[Block]:
        blocks = self.blocks
        index = max(0, bisect.bisect_left(_BlockStarts(blocks), lo) - 1)
        while index < len(blocks) and blocks[index].start < hi:
            if blocks[index].last_start >= lo:
                yield blocks[index]
            index += 1

    def _extras_in(self, lo: int, hi: int) -> list[Finding]:
        extras = self.extras
        first = bisect.bisect_left(_Starts(extras), lo)
        last = bisect.bisect_left(_Starts(extras), hi, first)
        return extras[first:last]

    def _add_extra_at_end(self, finding: Finding) -> None:
        self.anchor = max(self.anchor, self._head(finding))  # no block yet: nothing owes a shift
        self.extras.append(finding)
        self.extra_versions[id(finding)] = next(_VERSIONS)

    def _insert_extra(self, finding: Finding) -> None:
        self._raise_anchor(self._head(finding))
        bisect.insort(self.extras, finding, key=Finding.sort_key)
        self.extra_versions[id(finding)] = next(_VERSIONS)

    def resort_extras(self) -> None:
        """After extras were moved one by one (their order never changes: an edit moves all those after it)."""
        self._flat = None


def _move(finding: Finding, delta: int, anchor: int) -> None:
    finding.start += delta
    finding.end += delta
    if finding.line_ref is not None:
        finding.line_ref += delta
    _move_fixes(finding, delta, anchor)


def _move_fixes(finding: Finding, delta: int, anchor: int) -> None:
    """Move the edits of a finding's fixes that lie after `anchor` (the rename and the dual-stack one; a fix that
    is both stays one)."""
    fix, dual = finding.fix, finding.dual
    if fix is not None:
        finding.fix = fix.moved(_moved_edits(fix.edits, delta, anchor))
    if dual is not None:
        if dual is fix:
            finding.dual = finding.fix
        else:
            finding.dual = dual.moved(_moved_edits(dual.edits, delta, anchor))


def _moved_edits(edits: tuple[Edit, ...], delta: int, anchor: int) -> tuple[Edit, ...]:
    return tuple(Edit(e.start + delta, e.end + delta, e.text) if e.start > anchor else e for e in edits)
