"""Message parts the server writes as JSON it built itself, not as lsprotocol objects that cattrs walks (cheap
to import: the first diagnostics are written before the protocol library is loaded)."""

from __future__ import annotations

import json
from typing import Any


class PreparedJSON(dict[str, Any]):
    """A message part built directly in JSON form (diagnostics: thousands of small objects on every keystroke).
    It is serialised as it is, instead of being built as lsprotocol objects and walked by cattrs."""


class RawJSON(tuple[bytes, ...]):
    """A message part already serialised, as pieces of ASCII JSON to be written one after the other: the
    diagnostics of a document are kept serialised in blocks, and a message of 5,000 is those blocks, never joined
    or encoded on the event loop."""

    def __new__(cls, *pieces: bytes) -> RawJSON:
        return super().__new__(cls, pieces)


def published(uri: str, version: int | None, diagnostics: list[bytes]) -> RawJSON:
    """textDocument/publishDiagnostics' parameters, the diagnostics given as pieces of a JSON array."""
    version_json = "null" if version is None else str(version)
    return RawJSON(f'{{"uri":{json.dumps(uri)},"version":{version_json},"diagnostics":'.encode(), *diagnostics, b"}")


def notification(method: str, params: PreparedJSON | RawJSON) -> list[bytes]:
    """A notification's body, in pieces."""
    return _pieces(f'{{"jsonrpc":"2.0","method":{json.dumps(method)},"params":', params)


def response(request_id: int | str, result: PreparedJSON | RawJSON) -> list[bytes]:
    """A response's body, in pieces."""
    return _pieces(f'{{"jsonrpc":"2.0","id":{json.dumps(request_id)},"result":', result)


def _pieces(head: str, part: PreparedJSON | RawJSON) -> list[bytes]:
    body = part if isinstance(part, RawJSON) else (json.dumps(part).encode(),)
    return [head.encode(), *body, b"}"]


def header(length: int) -> bytes:
    """The base protocol's header for a body of `length` bytes (the Content-Type pygls writes too)."""
    return f"Content-Length: {length}\r\nContent-Type: application/vscode-jsonrpc; charset=utf-8\r\n\r\n".encode()
