"""The server never crashes, hangs or loses the user's text, whatever the client sends; its errors go to
window/logMessage, never to stderr (Neovim shows every stderr line as an error)."""

from __future__ import annotations

import asyncio
import random
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from lsprotocol import types

from .conftest import CUDAPORT, Launcher, copy_data, position_of, wait_until
from .raw import RawServer

FAST = {"debounce": 20}
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"


@pytest.fixture
def raw(tmp_path: Path) -> Iterator[RawServer]:
    server = RawServer()
    yield server
    server.kill()


def test_malformed_messages_get_errors_not_crashes(raw: RawServer, tmp_path: Path) -> None:
    raw.initialize(tmp_path)
    raw.send_bytes(b"{this is not json")
    raw.send_bytes(b"\xff\xfe not utf-8")
    raw.send_bytes(b"[1, 2, 3]")
    raw.send_bytes(b'"a string"')
    raw.send({"jsonrpc": "2.0", "id": 90, "no": "method"})
    # A request whose parameters do not decode is answered with an error, so the client does not wait forever.
    bad = raw.request("textDocument/hover", {"position": "nowhere"})
    assert bad["error"]["code"] in (-32602, -32603)
    assert raw.request("cudaport/noSuchMethod", {})["error"]["code"] == -32601
    raw.notify("textDocument/didChange", {"textDocument": {"uri": 5}})  # a notification that cannot decode
    raw.notify("$/unknownNotification", {})
    # Still serving.
    path = tmp_path / "k.cu"
    uri = raw.open(path, "void f(float* p) { cudaFree(p); }\n")
    assert [d["code"] for d in raw.diagnostics(uri, 1)] == ["CP1001"]
    hover = raw.request("textDocument/hover", {"textDocument": {"uri": uri}, "position": {"line": 0, "character": 22}})
    assert "hipFree" in hover["result"]["contents"]["value"]
    assert raw.shutdown() == 0
    assert raw.stderr() == ""


def test_exit_codes_and_no_stderr(tmp_path: Path) -> None:
    # exit without shutdown: 1 (the LSP rule); after shutdown: 0 (above); the client vanishing: it stops too.
    server = RawServer()
    server.initialize(tmp_path)
    server.notify("exit")
    assert server.process.wait(timeout=30) == 1
    assert server.stderr() == ""
    server = RawServer()
    server.initialize(tmp_path)
    assert server.process.stdin is not None
    server.process.stdin.close()
    assert server.process.wait(timeout=30) == 1
    assert server.stderr() == ""


def test_log_file_and_log_messages(tmp_path: Path) -> None:
    log = tmp_path / "server.log"
    server = RawServer("--log-file", str(log))
    server.initialize(tmp_path, options={"logLevel": "debug"})
    uri = server.open(tmp_path / "k.cu", "void f(float* p) { cudaFree(p); }\n")
    server.diagnostics(uri, 1)
    # the analysis's record may follow its diagnostics on the wire: waited for, not read once after the exit
    said = server.wait_for(lambda m: m.get("method") == "window/logMessage" and "analysed" in m["params"]["message"])
    assert "k.cu" in said["params"]["message"]
    assert server.shutdown() == 0
    assert server.stderr() == ""
    text = log.read_text(encoding="utf-8")
    assert "analysed" in text and "k.cu" in text


def test_tcp_on_loopback_only(tmp_path: Path) -> None:
    refused = subprocess.run([CUDAPORT, "serve", "--tcp", "0.0.0.0:2087"], capture_output=True, text=True)
    assert refused.returncode == 2 and "loopback" in refused.stderr
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        [CUDAPORT, "serve", "--tcp", f"127.0.0.1:{port}"], stderr=subprocess.PIPE, stdout=subprocess.DEVNULL
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                connection = socket.create_connection(("127.0.0.1", port), timeout=30)
                break
            except OSError:
                assert time.monotonic() < deadline, "the server did not listen"
                time.sleep(0.1)
        with connection:
            stream = connection.makefile("rwb")

            def send(message: bytes) -> None:
                stream.write(b"Content-Length: %d\r\n\r\n" % len(message) + message)
                stream.flush()

            def receive() -> bytes:
                length = 0
                while (line := stream.readline().strip()) != b"":
                    if line.lower().startswith(b"content-length"):
                        length = int(line.split(b":")[1])
                return bytes(stream.read(length))

            send(b'{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"capabilities":{}}}')
            assert b'"positionEncoding"' in receive()
            send(b'{"jsonrpc":"2.0","id":2,"method":"shutdown"}')
            while b'"id": 2' not in (reply := receive()) and b'"id":2' not in reply:
                pass
            send(b'{"jsonrpc":"2.0","method":"exit"}')
        assert process.wait(timeout=30) == 0
    finally:
        if process.poll() is None:
            process.kill()


