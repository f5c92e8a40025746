"""The base protocol's framing (`Content-Length: N` headers, a blank line, N bytes of JSON), read so that no
client mistake wedges the server.

pygls' reader stops reading for good after one bad frame: a Content-Length a few bytes off, a lower-case header,
LF-only line ends or `Content-Length: 0` leave it waiting for a header it already skipped, and a Content-Length
of a terabyte makes it allocate one and die. Here header names are matched case-insensitively, LF-only lines are
accepted, a body over the limit is skipped up to the next header, and a body that is not one JSON value is
repaired from the bytes at hand when its length was off (too short: the rest is what precedes the next header;
too long: it swallowed the start of the next message, which is given back). Nothing here blocks for bytes the
client has not sent: a request whose frame was short would otherwise wait for its own answer."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable, Iterator

from ..model.records import record

log = logging.getLogger(__name__)

MAX_BODY = 256 * 2**20  # far above any real message (a 20 MB buffer is 20 MB of JSON), far below a bad length
_CHUNK = 65536
_GRACE = 0.3  # seconds a complete message may wait for bytes its Content-Length still promises
_HEADER_START = re.compile(rb"content-(?:length|type)[ \t]*:", re.I)
_HEADER_LINE = re.compile(rb"^([A-Za-z][A-Za-z0-9-]*)[ \t]*:[ \t]*(.*?)[ \t]*\r?\n?$")


@record(frozen=True, slots=True)
class Frame:
    body: bytes
    problem: str = ""  # what was wrong with the framing and how it was repaired ("" for a proper frame)


class FrameReader:
    """Frames from `read(n)` (which returns up to n bytes, b"" at the end of the stream)."""

    def __init__(
        self, read: Callable[[int], bytes], ready: Callable[[float], bool] | None = None, max_body: int = MAX_BODY
    ) -> None:
        """`ready(seconds)`: whether input arrives within that time (None: never wait for less than a frame)."""
        self._read = read
        self._ready = ready
        self._short = 0
        self._max_body = max_body
        self._buffer = bytearray()
        self._eof = False

    def frames(self) -> Iterator[Frame]:
        while True:
            frame = self._next()
            if frame is None:
                return
            yield frame

    def pending(self, seconds: float = 0.0) -> bool:
        """Whether input is at hand (read already, or arriving in the stream within `seconds`). A stream that
        cannot tell (no `ready`) may have some: True."""
        if self._buffer.strip():
            return True
        if self._eof:
            return False
        return self._ready is None or self._ready(seconds)

    # ---- reading ------------------------------------------------------------------------------------------
    def _fill(self) -> bool:
        if self._eof:
            return False
        try:
            chunk = self._read(_CHUNK)
        except (OSError, ValueError):
            chunk = b""  # a closed stream is the end of the session
        if not chunk:
            self._eof = True
            return False
        self._buffer += chunk
        return True

    def _line(self) -> bytes | None:
        """The next line, with its line end; None at the end of the stream."""
        searched = 0
        while True:
            end = self._buffer.find(b"\n", searched)
            if end >= 0:
                line = bytes(self._buffer[: end + 1])
                del self._buffer[: end + 1]
                return line
            if len(self._buffer) > self._max_body:
                # A "header" longer than any message: garbage, dropped up to a header start it may contain.
                kept = _HEADER_START.search(self._buffer)
                del self._buffer[: kept.start() if kept is not None else len(self._buffer)]
                if kept is not None:
                    searched = 0
                    continue
            searched = len(self._buffer)
            if not self._fill():
                if self._buffer:
                    line = bytes(self._buffer)
                    self._buffer.clear()
                    return line
                return None

    def _exactly(self, size: int) -> bytes | None:
        while len(self._buffer) < size:
            if self._ready is not None and _complete(self._buffer) and not self._ready(_GRACE):
                # A whole message, and the client sends no more: its length was too long, and waiting for the
                # missing bytes would wait for the answer the client itself waits for.
                body = bytes(self._buffer)
                self._buffer.clear()
                self._short = size - len(body)
                return body
            if not self._fill():
                return None
        body = bytes(self._buffer[:size])
        del self._buffer[:size]
        return body

    def _skip_to_header(self) -> bool:
        """Drop input up to the next `Content-Length` header; False at the end of the stream."""
        while True:
            found = _HEADER_START.search(self._buffer)
            if found is not None:
                del self._buffer[: found.start()]
                return True
            del self._buffer[: max(0, len(self._buffer) - 32)]  # a header may be split across reads
            if not self._fill():
                return False

    # ---- frames ---------------------------------------------------------------------------------------------
    def _next(self) -> Frame | None:
        problems: list[str] = []
        length: int | None = None
        while True:
            line = self._line()
            if line is None:
                if problems:
                    log.error("the client's stream ended inside a message: %s", "; ".join(problems))
                return None
            if not line.strip():
                if length is not None:
                    break
                continue  # blank lines between messages
            inside = _HEADER_START.search(line)
            if inside is not None and inside.start() > 0:
                # The rest of a body that was framed short, with the next header on the same line.
                problems.append(f"{inside.start()} stray bytes before a header")
                self._buffer[:0] = line[inside.start() :]
                continue
            match = _HEADER_LINE.match(line)
            if match is None:
                problems.append(f"not a header: {line[:60]!r}")
                continue
            name, value = match.group(1).lower(), match.group(2)
            if name != b"content-length":
                continue  # Content-Type and any other header
            if not value.isdigit():
                problems.append(f"Content-Length {value[:40]!r} is not a number")
                length = None
                continue
            length = int(value)
            if length > self._max_body:
                problems.append(f"Content-Length {length:,} is over the {self._max_body:,}-byte limit: skipped")
                length = None
                if not self._skip_to_header():
                    return None
        # (Header names in any case and LF-only line ends are accepted as they are: HTTP's rules, not mistakes.)
        assert length is not None
        body = self._exactly(length)
        if body is None:
            log.error("the client's stream ended inside a %s-byte message", f"{length:,}")
            return None
        if self._short:
            problems.append(f"Content-Length {length} was {self._short} bytes too long (nothing followed)")
            self._short = 0
        body, repaired = self._repair(body)
        if repaired:
            problems.append(repaired)
        return Frame(body, "; ".join(problems))

    def _repair(self, body: bytes) -> tuple[bytes, str]:
        """A Content-Length that was off, told by the bytes at hand: a body that ran into the next message's
        header (too long), or bytes already read after the body that are no header (too short)."""
        # (a whole JSON value first: a 40 MB body is not searched for a header it cannot hold)
        inside = _HEADER_START.search(body) if not _complete(body) else None
        if inside is not None:
            cut = inside.start()
            self._buffer[:0] = body[cut:]  # the next message, given back
            return body[:cut], f"Content-Length {len(body)} was {len(body) - cut} bytes too long"
        following = _HEADER_START.search(self._buffer)
        rest = bytes(self._buffer[: following.start() if following is not None else len(self._buffer)])
        if rest.strip() and _complete(body + rest):
            del self._buffer[: len(rest)]
            return body + rest, f"Content-Length {len(body)} was {len(rest.rstrip())} bytes too short"
        return body, ""  # as it is: valid, or not JSON at all (the caller answers with a parse error)


_SPACE = b" \t\n\r\x0b\x0c"  # what bytes.strip() strips
_FIRST_BYTE = re.compile(rb"[^ \t\n\r\x0b\x0c]")


def _complete(body: bytes | bytearray) -> bool:
    """Whether `body` looks like one whole JSON object or array, read from its ends without copying it: it is
    asked after every read of a body in progress, and stripping a copy of a 40 MB buffer each time was quadratic
    (17 s of a 20 MB didOpen, with the interpreter lock held)."""
    first = _FIRST_BYTE.search(body)
    if first is None:
        return False
    last = len(body) - 1
    while body[last] in _SPACE:
        last -= 1
    return body[first.start()] in b"{[" and body[last] in b"}]"
