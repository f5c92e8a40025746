"""The workspace commands the VS Code extension runs (migrate the workspace, the migration summary) and the
editor's lint-on-save mode, against the real `cudaport serve` process."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcRequestCancelled

from cudaport.knowledge.ruleset import load_ruleset

from .conftest import CUDAPORT, TIMEOUT, Launcher, wait_until

KERNEL = """#include <cuda_runtime.h>

void run(float* host, int n) {
  float* device = nullptr;
  cudaMalloc(&device, n * sizeof(float));
  cudaMemcpy(device, host, n * sizeof(float), cudaMemcpyHostToDevice);
  cudaFree(device);
}
"""
HELPER = "#include <cuda_runtime.h>\nvoid sync_all() { cudaDeviceSynchronize(); }\n"
WARPS = "__device__ float lane_sum(float v) { return v + __shfl_down_sync(0xffffffff, v, 16); }\n"


def _workspace(root: Path) -> Path:
    folder = root / "project"
    (folder / "src").mkdir(parents=True)
    (folder / "src" / "kernel.cu").write_text(KERNEL, encoding="utf-8")
    (folder / "src" / "helper.cpp").write_text(HELPER, encoding="utf-8")
    (folder / "src" / "warps.cu").write_text(WARPS, encoding="utf-8")  # manual only: nothing to migrate
    (folder / "src" / "legacy.cu").write_bytes("// 旧代码\nvoid f() { cudaDeviceReset(); }\n".encode("gbk"))
    return folder


def _apply(text: str, edits: list[Any]) -> str:
    """Apply LSP TextEdits (UTF-16 positions, as VS Code negotiates) to a text."""
    lines = text.splitlines(keepends=True)

    def offset(position: types.Position) -> int:
        prefix = sum(len(line) for line in lines[: position.line])
        line = lines[position.line] if position.line < len(lines) else ""
        units = 0
        for index, char in enumerate(line):
            if units >= position.character:
                return prefix + index
            units += 2 if ord(char) > 0xFFFF else 1
        return prefix + len(line)

    for edit in sorted(edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True):
        start, end = offset(edit.range.start), offset(edit.range.end)
        text = text[:start] + edit.new_text + text[end:]
    return text


async def test_migrate_workspace_sends_every_safe_rewrite_for_confirmation(lsp: Launcher, tmp_path: Path) -> None:
    folder = _workspace(tmp_path)
    expected = tmp_path / "expected"
    shutil.copytree(folder, expected)
    subprocess.run([CUDAPORT, "fix", str(expected), "--fail-on", "never"], check=True, capture_output=True)

    session = await lsp.start("visual_studio_code", root=folder)
    received: list[types.ApplyWorkspaceEditParams] = []

    @session.client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply_edit(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        received.append(params)
        return types.ApplyWorkspaceEditResult(applied=True)

    # An open document with unsaved text: its buffer, not the file on disk, is what gets migrated.
    kernel = folder / "src" / "kernel.cu"
    unsaved = KERNEL.replace("  cudaFree(device);\n", "  cudaFree(device);\n  cudaStreamSynchronize(0);\n")
    uri = session.open(kernel, text=unsaved)
    result = await session.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="cudaport.server.migrateWorkspace", arguments=[])
    )
    assert result["applied"] is True
    assert result["files"] == 3 and result["fixes"] >= 7  # warps.cu gets only its runtime include
    assert result["skipped"] == ["legacy.cu"]  # GBK: left to `cudaport fix`, which keeps the encoding
    [params] = received
    edit = params.edit
    assert edit.change_annotations is not None
    [annotation] = edit.change_annotations.values()
    assert annotation.needs_confirmation is True  # VS Code shows its refactor preview first
    by_uri = {change.text_document.uri: change for change in edit.document_changes or []}
    others = ["helper.cpp", "warps.cu"]
    assert set(by_uri) == {uri, *((folder / "src" / name).as_uri() for name in others)}
    assert by_uri[uri].text_document.version == 1  # the open buffer's version
    migrated_kernel = _apply(unsaved, by_uri[uri].edits)
    assert "hipStreamSynchronize(0);" in migrated_kernel
    assert migrated_kernel.replace("  hipStreamSynchronize(0);\n", "") == (expected / "src" / "kernel.cu").read_text()
    for name in others:  # files that are not open: from disk, as `cudaport fix` rewrites them
        change = by_uri[(folder / "src" / name).as_uri()]
        assert change.text_document.version is None
        original = (folder / "src" / name).read_text()
        assert _apply(original, change.edits) == (expected / "src" / name).read_text()
    assert (folder / "src" / "helper.cpp").read_text() == HELPER  # the server never writes: the editor does


async def test_migrate_workspace_without_change_annotations(lsp: Launcher, tmp_path: Path) -> None:
    folder = _workspace(tmp_path)
    session = await lsp.start("emacs", root=folder)
    received: list[types.ApplyWorkspaceEditParams] = []

    @session.client.feature(types.WORKSPACE_APPLY_EDIT)
    def apply_edit(params: types.ApplyWorkspaceEditParams) -> types.ApplyWorkspaceEditResult:
        received.append(params)
        return types.ApplyWorkspaceEditResult(applied=False, failure_reason="declined")

    result = await session.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="cudaport.server.migrateWorkspace", arguments=[])
    )
    assert result["applied"] is False and result["files"] == 3
    [params] = received
    if params.edit.document_changes is not None:
        assert all(not isinstance(e, types.AnnotatedTextEdit) for c in params.edit.document_changes for e in c.edits)
    else:
        assert params.edit.changes is not None and len(params.edit.changes) == 3


def _cli_report(folder: Path) -> str:
    """`cudaport report .` run in `folder`, for every target, as Markdown."""
    targets = ",".join(load_ruleset().targets)
    return subprocess.run(
        [CUDAPORT, "report", ".", "--target", targets, "--format", "md", "--no-progress"],
        capture_output=True,
        text=True,
        check=True,
        cwd=folder,
    ).stdout


def _body(markdown: str) -> list[str]:
    """The report without its title (which names the paths given) and generation time."""
    return [line for line in markdown.splitlines() if "Generated" not in line and not line.startswith("# ")]


async def _summary(session: Any, **params: Any) -> str:
    return str(
        await session.client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="cudaport.server.summary", arguments=[], **params)
        )
    )


async def test_summary_is_the_markdown_report_of_the_workspace(lsp: Launcher, tmp_path: Path) -> None:
    folder = _workspace(tmp_path)
    session = await lsp.start("visual_studio_code", root=folder)
    session.client.work_done_token("summary-progress")
    markdown = await _summary(session, work_done_token="summary-progress")
    # The report `cudaport report .` writes in the folder: paths relative to the workspace, none absolute.
    assert _body(markdown) == _body(_cli_report(folder))
    assert markdown.startswith("# CUDA migration assessment: `project`")
    assert "src/kernel.cu" in markdown and str(tmp_path) not in markdown
    assert "HIP" in markdown and "Ascend NPU" in markdown and "Cambricon MLU" in markdown
    # With work-done progress under the client's token, from "begin" to "end".
    kinds = [report.kind for report in session.client.progress_reports["summary-progress"]]
    assert kinds[0] == "begin" and kinds[-1] == "end" and "report" in kinds


async def test_summary_reads_open_documents_from_their_unsaved_text(lsp: Launcher, tmp_path: Path) -> None:
    folder = _workspace(tmp_path)
    session = await lsp.start("visual_studio_code", root=folder)
    unsaved = KERNEL.replace("cudaFree(device);", "cudaFree(device);\n  cublasCreate(0);")
    uri = session.open(folder / "src" / "kernel.cu", unsaved)
    await session.diagnostics(uri)
    markdown = await _summary(session)
    assert "cublasCreate" in markdown
    # The report of the same tree with the buffer saved.
    saved = tmp_path / "saved"
    shutil.copytree(folder, saved / "project")
    (saved / "project" / "src" / "kernel.cu").write_text(unsaved, encoding="utf-8")
    assert _body(markdown) == _body(_cli_report(saved / "project"))
    assert "cublasCreate" not in _cli_report(folder)  # the file on disk does not call it


def _large_workspace(root: Path, files: int = 400) -> Path:
    folder = root / "large"
    (folder / "src").mkdir(parents=True)
    for index in range(files):
        (folder / "src" / f"kernel{index:03}.cu").write_text(KERNEL, encoding="utf-8")
    return folder


@pytest.mark.parametrize("how", ["cancelRequest", "progress cancel"])
async def test_summary_runs_off_the_event_loop_and_can_be_cancelled(lsp: Launcher, tmp_path: Path, how: str) -> None:
    """While a large workspace is summarised the server answers other requests; the client cancels it with
    $/cancelRequest, or with the cancel button of its progress (window/workDoneProgress/cancel)."""
    folder = _large_workspace(tmp_path)
    session = await lsp.start("visual_studio_code", root=folder)
    uri = session.open(folder / "src" / "kernel000.cu")
    await session.diagnostics(uri)
    token = session.client.work_done_token(f"summary-{how}")
    params = types.ExecuteCommandParams(command="cudaport.server.summary", arguments=[], work_done_token=token)
    pending = asyncio.ensure_future(
        session.client.protocol.send_request_async(types.WORKSPACE_EXECUTE_COMMAND, params, msg_id="summary")
    )
    reports = session.client.progress_reports[token]

    def files_done() -> int:
        return sum(1 for report in reports if report.kind == "report")

    await wait_until(files_done, what="the summary's first progress report")
    hover = await session.client.text_document_hover_async(
        types.HoverParams(types.TextDocumentIdentifier(uri), types.Position(4, 4))
    )
    assert hover is not None and "cudaMalloc" in str(hover.contents)
    assert not pending.done(), "the summary finished before the hover was answered: not a test of blocking"
    if how == "cancelRequest":
        session.client.cancel_request(types.CancelParams(id="summary"))
    else:
        session.client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
    with pytest.raises(JsonRpcRequestCancelled):
        await asyncio.wait_for(pending, TIMEOUT)
    await wait_until(lambda: reports and reports[-1].kind == "end", what="the progress ended")
    assert reports[-1].message == "cancelled"
    # The thread stopped: another summary (of a small edit of the workspace) runs to the end.
    markdown = await _summary(session)
    assert "CUDA migration assessment" in markdown


@pytest.mark.parametrize("client", ["visual_studio_code", "neovim"])  # pushed, and pulled, diagnostics
async def test_run_on_save_holds_diagnostics_until_the_save(lsp: Launcher, tmp_path: Path, client: str) -> None:
    path = tmp_path / "edit.cu"
    path.write_text(HELPER, encoding="utf-8")
    session = await lsp.start(client, options={"run": "onSave", "debounce": 0})
    uri = session.open(path)
    first = await session.diagnostics(uri)
    assert [d.data["symbol"] for d in first if d.code == "CP1001"] == ["cuda_runtime.h", "cudaDeviceSynchronize"]
    session.edit(uri, (2, 0), (2, 0), "void more() { cudaFree(nullptr); }\n")
    if session.pull:
        held = await session.client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(uri))
        )
        assert "cudaFree" not in {d.data["symbol"] for d in getattr(held, "items", [])}
    else:
        await asyncio.sleep(0.6)
        assert all(p.version != session.versions[uri] for p in session.client.published if p.uri == uri)
    session.client.text_document_did_save(types.DidSaveTextDocumentParams(types.TextDocumentIdentifier(uri)))
    after = await session.diagnostics(uri)
    assert "cudaFree" in {d.data["symbol"] for d in after}


async def test_the_targets_come_from_the_rule_data(lsp: Launcher, tmp_path: Path) -> None:
    folder = _workspace(tmp_path)
    session = await lsp.start("visual_studio_code", root=folder)
    targets = await session.client.workspace_execute_command_async(
        types.ExecuteCommandParams(command="cudaport.server.targets", arguments=[])
    )
    by_name = {t["name"]: t for t in targets}
    assert set(by_name) == set(load_ruleset().targets)
    assert by_name["npu"]["label"] == load_ruleset().targets["npu"].label
    assert "rocm" in by_name["hip"]["aliases"]
    assert by_name["hip"]["versions"]["product"] == "ROCm" and by_name["mlu"]["versions"] is None
    assert "950DT" in by_name["npu"]["versions"]["generations"]
    assert {"maca", "corex", "musa"} <= set(by_name)
