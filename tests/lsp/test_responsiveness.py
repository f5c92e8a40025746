"""The server answers whatever it is analysing, publishes only the newest version's diagnostics, and exits when
its client is gone: the real process over stdio (raw client: the timings are the point)."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from cudaport.lsp.background import INLINE_FULL

from .conftest import DATA
from .raw import RawServer

BOUND = 1.0  # seconds: generous for a loaded CI machine (bench/bench_lsp.py prints the figure, ~0.1 s)


@pytest.fixture
def raw(tmp_path: Path) -> Iterator[RawServer]:
    server = RawServer()
    yield server
    server.kill()


def _position(line: int, character: int) -> dict[str, int]:
    return {"line": line, "character": character}


def _range(a: tuple[int, int], b: tuple[int, int]) -> dict[str, object]:
    return {"start": _position(*a), "end": _position(*b)}


def test_requests_are_answered_while_a_huge_buffer_is_analysed(raw: RawServer, tmp_path: Path) -> None:
    """(a) A 20 MB buffer is analysed off the message loop: a hover, a code action and shutdown sent right after
    it are answered within the bound, long before its diagnostics."""
    raw.initialize(tmp_path, options={"maxFileSize": 64_000_000, "debounce": 0})
    small = raw.open(tmp_path / "small.cu", "void f() { cudaMalloc(0, 4); }\n")
    raw.diagnostics(small, 1)  # the engine is loaded: what follows measures the analysis, not the start-up
    # the buffer of the issue: 20 MB on one line (a minified or generated file)
    uri = raw.open(tmp_path / "huge.cu", "cudaMalloc(p, n); " + "x" * 20_000_000)
    timings = {}
    for name, method, params in (
        ("hover", "textDocument/hover", {"textDocument": {"uri": uri}, "position": _position(0, 3)}),
        ("hover elsewhere", "textDocument/hover", {"textDocument": {"uri": small}, "position": _position(0, 13)}),
        (
            "codeAction",
            "textDocument/codeAction",
            {"textDocument": {"uri": small}, "range": _range((0, 0), (0, 5)), "context": {"diagnostics": []}},
        ),
    ):
        began = time.perf_counter()
        answer = raw.request(method, params, timeout=60)
        timings[name] = time.perf_counter() - began
        assert "error" not in answer, answer
    print({name: f"{seconds * 1000:.0f} ms" for name, seconds in timings.items()})
    # the first includes reading and decoding the 20 MB didOpen that precedes it in the stream
    assert timings["hover"] < 3 * BOUND
    assert timings["hover elsewhere"] < BOUND and timings["codeAction"] < BOUND
    began = time.perf_counter()
    raw.request("shutdown", timeout=60)
    assert time.perf_counter() - began < BOUND
    raw.notify("exit")
    assert raw.process.wait(timeout=10) == 0


def test_only_the_newest_version_is_published(raw: RawServer, tmp_path: Path) -> None:
    """(b) Versions sent faster than a whole-file analysis of a large buffer finishes: the diagnostics published
    are the newest version's (no stale version's, not even the first), and they are right."""
    raw.initialize(tmp_path, options={"debounce": 0})
    base = (DATA / "reduce.cu").read_text()
    copies = 400_000 // len(base) + 1
    text = base * copies  # over the size analysed whole on the message loop
    uri = raw.open(tmp_path / "big.cu", text)
    line = text.count("\n")
    for version in range(2, 12):
        raw.notify(
            "textDocument/didChange",
            {
                "textDocument": {"uri": uri, "version": version},
                "contentChanges": [{"range": _range((line, 0), (line, 0)), "text": "cudaFree(p);\n"}],
            },
        )
        line += 1
    final = raw.diagnostics(uri, 11, timeout=120)
    time.sleep(0.5)  # anything else on its way
    raw.log_messages()
    published = [m for m in raw.seen if m.get("method") == "textDocument/publishDiagnostics"]
    versions = [m["params"].get("version") for m in published if m["params"]["uri"] == uri]
    assert versions == [], f"stale versions published: {versions}"
    assert final
    fresh = raw.open(tmp_path / "fresh.cu", text + "cudaFree(p);\n" * 10)
    assert _shape(raw.diagnostics(fresh, 1, timeout=120)) == _shape(final)


def _shape(diagnostics: list[dict[str, object]]) -> list[tuple[object, ...]]:
    return sorted((d["code"], str(d["range"]), d["message"]) for d in diagnostics)


@pytest.mark.parametrize("how", ["stdin", "stdout", "process"])
def test_exits_when_the_client_is_gone(tmp_path: Path, how: str) -> None:
    """(c) EOF on stdin, stdout closed by the client, or initialize's processId gone: exit within 2 s."""
    raw = RawServer()
    try:
        client = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
        response = raw.request(
            "initialize", {"processId": client.pid, "rootUri": tmp_path.as_uri(), "capabilities": {}}
        )
        assert "result" in response
        raw.notify("initialized", {})
        uri = raw.open(tmp_path / "a.cu", "void f() { cudaMalloc(0, 4); }\n")
        raw.diagnostics(uri, 1)
        began = time.perf_counter()
        if how == "stdin":
            assert raw.process.stdin is not None
            raw.process.stdin.close()
        elif how == "stdout":
            raw.close_stdout()
        else:
            client.kill()
            client.wait()
        raw.process.wait(timeout=5)
        elapsed = time.perf_counter() - began
        print(f"{how}: exited {elapsed * 1000:.0f} ms after the client went")
        assert elapsed < 2.0
    finally:
        if client.poll() is None:
            client.kill()
        raw.kill()