async def test_unknown_closed_and_out_of_order(lsp: Launcher, profile: str, tmp_path: Path) -> None:
    session = await lsp.start(profile, options=FAST)
    ghost = (tmp_path / "ghost.cu").as_uri()
    client = session.client
    identifier = types.TextDocumentIdentifier(ghost)
    assert await client.text_document_hover_async(types.HoverParams(identifier, types.Position(0, 0))) is None
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            identifier, types.Range(types.Position(0, 0), types.Position(0, 0)), types.CodeActionContext([])
        )
    )
    assert not actions
    if session.pull:
        report = await client.text_document_diagnostic_async(types.DocumentDiagnosticParams(identifier))
        assert isinstance(report, types.RelatedFullDocumentDiagnosticReport) and not report.items
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            types.VersionedTextDocumentIdentifier(uri=ghost, version=3),
            [types.TextDocumentContentChangePartial(types.Range(types.Position(0, 0), types.Position(0, 0)), "x")],
        )
    )
    client.text_document_did_close(types.DidCloseTextDocumentParams(identifier))
    # Out of order: version 3 arrives, then a stale version 2 built on text the server never had.
    path = copy_data("reduce.cu", tmp_path)
    uri = session.open(path)
    before = await session.diagnostics(uri)
    session.edit(uri, (0, 0), (0, 0), "\n")  # version 2 is never sent ...
    session.edit(uri, (0, 0), (0, 0), "\n")  # ... version 3 is
    stale = types.DidChangeTextDocumentParams(
        types.VersionedTextDocumentIdentifier(uri=uri, version=2),
        [types.TextDocumentContentChangePartial(types.Range(types.Position(40, 0), types.Position(60, 0)), "")],
    )
    client.text_document_did_change(stale)
    after = await session.diagnostics(uri)
    assert sorted((d.range.start.line - 2, d.code) for d in after) == sorted(
        (d.range.start.line, d.code) for d in before
    )
    session.close(uri)
    session.close(uri)  # twice: logged, not fatal
    reopened = session.open(path)
    assert len(await session.diagnostics(reopened)) == len(before)


async def test_ten_thousand_rapid_edits_lose_nothing(lsp: Launcher, tmp_path: Path) -> None:
    path = copy_data("reduce.cu", tmp_path)
    session = await lsp.start(options={"debounce": 50, "fullCheckAfterIdle": 0})
    uri = session.open(path)
    await session.diagnostics(uri)
    rng = random.Random(4)
    words = ["cudaFree(p);", " ", "\n", "x", "中", "😀", "/*", "*/", "cudaMalloc", "}", "{", "#if 0\n", "#endif\n"]
    for _ in range(10_000):
        text = session.texts[uri]
        lines = text.split("\n")
        line = rng.randrange(len(lines))
        length = sum(1 if ord(c) <= 0xFFFF else 2 for c in lines[line])
        column = rng.randint(0, length)
        if rng.random() < 0.45 and length:
            end = min(length, column + rng.randint(1, 3))
            column = min(column, end - 1)
            session.edit(uri, _snap(lines[line], line, column), _snap(lines[line], line, end), "")
        else:
            session.edit(uri, _snap(lines[line], line, column), _snap(lines[line], line, column), rng.choice(words))
    final = await session.diagnostics(uri, timeout=120)
    # The server's text is the editor's text: a fresh document with the same text gets the same diagnostics.
    twin = tmp_path / "twin.cu"
    twin_uri = session.open(twin, session.texts[uri])
    expected = await session.diagnostics(twin_uri)
    assert sorted(map(_identity, final)) == sorted(map(_identity, expected))
    # And fix-all's edits, computed on the server's text, apply cleanly to the editor's text.
    actions = await session.code_actions(uri, (0, 0), only=["source.fixAll.cudaport"])
    if actions:
        resolved = await session.resolve(actions[0])
        fixed = session.apply(uri, resolved.edit)
        twin_fix = await session.resolve((await session.code_actions(twin_uri, (0, 0), only=["source.fixAll"]))[0])
        assert fixed == session.apply(twin_uri, twin_fix.edit)


