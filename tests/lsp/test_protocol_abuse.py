"""What a misbehaving client sends, byte for byte, to a real `cudaport serve` over stdio: every request still gets
an answer, framing mistakes are survived, and the process never outlives its client."""

from __future__ import annotations

import json
import os
import resource
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from .raw import RawServer

HOVER_TEXT = "void f(float* p) { cudaFree(p); }\n"


@pytest.fixture
def raw(tmp_path: Path) -> Iterator[RawServer]:
    server = RawServer()
    yield server
    server.kill()


def _hover(raw: RawServer, uri: str) -> dict[str, object]:
    request_id = raw.next_id()
    params = {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 22}}
    return {"id": request_id, "jsonrpc": "2.0", "method": "textDocument/hover", "params": params}


def _still_serving(raw: RawServer, tmp_path: Path, name: str) -> None:
    uri = raw.open(tmp_path / name, HOVER_TEXT)
    assert [d["code"] for d in raw.diagnostics(uri, 1)] == ["CP1001"]
    message = _hover(raw, uri)
    raw.send(message)
    assert "hipFree" in raw.answer_to(message["id"])["result"]["contents"]["value"]


@pytest.mark.parametrize("delta", [-3, -1, 2, 5])
def test_a_content_length_a_few_bytes_off_is_survived(raw: RawServer, tmp_path: Path, delta: int) -> None:
    raw.initialize(tmp_path)
    uri = raw.open(tmp_path / "a.cu", HOVER_TEXT)
    raw.diagnostics(uri, 1)
    message = _hover(raw, uri)
    raw.framed(message, length_delta=delta)
    if delta < 0:
        # Too short: the rest of the body sits before the next header; the next message carries it along.
        follow = _hover(raw, uri)
        raw.send(follow)
        assert "hipFree" in raw.answer_to(follow["id"])["result"]["contents"]["value"]
    answer = raw.answer_to(message["id"])
    assert "hipFree" in answer["result"]["contents"]["value"]
    _still_serving(raw, tmp_path, "b.cu")
    assert any("framing was wrong" in m for m in raw.log_messages())


def test_lower_case_headers_and_lf_only_lines_are_accepted(raw: RawServer, tmp_path: Path) -> None:
    request_id = raw.next_id()
    params = {"processId": None, "rootUri": tmp_path.as_uri(), "capabilities": {}}
    raw.framed(
        {"jsonrpc": "2.0", "id": request_id, "method": "initialize", "params": params},
        header=b"content-length",
        eol=b"\n",
    )
    assert "capabilities" in raw.answer_to(request_id)["result"]
    raw.framed({"jsonrpc": "2.0", "method": "initialized", "params": {}}, header=b"CONTENT-LENGTH")
    _still_serving(raw, tmp_path, "a.cu")


def test_content_length_zero_and_garbage_between_messages(raw: RawServer, tmp_path: Path) -> None:
    raw.initialize(tmp_path)
    raw.send_raw(b"Content-Length: 0\r\n\r\n")
    raw.send_raw(b"this is not a header\r\nnor: is this one\r\n\r\n")
    assert raw.answer_to(None)["error"]["code"] == -32700  # the empty body: a parse error with id null
    _still_serving(raw, tmp_path, "a.cu")


def test_a_terabyte_content_length_is_skipped_not_allocated(raw: RawServer, tmp_path: Path) -> None:
    raw.initialize(tmp_path)
    raw.send_raw(b'Content-Length: 1000000000000\r\n\r\n{"jsonrpc": "2.0"}\r\n')
    _still_serving(raw, tmp_path, "a.cu")
    assert any("over the" in m and "limit" in m for m in raw.log_messages())
    assert raw.shutdown() == 0


def test_invalid_utf8_and_malformed_json_get_parse_errors_with_the_id(raw: RawServer, tmp_path: Path) -> None:
    raw.initialize(tmp_path)
    raw.send_bytes(b'{"jsonrpc": "2.0", "id": 41, "method": "textDocument/hover", "params": {"x": "\xff\xfe"}}')
    assert raw.answer_to(41)["error"]["code"] == -32700
    raw.send_bytes(b'{"jsonrpc": "2.0", "id": "s-42", "method": "textDocument/hover", "params": {')
    assert raw.answer_to("s-42")["error"]["code"] == -32700
    _still_serving(raw, tmp_path, "a.cu")


def test_requests_before_initialize_get_server_not_initialized(raw: RawServer, tmp_path: Path) -> None:
    answer = raw.request(
        "textDocument/hover", {"textDocument": {"uri": "file:///x.cu"}, "position": {"line": 0, "character": 0}}
    )
    assert answer["error"]["code"] == -32002
    assert "Traceback" not in json.dumps(answer)
    raw.notify(
        "textDocument/didOpen",
        {"textDocument": {"uri": "file:///x.cu", "languageId": "cuda", "version": 1, "text": ""}},
    )
    raw.initialize(tmp_path)
    _still_serving(raw, tmp_path, "a.cu")


