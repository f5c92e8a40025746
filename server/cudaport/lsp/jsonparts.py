"""Message parts the server writes as JSON it built itself, not as lsprotocol objects that cattrs walks (cheap
to import: the first diagnostics are written before the protocol library is loaded)."""

from __future__ import annotations

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
