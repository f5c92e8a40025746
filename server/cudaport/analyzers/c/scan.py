"""The state one C-family analysis shares with its finders (kernels, warp, PTX, vector operators, pointers): the
tree, the target and facts worked out once. A module of its own, so the finders depend on it and not on the
analyzer that runs them."""

from __future__ import annotations

import re

from tree_sitter import Node

from ...knowledge.ruleset import Outcome, RuleSet
from ...model.findings import Edit, Finding, FindingData, Fix
from ...model.records import field, record
from ..common.base import FileContext, search_windows
from ..common.clex import in_spans, literal_and_comment_spans
from ..common.syntax import C_COMMENT_OR_STRING, node_at
from .calls import CallSite

_WORD = re.compile(rb"[A-Za-z_]\w*")


@record
class Scan:
    """Per-buffer state shared by the finders: the tree, the target, lazily computed facts."""

    data: bytes
    root: Node
    context: FileContext
    ruleset: RuleSet
    ranges: list[tuple[int, int]] | None
    _macro_spans: dict[int, list[tuple[int, int]]] = field(default_factory=dict)
    # The parts of the buffer the finders scan: all of it, or the ranges widened to whole lines (an editor
    # re-analysing a few edited lines must not pay for a scan of the whole file).
    windows: list[tuple[int, int]] = field(init=False)
    _words: set[bytes] | None = None
    _mentions: dict[str, bool] = field(default_factory=dict)
    # (start, end, what) of calls and statements left whole for a person: nothing inside them is rewritten alone.
    manual_calls: list[tuple[int, int, str]] = field(default_factory=list)
    # Calls rewritten whole: their arguments' renames are folded into the rewrite at the end of the analysis.
    call_sites: list[CallSite] = field(default_factory=list)
    # Dual-stack fixes: the include of the portability header a name's mapping needs in this file (worked out once;
    # None: the file reaches the header, or a CUDA header that becomes it, already).
    name_insertion: tuple[Edit | None] | None = None
    # The include of the portability header itself (the same edit for every dual-stack fix of the file).
    compat_insertion: tuple[Edit | None] | None = None

    def __post_init__(self) -> None:
        self.windows = search_windows(self.data, self.ranges)

    @property
    def file_root(self) -> Node:
        """The whole file's syntax, for what lies outside the windows: `root`, unless that holds only the edited
        function (FileContext.file_root)."""
        outside: Node | None = self.context.file_root
        return outside if outside is not None else self.root

    def root_for(self, start: int, end: int) -> Node:
        """The root whose tree holds [start, end): `root`, or `file_root` outside it."""
        root = self.root
        outside: Node | None = self.context.file_root
        if outside is not None and not (root.start_byte <= start and end <= root.end_byte):
            return outside
        return root

    def node_anywhere(self, start: int, end: int) -> Node | None:
        """The node at [start, end) wherever it is in the file."""
        return node_at(self.root_for(start, end), start, end)

    def text_of(self, node: Node) -> str:
        """A node's text, from the buffer: `file_root`'s tree was edited since it was parsed, so Node.text, which
        reads the text it was parsed from, is gone."""
        return self.data[node.start_byte : node.end_byte].decode("utf-8", "replace")

    @property
    def words(self) -> set[bytes]:
        """Every distinct identifier-like word of the scanned windows (one C-level pass, shared by the finders)."""
        if self._words is None:
            words: set[bytes] = set()
            for lo, hi in self.windows:
                words.update(_WORD.findall(self.data, lo, hi))
            self._words = words
        return self._words

    def has(self, word: bytes) -> bool:
        """Whether the whole buffer contains `word` (a quick test; an editor session answers it per edit)."""
        return self.context.has(self.data, word)

    def mentions(self, word: str) -> bool:
        """Whether the whole buffer (not only the windows) names `word`; remembered per scan."""
        known = self._mentions.get(word)
        if known is None:
            encoded = word.encode()
            known = self.has(encoded) and re.search(rb"\b%s\b" % re.escape(encoded), self.data) is not None
            self._mentions[word] = known
        return known

    def wanted(self, start: int) -> bool:
        if self.ranges is None:
            return True
        return any(lo <= start < hi for lo, hi in self.ranges)

    def code_node(self, start: int, end: int) -> tuple[Node, bool] | None:
        """The node for a token at [start, end) and whether it sits in a macro body; None in comments/strings."""
        node = node_at(self.root, start, end)
        if node is None or node.type in C_COMMENT_OR_STRING:
            return None
        if node.type == "preproc_arg":
            spans = self._macro_spans.get(node.start_byte)
            if spans is None:
                spans = literal_and_comment_spans(node.text or b"")
                self._macro_spans[node.start_byte] = spans
            offset = node.start_byte
            if in_spans(spans, start - offset, end - offset):
                return None
            return node, True
        if (node.start_byte != start or node.end_byte != end) and node.type != "ERROR":
            return None  # part of a longer token (a number suffix, a string piece); ERROR nodes keep raw words
        return node, False

    def finding(
        self,
        rule: str,
        start: int,
        end: int,
        outcome: Outcome,
        symbol: str,
        fix: Fix | None = None,
        data: FindingData | None = None,
    ) -> Finding:
        return Finding(
            rule=rule,
            start=start,
            end=end,
            difficulty=outcome.difficulty,
            message=outcome.message,
            symbol=symbol,
            replacement=outcome.replacement,
            fix=fix,
            data=data or {},
        )