def _snap(line_text: str, line: int, column: int) -> tuple[int, int]:
    """Never a column inside a surrogate pair (no editor sends one)."""
    units = 0
    for char in line_text:
        width = 2 if ord(char) > 0xFFFF else 1
        if units + width > column:
            return line, units
        units += width
    return line, units


def _identity(diagnostic: types.Diagnostic) -> tuple[object, ...]:
    return (
        diagnostic.range.start.line,
        diagnostic.range.start.character,
        diagnostic.range.end.line,
        diagnostic.range.end.character,
        diagnostic.code,
        diagnostic.message,
        diagnostic.severity,
    )


async def test_huge_and_binary_buffers(lsp: Launcher, profile: str, tmp_path: Path) -> None:
    session = await lsp.start(profile, options={**FAST, "maxFileSize": 2_000_000})
    huge = tmp_path / "huge.cu"
    uri = session.open(huge, "void f(float* p) { cudaFree(p); }\n" * 80_000)  # 2.8 MB
    assert await session.diagnostics(uri) == []
    await wait_until(lambda: any("huge.cu" in m.message for m in session.client.messages), what="the size message")
    message = next(m for m in session.client.messages if "huge.cu" in m.message)
    assert message.type == types.MessageType.Warning and "max-file-size" in message.message
    # Cut down below the limit, the buffer is analysed again; the text kept in step all along.
    session.edit(uri, (1, 0), (80_000, 0), "")
    assert [d.code for d in await session.diagnostics(uri)] == ["CP1001"]
    binary = tmp_path / "blob.cu"
    binary_uri = session.open(binary, "cudaFree(p);\x00\x01\x02 garbage \x00")
    assert await session.diagnostics(binary_uri) == []
    await wait_until(lambda: any("blob.cu" in m.message for m in session.client.messages), what="the binary message")


async def test_half_typed_code(lsp: Launcher, profile: str, tmp_path: Path) -> None:
    session = await lsp.start(profile, options=FAST)
    path = tmp_path / "typing.cu"
    uri = session.open(path, "")
    program = "#include <cuda_runtime.h>\n__global__ void k(float* p) {\n  if (threadIdx.x % 32 == 0) { p[0] = 1; }\n"
    program += 'int main() {\n  float* d;\n  cudaMalloc(&d, 4);\n  cudaMemcpy(d, "x", 4, cudaMemcpyHostToDevice);\n'
    for index, char in enumerate(program):
        line, column = position_of(session.texts[uri] + "\0", "\0", session.encoding)
        session.edit(uri, (line, column), (line, column), char)
        if index % 37 == 0:
            await session.diagnostics(uri)  # half-typed at every step: still diagnostics, never a crash
    symbols = {d.data["symbol"] for d in await session.diagnostics(uri)}
    assert {"cuda_runtime.h", "cudaMalloc", "cudaMemcpy", "cudaMemcpyHostToDevice"} <= symbols


