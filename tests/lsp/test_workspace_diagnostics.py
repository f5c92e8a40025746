"""workspace/diagnostic: the files `cudaport check` would check, with progress, cancellation and long polling."""

from __future__ import annotations

import asyncio
import json
import subprocess
from pathlib import Path

import pytest
from lsprotocol import types
from pygls.exceptions import JsonRpcRequestCancelled

from .conftest import CUDAPORT, TIMEOUT, Launcher, copy_data, wait_until

FAST = {"debounce": 20}


def make_project(root: Path, files: int = 0) -> None:
    (root / "src").mkdir()
    (root / "third_party").mkdir()
    (root / "cudaport.toml").write_text('extend-exclude = ["third_party/*"]\n')
    copy_data("reduce.cu", root / "src")
    (root / "src" / "host.cpp").write_text("#include <cuda_runtime.h>\nvoid f(float* p) { cudaFree(p); }\n")
    (root / "src" / "clean.cu").write_text("int add(int a, int b) { return a + b; }\n")
    (root / "src" / "blob.cu").write_bytes(b"\x00\x01binary" * 10)
    (root / "third_party" / "vendored.cu").write_text("void g(float* p) { cudaFree(p); }\n")
    (root / "README.md").write_text("cudaMalloc in prose\n")
    for index in range(files):
        (root / "src" / f"gen{index:04}.cu").write_text(f"void k{index}(float* p) {{ cudaFree(p); }}\n")


def cli_paths(root: Path) -> dict[str, int]:
    """Findings per file from `cudaport check` on the same folder: the one resolver of file selection."""
    result = subprocess.run(
        [CUDAPORT, "check", ".", "--format", "json", "--exit-zero"], cwd=root, capture_output=True, text=True
    )
    counts: dict[str, int] = {}
    for diagnostic in json.loads(result.stdout)["diagnostics"]:
        path = (root / diagnostic["path"]).resolve().as_uri()
        counts[path] = counts.get(path, 0) + 1
    return counts


async def test_workspace_report_selects_files_like_the_cli(lsp: Launcher, profile: str, tmp_path: Path) -> None:
    make_project(tmp_path)
    session = await lsp.start(profile, options=FAST)
    # An open document is reported from its unsaved text, with its version.
    host = tmp_path / "src" / "host.cpp"
    host_uri = session.open(host)
    session.edit(host_uri, (1, 0), (1, 0), "void h(float* q) { cudaFree(q); }\n")
    await session.diagnostics(host_uri)
    report = await session.client.workspace_diagnostic_async(
        types.WorkspaceDiagnosticParams(
            previous_result_ids=[], work_done_token=session.client.work_done_token("scan-1")
        )
    )
    full = {item.uri: item for item in report.items if isinstance(item, types.WorkspaceFullDocumentDiagnosticReport)}
    assert (tmp_path / "third_party" / "vendored.cu").as_uri() not in full  # excluded by cudaport.toml
    assert (tmp_path / "README.md").as_uri() not in full
    expected = cli_paths(tmp_path)
    expected[host_uri] = expected[host_uri] + 1  # the unsaved line
    found = {uri: len(item.items) for uri, item in full.items() if item.items}
    assert found == expected
    assert full[host_uri].version == session.versions[host_uri]
    assert not full[(tmp_path / "src" / "blob.cu").as_uri()].items
    # Progress on the token the client gave.
    progress = session.client.progress_reports["scan-1"]
    assert isinstance(progress[0], types.WorkDoneProgressBegin) and progress[0].cancellable
    assert isinstance(progress[-1], types.WorkDoneProgressEnd)
    # Asking again with the result ids: nothing changed, nothing analysed again.
    previous = [types.PreviousResultId(uri=i.uri, value=i.result_id or "") for i in full.values()]
    again = await session.client.workspace_diagnostic_async(
        types.WorkspaceDiagnosticParams(previous_result_ids=previous)
    )
    assert {type(i) for i in again.items} == {types.WorkspaceUnchangedDocumentDiagnosticReport}


async def test_server_created_progress_and_partial_results(lsp: Launcher, tmp_path: Path) -> None:
    make_project(tmp_path, files=120)
    session = await lsp.start("emacs", options=FAST)
    report = await session.client.workspace_diagnostic_async(
        types.WorkspaceDiagnosticParams(previous_result_ids=[], partial_result_token="partial-1")
    )
    assert not report.items  # everything came as partial results, in batches
    batches = session.client.partial_results["partial-1"]
    assert len(batches) > 1
    uris = [item["uri"] for batch in batches for item in batch["items"]]
    assert len(uris) == len(set(uris)) == 124  # 120 generated + reduce.cu, host.cpp, clean.cu, blob.cu
    created = list(session.client.progress_reports)
    assert len(created) == 1, "the server created its own progress token"
    kinds = [type(v) for v in session.client.progress_reports[created[0]]]
    assert kinds[0] is types.WorkDoneProgressBegin and kinds[-1] is types.WorkDoneProgressEnd


