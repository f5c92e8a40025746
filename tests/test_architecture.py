"""The package's layers hold: every import points down (import-linter's contracts in pyproject.toml), and no
module imports, directly or through others, a module that imports it (tools/architecture.py)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from conftest import REPO

sys.path.insert(0, str(REPO / "tools"))
import architecture


def test_imports_point_down_the_layers() -> None:
    lint = Path(sys.executable).with_name("lint-imports")
    result = subprocess.run([str(lint)], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "0 broken" in result.stdout


def test_no_import_circles_and_no_upward_import() -> None:
    found = architecture.modules(REPO / "server" / "cudaport")
    graph = architecture.imports(found)
    assert architecture.circles(graph) == []
    order = architecture.layers()
    upward = [
        (source, target)
        for source, targets in graph.items()
        for target in targets
        if (here := architecture.layer_of(source, order)) is not None
        and (there := architecture.layer_of(target, order)) is not None
        and there < here
    ]
    assert upward == []


def test_the_contract_catches_an_upward_import(tmp_path: Path) -> None:
    """The check can fail: a copy of the package with an analyzer importing the engine breaks the layers."""
    import shutil

    copy = tmp_path / "cudaport"
    shutil.copytree(REPO / "server" / "cudaport", copy, ignore=shutil.ignore_patterns("__pycache__"))
    base = copy / "analyzers" / "common" / "base.py"
    base.write_text(base.read_text() + "\n\ndef _late() -> None:\n    from ...engine import engine  # noqa: F401\n")
    found = architecture.modules(copy)
    graph = architecture.imports(found)
    order = architecture.layers()
    here = architecture.layer_of("cudaport.analyzers.common.base", order)
    there = architecture.layer_of("cudaport.engine.engine", order)
    assert "cudaport.engine.engine" in graph["cudaport.analyzers.common.base"]
    assert here is not None and there is not None and there < here
    assert architecture.circles(graph)  # engine imports the analyzers: now a circle