def test_an_endif_typed_into_endifx_and_back(raw: RawServer, tmp_path: Path) -> None:
    """(d) `#endif` edited into `#endifx` in the middle of a large file (its `#if` then takes in the rest of the
    file) and back: each version's diagnostics are those of the text analysed afresh."""
    raw.initialize(tmp_path, options={"debounce": 0, "fullCheckAfterIdle": 0})
    block = (DATA / "reduce.cu").read_text() + "#if CUDA_VERSION >= 11000\n#define HAS_ASYNC 1\n#endif\n"
    text = block * 40
    uri = raw.open(tmp_path / "big.cu", text)
    raw.diagnostics(uri, 1, timeout=120)
    lines = text.split("\n")
    row = [i for i, line in enumerate(lines) if line == "#endif"][20]
    version = 1
    for change, expected_text in (
        ({"range": _range((row, 6), (row, 6)), "text": "x"}, None),
        ({"range": _range((row, 6), (row, 7)), "text": ""}, text),
    ):
        version += 1
        raw.notify(
            "textDocument/didChange", {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}
        )
        got = raw.diagnostics(uri, version, timeout=120)
        edited = expected_text or "\n".join([*lines[:row], "#endifx", *lines[row + 1 :]])
        reference = raw.open(tmp_path / f"reference-{version}.cu", edited)
        assert _shape(got) == _shape(raw.diagnostics(reference, 1, timeout=120))


