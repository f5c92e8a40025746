"""An analysis session: one buffer kept analysed through its edits, by the engine, for any front end that edits
(the language server today). `Session(engine, path, data, language)` starts one; `edit()` applies a change to the
bytes, the line index, the syntax tree and the findings; `analyse()` brings the findings up to date; `fix_all()`
rewrites the buffer as `cudaport fix` would.

What an edit costs is what it touches, not the size of the file or the number of its findings:
- the findings are held in blocks (cudaport.findingstore): the findings near the change are looked at one by one
  (those it touches are dropped until re-analysis), the blocks after it only owe a shift;
- the whole-buffer questions the finders ask (does it contain a word, which lines begin with `#`) are answered
  from counts and line tables the edit updates (cudaport.presence);
- `analyse()` re-parses with the edited old tree (tree-sitter reuses what the edit did not touch), takes the
  edited ranges plus the ranges whose syntax changed (`Tree.changed_ranges`: typing `/*` changes the rest of the
  file), widens each to the outermost enclosing function (whether code is device code depends on its qualifiers)
  and to whole lines, and asks the analyzer for the findings that start there;
- `analyse(local_first=True)` (an editor's diagnostics) skips the whole file's re-parse when the edits lie in or
  between a few declarations (IncrementalProfile.items) of the top level or of an `#if` block, whose lines take
  nothing in from around them: tree-sitter re-parses a file in time that grows with its number of top-level nodes
  (the C grammar's conflicts leave them unreusable in bulk), but a function parses alone in tens of microseconds,
  and the same as in its file. The edits and where the syntax changed in the span (its tree against the old one)
  are analysed with that tree (finders read the rest of the file from the old tree: FileContext.file_root), and
  the findings are marked provisional; `settle()`, which the editor runs right after sending them, re-parses the
  whole file, analyses the span again with its tree and says whether that changed anything (a `/*` typed in a
  function runs on in the file).

What an edit can invalidate is the analyzer's own `IncrementalProfile`. An edit to a file-wide statement (a
directive, an import, a file-level suppression) is compared through the analyzer's FileFacts before and after:
only what they say changed is analysed again (a conditional chain that selects the target's path, the findings of
a name a #define maps), or the whole file when they cannot say (includes, imports) or the analyzer has none. A
CUDA-named function defined or undefined is a whole-file change too. A front end runs `analyse(whole_file=True)`
once typing stops, which parses afresh: error recovery can leave an incrementally parsed tree of half-typed code
slightly different from a fresh parse, which is what `cudaport check` sees."""

from __future__ import annotations

import functools
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from tree_sitter import Language, Parser, Query, QueryCursor

from ..analyzers.common.base import FactFinder, FileContext, FileFacts, IncrementalProfile, SpanParser, search_windows
from ..analyzers.common.presence import Presence
from ..knowledge.ruleset import RuleSet
from ..model.findings import Edit, Finding
from ..model.records import record
from ..model.source import LineIndex
from . import fixing, spans
from .store import FindingStore

if TYPE_CHECKING:
    from .engine import Engine

# Past this share of the file, re-analysing windows costs about as much as the whole file.
_WHOLE_FILE_SHARE = 0.5
# Findings are looked up by their start; one that starts more than this before a place reaches it only if it is
# long or has a fix edit elsewhere (tracked apart).
_NEAR = 1024
_DEFINITIONS = frozenset({"function_definition"})
_FIELD_ACCESS = "field_expression"
# How a message names a line (Finding.line_ref), in English and in the Chinese of its translation.
_LINE_REF = re.compile(r"(?:\(line |（第 )(\d+)(?=\)| 行）)")
# Changed ranges longer than this are looked at node by node (see _refined): most are a container's end moving.
_REFINE = 16384
# Edits kept to map the facts' offsets into the current text; past this many without an analysis, the facts go.
_FACT_EDITS = 512
_RETURN_DECLARATORS = frozenset({"pointer_declarator", "reference_declarator"})

# (start, end, name, kind): kind "function" (a definition with a body), "field" (a struct field declared) or
# "prototype". The first two make the name the user's own in the whole file; a prototype re-declares CUDA's.
Declaration = tuple[int, int, str, str]


class Cancelled(Exception):
    """An analysis given up because its text is no longer wanted (see Session.analyse's `cancelled`)."""


# The chunk a cancellable parse reads at a time: tree-sitter holds the interpreter lock for a whole parse (0.8 s for
# 20 MB), but returns to Python for every chunk of its input, where other threads get their turn.
_PARSE_CHUNK = 1 << 16


@record(frozen=True, slots=True)
class Outcome:
    # "full", "incremental", "current", or "local": the edited function re-parsed alone, the findings provisional
    # until `Session.settle()` has re-parsed the whole file; "deferred": a whole-file analysis was needed and not
    # allowed (`allow_full=False`): nothing changed but `needs_full`
    mode: str
    seconds: float = 0.0
    windows: int = 0
    changed: bool = True


