"""A bare JSON-RPC client over the server's stdio, for what a well-behaved client library cannot send: malformed
messages, exits without shutdown. It also keeps the server's stderr, which must stay empty."""

from __future__ import annotations

import json
import os
import queue
import select
import subprocess
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .conftest import SERVER_COMMAND

Message = dict[str, Any]


class RawServer:
    def __init__(self, *extra: str, cwd: Path | None = None, env: dict[str, str] | None = None) -> None:
        self.process = subprocess.Popen(
            [*SERVER_COMMAND, *extra],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=env,
        )
        self.messages: queue.Queue[Message | None] = queue.Queue()
        self.seen: list[Message] = []
        self._next_id = 0
        self._stop = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        # Raw reads of the descriptor, a tenth of a second at a time, so that close_stdout can stop this thread
        # before it closes the pipe: a close while a thread is blocked reading it waits on that read forever.
        stream = self.process.stdout
        assert stream is not None
        descriptor = stream.fileno()
        buffer = b""
        while not self._stop.is_set():
            header_end = buffer.find(b"\r\n\r\n")
            if header_end >= 0:
                length = None
                for line in buffer[:header_end].split(b"\r\n"):
                    name, _, value = line.decode("ascii").partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value)
                assert length is not None, "a message without Content-Length"
                start = header_end + 4
                if len(buffer) - start >= length:
                    self.messages.put(json.loads(buffer[start : start + length]))
                    buffer = buffer[start + length :]
                    continue
            if not select.select([descriptor], [], [], 0.1)[0]:
                continue
            chunk = os.read(descriptor, 65536)
            if not chunk:
                break
            buffer += chunk
        self.messages.put(None)

    def close_stdout(self) -> None:
        """Close our end of the server's stdout, as a client that goes away does (the reading stops first)."""
        self._stop.set()
        self._reader.join(timeout=5)
        assert self.process.stdout is not None
        self.process.stdout.close()

    # ---- sending ------------------------------------------------------------------------------------------
    def send_bytes(self, body: bytes) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        self.process.stdin.flush()

    def send_raw(self, data: bytes) -> None:
        """Bytes exactly as given: headers and all."""
        assert self.process.stdin is not None
        self.process.stdin.write(data)
        self.process.stdin.flush()

    def framed(
        self, message: Message, length_delta: int = 0, header: bytes = b"Content-Length", eol: bytes = b"\r\n"
    ) -> None:
        body = json.dumps(message).encode()
        self.send_raw(header + b": %d" % (len(body) + length_delta) + eol + eol + body)

    def next_id(self) -> int:
        self._next_id += 1
        return self._next_id

    def answer_to(self, request_id: int | str | None, timeout: float = 30) -> Message:
        return self.wait_for(lambda m: m.get("id") == request_id and "method" not in m, timeout)

    def send(self, message: Message) -> None:
        self.send_bytes(json.dumps(message).encode())

    def notify(self, method: str, params: Any = None) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def request(self, method: str, params: Any = None, timeout: float = 30) -> Message:
        self._next_id += 1
        request_id = self._next_id
        self.send({"jsonrpc": "2.0", "id": request_id, "method": method, "params": params})
        return self.wait_for(lambda m: m.get("id") == request_id and "method" not in m, timeout)

    # ---- receiving ----------------------------------------------------------------------------------------
    def wait_for(self, predicate: Callable[[Message], bool], timeout: float = 30) -> Message:
        for message in self.seen:
            if predicate(message):
                self.seen.remove(message)
                return message
        deadline = time.monotonic() + timeout
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise AssertionError("timed out waiting for a message from the server")
            try:
                message = self.messages.get(timeout=remaining)
            except queue.Empty:
                continue
            if message is None:
                raise AssertionError(f"the server exited (code {self.process.wait()}): {self.stderr()}")
            if "id" in message and "method" in message:  # a request from the server: answer it
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": None})
            if predicate(message):
                return message
            self.seen.append(message)

    def log_messages(self) -> list[str]:
        """Every window/logMessage so far, those the server sent after the last message waited for too (once it
        has exited: up to the end of its output, which a log record may reach after the shutdown answer)."""
        exited = self.process.poll() is not None
        while True:
            try:
                message = self.messages.get(timeout=10) if exited else self.messages.get_nowait()
            except queue.Empty:
                break
            if message is None:
                self.messages.put(None)  # the end stays the end for a later reader
                break
            self.seen.append(message)
        return [m["params"]["message"] for m in self.seen if m.get("method") == "window/logMessage"]

    # ---- session ------------------------------------------------------------------------------------------
    def initialize(self, root: Path, capabilities: Message | None = None, options: Message | None = None) -> Message:
        response = self.request(
            "initialize",
            {
                "processId": None,
                "rootUri": root.as_uri(),
                "capabilities": capabilities or {},
                "initializationOptions": options,
            },
        )
        self.notify("initialized", {})
        return response

    def open(self, path: Path, text: str, version: int = 1) -> str:
        uri = path.as_uri()
        self.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": uri, "languageId": "cuda", "version": version, "text": text}},
        )
        return uri

    def diagnostics(self, uri: str, version: int, timeout: float = 30) -> list[Message]:
        message = self.wait_for(
            lambda m: (
                m.get("method") == "textDocument/publishDiagnostics"
                and m["params"]["uri"] == uri
                and m["params"].get("version") == version
            ),
            timeout,
        )
        return list(message["params"]["diagnostics"])

    def shutdown(self, timeout: float = 30) -> int:
        self.request("shutdown")
        self.notify("exit")
        return self.process.wait(timeout=timeout)

    def stderr(self) -> str:
        if self.process.poll() is None:
            return ""
        assert self.process.stderr is not None
        return self.process.stderr.read().decode("utf-8", "replace")

    def kill(self) -> None:
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
