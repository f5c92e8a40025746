"""The first diagnostics before pygls is loaded (cudaport.lsp.prelude): a start with the initialize answer kept
(warm) must say exactly what a start without it (cold) says, hand the session over to the server whole, and never
keep the server from a client that does something else."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from .conftest import DATA
from .raw import Message, RawServer

PUSH: Message = {"general": {"positionEncodings": ["utf-16"]}}
PULL: Message = {**PUSH, "textDocument": {"diagnostic": {"dynamicRegistration": False}}}


def _env(cache: Path) -> dict[str, str]:
    return {**os.environ, "CUDAPORT_CACHE_DIR": str(cache)}


def _records(cache: Path) -> list[Path]:
    return sorted(cache.glob("lsp-initialize-*.json"))


def _start(cache: Path, root: Path, capabilities: Message, options: Message | None = None) -> tuple[RawServer, Message]:
    server = RawServer(env=_env(cache))
    answer = server.initialize(root, capabilities, options)
    return server, answer


def _first_diagnostics(server: RawServer, path: Path, pull: bool) -> tuple[str, Message]:
    """Open `path` and get its first diagnostics: (uri, the publish params or the pull report)."""
    uri = server.open(path, path.read_text(encoding="utf-8"))
    if pull:
        answer = server.request("textDocument/diagnostic", {"textDocument": {"uri": uri}})
        return uri, answer["result"]
    found = server.wait_for(
        lambda m: m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri
    )
    return uri, found["params"]


@pytest.mark.parametrize("mode", ["push", "pull"])
def test_a_warm_start_says_what_a_cold_start_says_and_hands_over_whole(tmp_path: Path, mode: str) -> None:
    cache, path = tmp_path / "cache", tmp_path / "reduce.cu"
    path.write_bytes((DATA / "reduce.cu").read_bytes())
    capabilities = PULL if mode == "pull" else PUSH
    answers: list[tuple[Message, Message]] = []
    for start in ("cold", "warm"):
        assert bool(_records(cache)) == (start == "warm"), "the answer to initialize is kept after the cold start"
        server, initialized = _start(cache, tmp_path, capabilities)
        uri, first = _first_diagnostics(server, path, mode == "pull")
        answers.append((initialized["result"], first))
        if start == "warm":
            # The server has the document the prelude opened: an edit, a hover and a second pull all work on it.
            if mode == "pull":
                again = server.request(
                    "textDocument/diagnostic",
                    {"textDocument": {"uri": uri}, "previousResultId": first["resultId"]},
                )
                assert again["result"] == {"kind": "unchanged", "resultId": first["resultId"]}
            server.notify(
                "textDocument/didChange",
                {
                    "textDocument": {"uri": uri, "version": 2},
                    "contentChanges": [{"text": "int main() { cudaDeviceSynchronize(); }\n"}],
                },
            )
            if mode == "pull":
                after = server.request("textDocument/diagnostic", {"textDocument": {"uri": uri}})["result"]["items"]
            else:
                after = server.diagnostics(uri, 2)
            assert [d["code"] for d in after] == ["CP1001"]
            hover = server.request(
                "textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 15}}
            )
            assert "cudaDeviceSynchronize" in json.dumps(hover["result"])
        assert server.shutdown() == 0
        assert server.stderr() == ""
    (cold_init, cold_first), (warm_init, warm_first) = answers
    assert warm_init == cold_init
    key = "items" if mode == "pull" else "diagnostics"
    assert len(cold_first[key]) > 5
    assert warm_first[key] == cold_first[key]


def test_the_prelude_answers_without_loading_pygls_or_lsprotocol(tmp_path: Path) -> None:
    cache, path = tmp_path / "cache", tmp_path / "reduce.cu"
    path.write_bytes((DATA / "reduce.cu").read_bytes())
    server, cold = _start(cache, tmp_path, PUSH)
    _, cold_first = _first_diagnostics(server, path, pull=False)
    assert server.shutdown() == 0
    # The same session start, fed to the prelude in a fresh interpreter that reports what it loaded.
    messages = [
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "initialize",
            "params": {"rootUri": tmp_path.as_uri(), "capabilities": PUSH},
        },
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {
            "jsonrpc": "2.0",
            "method": "textDocument/didOpen",
            "params": {
                "textDocument": {"uri": path.as_uri(), "languageId": "cuda", "version": 1, "text": path.read_text()}
            },
        },
    ]
    script = """