def test_requests_after_shutdown_get_invalid_request(raw: RawServer, tmp_path: Path) -> None:
    raw.initialize(tmp_path)
    assert raw.request("shutdown")["result"] is None
    answer = raw.request(
        "textDocument/hover", {"textDocument": {"uri": "file:///x.cu"}, "position": {"line": 0, "character": 0}}
    )
    assert answer["error"]["code"] == -32600
    assert raw.request("shutdown")["error"]["code"] == -32600
    raw.notify("exit")
    assert raw.process.wait(timeout=10) == 0


@pytest.mark.parametrize("state", ["idle", "mid-header", "mid-body", "after-exit-kept-open"])
def test_the_server_exits_within_5_seconds_when_stdin_closes(tmp_path: Path, state: str) -> None:
    server = RawServer()
    try:
        server.initialize(tmp_path)
        if state == "mid-header":
            server.send_raw(b"Content-Len")
        elif state == "mid-body":
            server.send_raw(b'Content-Length: 500\r\n\r\n{"jsonrpc"')
        elif state == "after-exit-kept-open":
            server.notify("exit")
            assert server.process.wait(timeout=5) == 1  # exit without shutdown, stdin still open
            return
        began = time.monotonic()
        assert server.process.stdin is not None
        server.process.stdin.close()
        server.process.wait(timeout=5)
        assert time.monotonic() - began < 5
        assert server.stderr() == ""
    finally:
        server.kill()


def test_a_cancel_storm_is_not_echoed_to_the_client_log(raw: RawServer, tmp_path: Path) -> None:
    raw.initialize(tmp_path)
    for request_id in range(2000):
        raw.notify("$/cancelRequest", {"id": 100000 + request_id})
    _still_serving(raw, tmp_path, "a.cu")
    assert len(raw.log_messages()) < 20


def test_request_tracking_does_not_grow_with_notifications(tmp_path: Path) -> None:
    """pygls keeps a finished future per notification; the server drops them, so memory stays flat."""
    server = RawServer()
    try:
        server.initialize(tmp_path)
        uri = server.open(tmp_path / "a.cu", HOVER_TEXT * 20)
        server.diagnostics(uri, 1)
        rss = []
        for version in range(2, 6002):
            change = {
                "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 0}},
                "text": "" if version % 2 else " ",
            }
            if version % 2:
                change = {
                    "range": {"start": {"line": 0, "character": 0}, "end": {"line": 0, "character": 1}},
                    "text": "",
                }
            server.notify(
                "textDocument/didChange", {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}
            )
            if version in (2001, 6001):
                server.diagnostics(uri, version, timeout=60)
                rss.append(_rss_kb(server.process.pid))
        assert rss[1] - rss[0] < 4096, f"RSS grew {rss[1] - rss[0]} KB over 4,000 edits"
    finally:
        server.kill()


def _rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status", encoding="ascii") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    raise AssertionError("no VmRSS")


del os, resource


def test_a_lone_cr_is_a_line_break_and_a_lone_surrogate_one_utf16_unit(raw: RawServer, tmp_path: Path) -> None:
    raw.initialize(tmp_path)  # no position encodings offered: UTF-16
    text = "void f(float* p) {\r  /* \ud800 */ cudaFree(p);\r}\r"
    uri = raw.open(tmp_path / "mac.cu", text)
    [diagnostic] = raw.diagnostics(uri, 1)
    assert diagnostic["range"] == {
        "start": {"line": 1, "character": len("  /* x */ ")},
        "end": {"line": 1, "character": len("  /* x */ cudaFree")},
    }
    # An edit addressed in those coordinates lands where the editor means it.
    start = {"line": 1, "character": len("  /* x */ cuda")}
    end = {"line": 1, "character": len("  /* x */ cudaFree")}
    change = {"range": {"start": start, "end": end}, "text": "Malloc"}
    raw.notify("textDocument/didChange", {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [change]})
    [diagnostic] = raw.diagnostics(uri, 2)
    assert diagnostic["range"]["start"] == {"line": 1, "character": len("  /* x */ ")}
    assert "cudaMalloc" in diagnostic["message"]


def test_a_reopened_document_gets_new_result_ids(raw: RawServer, tmp_path: Path) -> None:
    raw.initialize(tmp_path, capabilities={"textDocument": {"diagnostic": {"dynamicRegistration": False}}})
    path = tmp_path / "again.cu"
    uri = raw.open(path, HOVER_TEXT)
    first = raw.request("textDocument/diagnostic", {"textDocument": {"uri": uri}})["result"]
    assert first["kind"] == "full" and len(first["items"]) == 1
    raw.notify("textDocument/didClose", {"textDocument": {"uri": uri}})
    raw.open(path, "void g() {}\n")
    again = raw.request(
        "textDocument/diagnostic", {"textDocument": {"uri": uri}, "previousResultId": first["resultId"]}
    )["result"]
    assert again["kind"] == "full" and again["items"] == [] and again["resultId"] != first["resultId"]
