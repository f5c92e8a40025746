"""A document the project does not own (ignored by .gitignore, under a build tree) is not analysed in the editor,
as `cudaport check` leaves it out, and the server says why in its log rather than showing a clean file."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from .raw import RawServer

CODE = "void f(float* p) { cudaFree(p); }\n"


@pytest.fixture
def raw() -> Iterator[RawServer]:
    server = RawServer()
    yield server
    server.kill()


def test_an_ignored_document_says_why_it_is_not_analysed(raw: RawServer, tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / ".gitignore").write_text("generated/\n")
    (tmp_path / "generated").mkdir()
    (tmp_path / "build" / "CMakeFiles").mkdir(parents=True)
    raw.initialize(tmp_path, options={"debounce": 0, "logLevel": "info"})
    own = raw.open(tmp_path / "own.cu", CODE)
    assert raw.diagnostics(own, 1), "the project's own file is analysed"
    ignored = raw.open(tmp_path / "generated" / "a.cu", CODE)
    built = raw.open(tmp_path / "build" / "CMakeFiles" / "b.cu", CODE)
    assert raw.diagnostics(ignored, 1) == [] and raw.diagnostics(built, 1) == []
    raw.request("shutdown")
    logs = "\n".join(raw.log_messages())
    assert "a.cu: not one of the project's files (ignored by `generated/` in .gitignore): not analysed" in logs, logs
    assert "b.cu: not one of the project's files (" in logs, logs