import io, json, sys
from cudaport.lsp import logs
from cudaport.lsp.framing import FrameReader
from cudaport.lsp.prelude import serve_first
reader = FrameReader(io.BytesIO(sys.stdin.buffer.read()).read)
written = []
early = serve_first(reader.frames(), reader.pending, written.append, logs.ClientLogHandler())
bodies = [json.loads(w.split(b"\\r\\n\\r\\n", 1)[1]) for w in written]
loaded = sorted(m for m in sys.modules if m.split(".")[0] in ("lsprotocol", "cattrs", "attrs", "asyncio"))
print(json.dumps({"bodies": bodies, "loaded": loaded, "replay": len(early.replay), "answered": sorted(early.answered)}))
"""
    stdin = b"".join(b"Content-Length: %d\r\n\r\n%s" % (len(b), b) for b in (json.dumps(m).encode() for m in messages))
    result = subprocess.run(
        [sys.executable, "-c", script], input=stdin, capture_output=True, env=_env(cache), check=True, timeout=60
    )
    report = json.loads(result.stdout)
    assert report["loaded"] == []
    initialize, published = report["bodies"]
    assert initialize == {"jsonrpc": "2.0", "id": 1, "result": cold["result"]}
    assert published["method"] == "textDocument/publishDiagnostics"
    assert published["params"] == cold_first
    assert report["answered"] == [1]
    assert report["replay"] == 2  # initialize (pygls must see it) and initialized


def test_settings_sent_before_the_document_opens_apply_to_its_first_diagnostics(tmp_path: Path) -> None:
    """A client without workspace/configuration sends its settings in didChangeConfiguration: the server's to
    apply, in order, before the document's diagnostics."""
    cache, path = tmp_path / "cache", tmp_path / "reduce.cu"
    path.write_bytes((DATA / "reduce.cu").read_bytes())
    for _ in ("cold", "warm"):
        server, _answer = _start(cache, tmp_path, PUSH, options={"target": "hip"})
        server.notify("workspace/didChangeConfiguration", {"settings": {"cudaport": {"target": "npu"}}})
        _, first = _first_diagnostics(server, path, pull=False)
        assert {d["data"]["target"] for d in first["diagnostics"]} == {"npu"}
        assert server.shutdown() == 0
    assert _records(cache)


