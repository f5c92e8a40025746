"""Bringing a document's findings up to date through the engine: the whole file, or only what changed.

Incremental analysis re-parses with the edited old tree (tree-sitter reuses everything the edit did not touch),
takes the edited byte ranges plus the ranges whose syntax changed (`Tree.changed_ranges`: typing `/*` changes the
rest of the file), widens each to the outermost enclosing function (whether code is device code depends on its
qualifiers) and to whole lines, and asks the engine for the findings that start there. The other findings were
already moved with the edits. Edits that can change findings anywhere (directives, imports, suppressions) and
languages without a profile get a whole-file analysis; after typing stops, one whole-file check makes sure
nothing non-local was missed."""

from __future__ import annotations

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
from .documents import Document, extent
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
    _full(document, resolved, reuse_tree=options.incremental)
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
    document.needs_full = False
    document.config_token = resolved.token
    document.result_id += 1


def _full(document: Document, resolved: Resolved, reuse_tree: bool) -> None:
    engine = resolved.engine
    language = document.language
    assert language is not None
    analyzer = engine.analyzer(language)
    old_tree = document.tree if reuse_tree else None
    tree = analyzer.parse(document.data, old_tree) if old_tree is not None else analyzer.parse(document.data)
    document.context = engine.context_for(document.path, document.data)
    findings, tree = engine.check_data(document.data, language, document.path, tree, document.context)
    document.tree = tree
    document.findings = sorted(findings, key=Finding.sort_key)
    document.declares_cuda_names = _declares_cuda_names(tree, profile(language), engine.ruleset, None)


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
    if not ranges:
        return 0
    root = tree.root_node
    widened = [_widen(root, lo, hi, language_profile) for lo, hi in ranges]
    windows = search_windows(data, widened)
    kept: list[Finding] = []
    for _ in range(4):
        kept = [f for f in document.findings if not _starts_in(windows, f.start)]
        straddling = [f for f in kept if _overlaps(windows, *extent(f))]
        if not straddling:
            break
        windows = search_windows(data, windows + [(f.start, f.start + 1) for f in straddling])
    if sum(hi - lo for lo, hi in windows) > _WHOLE_FILE_SHARE * len(data):
        return None
    if document.declares_cuda_names or _declares_cuda_names(tree, language_profile, engine.ruleset, windows):
        return None  # the user's own `cudaMalloc`: what its uses are depends on the whole file
    if document.context is None:
        document.context = engine.context_for(document.path, data)
    fresh, _ = engine.check_data(data, language, document.path, tree, document.context, ranges=windows)
    replaced = {(f.rule, f.start, f.end) for f in fresh}
    merged = [f for f in kept if (f.rule, f.start, f.end) not in replaced]
    merged.extend(fresh)
    merged.sort(key=Finding.sort_key)
    document.findings = merged
    return len(windows)


def _widen(root: Any, lo: int, hi: int, language_profile: LanguageProfile) -> tuple[int, int]:
    """The range of the outermost scope (function) around [lo, hi), or of the outermost node below a container."""
    node = root.descendant_for_byte_range(lo, max(lo, hi))
    if node is None:
        return lo, hi
    scope = None
    below_container = node
    current = node
    while current is not None:
        if current.type in language_profile.scopes:
            scope = current
        parent = current.parent
        if parent is not None and parent.type not in language_profile.containers and current is below_container:
            below_container = parent
        current = parent
    chosen = scope or below_container
    if chosen.type in language_profile.containers or chosen.parent is None:
        return lo, hi
    return min(lo, chosen.start_byte), max(hi, chosen.end_byte)


def _declares_cuda_names(
    tree: Any, language_profile: LanguageProfile, ruleset: RuleSet, windows: list[tuple[int, int]] | None
) -> bool:
    if language_profile.declarations is None:
        return False
    query = _query(tree.language, language_profile.declarations)
    for lo, hi in windows or [(0, tree.root_node.end_byte)]:
        cursor = QueryCursor(query)
        cursor.set_byte_range(lo, hi)
        for node in cursor.captures(tree.root_node).get("name", []):
            name = (node.text or b"").decode("utf-8", "replace")
            if ruleset.symbol(name) is not None or name in ruleset.namespaces:
                return True
    return False


@functools.lru_cache(maxsize=16)
def _query(language: Language, source: str) -> Query:
    query: Query = Query(language, source)
    return query


def _starts_in(windows: list[tuple[int, int]], offset: int) -> bool:
    return any(lo <= offset < hi for lo, hi in windows)


def _overlaps(windows: list[tuple[int, int]], start: int, end: int) -> bool:
    return any(start < hi and lo <= end for lo, hi in windows)