async def test_cancel_request_stops_the_scan(lsp: Launcher, tmp_path: Path) -> None:
    make_project(tmp_path, files=1500)
    session = await lsp.start(options=FAST)
    protocol = session.client.protocol
    request = asyncio.ensure_future(
        protocol.send_request_async(
            types.WORKSPACE_DIAGNOSTIC,
            types.WorkspaceDiagnosticParams(
                previous_result_ids=[], work_done_token=session.client.work_done_token("scan-2")
            ),
            msg_id="scan-request",
        )
    )
    await wait_until(lambda: session.client.progress_reports["scan-2"], what="the scan to begin")
    protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id="scan-request"))
    with pytest.raises(JsonRpcRequestCancelled):
        await asyncio.wait_for(request, TIMEOUT)
    end = await wait_until(
        lambda: [v for v in session.client.progress_reports["scan-2"] if isinstance(v, types.WorkDoneProgressEnd)],
        what="the end of progress",
    )
    assert "cancelled after" in (end[0].message or "")
    # The server is still responsive.
    uri = session.open(copy_data("reduce.cu", tmp_path))
    assert await session.diagnostics(uri)


async def test_progress_cancel_button_stops_the_scan(lsp: Launcher, tmp_path: Path) -> None:
    make_project(tmp_path, files=1500)
    session = await lsp.start(options=FAST)
    request = asyncio.ensure_future(
        session.client.workspace_diagnostic_async(
            types.WorkspaceDiagnosticParams(
                previous_result_ids=[], work_done_token=session.client.work_done_token("scan-3")
            )
        )
    )
    await wait_until(lambda: session.client.progress_reports["scan-3"], what="the scan to begin")
    session.client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token="scan-3"))
    report = await asyncio.wait_for(request, TIMEOUT)
    assert len(report.items) < 1500
    end = session.client.progress_reports["scan-3"][-1]
    assert isinstance(end, types.WorkDoneProgressEnd) and "cancelled after" in (end.message or "")


async def test_unchanged_workspace_request_waits_for_a_change(lsp: Launcher, tmp_path: Path) -> None:
    make_project(tmp_path)
    session = await lsp.start(options=FAST)
    first = await session.client.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(previous_result_ids=[]))
    previous = [
        types.PreviousResultId(uri=i.uri, value=i.result_id or "")
        for i in first.items
        if isinstance(i, types.WorkspaceFullDocumentDiagnosticReport)
    ]
    held = asyncio.ensure_future(
        session.client.workspace_diagnostic_async(
            types.WorkspaceDiagnosticParams(previous_result_ids=previous, partial_result_token="poll-1")
        )
    )
    await asyncio.sleep(1.0)
    assert not held.done(), "nothing changed: the request is held open"
    changed = tmp_path / "src" / "clean.cu"
    changed.write_text("void k(float* p) { cudaFree(p); }\n")
    session.client.workspace_did_change_watched_files(
        types.DidChangeWatchedFilesParams([types.FileEvent(changed.as_uri(), types.FileChangeType.Changed)])
    )
    report = await asyncio.wait_for(held, TIMEOUT)
    assert not report.items
    items = [item for batch in session.client.partial_results["poll-1"] for item in batch["items"]]
    news = [item for item in items if item["kind"] == "full"]
    assert [item["uri"] for item in news] == [changed.as_uri()]
    assert [d["code"] for d in news[0]["items"]] == ["CP1001"]


async def test_workspace_scan_reads_back_what_the_command_line_recorded(lsp: Launcher, tmp_path: Path) -> None:
    # One results cache for both front ends: a tree `cudaport check` has just checked is not analysed again by
    # the server's first workspace scan, and what it reads back is what the command line found.
    make_project(tmp_path, files=3)
    expected = cli_paths(tmp_path)
    session = await lsp.start(options=FAST)
    report = await session.client.workspace_diagnostic_async(types.WorkspaceDiagnosticParams(previous_result_ids=[]))
    full = {item.uri: item for item in report.items if isinstance(item, types.WorkspaceFullDocumentDiagnosticReport)}
    assert {uri: len(item.items) for uri, item in full.items() if item.items} == expected
    sources = len([p for p in (tmp_path / "src").iterdir() if p.suffix in (".cu", ".cpp")])
    messages = [m.message for m in session.client.log_messages]
    assert any(m.endswith(f"cache: {sources - 1} hits, 1 misses") for m in messages), messages  # blob.cu: binary
    # One file changed on disk: it alone is analysed again, and its new finding is there.
    changed = tmp_path / "src" / "gen0001.cu"
    changed.write_text("void k(float* p, float* q) { cudaFree(p); cudaFree(q); }\n")
    previous = [types.PreviousResultId(uri=i.uri, value=i.result_id or "") for i in full.values()]
    session.client.log_messages.clear()
    again = await session.client.workspace_diagnostic_async(
        types.WorkspaceDiagnosticParams(previous_result_ids=previous)
    )
    fresh = [i for i in again.items if isinstance(i, types.WorkspaceFullDocumentDiagnosticReport)]
    assert [(i.uri, len(i.items)) for i in fresh] == [(changed.as_uri(), 2)]
    assert any(m.message.endswith("cache: 0 hits, 1 misses") for m in session.client.log_messages)
