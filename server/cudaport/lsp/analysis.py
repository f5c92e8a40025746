"""Bringing a document's findings up to date through the engine: the whole file, or only what changed.

Incremental analysis re-parses with the edited old tree (tree-sitter reuses everything the edit did not touch),
takes the edited byte ranges plus the ranges whose syntax changed (`Tree.changed_ranges`: typing `/*` changes the
rest of the file), widens each to the outermost enclosing function (whether code is device code depends on its
qualifiers) and to whole lines, and asks the engine for the findings that start there. The other findings were
already moved with the edits. Edits that can change findings anywhere (directives, imports, suppressions) and
languages without a profile get a whole-file analysis; after typing stops, one whole-file check makes sure
nothing non-local was missed."""

from __future__ import annotations

import bisect
import functools
import logging
import time
from dataclasses import dataclass
from typing import Any

from tree_sitter import Language, Query, QueryCursor

from ..analyzers.base import search_windows
from ..models import Finding
from ..ruleset import RuleSet
from .configuration import Resolved
from .documents import Document
from .languages import LanguageProfile, profile

log = logging.getLogger(__name__)

# Past this share of the file, re-analysing windows costs about as much as the whole file.
_WHOLE_FILE_SHARE = 0.5


@dataclass(frozen=True, slots=True)
class Outcome:
    mode: str  # "full", "incremental", "skipped" or "current"
    seconds: float = 0.0
    windows: int = 0
    changed: bool = True


def analyse(document: Document, resolved: Resolved, whole_file: bool = False) -> Outcome:
    """Make `document.findings` describe its current text under `resolved`'s configuration."""
    began = time.perf_counter()
    if document.config_token is not resolved.token:
        document.needs_full = True
    elif document.current and not whole_file:
        return Outcome("current", changed=False)
    reason = skip_reason(document, resolved)
    if reason is not None:
        changed = bool(document.findings) or document.skipped != reason
        document.findings = []
        document.tree = None
        document.skipped = reason
        _done(document, resolved)
        return Outcome("skipped", time.perf_counter() - began, changed=changed)
    document.skipped = None
    language = document.language
    assert language is not None
    language_profile = profile(language)
    options = resolved.options
    incremental = (
        options.incremental
        and language_profile.incremental
        and document.tree is not None
        and not document.needs_full
        and not whole_file
    )
    if incremental:
        windows = _incremental(document, resolved, language_profile)
        if windows is not None:
            _done(document, resolved)
            document.incremental_runs += 1
            return Outcome("incremental", time.perf_counter() - began, windows)
    analyzer = resolved.engine.analyzer(language)
    if incremental:
        tree = document.tree  # the attempt parsed the current text before it gave up: no second parse
    elif options.incremental and not whole_file and document.tree is not None:
        tree = analyzer.parse(document.data, document.tree)
    else:
        # The check after typing stops parses afresh: error recovery can leave an incrementally parsed tree of
        # half-typed code slightly different from a fresh parse, which is what `cudaport check` sees.
        tree = analyzer.parse(document.data)
    _full(document, resolved, tree)
    _done(document, resolved)
    document.incremental_runs = 0
    return Outcome("full", time.perf_counter() - began)


def skip_reason(document: Document, resolved: Resolved) -> str | None:
    settings = resolved.settings
    if document.language is None:
        return "not a C, C++, CUDA or Python source"
    if not resolved.engine.supports(document.language):
        return f"cudaport has no analyzer for {document.language} sources yet"
    if document.path is not None and resolved.excluded(document.path):
        return "excluded by the configuration (exclude/extend-exclude)"
    if len(document.data) > settings.max_file_size:
        return (
            f"{len(document.data):,} bytes is over the {settings.max_file_size:,}-byte limit (max-file-size): "
            "not analysed"
        )
    if document.binary:
        return "binary content (NUL bytes): not analysed"
    return None


def _done(document: Document, resolved: Resolved) -> None:
    document.analysed_version = document.version
    document.dirty = []
    document.refresh = []
    document.needs_full = False
    document.config_token = resolved.token
    document.result_id += 1