class Session:
    def __init__(self, engine: Engine, path: Path | None, data: bytes, language: str | None) -> None:
        self.engine = engine
        self.path = path
        self.language = language
        self.data = data
        self.lines = LineIndex(data)
        self.tree: Any | None = None
        self.store = FindingStore()
        # Functions the file declares with names the rule data knows, kept in step with edits like findings.
        self.declarations: list[Declaration] = []
        # Byte ranges changed since the last analysis (current coordinates), findings to find again where they
        # are, and whether the next analysis must cover the whole file.
        self.dirty: list[tuple[int, int]] = []
        self.needs_full = True
        self.analysed = False
        self.context: FileContext | None = None
        self.context_stale = False  # an edit touched an #include: the project headers are looked up again
        self.incremental_runs = 0  # incremental analyses since the last whole-file one
        self.presence = Presence()  # the finders' "does the buffer contain X" tests, kept up to date per edit
        # The analyzer's whole-file facts (FileFacts) as of the last analysis, the edits since (start, end, delta),
        # and whether one of them changed a file-wide statement (the facts are then compared with the new ones).
        self.facts: FileFacts | None = None
        self._fact_edits: list[tuple[int, int, int]] = []
        self.facts_changed = False
        self._facts_after: tuple[bool, FileFacts | None] = (False, None)  # _incremental's word to _done
        # What a local analysis (analyse(local_first=True)) found from the edited function alone, until settle()
        # confirms it against the whole file re-parsed (current coordinates; an edit makes them dirty again).
        self.provisional: list[tuple[int, int]] = []
        self._provisional_facts = False  # the facts were worked out in a local analysis: settle() checks them
        self._settle_declined = False  # settle(allow_full=False) found only a whole-file analysis would do
        # A local analysis left findings outside its span that only the whole file can confirm (an include edited)
        self._settle_whole = False
        # Every file-wide statement changed since the facts were worked out is one of the profile's
        # whole_file_statements: the facts would say "the whole file" without being asked
        self._whole_statements_only = False

    # ---- state ----------------------------------------------------------------------------------------------
    @property
    def profile(self) -> IncrementalProfile | None:
        if self.language is None or not self.engine.supports(self.language):
            return None
        return self.engine.analyzer(self.language).incremental

    @property
    def findings(self) -> list[Finding]:
        """Every finding, sorted by start (the whole list: per keystroke, read `store` by range instead)."""
        return self.store.all()

    def findings_overlapping(self, start: int, end: int) -> list[Finding]:
        """The findings whose range meets [start, end] (touching counts), sorted by start."""
        store = self.store
        found = [f for f in store.starting_in(start - _NEAR, end + 1, extras=False) if f.end >= start]
        found += store.extras_where(lambda f: f.start <= end and f.end >= start)
        return sorted(found, key=Finding.sort_key)

    @property
    def current(self) -> bool:
        return self.analysed and not self.dirty and not self.needs_full

    def reconfigure(self, engine: Engine) -> None:
        """Another configuration (target, rules): everything is analysed again under it."""
        if engine is not self.engine:
            self.engine = engine
            self.needs_full = True
            self.context = None
            self.facts = None

    def clear(self) -> None:
        """No findings and no tree (a buffer that is not analysed); the next analysis is a whole-file one."""
        self.store = FindingStore()
        self.tree = None
        self.facts = None
        self.declarations = []
        self.dirty = []
        self.provisional = []
        self._settle_whole = False
        self.needs_full = True
        self.analysed = True

    def fix_all(self, unsafe: bool = False) -> bytes:
        """The buffer after every fix `cudaport fix` would apply (all of them with `unsafe`)."""
        if self.language is None:
            return self.data
        fixed, _, _ = fixing.fix_data(self.engine, self.data, self.language, self.path, unsafe)
        return fixed

    def _context(self, data: bytes) -> FileContext:
        """The engine's context for the buffer, answering the finders' word tests from this session's counts."""
        context = self.engine.context_for(self.path, data)
        context.presence = self.presence
        return context

    # ---- edits ----------------------------------------------------------------------------------------------
    def replace_all(self, data: bytes) -> None:
        """A whole-buffer change. Editors with full sync send one per keystroke: the common prefix and suffix
        with the current text reduce it to the edit actually made, so such clients get incremental analysis too."""
        old = self.data
        if data == old:
            return
        prefix = _common_prefix(old, data)
        suffix = _common_suffix(old, data, prefix)
        self.edit(prefix, len(old) - suffix, data[prefix : len(data) - suffix])

    def edit(self, start: int, end: int, text: bytes) -> None:
        """Replace bytes [start, end) with `text`."""
        old = self.data
        start = max(0, min(start, len(old)))
        end = max(start, min(end, len(old)))
        if old[start:end] == text:
            return
        self._settle_declined = False
        lines = self.lines
        new_end = start + len(text)
        data = old[:start] + text + old[end:]
        crlf = self.presence.has(old, b"\r\n")
        self.presence.edited(old, data, start, end, text)
        if self.presence.has(data, b"\r\n") != crlf:
            self.needs_full = True  # the file's line ends changed style: each line a fix inserts is written in it
        profile = self.profile
        if profile is not None and not self.needs_full:
            # The edited lines, whole and with the lines a backslash continues (one directive can span several).
            touched_old = search_windows(old, [(start, end)])[0]
            touched_new = search_windows(data, [(start, new_end)])[0]
            if _file_wide_change(profile, old, data, touched_old, touched_new):
                # a directive, import or suppression: findings anywhere may change (what the analyzer's facts
                # say changed, or the whole file)
                if self.facts is not None:
                    kinds = profile.whole_file_statements
                    only_whole = _changes_only(kinds, profile, old, data, touched_old, touched_new)
                    self._whole_statements_only = only_whole and (self._whole_statements_only or not self.facts_changed)
                    self.facts_changed = True
                else:
                    self.needs_full = True
            elif profile.context_lines is not None and _touches(
                profile.context_lines, old, data, touched_old, touched_new
            ):
                self.context_stale = True
        if self.tree is not None:
            start_point = _point(lines, start)
            old_end_point = _point(lines, end)
            newlines = text.count(b"\n")
            if newlines:
                new_end_point = (start_point[0] + newlines, len(text) - text.rfind(b"\n") - 1)
            else:
                new_end_point = (start_point[0], start_point[1] + len(text))
            self.tree.edit(
                start_byte=start,
                old_end_byte=end,
                new_end_byte=new_end,
                start_point=start_point,
                old_end_point=old_end_point,
                new_end_point=new_end_point,
            )
        self.lines = lines.replaced(start, end, text, data)
        self.data = data
        delta = len(text) - (end - start)
        if self.facts is not None:
            if len(self._fact_edits) >= _FACT_EDITS:
                self.facts = None  # so many edits since the facts that a directive edit is analysed whole
                self._fact_edits = []
            else:
                self._fact_edits.append((start, end, delta))

        def moved(lo: int, hi: int) -> tuple[int, int] | None:
            """A range after the change, moved with it; None when the change touches it."""
            if hi < start:
                return lo, hi
            if lo > end:
                return lo + delta, hi + delta
            return None

        def covering(lo: int, hi: int) -> tuple[int, int]:
            """A range the change touches, in new coordinates, grown to cover what replaced it."""
            return min(lo, start), max(hi + delta if hi > end else new_end, new_end)

        dirty = [(start, new_end)]
        for lo, hi in self.dirty:
            dirty.append(moved(lo, hi) or covering(lo, hi))
        provisional = []
        for lo, hi in self.provisional:
            kept_range = moved(lo, hi) if self._settle_whole else None
            if kept_range is not None:
                provisional.append(kept_range)  # settled by the whole-file analysis they wait for, not again here
            else:
                dirty.append(moved(lo, hi) or covering(lo, hi))  # gone over again, with the whole file's tree
        self.provisional = provisional
        self._move_findings(start, end, delta, text, old, dirty, lines.line_count != self.lines.line_count)
        self.dirty = _merged(dirty)  # thousands of edits before an analysis (a client that never waits) stay few
        declarations: list[Declaration] = []
        for lo, hi, name, kind in self.declarations:
            kept_range = moved(lo, hi)
            if kept_range is None:
                # a CUDA-named definition edited: uses anywhere may change meaning (a prototype changes none)
                self.needs_full = self.needs_full or kind != "prototype"
            else:
                declarations.append((*kept_range, name, kind))
        self.declarations = declarations

    def _move_findings(
        self,
        start: int,
        end: int,
        delta: int,
        text: bytes,
        old: bytes,
        dirty: list[tuple[int, int]],
        lines_moved: bool,
    ) -> None:
        """The findings after a change of old[start:end] to `text`: those it touches are dropped (their ranges
        are analysed again), the others moved. Only findings near the change are looked at one by one; the blocks
        after it owe a shift (see cudaport.findingstore)."""
        store = self.store
        if start <= store.anchor:
            # At or before a fix edit that findings far below share (the include a dual-stack fix adds at the top):
            # where it goes depends on everything before it (a comment opened or closed moves the first line of
            # code), so the file is analysed whole; until then every ordinary finding is moved one by one.
            self.needs_full = True
            store.put_ordinary(_sort_out(store.take_ordinary(), start, end, delta, dirty))
        else:
            self._move_near(start, end, delta, old, dirty)
        if store.extras:
            self._move_extras(start, end, delta, text, old, dirty, lines_moved)

    def _move_near(self, start: int, end: int, delta: int, old: bytes, dirty: list[tuple[int, int]]) -> None:
        """A change after the anchor: the findings near it one by one, the blocks after them by a pending shift."""
        store = self.store
        # An ordinary finding is shorter than _NEAR and its fix edits lie within _NEAR of it (or far before it,
        # before the anchor): one that starts more than 2 * _NEAR before the change cannot touch it.
        for finding in store.starting_in(start - 2 * _NEAR, start, extras=False):
            if touched_by(finding, start, end):
                store.remove(finding)
                dirty.append(_covering(finding, start, end, delta))
            else:
                _moved(finding, end, delta)  # a fix edit may lie after the change
        # From the change to the end of its line (whose columns move) and _NEAR beyond: one by one; after that,
        # whole blocks move (their lines by the same count, their columns not at all).
        old_line_end = _line_end(old, end)
        hi = max(end + _NEAR, old_line_end) + 1
        near = store.pop(start, hi)
        store.shift(hi - 1, delta)
        store.insert(_sort_out(near, start, end, delta, dirty))

    def _move_extras(
        self,
        start: int,
        end: int,
        delta: int,
        text: bytes,
        old: bytes,
        dirty: list[tuple[int, int]],
        lines_moved: bool,
    ) -> None:
        """The extras, each at its current offsets: moved, or dropped where the change touches them."""
        store = self.store
        profile = self.profile
        file_level = profile.file_level if profile is not None else frozenset()
        # Messages of already-ported code name the line of the directive that selects the target's path
        # (Finding.line_ref): when lines come or go above it, the number moves with them (as a whole-file check
        # counts them: line feeds).
        newlines = text.count(b"\n") - old.count(b"\n", start, end)
        line_end = _line_end(self.data, start + len(text))
        edited_lines = search_windows(old, [(start, end)])[0]
        gone = []
        for finding in store.extras:
            reference = finding.line_ref
            if touched_by(finding, start, end) or (
                reference is not None and edited_lines[0] <= reference < edited_lines[1]
            ):
                # The change touches the finding or its fix: it is found again (or not) by re-analysis; the
                # file's one finding of a file-level rule may be anywhere next, so the whole file is.
                dirty.append(_covering(finding, start, end, delta))
                gone.append(finding)
                self.needs_full = self.needs_full or finding.rule in file_level
                continue
            after = finding.start > end
            _moved(finding, end, delta)
            if reference is not None and reference > end and newlines:
                named = list(_LINE_REF.finditer(finding.message))
                if named:
                    lo, hi = named[-1].span(1)
                    number = int(named[-1].group(1)) + newlines
                    finding.message = f"{finding.message[:lo]}{number}{finding.message[hi:]}"
                store.moved_extra(finding)
            elif after and (lines_moved or finding.start <= line_end):
                store.moved_extra(finding)  # its line or column moved
        if gone:
            ids = {id(f) for f in gone}
            store.pop_extras(lambda f: id(f) in ids)
        store.resort_extras()

    # ---- finding the findings a window touches, without a pass over all of them ----------------------------------
    def _near(self, windows: list[tuple[int, int]]) -> list[Finding]:
        """The findings that touch (overlap or are adjacent to) one of the windows, themselves or by a fix edit."""
        store = self.store
        found: dict[int, Finding] = {}
        for lo, hi in windows:
            for finding in store.starting_in(lo - 2 * _NEAR, hi + 1, extras=False):
                if _touched(finding, [(lo, hi)]):
                    found[id(finding)] = finding
        for finding in store.extras:
            if _touched(finding, windows):
                found[id(finding)] = finding
        return list(found.values())

    def _starting_in(self, windows: list[tuple[int, int]]) -> list[Finding]:
        return [f for lo, hi in windows for f in self.store.starting_in(lo, hi)]

    # ---- analysis -------------------------------------------------------------------------------------------
    def analyse(
        self,
        whole_file: bool = False,
        incremental: bool = True,
        local_first: bool = False,
        allow_full: bool = True,
        cancelled: Callable[[], bool] | None = None,
    ) -> Outcome:
        """Make `findings` describe the current text; `incremental=False` parses and analyses it whole.

        `local_first`: when the edits since the last analysis lie in or between a few declarations (cudaport.spans),
        re-parse their text alone and analyse it (Outcome "local"), leaving the whole file's re-parse to `settle()`.
        Tree-sitter re-parses a file in time that grows with its number of top-level declarations (2 ms for 2,500
        on a fast machine) however small the edit; a function parses alone in tens of microseconds, and the same as
        in its file. An editor shows the findings at once and settles right after.

        `allow_full=False`: when only a whole-file analysis will do, return Outcome("deferred") instead (a front end
        that runs those elsewhere, on a fresh Session: the language server's message loop must stay free).
        `cancelled()`: asked while the text is parsed and between the phases of a whole-file analysis; when it says
        so, Cancelled is raised (the session is then to be dropped: a fresh one analysing a snapshot)."""
        began = time.perf_counter()
        if self.current and not whole_file:
            return Outcome("current", changed=False)
        language = self.language
        assert language is not None, "a session without a language is never analysed"
        profile = self.profile
        if incremental and profile is not None and self.tree is not None and not self.needs_full and not whole_file:
            if local_first and profile.items:
                result = self._local(profile)
                if result is not None:
                    self.incremental_runs += 1
                    return Outcome("local", time.perf_counter() - began, *result)
            result = self._incremental(profile)
            if result is not None:
                self._done(*self._facts_after)
                self.incremental_runs += 1
                return Outcome("incremental", time.perf_counter() - began, *result)
            if not allow_full:
                return self._deferred()
            tree = self.tree  # the attempt parsed the current text before it gave up: no second parse
        elif not allow_full:
            return self._deferred()
        elif incremental and not whole_file and self.tree is not None:
            tree = self._parse(self.tree, cancelled)
        else:
            tree = self._parse(None, cancelled)
        self._full(tree)
        if cancelled is not None and cancelled():
            raise Cancelled
        self._done()
        self.incremental_runs = 0
        return Outcome("full", time.perf_counter() - began)

    def _deferred(self) -> Outcome:
        self.needs_full = True
        return Outcome("deferred", changed=False)

    def _parse(self, old_tree: Any | None, cancelled: Callable[[], bool] | None) -> Any:
        """The current text parsed (reusing `old_tree`); with `cancelled`, in chunks, so that other threads run
        while it parses and a text no longer wanted stops being parsed."""
        assert self.language is not None
        analyzer = self.engine.analyzer(self.language)
        parser = getattr(analyzer, "parser", None)
        if cancelled is None or not isinstance(parser, Parser):
            return analyzer.parse(self.data, old_tree)
        view = memoryview(self.data)
        stopped = False

        def read(offset: int, point: Any) -> bytes | None:
            nonlocal stopped
            if stopped or cancelled():
                stopped = True
                return None  # the end of the input, as tree-sitter sees it: the parse ends soon
            return bytes(view[offset : offset + _PARSE_CHUNK])

        tree = parser.parse(read, old_tree) if old_tree is not None else parser.parse(read)
        if stopped:
            raise Cancelled
        return tree

    @property
    def settled(self) -> bool:
        return not self.provisional

    @property
    def awaits_whole_file(self) -> bool:
        """Whether the provisional findings wait for a whole-file analysis that settle(allow_full=False) declined,
        because an edit changed what the whole file's findings depend on (an include): a front end that runs such
        analyses elsewhere must start one (once typing stops), whatever else its settings say."""
        return bool(self.provisional) and self._settle_whole and self._settle_declined

    def settle(self, allow_full: bool = True) -> bool:
        """Confirm a local analysis: re-parse the whole file and analyse the span again with its tree (and, after a
        directive edit, compare the facts with the whole file's). Whether that changed the findings (rarely: the
        span parsed differently in its file, as half-typed code can, or an edit in it changed the syntax after it,
        like an unclosed `/*`)."""
        if not self.provisional:
            return False
        if not self.current:
            return False  # edited since: the next analysis covers the function again (edit() made it dirty)
        if self._settle_declined and not allow_full:
            return False  # tried since the last edit: only a whole-file analysis would do
        kept = (self.tree, self.provisional, self._provisional_facts, self.facts_changed, self.context_stale)
        self.dirty, self.provisional = self.provisional, []
        if self._provisional_facts:
            # compared with the whole file's, as after a directive edit, and worked out in a fresh context: what
            # the finders keep per file (the conditional blocks' shape) was worked out from the local view
            self.facts_changed = self.context_stale = True
            self._provisional_facts = False
        before = self.store  # a whole-file analysis makes a new store: then compare the two (a file-level finding)
        if self._settle_whole:
            self.needs_full = True
        outcome = self.analyse(allow_full=allow_full)
        if outcome.mode == "deferred":
            # Only a whole-file analysis would confirm them, and that is not for now. Mostly tree-sitter's error
            # recovery: `x` typed after a block's last statement makes the block take in the rest of the file,
            # which a compiler would not. The local findings stay, still provisional, against the tree they were
            # found with: the next edit (the `x` erased, typing on) is analysed locally again, not whole, and the
            # whole-file check once typing stops (or a whole-file analysis) settles them.
            self.tree, self.provisional, self._provisional_facts, self.facts_changed, self.context_stale = kept
            self.dirty, self.needs_full = [], False
            self._settle_declined = True
            return False
        if outcome.mode == "incremental":
            return outcome.changed
        return self.store.all() != before.all()

    def _done(self, facts_hold: bool = False, fresh: FileFacts | None = None) -> None:
        """`facts_hold`: no edit since the facts were taken changed a file-wide statement, so they still describe
        the text once their offsets are mapped through the edits (as for several edits before one analysis), and
        are kept rather than worked out again on every keystroke; `fresh`: the facts of this text, already taken."""
        self.dirty = []
        self.provisional = []
        self._settle_whole = False  # the whole file's facts were compared (or worked out): what it waited for
        self.needs_full = False
        self.analysed = True
        if facts_hold and self.facts is not None and len(self._fact_edits) < _FACT_EDITS // 2:
            return
        self._fact_edits = []
        self.facts_changed = False
        self.facts = fresh if fresh is not None else self._facts(self.tree) if self.tree is not None else None

    def _facts(self, tree: Any, outside: Any | None = None) -> FileFacts | None:
        """The analyzer's facts of the text; `outside`: the old tree, for the rest of the file when `tree` holds
        only part of it (a local analysis)."""
        profile = self.profile
        context = self.context
        if profile is None or not profile.facts or context is None or self.language is None:
            return None
        analyzer = cast(FactFinder, self.engine.analyzer(self.language))
        context.file_root = outside.root_node if outside is not None else None
        try:
            return analyzer.facts(self.data, tree, context)
        finally:
            context.file_root = None

    def _moved_since_facts(self, offset: int) -> int:
        """An offset of the text the facts were worked out from, in the current text (an offset an edit replaced
        goes to the edit's start: the change is analysed there anyway)."""
        for start, end, delta in self._fact_edits:
            if offset > end:
                offset += delta
            elif offset >= start:
                offset = start
        return offset

    def _full(self, tree: Any) -> None:
        engine = self.engine
        language = self.language
        assert language is not None
        self.context = self._context(self.data)
        self.context_stale = False
        findings, tree = engine.check_data(self.data, language, self.path, tree, self.context)
        self.tree = tree
        self.store = self._store(sorted(findings, key=Finding.sort_key))
        profile = self.profile
        self.declarations = _declarations(tree, profile, engine.ruleset, None) if profile is not None else []

    def _store(self, findings: list[Finding]) -> FindingStore:
        profile = self.profile
        file_level = profile.file_level if profile is not None else frozenset()

        def apart(finding: Finding) -> bool:
            return _is_wide(finding) or finding.line_ref is not None or finding.rule in file_level

        return FindingStore(findings, apart, _head_end)

    def _incremental(self, profile: IncrementalProfile) -> tuple[int, bool] | None:
        """Re-analyse what changed: the number of windows analysed and whether their findings changed, or None
        when the whole file should be analysed."""
        engine = self.engine
        language = self.language
        assert language is not None and self.tree is not None
        data = self.data
        old_tree = self.tree
        tree = engine.analyzer(language).parse(data, old_tree)
        changed = [(r.start_byte, r.end_byte) for r in old_tree.changed_ranges(tree)]
        if profile.transparent and any(hi - lo > _REFINE for lo, hi in changed):
            changed = _refined(old_tree.root_node, tree.root_node, changed, profile.transparent)
        self.tree = tree
        if _directive_liveness_changed(profile, data, old_tree, tree, changed):
            return None  # a comment or string opened or closed around a directive or import
        renewed = self.context is None or self.context_stale
        if renewed:
            context = self._context(data)
            if self.context is not None and context.shims != self.context.shims:
                self.context = context
                return None  # an #include brought in (or dropped) a header that maps CUDA names
            self.context = context
            self.context_stale = False
        # with the spans a local analysis left provisional, waiting for a whole-file one (_settle_whole): this is it
        ranges = [*self.dirty, *self.provisional, *changed]
        facts: FileFacts | None = None
        if self.facts_changed:
            # A file-wide statement changed: what its facts say changed is analysed again (a conditional chain
            # that selects the target's path, the findings of a name a #define maps), or the whole file.
            facts = self._facts(tree)
            change = self.facts.changes(facts, self._moved_since_facts) if self.facts is not None else None
            if change is None:
                return None
            ranges += change.ranges
            if change.symbols:
                ranges += [(f.start, f.end) for f in self.store.all() if f.symbol in change.symbols]
        # For _done: the facts still hold unless a file-wide statement or the file's context changed.
        self._facts_after = (not self.facts_changed and not renewed, facts)
        if not ranges:
            return 0, False
        windows, dropped = self._windows(profile, tree, old_tree.root_node, ranges)
        return self._reanalyse(profile, tree, old_tree, windows, dropped)

    def _local(self, profile: IncrementalProfile) -> tuple[int, bool] | None:
        """analyse(local_first=True): the edits since the last analysis, all in or between a few top-level
        declarations (IncrementalProfile.items) alone on their lines, analysed with their text parsed alone; None
        when they are not, or the text no longer parses as such declarations, and the whole file is re-parsed."""
        if self.context_stale or self.context is None or not self.dirty:
            return None
        if profile.facts and (self.facts is None or len(self._fact_edits) >= _FACT_EDITS // 2):
            return None  # the facts would be worked out afresh, from the whole file's tree
        if self.facts_changed and not profile.facts:
            return None
        old_tree = self.tree
        assert old_tree is not None and self.language is not None
        analyzer = cast(SpanParser, self.engine.analyzer(self.language))
        data = self.data
        lo, hi = self.dirty[0][0], self.dirty[-1][1]
        for _ in range(3):
            # a directive edited on an #if block's own lines (its condition, #else, #endif): the block whole; an
            # include's name (profile.whole_file_statements), the declarations around it as for any other edit
            block = spans.directive_block(old_tree.root_node, lo, hi, profile) if self.facts_changed else None
            if block is not None:
                span: tuple[int, int] | None = (block.start_byte, block.end_byte)
            elif self.facts_changed and not self._whole_statements_only:
                span = None
            else:
                span = spans.items_at(old_tree.root_node, lo, hi, profile, data)
            if span is None or span[1] - span[0] > spans.LOCAL_SPAN:
                return None
            start, end = span
            line_end = data.find(b"\n", start, end)
            if line_end >= 0 and not data[start:line_end].strip():
                start = line_end + 1  # the span began at the end of an `#endif` line: from the next line on
            lines = search_windows(data, [(start, max(start, end - 1))])[0]  # a directive ends past its `\n`
            if data[lines[0] : start].strip() or data[end : lines[1]].strip():
                lo, hi = min(lo, lines[0]), max(hi, lines[1] - 1)  # take in what shares their first or last line
                continue
            tree = analyzer.parse_span(data, start, end, _point(self.lines, start), _point(self.lines, end))
            if not spans.stands_alone(tree.root_node.children, data, start, end, profile.items):
                return None  # what was typed does not stand between declarations (yet): the file decides
            # Where the syntax changed inside the span (typing `x` after a statement can join it to the next one):
            # the span's own tree against the old one, which is cheap (outside the span, all of it differs).
            changed = [
                (max(r.start_byte, start), min(r.end_byte, end))
                for r in old_tree.changed_ranges(tree)
                if r.end_byte > start and r.start_byte < end
            ]
            facts: FileFacts | None = None
            whole = False
            if self.facts_changed:
                # A directive edited: the file's facts from the span's tree and the old one for the rest, and
                # what they say changed (which must lie in the span too). When they say the whole file (an
                # include's name, which decides file-level findings and every dual-stack fix) or every use of a
                # name, the span's findings go out provisional all the same, and settle() analyses the file whole.
                if block is None:  # only whole-file statements changed: the facts would say so
                    facts, change = None, None
                else:
                    facts = self._facts(tree, outside=old_tree)
                    change = self.facts.changes(facts, self._moved_since_facts) if self.facts is not None else None
                if change is None or change.symbols:
                    if block is not None:
                        return None  # the block's own findings moved: the file decides
                    whole, facts = True, None
                else:
                    changed += change.ranges
            windows, dropped = self._windows(
                profile, tree, old_tree.root_node, [*self.dirty, *changed], clip=(start, end)
            )
            if lines[0] <= windows[0][0] and windows[-1][1] <= lines[1]:
                break
            lo, hi = min(lo, windows[0][0]), max(hi, windows[-1][1])  # a finding reaches out: take its nodes in
        else:
            return None
        result = self._reanalyse(profile, tree, old_tree, windows, dropped, local=True)
        if result is not None:
            # kept apart, not merged: an edit makes dirty only the spans it touches, each a few declarations
            self.provisional = sorted({*self.provisional, lines})
            self.dirty = []
            self._settle_whole = self._settle_whole or whole
            if facts is not None:  # settle() checks them against the whole file's
                self.facts, self._fact_edits, self.facts_changed = facts, [], False
                self._provisional_facts = True
        return result

    def _windows(
        self,
        profile: IncrementalProfile,
        tree: Any,
        old_root: Any,
        ranges: list[tuple[int, int]],
        clip: tuple[int, int] | None = None,
    ) -> tuple[list[tuple[int, int]], list[Finding]]:
        """Where `ranges` can change findings (each widened to what it can change, then to whole lines and to the
        findings that reach in), and the findings that start there. `clip`: the part of the file `tree` holds (an
        edit at its end widens to nothing past it)."""
        data = self.data
        root = tree.root_node
        widened = [_widen(root, old_root, lo, hi, profile) for lo, hi in ranges]
        if clip is not None:
            widened = [_clipped(data, lo, hi, clip) for lo, hi in widened]
        windows = search_windows(data, widened)
        for _ in range(4):
            # A finding analysed again must be found again in full (its trigger may lie at its end: `tid & 31`),
            # and one that reaches into the windows from outside must be analysed again.
            dropped = self._starting_in(windows)
            grow = [(f.start, f.end) for f in self._near(windows) if not _starts_in(windows, f.start)]
            grow += [(f.start, f.end) for f in dropped if not _inside(windows, f.start, f.end)]
            if not grow:
                break
            windows = search_windows(data, windows + grow)
        else:
            dropped = self._starting_in(windows)  # the windows grew on the last round
        return windows, dropped

    def _reanalyse(
        self,
        profile: IncrementalProfile,
        tree: Any,
        old_tree: Any,
        windows: list[tuple[int, int]],
        dropped: list[Finding],
        local: bool = False,
    ) -> tuple[int, bool] | None:
        """Analyse the windows again with `tree` (`local`: which holds only their part of the file, `old_tree`
        standing for the rest), in place of the `dropped` findings: the number of windows and whether their
        findings changed, or None when the whole file should be analysed."""
        engine = self.engine
        language = self.language
        assert language is not None
        data = self.data
        if sum(hi - lo for lo, hi in windows) > _WHOLE_FILE_SHARE * len(data):
            return None
        # Only where the text or its syntax changed can a declaration have come or gone, or a definition have
        # become a prototype (`{}` -> `;`): either changes what every use of that name is.
        declared = _declarations(tree, profile, engine.ruleset, windows)
        # Only definitions (with a body) make a CUDA name the user's own: a prototype re-declares CUDA's, and
        # half-typed code often parses a call as one.
        before = sorted(d[2:] for d in self.declarations if d[3] != "prototype" and _starts_in(windows, d[0]))
        if sorted(d[2:] for d in declared if d[3] != "prototype") != before:
            return None
        assert self.context is not None
        # What the file defines outside the windows, so that the analyzer need not look through the buffer.
        owned = [d for d in self.declarations if d[3] != "prototype" and not _starts_in(windows, d[0])]
        self.context.declared_elsewhere = (
            frozenset(d[2] for d in owned if d[3] == "function"),
            frozenset(d[2] for d in owned if d[3] == "field"),
        )
        self.context.file_root = old_tree.root_node if local else None
        try:
            found, _ = engine.check_data(data, language, self.path, tree, self.context, ranges=windows)
        finally:
            self.context.declared_elsewhere = None
            self.context.file_root = None
        fresh = list(found)
        store = self.store
        if profile.file_level:
            here = [f for f in fresh if f.rule in profile.file_level]
            there = store.extras_where(lambda f: f.rule in profile.file_level and not _starts_in(windows, f.start))
            if any(f.rule in profile.file_level for f in dropped) or (
                here and (not there or min(f.start for f in here) < min(f.start for f in there))
            ):
                return None  # the file's one finding of such a rule is in the windows, or moves into them
            fresh = [f for f in fresh if f.rule not in profile.file_level]
        for lo, hi in windows:
            store.pop(lo, hi)
        store.pop_extras(lambda f: _starts_in(windows, f.start))
        fresh.sort(key=Finding.sort_key)
        store.insert(fresh)
        self.declarations = sorted([d for d in self.declarations if not _starts_in(windows, d[0])] + declared)
        return len(windows), fresh != sorted(dropped, key=Finding.sort_key)


# ---- what changed in the syntax -----------------------------------------------------------------------------
def _refined(
    old_root: Any, root: Any, changed: list[tuple[int, int]], transparent: frozenset[str]
) -> list[tuple[int, int]]:
    """Tree-sitter's changed ranges without the subtrees that are the same as before and only moved into or out
    of a transparent container (see IncrementalProfile.transparent)."""
    refined: list[tuple[int, int]] = []
    for lo, hi in changed:
        if hi - lo <= _REFINE:
            refined.append((lo, hi))
            continue
        pending = [root]
        while pending:
            node = pending.pop()
            for child in node.children:
                if child.end_byte <= lo or child.start_byte >= hi or _unchanged(child, old_root, transparent):
                    continue
                if child.type in transparent:
                    pending.append(child)
                else:
                    refined.append((max(lo, child.start_byte), min(hi, child.end_byte)))
    return refined


def _unchanged(node: Any, old_root: Any, transparent: frozenset[str]) -> bool:
    """Whether the old tree (edited into the new offsets) has this very subtree (the same type over the same bytes,
    with as many nodes and the same errors) under transparent containers only, as the new one has it: a function
    that a broken brace had taken in, and no longer does, is not the same code."""
    start, end = node.start_byte, node.end_byte
    old = old_root.descendant_for_byte_range(start, end)
    while old is not None and old.type != node.type and old.start_byte == start and old.end_byte == end:
        old = old.parent
    if not (
        old is not None
        and old.type == node.type
        and old.start_byte == start
        and old.end_byte == end
        and old.descendant_count == node.descendant_count
        and old.has_error == node.has_error
    ):
        return False
    above = old.parent
    while above is not None and above.parent is not None:
        if above.type not in transparent:
            return False
        above = above.parent
    return True


# ---- widening an edit to what it can change ----------------------------------------------------------------
def _widen(root: Any, old_root: Any, lo: int, hi: int, profile: IncrementalProfile) -> tuple[int, int]:
    """What a change of [lo, hi) can change the findings of.

    An edit to a function's header (qualifiers, name, parameters) can change every finding in it (device code or
    not): the whole function. An edit inside a function's body changes its own statement, unless the function
    itself changed shape (a `/*` or `}` typed inside it joins or splits functions): then the whole function, as
    it was and as it is. Outside functions, the outermost node below a container (a declaration, a macro, a
    top-level statement). Everything between the ends of the range is analysed anyway: what matters is what its
    two ends reach into."""
    first = _widen_point(root, old_root, lo, profile)
    last = _widen_point(root, old_root, max(lo, hi - 1), profile)
    return min(lo, first[0], last[0]), max(hi, first[1], last[1])


def _widen_point(root: Any, old_root: Any, lo: int, profile: IncrementalProfile) -> tuple[int, int]:
    hi = lo + 1
    node = root.descendant_for_byte_range(lo, hi)
    if node is None:
        return lo, hi
    header_scope = None  # the outermost scope whose header the edit touches
    body_scope = None  # the innermost scope whose body holds the edit ...
    statement = None  # ... and the statement of that body that does
    below_container = node
    path = [node]
    current = node
    while current is not None:
        if current.type in profile.scopes:
            body = current.child_by_field_name("body")
            if body is not None and not (body.start_byte <= lo and hi <= body.end_byte):
                header_scope = current
            elif body is not None and body_scope is None and header_scope is None:
                body_scope = current
                index = next((i for i, n in enumerate(path) if n == body), None)
                # Between statements (a fresh line being typed) nothing else depends on the edit.
                statement = path[index - 1] if index is not None and index > 0 else None
        parent = current.parent
        if parent is not None and parent.type not in profile.containers and current == below_container:
            below_container = parent
        if parent is not None:
            path.append(parent)
        current = parent
    extra = (lo, hi)
    if header_scope is None and body_scope is not None:
        before = _innermost_scope(old_root, lo, hi, profile)
        if before is None or (before.start_byte, before.end_byte) != (body_scope.start_byte, body_scope.end_byte):
            header_scope = body_scope
            if before is not None:
                extra = (before.start_byte, before.end_byte)
    if header_scope is None and body_scope is not None and statement is None:
        return extra
    chosen = header_scope or statement or below_container
    if chosen.type in profile.containers or chosen.parent is None:
        return extra
    return min(extra[0], chosen.start_byte), max(extra[1], chosen.end_byte)


def _clipped(data: bytes, lo: int, hi: int, clip: tuple[int, int]) -> tuple[int, int]:
    """[lo, hi) kept inside `clip`; a range that ends with a line's `\n` needs that line, not the next (the `#endif`
    line after a span, which its tree lacks)."""
    start, end = clip
    lo = min(max(lo, start), max(start, end - 1))
    hi = max(min(hi, end), lo)
    return lo, hi - 1 if hi > lo and data[hi - 1 : hi] == b"\n" else hi


def _innermost_scope(root: Any, lo: int, hi: int, profile: IncrementalProfile) -> Any:
    current = root.descendant_for_byte_range(lo, hi)
    while current is not None and current.type not in profile.scopes:
        current = current.parent
    return current


def _declarations(
    tree: Any, profile: IncrementalProfile, ruleset: RuleSet, windows: list[tuple[int, int]] | None
) -> list[Declaration]:
    """Functions and struct fields declared (in the windows, or anywhere) with a name the rule data knows."""
    if profile.declarations is None:
        return []
    query = _query(tree.language, profile.declarations)
    found = []
    for lo, hi in windows or [(0, tree.root_node.end_byte)]:
        cursor = QueryCursor(query)
        cursor.set_byte_range(lo, hi)
        captures = cursor.captures(tree.root_node)
        for capture in ("name", "field"):
            for node in captures.get(capture, []):
                name = (node.text or b"").decode("utf-8", "replace")
                if not (ruleset.symbol(name) is not None or name in ruleset.namespaces):
                    continue
                if windows is not None and not _starts_in(windows, node.start_byte):
                    continue
                if capture == "name":
                    kind = "function" if _is_definition(node) else "prototype"
                elif node.parent is None or node.parent.type != _FIELD_ACCESS:
                    kind = "field"  # declared (a field read is `p.field`, a field expression)
                else:
                    continue
                found.append((node.start_byte, node.end_byte, name, kind))
    return sorted(found)


def _is_definition(name: Any) -> bool:
    declarator = name.parent
    outer = declarator.parent if declarator is not None else None
    while outer is not None and outer.type in _RETURN_DECLARATORS:
        outer = outer.parent
    return outer is not None and outer.type in _DEFINITIONS and outer.child_by_field_name("body") is not None


@functools.lru_cache(maxsize=16)
def _query(language: Language, source: str) -> Query:
    query: Query = Query(language, source)
    return query


# ---- bookkeeping ----------------------------------------------------------------------------------------------
def _merged(ranges: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Ranges sorted, those that overlap or touch made one."""
    merged: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        if merged and lo <= merged[-1][1]:
            merged[-1] = (merged[-1][0], max(merged[-1][1], hi))
        else:
            merged.append((lo, hi))
    return merged


def _starts_in(windows: list[tuple[int, int]], offset: int) -> bool:
    return any(lo <= offset < hi for lo, hi in windows)


def _touched(finding: Finding, windows: list[tuple[int, int]]) -> bool:
    """touched_by for any of the windows, with the common case (no fix edit away from the finding) inlined."""
    start, end = finding.start, finding.end
    for lo, hi in windows:
        if end >= lo and start <= hi:
            return True
    return any(e.end >= lo and e.start <= hi for e in _fix_edits(finding) for lo, hi in windows)


def _inside(windows: list[tuple[int, int]], start: int, end: int) -> bool:
    return any(lo <= start and end <= hi for lo, hi in windows)


def touched_by(finding: Finding, start: int, end: int) -> bool:
    """Whether a change of [start, end) touches the finding or one of its fix's edits (an edit far away, like the
    import a Python fix inserts at the top, does not make the finding's neighbourhood matter)."""
    if finding.end >= start and finding.start <= end:
        return True
    return any(e.end >= start and e.start <= end for e in _fix_edits(finding))


def _is_wide(finding: Finding) -> bool:
    """Kept apart from the blocks: longer than _NEAR, or with a fix edit far from it other than an insertion
    before it (a head edit: see _head_end)."""
    if finding.end - finding.start > _NEAR:
        return True
    return any(
        e.end > finding.end + _NEAR or (e.start < finding.start - _NEAR and not _inserts_before(e, finding))
        for e in _fix_edits(finding)
    )


def _inserts_before(edit: Edit, finding: Finding) -> bool:
    return edit.start == edit.end and edit.start < finding.start


def _head_end(finding: Finding) -> int:
    """Where the finding's fix inserts text before it ends (the include or import a fix adds at the top of the
    file, which every dual-stack fix of a file shares), or -1: the finding store's anchor. Where such a line goes
    depends on everything before it (a comment opened or closed moves the first line of code)."""
    return max((e.end for e in _fix_edits(finding) if _inserts_before(e, finding)), default=-1)


def _fix_edits(finding: Finding) -> tuple[Edit, ...]:
    """The edits of both of a finding's fixes (the rename and the dual-stack one)."""
    fix, dual = finding.fix, finding.dual
    if dual is None or dual is fix:
        return fix.edits if fix is not None else ()
    return (fix.edits if fix is not None else ()) + dual.edits


def _sort_out(findings: list[Finding], start: int, end: int, delta: int, dirty: list[tuple[int, int]]) -> list[Finding]:
    """Of findings taken out of the store, those a change of [start, end) touches are left for re-analysis (their
    ranges added to `dirty`); the others are returned, moved."""
    kept = []
    for finding in findings:
        if touched_by(finding, start, end):
            dirty.append(_covering(finding, start, end, delta))
        else:
            kept.append(_moved(finding, end, delta))
    return kept


def _covering(finding: Finding, start: int, end: int, delta: int) -> tuple[int, int]:
    """A finding's range, touched by a change of [start, end), in new coordinates grown over what replaced it."""
    lo, hi = finding.start, finding.end
    return min(lo, start), max(hi + delta if hi > end else end + delta, end + delta)


def _moved(finding: Finding, end: int, delta: int) -> Finding:
    """A finding the change does not touch, with its offsets and its fix's moved where they lie after it."""
    if delta == 0:
        return finding
    if finding.start > end:
        finding.start += delta
        finding.end += delta
    if finding.line_ref is not None and finding.line_ref > end:
        finding.line_ref += delta
    _shift_fixes(finding, end, delta)
    return finding


def _shift_fixes(finding: Finding, end: int, delta: int) -> None:
    """Move the edits of a finding's fixes that lie after `end` by `delta` (a fix that is both stays one)."""
    fix, dual = finding.fix, finding.dual
    if fix is not None and any(e.start > end for e in fix.edits):
        finding.fix = fix.moved(_shifted_edits(fix.edits, end, delta))
    if dual is not None:
        if dual is fix:
            finding.dual = finding.fix
        elif any(e.start > end for e in dual.edits):
            finding.dual = dual.moved(_shifted_edits(dual.edits, end, delta))


def _shifted_edits(edits: tuple[Edit, ...], end: int, delta: int) -> tuple[Edit, ...]:
    return tuple(Edit(e.start + delta, e.end + delta, e.text) if e.start > end else e for e in edits)


def _touches(pattern: Any, old: bytes, data: bytes, touched_old: tuple[int, int], touched_new: tuple[int, int]) -> bool:
    return bool(pattern.search(old, *touched_old) or pattern.search(data, *touched_new))


def _directive_liveness_changed(
    profile: IncrementalProfile, data: bytes, old_tree: Any, tree: Any, changed: list[tuple[int, int]]
) -> bool:
    """Whether a file-wide statement where the syntax changed went into or out of a comment or string. Its text
    did not change (the edit's own lines are `_file_wide_change`'s), and the old tree, edited, speaks in the new
    offsets: a line typed into, which the parser recovers from by re-reading the lines around it, is not a
    whole-file change unless a directive there stopped or started being code."""
    for lo, hi in search_windows(data, changed):
        for match in profile.file_wide.finditer(data, lo, hi):
            at = match.start()
            if _in_literal(old_tree.root_node, at) != _in_literal(tree.root_node, at):
                return True
    return False


def _in_literal(root: Any, at: int) -> bool:
    """Whether the byte at `at` is inside a comment or string (a directive is never inside anything else that
    would hide it: climbing stops at the first preprocessor node)."""
    node = root.descendant_for_byte_range(at, at + 1)
    while node is not None and not node.type.startswith("preproc"):
        if "comment" in node.type or "string" in node.type:
            return True
        node = node.parent
    return False


def _file_wide_change(
    profile: IncrementalProfile, old: bytes, data: bytes, touched_old: tuple[int, int], touched_new: tuple[int, int]
) -> bool:
    """Whether the edit changed a statement that acts on the whole file (see IncrementalProfile). The touched
    ranges are whole logical lines: an edit on a line a backslash continues is an edit of the directive."""
    pattern = profile.file_wide
    if not profile.file_wide_statements:
        return _touches(pattern, old, data, touched_old, touched_new)
    return _statements(pattern, old, touched_old) != _statements(pattern, data, touched_new)


def _changes_only(
    kinds: Any,
    profile: IncrementalProfile,
    old: bytes,
    data: bytes,
    touched_old: tuple[int, int],
    touched_new: tuple[int, int],
) -> bool:
    """Whether every file-wide statement the edit added, removed or changed matches `kinds` (a pattern)."""
    if kinds is None or not profile.file_wide_statements:
        return False
    before = _statements(profile.file_wide, old, touched_old)
    after = _statements(profile.file_wide, data, touched_new)
    changed = [text for text in before if text not in after] + [text for text in after if text not in before]
    return bool(changed) and all(kinds.match(text) for text in changed)


def _statements(pattern: Any, data: bytes, touched: tuple[int, int]) -> list[bytes]:
    """The file-wide statements in `touched`; one that reaches a backslash at the end of its line goes on with the
    lines that continue it (`#if A && \\` then `B`)."""
    found = []
    for match in pattern.finditer(data, *touched):
        text = match.group(0)
        if text.rstrip(b"\r").endswith(b"\\"):
            text = data[match.start() : search_windows(data, [(match.start(), match.end())])[0][1]]
        found.append(text.rstrip())
    return found


def _point(lines: LineIndex, offset: int) -> tuple[int, int]:
    row = lines.line_of(offset)
    return row, offset - lines.line_start(row)


def _line_end(data: bytes, offset: int) -> int:
    end = data.find(b"\n", offset)
    return len(data) if end == -1 else end


def _common_prefix(a: bytes, b: bytes) -> int:
    """Length of the common prefix, by bisection over slice comparisons (memcmp, not a Python loop)."""
    lo, hi = 0, min(len(a), len(b))
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[:mid] == b[:mid]:
            lo = mid
        else:
            hi = mid - 1
    return lo


def _common_suffix(a: bytes, b: bytes, prefix: int) -> int:
    lo, hi = 0, min(len(a), len(b)) - prefix
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if a[len(a) - mid :] == b[len(b) - mid :]:
            lo = mid
        else:
            hi = mid - 1
    return lo