def test_an_include_edited_in_a_large_file_is_sent_at_once_then_settled_whole(raw: RawServer, tmp_path: Path) -> None:
    """A header's name typed into in a large file: the edited line's diagnostics go out at once (analysed alone),
    and what the includes decide elsewhere (the runtime include nvcc adds, CP1007, at the first kernel) follows
    from the whole-file analysis once typing stops, even with the editor's whole-file check turned off."""
    raw.initialize(tmp_path, options={"debounce": 0, "fullCheckAfterIdle": 0})
    body = "".join(
        line for line in (DATA / "reduce.cu").read_text().splitlines(keepends=True) if not line.startswith("#include")
    )
    text = "#include <cuda_runtime.h>\n" + body * 40
    assert len(text.encode()) > INLINE_FULL
    uri = raw.open(tmp_path / "big.cu", text)
    assert "CP1007" not in [d["code"] for d in raw.diagnostics(uri, 1, timeout=120)]
    raw.notify(
        "textDocument/didChange",
        {
            "textDocument": {"uri": uri, "version": 2},
            "contentChanges": [{"range": _range((0, 18), (0, 18)), "text": "x"}],
        },
    )
    first = raw.diagnostics(uri, 2, timeout=120)
    assert "CP1007" not in [d["code"] for d in first]
    on_the_line = [d["message"] for d in first if d["range"]["start"]["line"] == 0]
    assert not any("cuda_runtime.h" in message for message in on_the_line)  # the line's own finding went at once
    settled = raw.diagnostics(uri, 2, timeout=120)  # sent again, after the whole-file analysis
    edited = text.replace("cuda_runtime.h", "cuda_runxtime.h", 1)
    reference = raw.open(tmp_path / "reference.cu", edited)
    assert "CP1007" in [d["code"] for d in settled]
    assert _shape(settled) == _shape(raw.diagnostics(reference, 1, timeout=120))


def _layers_text() -> str:
    """A large file (over what the server analyses whole on its message loop) of small structs and kernels, where
    `x` typed after a struct's last field makes tree-sitter take the rest of the file into the struct."""
    block = (
        "struct layer_{n} {{\n    cudaTextureObject_t texels;\n    int mip_count;\n}};\n\n"
        "__host__ __device__ inline uint2 pack_{n}(cudaTextureObject_t handle) {{\n"
        "    return make_uint2((unsigned int)(handle & 0xFFFFFFFFull), (unsigned int)(handle >> 32));\n}}\n\n"
        "__global__ void __launch_bounds__(256, 2) sample_{n}(const layer_{n}* layers, float* out, int count) {{\n"
        "    int i = blockIdx.x * blockDim.x + threadIdx.x;\n    if (i >= count) return;\n"
        "    out[i] = tex1Dfetch<float>(layers[i].texels, i);\n}}\n"
    )
    text = "".join(block.format(n=n) for n in range(300))
    assert len(text) > 130_000
    return text


def _after_a_field(text: str) -> dict[str, object]:
    lines = text.split("\n")
    row = [i for i, line in enumerate(lines) if line == "    int mip_count;"][150]
    return _range((row, len(lines[row])), (row, len(lines[row])))


def test_a_character_whose_parse_takes_in_the_rest_of_a_large_file_is_analysed_locally(
    raw: RawServer, tmp_path: Path
) -> None:
    """(e) `x` typed after a struct's last field in the middle of a large file: tree-sitter's error recovery makes
    the struct take in the rest of the file, so only a whole-file analysis could confirm the local findings. They
    stay provisional (the whole-file check once typing stops settles them) instead of sending the next edit to the
    analysis thread: erasing the `x` is analysed locally again, and its diagnostics are the file's own."""
    raw.initialize(tmp_path, options={"debounce": 0, "fullCheckAfterIdle": 0, "logLevel": "debug"})
    text = _layers_text()
    uri = raw.open(tmp_path / "layers.cu", text)
    first = raw.diagnostics(uri, 1, timeout=120)
    at = _after_a_field(text)
    start = at["start"]
    assert isinstance(start, dict)
    after = _range((start["line"], start["character"] + 1), (start["line"], start["character"] + 1))
    erase = {"start": start, "end": after["start"]}
    for version, change in ((2, {"range": at, "text": "x"}), (3, {"range": erase, "text": ""})):
        raw.notify(
            "textDocument/didChange", {"textDocument": {"uri": uri, "version": version}, "contentChanges": [change]}
        )
        got = raw.diagnostics(uri, version, timeout=120)
    assert _shape(got) == _shape(first)
    logs = raw.log_messages()
    assert any(f"analysed {uri} v3: local" in line for line in logs)
    assert not any(f"analysing {uri} v3 on the analysis thread" in line for line in logs)


