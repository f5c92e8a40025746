"""Diagnostics as the user types, for each recorded client: pushed (VS Code 1.65, Emacs 29) or pulled (Neovim 0.11)."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path

from lsprotocol import types
from pytest_lsp import client_capabilities

from cudaport.knowledge.ruleset import load_ruleset

from .conftest import CUDAPORT, Launcher, Session, copy_data, position_of, wait_until

SEVERITY = {
    "portable": types.DiagnosticSeverity.Hint,
    "mechanical": types.DiagnosticSeverity.Information,
    "manual": types.DiagnosticSeverity.Warning,
    "blocker": types.DiagnosticSeverity.Error,
}
FAST = {"debounce": 20}


def cli_findings(path: Path) -> list[dict[str, object]]:
    """What `cudaport check` reports for the same file: the editor must show the same findings."""
    result = subprocess.run(
        [CUDAPORT, "check", str(path), "--format", "json", "--exit-zero"], capture_output=True, text=True, check=True
    )
    return list(json.loads(result.stdout)["diagnostics"])


async def test_open_shows_what_the_cli_finds(lsp: Launcher, profile: str, tmp_path: Path) -> None:
    path = copy_data("reduce.cu", tmp_path)
    session = await lsp.start(profile, options=FAST)
    uri = session.open(path)
    diagnostics = await session.diagnostics(uri)
    expected = cli_findings(path)
    assert len(diagnostics) == len(expected)
    text = path.read_text(encoding="utf-8")
    lines = text.split("\n")
    for diagnostic, finding in zip(sorted(diagnostics, key=_position), expected, strict=True):
        assert diagnostic.code == finding["rule"]
        assert diagnostic.source == "cudaport"
        assert diagnostic.data["difficulty"] == finding["difficulty"]
        assert diagnostic.message.startswith(f"[{finding['difficulty']}] ")
        assert finding["message"] in diagnostic.message
        assert diagnostic.severity == SEVERITY[str(finding["difficulty"])]
        assert diagnostic.data["fixable"] == finding["fixable"]
        # The CLI counts 1-based code points; the editor gets its own encoding's units.
        line = int(str(finding["line"])) - 1
        column = int(str(finding["column"])) - 1
        assert diagnostic.range.start.line == line
        expected_column = len(lines[line][:column].encode("utf-8")) if session.encoding == "utf-8" else column
        assert diagnostic.range.start.character == expected_column
        if profile == "emacs":  # it says it cannot show code descriptions
            assert diagnostic.code_description is None
        else:
            assert diagnostic.code_description is not None
            assert diagnostic.code_description.href == load_ruleset().rule_url(str(finding["rule"]))


async def test_typing_updates_unsaved_diagnostics(lsp: Launcher, profile: str, tmp_path: Path) -> None:
    path = copy_data("reduce.cu", tmp_path)
    session = await lsp.start(profile, options=FAST)
    uri = session.open(path)
    before = await session.diagnostics(uri)
    # A new line with a CUDA call, typed character by character into the unsaved buffer.
    line, _ = position_of(session.texts[uri], "  cudaFree(in);", session.encoding)
    session.edit(uri, (line, 0), (line, 0), "\n")
    for column, char in enumerate("  cudaDeviceReset();"):
        session.edit(uri, (line, column), (line, column), char)
    after = await session.diagnostics(uri)
    added = [d for d in after if d.range.start.line == line]
    assert [d.code for d in added] == ["CP1001"]
    assert "cudaDeviceReset" in added[0].message
    assert len(after) == len(before) + 1
    # Everything below moved down one line; nothing else changed.
    moved = sorted((d.range.start.line, d.range.start.character, d.code) for d in after if d is not added[0])
    shifted = sorted(
        (d.range.start.line + (1 if d.range.start.line >= line else 0), d.range.start.character, d.code) for d in before
    )
    assert moved == shifted
    # Deleting the line again restores the original diagnostics; the file on disk was never involved.
    session.edit(uri, (line, 0), (line + 1, 0), "")
    assert sorted(map(_position, await session.diagnostics(uri))) == sorted(map(_position, before))


async def test_headers_and_cpp_sources(lsp: Launcher, profile: str, tmp_path: Path) -> None:
    session = await lsp.start(profile, options=FAST)
    sources = {
        "kernels.cuh": "#pragma once\n#include <cuda_fp16.h>\n__device__ half twice(half x) { return __hadd(x, x); }\n",
        "host.cpp": "#include <cuda_runtime.h>\nvoid sync() { cudaDeviceSynchronize(); }\n",
        "api.h": '#include <cuda.h>\nCUresult load(CUmodule* m) { return cuModuleLoad(m, "k.ptx"); }\n',
        "notes.cc": "// cudaMalloc mentioned in a comment only\nint cudaHelperCount = 0;\n",
    }
    found = {}
    for name, text in sources.items():
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        uri = session.open(path, language_id="cpp")
        found[name] = {d.code for d in await session.diagnostics(uri)}
    assert "CP1001" in found["host.cpp"]
    assert "CP1002" in found["api.h"]
    assert found["kernels.cuh"]
    assert found["notes.cc"] == set()


async def test_severity_follows_difficulty_and_configuration(lsp: Launcher, tmp_path: Path) -> None:
    path = copy_data("reduce.cu", tmp_path)
    session = await lsp.start(options={**FAST, "severity": {"CP1001": "error", "CP20": "hint"}})
    uri = session.open(path)
    diagnostics = await session.diagnostics(uri)
    by_code = {}
    for diagnostic in diagnostics:
        by_code.setdefault(diagnostic.code, set()).add(diagnostic.severity)
    assert by_code["CP1001"] == {types.DiagnosticSeverity.Error}
    assert by_code["CP2005"] == {types.DiagnosticSeverity.Hint}
    assert by_code["CP1010"] == {types.DiagnosticSeverity.Information}
    assert by_code["CP3001"] == {types.DiagnosticSeverity.Warning}


async def test_portable_findings_can_be_hidden(lsp: Launcher, tmp_path: Path) -> None:
    path = copy_data("reduce.cu", tmp_path)
    session = await lsp.start(options={**FAST, "showPortable": False})
    uri = session.open(path)
    difficulties = {d.data["difficulty"] for d in await session.diagnostics(uri)}
    assert "portable" not in difficulties and "mechanical" in difficulties


async def test_closing_clears_pushed_diagnostics(lsp: Launcher, tmp_path: Path) -> None:
    path = copy_data("reduce.cu", tmp_path)
    session = await lsp.start("emacs", options=FAST)
    uri = session.open(path)
    assert await session.diagnostics(uri)
    session.close(uri)
    await _wait_for_empty(session, uri)


async def test_python_buffers(lsp: Launcher, profile: str, tmp_path: Path) -> None:
    """Python buffers are analysed as they are typed, and nothing in a comment or a message is a finding."""
    path = tmp_path / "train.py"
    path.write_text(
        "import torch\n"
        "# this comment mentions cuda and torch.cuda.synchronize()\n"
        "def step(model, batch):\n"
        '    print("moving to cuda")\n'
        "    torch.cuda.synchronize()\n"
        '    return model(batch.to("cuda"))\n',
        encoding="utf-8",
    )
    session = await lsp.start(profile, options=FAST)
    uri = session.open(path, language_id="python")
    diagnostics = await session.diagnostics(uri)
    lines = {d.range.start.line for d in diagnostics}
    assert {4, 5} <= lines, "torch.cuda.synchronize() and the device string are CUDA dependencies"
    assert not lines & {1, 3}, "nothing in a comment or a print message"
    assert all(d.code and d.code.startswith("CP") and d.data["difficulty"] in SEVERITY for d in diagnostics)
    # The server is still serving C++ in the same session.
    cuda = copy_data("reduce.cu", tmp_path)
    assert await session.diagnostics(session.open(cuda))


async def _wait_for_empty(session: Session, uri: str) -> None:
    def cleared() -> bool:
        last = session.client.published[-1] if session.client.published else None
        return last is not None and last.uri == uri and not last.diagnostics

    await wait_until(cleared, what="empty diagnostics after close")


def _position(diagnostic: types.Diagnostic) -> tuple[int, int, str]:
    return (diagnostic.range.start.line, diagnostic.range.start.character, str(diagnostic.code))


async def test_inventory_files_and_notebook_cells(lsp: Launcher, profile: str, tmp_path: Path) -> None:
    """A Dockerfile, a requirements file and a Kubernetes manifest get what the CLI finds; a notebook cell (VS
    Code's vscode-notebook-cell: URI, a Python document) is analysed as Python, with the notebook's configuration."""
    inventory = Path(__file__).resolve().parents[1] / "fixtures" / "inventory"
    session = await lsp.start(profile, options=FAST)
    for name, language_id in (
        ("Dockerfile", "dockerfile"),
        ("requirements.txt", "pip-requirements"),
        ("deploy.yaml", "yaml"),
    ):
        path = tmp_path / name
        path.write_bytes((inventory / name).read_bytes())
        uri = session.open(path, language_id=language_id)
        diagnostics = await session.diagnostics(uri)
        expected = [f for f in cli_findings(path) if f["difficulty"] != "portable"]
        shown = [d for d in diagnostics if d.data["difficulty"] != "portable"]
        assert sorted((d.code, d.range.start.line + 1) for d in shown) == sorted(
            (f["rule"], f["line"]) for f in expected
        ), name
    notebook = tmp_path / "explore.ipynb"
    notebook.write_text("{}")
    (tmp_path / "cudaport.toml").write_text('target = "npu"\n')  # the notebook's configuration applies to its cells
    session = await lsp.start(profile, options=FAST)
    cell_uri = "vscode-notebook-cell:" + notebook.as_uri()[len("file:") :] + "#W0sZmlsZQ%3D%3D"
    text = 'import torch\nx = torch.ones(2, device="cuda")\n'
    session.versions[cell_uri] = 1
    session.texts[cell_uri] = text
    session.client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=cell_uri, language_id="python", version=1, text=text)
        )
    )
    diagnostics = await session.diagnostics(cell_uri)
    assert any(d.code == "CP7010" and d.range.start.line == 1 and "npu" in d.message for d in diagnostics)


# ---- local analyses (cudaport.session): the edited function re-parsed alone, then the whole file ----------------


def _codes(diagnostics: list[types.Diagnostic], text: str, needle: str) -> bool:
    """Whether a diagnostic sits on the line holding `needle`."""
    line = text[: text.index(needle)].count("\n")
    return any(d.range.start.line == line for d in diagnostics)


async def test_a_push_client_gets_settled_diagnostics_sent_again_only_when_they_changed(
    lsp: Launcher, tmp_path: Path
) -> None:
    """A function's edit is analysed with the function re-parsed alone; a `/*` typed there runs on, in the file, to
    the `*/` of the next function and hides its first call: the whole file's parse finds that out right after,
    and the diagnostics of the same version are published again, as the CLI has them."""
    path = copy_data("two_functions.cu", tmp_path)
    session = await lsp.start("visual_studio_code", options={"debounce": 0, "fullCheckAfterIdle": 0})
    uri = session.open(path)
    await session.diagnostics(uri)
    client = session.client
    start = position_of(session.texts[uri], "  cudaFree(d);", session.encoding)
    session.edit(uri, start, start, "  cudaDeviceSynchronize();\n")
    diagnostics = await session.diagnostics(uri)
    assert _codes(diagnostics, session.texts[uri], "cudaDeviceSynchronize")
    await asyncio.sleep(0.5)
    assert sum(1 for p in client.published if p.uri == uri and p.version == 2) == 1  # settled unchanged: once

    start = position_of(session.texts[uri], "if (i < n)", session.encoding)
    session.edit(uri, start, start, "/* ")
    path.write_text(session.texts[uri], encoding="utf-8")
    expected = cli_findings(path)
    sent = await wait_until(
        lambda: [p for p in client.published if p.uri == uri and p.version == 3][1:],
        what="the diagnostics of version 3 sent again",
    )
    first = next(p for p in client.published if p.uri == uri and p.version == 3)
    assert _codes(list(first.diagnostics), session.texts[uri], "cudaMalloc")  # the function alone: still code
    assert len(sent[-1].diagnostics) == len(expected)
    assert not _codes(list(sent[-1].diagnostics), session.texts[uri], "cudaMalloc")


async def test_a_pull_client_that_can_be_asked_is_asked_to_pull_the_settled_diagnostics(
    lsp: Launcher, tmp_path: Path
) -> None:
    path = copy_data("two_functions.cu", tmp_path)
    capabilities = client_capabilities("neovim")
    capabilities.workspace = capabilities.workspace or types.WorkspaceClientCapabilities()
    capabilities.workspace.diagnostics = types.DiagnosticWorkspaceClientCapabilities(refresh_support=True)
    session = await lsp.start("neovim", options={"fullCheckAfterIdle": 0}, capabilities=capabilities)
    uri = session.open(path)
    await session.diagnostics(uri)
    start = position_of(session.texts[uri], "if (i < n)", session.encoding)
    session.edit(uri, start, start, "/* ")
    provisional = await session.diagnostics(uri)
    assert _codes(provisional, session.texts[uri], "cudaMalloc")
    await wait_until(lambda: session.client.refreshes >= 1, what="workspace/diagnostic/refresh")
    path.write_text(session.texts[uri], encoding="utf-8")
    settled = await session.diagnostics(uri)
    assert len(settled) == len(cli_findings(path))
    assert not _codes(settled, session.texts[uri], "cudaMalloc")