def _full(document: Document, resolved: Resolved, tree: Any) -> None:
    engine = resolved.engine
    language = document.language
    assert language is not None
    document.context = engine.context_for(document.path, document.data)
    document.context_stale = False
    findings, tree = engine.check_data(document.data, language, document.path, tree, document.context)
    document.tree = tree
    document.findings = sorted(findings, key=Finding.sort_key)
    document.declarations = _declarations(tree, profile(language), engine.ruleset, None)


def _incremental(document: Document, resolved: Resolved, language_profile: LanguageProfile) -> int | None:
    """Re-analyse what changed; the number of windows analysed, or None when the whole file should be."""
    engine = resolved.engine
    language = document.language
    assert language is not None and document.tree is not None
    data = document.data
    old_tree = document.tree
    tree = engine.analyzer(language).parse(data, old_tree)
    changed = [(r.start_byte, r.end_byte) for r in old_tree.changed_ranges(tree)]
    document.tree = tree
    file_wide = language_profile.file_wide
    if file_wide is not None and any(file_wide.search(data, lo, hi) for lo, hi in search_windows(data, changed)):
        return None  # the syntax changed around a directive or import (a comment opened or closed above it)
    ranges = [*document.dirty, *changed]
    if not ranges and not document.refresh:
        return 0
    root = tree.root_node
    widened = [_widen(root, old_tree.root_node, lo, hi, language_profile) for lo, hi in ranges]
    windows = search_windows(data, widened + document.refresh)
    kept: list[Finding] = []
    dropped: list[Finding] = []
    for _ in range(4):
        # A finding analysed again must be found again in full (its trigger may lie at its end: `tid & 31`), and
        # one that reaches into the windows from outside must be analysed again.
        kept, dropped = _split(document.findings, windows)
        grow = [(f.start, f.end) for f in kept if _touched(f, windows)]
        grow += [(f.start, f.end) for f in dropped if not _inside(windows, f.start, f.end)]
        if not grow:
            break
        windows = search_windows(data, windows + grow)
    if sum(hi - lo for lo, hi in windows) > _WHOLE_FILE_SHARE * len(data):
        return None
    # Only where the text or its syntax changed can a declaration have come or gone.
    declared = _declarations(tree, language_profile, engine.ruleset, windows)
    if sorted(d[2] for d in declared) != sorted(d[2] for d in document.declarations if _starts_in(windows, d[0])):
        return None  # the user declared (or undeclared) their own `cudaMalloc`: its uses anywhere change meaning
    if document.context is None or document.context_stale:
        context = engine.context_for(document.path, data)
        if document.context is not None and context.shims != document.context.shims:
            document.context = context
            return None  # an #include brought in (or dropped) a header that maps CUDA names
        document.context = context
        document.context_stale = False
    fresh, _ = engine.check_data(data, language, document.path, tree, document.context, ranges=windows)
    replaced = {(f.rule, f.start, f.end) for f in fresh}
    merged = [f for f in kept if (f.rule, f.start, f.end) not in replaced]
    merged.extend(fresh)
    merged.sort(key=Finding.sort_key)
    document.findings = merged
    document.declarations = sorted([d for d in document.declarations if not _starts_in(windows, d[0])] + declared)
    return len(windows)


def _widen(root: Any, old_root: Any, lo: int, hi: int, language_profile: LanguageProfile) -> tuple[int, int]:
    """What a change of [lo, hi) can change the findings of.

    An edit to a function's header (qualifiers, name, parameters) can change every finding in it (device code or
    not): the whole function. An edit inside a function's body changes its own statement, unless the function
    itself changed shape (a `/*` or `}` typed inside it joins or splits functions): then the whole function, as
    it was and as it is. Outside functions, the outermost node below a container (a declaration, a macro, a
    top-level statement). Everything between the ends of the range is analysed anyway: what matters is what its
    two ends reach into."""
    first = _widen_point(root, old_root, lo, language_profile)
    last = _widen_point(root, old_root, max(lo, hi - 1), language_profile)
    return min(lo, first[0], last[0]), max(hi, first[1], last[1])