def test_findings_left_provisional_are_settled_once_typing_stops(raw: RawServer, tmp_path: Path) -> None:
    """(e') The same `x` left in place: the whole-file check once typing stops analyses the file whole (on the
    analysis thread), and what the client has then is the file's own (the file analysed afresh)."""
    raw.initialize(tmp_path, options={"debounce": 0, "fullCheckAfterIdle": 200, "logLevel": "debug"})
    text = _layers_text()
    uri = raw.open(tmp_path / "layers.cu", text)
    raw.diagnostics(uri, 1, timeout=120)
    at = _after_a_field(text)
    raw.notify(
        "textDocument/didChange",
        {"textDocument": {"uri": uri, "version": 2}, "contentChanges": [{"range": at, "text": "x"}]},
    )
    shown = raw.diagnostics(uri, 2, timeout=120)
    deadline = time.monotonic() + 60
    while not any(f"analysed {uri} v2 on the analysis thread" in line for line in raw.log_messages()):
        assert time.monotonic() < deadline, "the whole-file check never ran"
        time.sleep(0.05)
    lines = text.split("\n")
    row = at["start"]["line"]  # type: ignore[index]
    edited = "\n".join([*lines[:row], lines[row] + "x", *lines[row + 1 :]])
    reference = _shape(raw.diagnostics(raw.open(tmp_path / "reference.cu", edited), 1, timeout=120))
    again = [m for m in raw.seen if m.get("method") == "textDocument/publishDiagnostics" and m["params"]["uri"] == uri]
    latest = again[-1]["params"]["diagnostics"] if again else shown  # sent again only if the check changed them
    assert _shape(latest) == reference


@pytest.mark.parametrize("refresh", [True, False], ids=["refresh", "no-refresh"])
def test_a_pull_waits_for_the_first_analysis_of_a_large_buffer(raw: RawServer, tmp_path: Path, refresh: bool) -> None:
    """A pull client's first pull of a buffer analysed on the analysis thread gets its findings, not an empty
    report (as if the file were clean), whether or not the client can be asked to pull again; a hover sent after
    that pull is answered while it waits."""
    capabilities: dict[str, object] = {"textDocument": {"diagnostic": {}}}
    if refresh:
        capabilities["workspace"] = {"diagnostics": {"refreshSupport": True}}
    raw.initialize(tmp_path, capabilities=capabilities, options={"debounce": 0})
    small = raw.open(tmp_path / "small.cu", "void f() { cudaMalloc(0, 4); }\n")
    assert raw.request("textDocument/diagnostic", {"textDocument": {"uri": small}})["result"]["items"]
    base = (DATA / "reduce.cu").read_text()
    text = base * (400_000 // len(base) + 1)  # over the size analysed whole on the message loop
    uri = raw.open(tmp_path / "big.cu", text)
    pull_id = raw.next_id()
    raw.send(
        {"jsonrpc": "2.0", "id": pull_id, "method": "textDocument/diagnostic", "params": {"textDocument": {"uri": uri}}}
    )
    began = time.perf_counter()
    hover_id = raw.next_id()
    raw.send(
        {
            "jsonrpc": "2.0",
            "id": hover_id,
            "method": "textDocument/hover",
            "params": {"textDocument": {"uri": small}, "position": _position(0, 13)},
        }
    )
    assert "error" not in raw.answer_to(hover_id, timeout=60)
    hovered = time.perf_counter() - began
    pulled = raw.answer_to(pull_id, timeout=120)
    items = pulled["result"]["items"]
    assert items, "the first pull of a large buffer answered an empty report"
    assert hovered < BOUND
    # the same findings as a buffer small enough to be analysed on the message loop, line for line
    one = raw.open(tmp_path / "one.cu", base)
    alone = raw.request("textDocument/diagnostic", {"textDocument": {"uri": one}})["result"]["items"]
    assert len(items) == len(alone) * (400_000 // len(base) + 1)
