"""What a worker process sends back (engine.wire) rebuilds each file's results exactly: every field of the findings,
their fixes, dual-stack fixes and compatibility entries, excerpts, skipped files and errors."""

from __future__ import annotations

import pickle
from pathlib import Path

from conftest import FIXTURES
from cudaport.engine import wire
from cudaport.engine.runner import scan
from cudaport.model import records
from cudaport.model.findings import CompatEntry, Edit, Finding, Fix
from cudaport.model.results import Diagnostic, FileFindings
from cudaport.project.config import load_settings

# The fields the encoding carries, in its order: a field added to one of these classes must be added to it too.
ENCODED = {
    FileFindings: [
        "path",
        "language",
        "target",
        "lines",
        "diagnostics",
        "skipped",
        "error",
        "excerpts",
        "source_lines",
    ],
    Diagnostic: ["path", "line", "column", "end_line", "end_column", "finding"],
    Finding: [
        *("rule", "start", "end", "difficulty", "message", "symbol"),
        *("replacement", "fix", "severity", "data", "line_ref", "dual"),
    ],
    Fix: ["title", "edits", "applicability", "compat"],
    Edit: ["start", "end", "text"],
    CompatEntry: ["kind", "cuda", "target", "core"],
}


def test_the_encoding_names_every_field() -> None:
    for kind, names in ENCODED.items():
        assert [f.name for f in records.fields(kind)] == names, kind.__name__


def test_results_cross_unchanged(tmp_path: Path) -> None:
    settings = load_settings(start=tmp_path, overrides={"target": "hip", "fix-style": "dual-stack"})
    results = list(scan([str(FIXTURES)], settings, ["hip", "npu"], excerpts=True))
    found = [d.finding for r in results for d in r.diagnostics]
    assert any(f.fix is not None and f.fix.edits for f in found)
    assert any(f.dual is not None and f.dual.compat for f in found)
    assert any(r.skipped for r in results) and any(r.excerpts for r in results)
    for result in results:
        crossed = wire.unpack(pickle.loads(pickle.dumps(wire.pack([result]))))
        assert crossed == [result]
        assert [type(d.finding.difficulty) for d in crossed[0].diagnostics] == [
            type(d.finding.difficulty) for d in result.diagnostics
        ]
