"""What a worker process sends back to the run (--jobs): each file's results as plain tuples of strings and
numbers, rebuilt into FileFindings on arrival.

Pickling the objects themselves costs more than the analysis of small files: a slotted dataclass is pickled through
its Python-level __getstate__ and rebuilt through __setstate__, field by field, and every enum member is looked up
again by calling its class. Tuples of str and int are pickled and read back by C code, so the encoding below takes
a fraction of that on both sides (bench/bench_check.py measures the whole run). The encoding carries no version:
within a run both ends are the same cudaport, and the results cache, which stores packed findings, keys its records
by a stamp of the code that wrote them."""

from __future__ import annotations

from typing import Any

from ..model import records
from ..model.findings import Applicability, CompatEntry, Difficulty, Edit, Finding, FindingData, Fix, Severity
from ..model.results import Diagnostic, FileFindings

_DIFFICULTIES = {int(d): d for d in Difficulty}
_SEVERITIES = {int(s): s for s in Severity}
_APPLICABILITIES = {a.value: a for a in Applicability}

Packed = tuple[Any, ...]


def pack(results: list[FileFindings]) -> list[Packed]:
    return [_pack_file(found) for found in results]


def unpack(packed: list[Packed]) -> list[FileFindings]:
    return [_unpack_file(item) for item in packed]


def _pack_file(found: FileFindings) -> Packed:
    path = found.path
    diagnostics = [
        (
            None if d.path == path else d.path,  # a diagnostic is placed in its file: its path is the file's
            d.line,
            d.column,
            d.end_line,
            d.end_column,
            pack_finding(d.finding),
        )
        for d in found.diagnostics
    ]
    return (
        path,
        found.language,
        found.target,
        found.lines,
        diagnostics,
        found.skipped,
        found.error,
        found.excerpts,
        found.source_lines,
    )


def _unpack_file(item: Packed) -> FileFindings:
    path, language, target, lines, diagnostics, skipped, error, excerpts, source_lines = item
    return FileFindings(
        path,
        language,
        target,
        lines,
        [
            Diagnostic(path if where is None else where, line, column, end_line, end_column, unpack_finding(f))
            for where, line, column, end_line, end_column, f in diagnostics
        ],
        skipped,
        error,
        excerpts,
        source_lines,
    )


# One finding as plain tuples: used by the worker's results above and by the results cache's records (resultcache),
# which are versioned by the code that wrote them, so a change here invalidates them.
_SAME = 0  # a dual-stack fix that is the fix itself (edits that build for CUDA too): sent once, shared on arrival


def pack_finding(f: Finding) -> Packed:
    return (
        f.rule,
        f.start,
        f.end,
        int(f.difficulty),
        f.message,
        f.symbol,
        f.replacement,
        None if f.fix is None else _pack_fix(f.fix),
        int(f.severity),
        f.data or None,
        f.line_ref,
        _SAME if f.dual is f.fix and f.fix is not None else None if f.dual is None else _pack_fix(f.dual),
    )


def unpack_finding(item: Packed) -> Finding:
    rule, start, end, difficulty, message, symbol, replacement, fix, severity, data, line_ref, dual = item
    unpacked = None if fix is None else _unpack_fix(fix)
    return Finding(
        rule,
        start,
        end,
        _DIFFICULTIES[difficulty],
        message,
        symbol,
        replacement,
        unpacked,
        _SEVERITIES[severity],
        data or FindingData(),
        line_ref,
        unpacked if dual is _SAME else None if dual is None else _unpack_fix(dual),
    )


def _pack_fix(fix: Fix) -> Packed:
    return (
        fix.title,
        tuple((e.start, e.end, e.text) for e in fix.edits),
        fix.applicability.value,
        tuple((c.kind, c.cuda, c.target, c.core) for c in fix.compat),
    )


def _unpack_fix(item: Packed) -> Fix:
    title, edits, applicability, compat = item
    return Fix(
        title,
        tuple([Edit(*e) for e in edits]),
        _APPLICABILITIES[applicability],
        tuple([CompatEntry(*c) for c in compat]) if compat else (),
    )


# every field of a Finding is packed: a new one must be added above
assert [f.name for f in records.fields(Finding)] == [
    "rule",
    "start",
    "end",
    "difficulty",
    "message",
    "symbol",
    "replacement",
    "fix",
    "severity",
    "data",
    "line_ref",
    "dual",
], "update wire's packing of a Finding"