async def _edit_and_compare(
    lsp: Launcher, path: Path, seed: int, snippets: list[str], bursts: int, deleting: float
) -> None:
    """Bursts of random edits to `path` (snippets inserted anywhere, a share `deleting` of them whole lines
    deleted): after each burst, the incrementally maintained diagnostics equal those of the same text opened afresh
    as a twin and analysed whole."""
    session = await lsp.start(options={"debounce": 0, "fullCheckAfterIdle": 0})
    uri = session.open(path)
    await session.diagnostics(uri)
    rng = random.Random(seed)
    for burst in range(bursts):
        for _ in range(rng.randint(1, 6)):
            text = session.texts[uri]
            lines = text.split("\n")
            line = rng.randrange(len(lines))
            column = _snap(lines[line], line, rng.randint(0, len(lines[line])))[1]
            if rng.random() < deleting and len(lines) > 5:
                session.edit(uri, (line, 0), (min(len(lines) - 1, line + rng.randint(1, 3)), 0), "")
            else:
                session.edit(uri, (line, column), (line, column), rng.choice(snippets))
        incremental = await session.diagnostics(uri)
        twin = session.open(path.with_name(f"twin{burst}{path.suffix}"), session.texts[uri])
        whole = await session.diagnostics(twin)
        assert sorted(map(_identity, incremental)) == sorted(map(_identity, whole)), f"burst {burst}"
        session.close(twin)
        await asyncio.sleep(0)


@pytest.mark.parametrize("seed", [11, 12, 13])
async def test_incremental_analysis_matches_whole_file_analysis(lsp: Launcher, tmp_path: Path, seed: int) -> None:
    """Random realistic edits (code, comments opened and closed, directives, strings, CJK): after each burst,
    the incrementally maintained diagnostics equal those of the same text analysed whole."""
    snippets = [
        "cudaMalloc(&q, 8);",
        "/* ",
        " */",
        "// 注释 cudaFree\n",
        '"cudaMemcpy"',
        "\n#if defined(USE_ROCM)\n",
        "\n#endif\n",
        "\n#define cudaFree hipFree\n",
        "__device__ ",
        "lane % 32",
        "0xffffffff",
        "\n}\n",
        "{",
        'asm volatile("mov.u32 %0, %%laneid;" : "=r"(x));',
        "😀",
    ]
    await _edit_and_compare(lsp, copy_data("reduce.cu", tmp_path), seed, snippets, bursts=25, deleting=0.3)


@pytest.mark.parametrize("seed", [21, 22])
async def test_incremental_python_analysis_matches_whole_file_analysis(
    lsp: Launcher, tmp_path: Path, seed: int
) -> None:
    """The same for Python, with the edits that make the incremental analysis give up half-way (an unclosed bracket
    or string re-parses the rest of the module; an import changes what every name means) mixed in."""
    path = tmp_path / "train_ddp.py"
    path.write_bytes((FIXTURES / "python" / "train_ddp.py").read_bytes())
    snippets = [
        "torch.cuda.synchronize()",
        "x.to(",
        ")",
        '"cuda:0',
        '"',
        "\nimport torch.cuda as tc\n",
        "\nfrom torch import cuda\n",
        "  # 注释 torch.cuda.empty_cache()",
        "os.environ['CUDA_VISIBLE_DEVICES'] = '0'",
        "\n    ",
        "model.cuda()",
        "😀",
    ]
    await _edit_and_compare(lsp, path, seed, snippets, bursts=20, deleting=0.2)


async def test_whole_file_check_after_typing_stops(lsp: Launcher, tmp_path: Path) -> None:
    """A change with effects far away that an incremental update does not see (the user defining a function named
    like a CUDA API makes every use of it the user's own) is caught by the whole-file check once typing stops."""
    path = tmp_path / "own.cu"
    path.write_text("void a(float* p) { cudaFree(p); }\n\n\nvoid b(float* p) { cudaFree(p); }\n", encoding="utf-8")
    session = await lsp.start(options={"debounce": 0, "fullCheckAfterIdle": 300})
    uri = session.open(path)
    assert len(await session.diagnostics(uri)) == 2
    for index, char in enumerate("void cudaFree(float* p) {}"):
        session.edit(uri, (1, index), (1, index), char)
    await session.diagnostics(uri)
    await wait_until(
        lambda: session.client.published[-1].uri == uri and not session.client.published[-1].diagnostics,
        what="the whole-file check",
    )