def _widen_point(root: Any, old_root: Any, lo: int, language_profile: LanguageProfile) -> tuple[int, int]:
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
        if current.type in language_profile.scopes:
            body = current.child_by_field_name("body")
            if body is not None and not (body.start_byte <= lo and hi <= body.end_byte):
                header_scope = current
            elif body is not None and body_scope is None and header_scope is None:
                body_scope = current
                index = next((i for i, n in enumerate(path) if n == body), None)
                # Between statements (a fresh line being typed) nothing else depends on the edit.
                statement = path[index - 1] if index is not None and index > 0 else None
        parent = current.parent
        if parent is not None and parent.type not in language_profile.containers and current == below_container:
            below_container = parent
        if parent is not None:
            path.append(parent)
        current = parent
    extra = (lo, hi)
    if header_scope is None and body_scope is not None:
        before = _innermost_scope(old_root, lo, hi, language_profile)
        if before is None or (before.start_byte, before.end_byte) != (body_scope.start_byte, body_scope.end_byte):
            header_scope = body_scope
            if before is not None:
                extra = (before.start_byte, before.end_byte)
    if header_scope is None and body_scope is not None and statement is None:
        return extra
    chosen = header_scope or statement or below_container
    if chosen.type in language_profile.containers or chosen.parent is None:
        return extra
    return min(extra[0], chosen.start_byte), max(extra[1], chosen.end_byte)


def _innermost_scope(root: Any, lo: int, hi: int, language_profile: LanguageProfile) -> Any:
    current = root.descendant_for_byte_range(lo, hi)
    while current is not None and current.type not in language_profile.scopes:
        current = current.parent
    return current


def _declarations(
    tree: Any, language_profile: LanguageProfile, ruleset: RuleSet, windows: list[tuple[int, int]] | None
) -> list[tuple[int, int, str]]:
    """Functions declared (in the windows, or anywhere) with a name the rule data knows: (start, end, name)."""
    if language_profile.declarations is None:
        return []
    query = _query(tree.language, language_profile.declarations)
    found = []
    for lo, hi in windows or [(0, tree.root_node.end_byte)]:
        cursor = QueryCursor(query)
        cursor.set_byte_range(lo, hi)
        for node in cursor.captures(tree.root_node).get("name", []):
            name = (node.text or b"").decode("utf-8", "replace")
            if (ruleset.symbol(name) is not None or name in ruleset.namespaces) and (
                windows is None or _starts_in(windows, node.start_byte)
            ):
                found.append((node.start_byte, node.end_byte, name))
    return found


@functools.lru_cache(maxsize=16)
def _query(language: Language, source: str) -> Query:
    query: Query = Query(language, source)
    return query


def _starts_in(windows: list[tuple[int, int]], offset: int) -> bool:
    return any(lo <= offset < hi for lo, hi in windows)


def _split(findings: list[Finding], windows: list[tuple[int, int]]) -> tuple[list[Finding], list[Finding]]:
    """(findings that start outside the windows, those that start inside). Findings are kept sorted by start, so
    each window's findings are one slice: no per-finding test on every keystroke of a large file."""
    starts = [f.start for f in findings]
    kept: list[Finding] = []
    dropped: list[Finding] = []
    position = 0
    for lo, hi in windows:  # sorted and disjoint (search_windows merges them)
        first = bisect.bisect_left(starts, lo, position)
        last = bisect.bisect_left(starts, hi, first)
        kept.extend(findings[position:first])
        dropped.extend(findings[first:last])
        position = last
    kept.extend(findings[position:])
    return kept, dropped


def _touched(finding: Finding, windows: list[tuple[int, int]]) -> bool:
    """touched_by for any of the windows, with the common case (no fix edit away from the finding) inlined."""
    start, end = finding.start, finding.end
    for lo, hi in windows:
        if end >= lo and start <= hi:
            return True
    fix = finding.fix
    if fix is None:
        return False
    return any(e.end >= lo and e.start <= hi for e in fix.edits for lo, hi in windows)


def _inside(windows: list[tuple[int, int]], start: int, end: int) -> bool:
    return any(lo <= start and end <= hi for lo, hi in windows)