def test_a_request_the_prelude_does_not_serve_is_answered_by_the_server(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    for _ in ("cold", "warm"):
        server, _answer = _start(cache, tmp_path, PUSH)
        hover = server.request(
            "textDocument/hover",
            {"textDocument": {"uri": (tmp_path / "none.cu").as_uri()}, "position": {"line": 0, "character": 0}},
            timeout=20,
        )
        assert "error" not in hover and hover["result"] is None
        assert server.shutdown() == 0


def test_an_idle_client_gets_the_server_and_its_requests(tmp_path: Path) -> None:
    """After `initialized` and nothing more, the server takes over within a second and asks for the settings."""
    cache = tmp_path / "cache"
    capabilities = {**PUSH, "workspace": {"configuration": True}}
    for _ in ("cold", "warm"):
        server, _answer = _start(cache, tmp_path, capabilities)
        began = time.monotonic()
        asked = server.wait_for(lambda m: m.get("method") == "workspace/configuration", timeout=10)
        assert asked["params"]["items"][0]["section"] == "cudaport"
        assert time.monotonic() - began < 5
        assert server.shutdown() == 0


def test_a_configuration_problem_found_before_the_server_is_up_is_shown(tmp_path: Path) -> None:
    cache, path = tmp_path / "cache", tmp_path / "reduce.cu"
    path.write_bytes((DATA / "reduce.cu").read_bytes())
    (tmp_path / "cudaport.toml").write_text('ignore = ["CP1001"\n')  # invalid TOML
    for _ in ("cold", "warm"):
        server, _answer = _start(cache, tmp_path, PUSH)
        _, first = _first_diagnostics(server, path, pull=False)
        assert "CP1001" in {d["code"] for d in first["diagnostics"]}, "the defaults apply"
        shown = server.wait_for(lambda m: m.get("method") == "window/showMessage", timeout=20)
        assert shown["params"]["type"] == 1 and "cudaport.toml" in shown["params"]["message"]
        assert server.shutdown() == 0


@pytest.mark.parametrize("damage", ["garbage", "truncated", "another stamp"])
def test_a_damaged_or_stale_record_is_replaced(tmp_path: Path, damage: str) -> None:
    cache = tmp_path / "cache"
    server, cold = _start(cache, tmp_path, PUSH)
    assert server.shutdown() == 0
    (record,) = _records(cache)
    data = record.read_bytes()
    damaged: dict[str, Any] = {
        "garbage": b"\x00\xff not a record",
        "truncated": data[: len(data) // 2],
        "another stamp": data.replace(b"lsp-initialize", b"lsp-initialise", 1),
    }
    record.write_bytes(damaged[damage])
    server, again = _start(cache, tmp_path, PUSH)
    assert again["result"] == cold["result"]
    assert server.shutdown() == 0
    assert record.read_bytes() == data, "written again as the server answered"


def test_a_failure_while_serving_early_leaves_the_frame_to_the_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In-process: rendering the first diagnostics raises; the initialize answer stands, nothing half-written goes
    out, and the didOpen is left for the server to handle again."""
    import io

    from cudaport.lsp import logs, prelude
    from cudaport.lsp.framing import FrameReader

    monkeypatch.setenv("CUDAPORT_CACHE_DIR", str(tmp_path / "cache"))
    prelude.remember_initialize(prelude._initialize_record(PUSH), {"capabilities": {"positionEncoding": "utf-16"}})

    def broken(snapshot: Any) -> list[bytes]:
        raise RuntimeError("rendering failed")

    monkeypatch.setattr(prelude, "diagnostics_json", broken)
    path = tmp_path / "reduce.cu"
    path.write_bytes((DATA / "reduce.cu").read_bytes())
    messages = [
        {"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": {"capabilities": PUSH}},
        {
            "jsonrpc": "2.0",
            "method": "textDocument/didOpen",
            "params": {"textDocument": {"uri": path.as_uri(), "languageId": "cuda", "version": 1, "text": "int x;"}},
        },
    ]
    stream = b"".join(b"Content-Length: %d\r\n\r\n%s" % (len(b), b) for b in (json.dumps(m).encode() for m in messages))
    reader = FrameReader(io.BytesIO(stream).read)
    written: list[bytes] = []
    early = prelude.serve_first(reader.frames(), reader.pending, written.append, logs.ClientLogHandler())
    assert len(written) == 1 and b'"id":7' in written[0]
    assert early.answered == {7}
    assert [json.loads(f.body)["method"] for f in early.replay] == ["initialize", "textDocument/didOpen"]


@pytest.mark.parametrize("content", ["too large", "binary", "lone surrogate"])
def test_bad_buffers_opened_early_are_told_about_as_the_server_tells(tmp_path: Path, content: str) -> None:
    """Warm start: a buffer over max-file-size or with NUL bytes gets no diagnostics and a warning that says why
    (held until the server is up), a lone surrogate changes nothing around it; cold and warm say the same."""
    cache, path = tmp_path / "cache", tmp_path / "buffer.cu"
    (tmp_path / "cudaport.toml").write_text("max-file-size = 4096\n")
    texts = {
        "too large": "cudaMalloc(&p, n);\n" * 400,
        "binary": "cudaMalloc(&p, n);\x00\x01\n",
        "lone surrogate": "// \ud800\ncudaMalloc(&p, n);\n",
    }
    said: list[tuple[Message, list[str]]] = []
    for _ in ("cold", "warm"):
        server, _answer = _start(cache, tmp_path, PUSH)
        uri = path.as_uri()
        server.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "cuda", "version": 1, "text": texts[content]}},
        )
        first = server.diagnostics(uri, 1)
        warnings: list[str] = []
        if content != "lone surrogate":
            shown = server.wait_for(lambda m: m.get("method") == "window/showMessage", timeout=20)
            warnings.append(shown["params"]["message"])
        said.append((first, warnings))
        assert server.shutdown() == 0
        assert server.stderr() == ""
    (cold, cold_warnings), (warm, warm_warnings) = said
    assert warm == cold and warm_warnings == cold_warnings
    if content == "lone surrogate":
        assert [d["range"]["start"] for d in warm if d["code"] == "CP1001"] == [{"line": 1, "character": 0}]
    else:
        assert warm == []
        assert ("max-file-size" if content == "too large" else "binary") in warm_warnings[0]
