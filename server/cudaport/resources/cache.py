"""The cache folder: what is compiled from the bundled data (the rule tables, the message catalogues, the language
server's answers) is kept there between runs, each record stamped with what it was built from.

Where: $CUDAPORT_CACHE_DIR, else $XDG_CACHE_HOME/cudaport, else the platform's user cache folder
(~/.cache/cudaport); CUDAPORT_NO_CACHE=1 turns it off. A record that is missing, stale, unreadable or corrupt is
built again; one that cannot be written is skipped (logged at debug): the cache never decides whether a run works.
Records are written to a temporary file and renamed into place, so concurrent runs (--jobs, CI) never see half a
file.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

from .. import __version__

FORMAT = 1  # bump when the layout of a record changes
MAGIC = b"cudaport rule cache\n"


def cache_dir() -> Path | None:
    """Where the cache lives, or None when it is turned off."""
    if os.environ.get("CUDAPORT_NO_CACHE", "") not in ("", "0"):
        return None
    explicit = os.environ.get("CUDAPORT_CACHE_DIR")
    if explicit:
        return Path(explicit)
    xdg = os.environ.get("XDG_CACHE_HOME")
    if xdg:
        return Path(xdg) / "cudaport"
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"]) / "cudaport" / "Cache"
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches" / "cudaport"
    return Path.home() / ".cache" / "cudaport"


def debug(message: str, *args: object) -> None:
    import logging  # only when there is something to say: a warm start never loads it

    logging.getLogger(__name__).debug(message, *args)


def stamp_files(parts: list[str], files: Iterable[Path]) -> bytes:
    """`parts` and a stat of each file (its size and time, or that it is missing) as one line of text."""
    for path in files:
        try:
            info = path.stat()
        except OSError:
            parts.append(f"{path} missing")
            continue
        parts.append(f"{path} {info.st_size} {info.st_mtime_ns}")
    return "\t".join(parts).replace("\n", " ").encode("utf-8", "surrogateescape")


def cached_table(name: str, files: list[Path], build: Callable[[], dict[str, str]]) -> dict[str, str]:
    """A table of strings built from `files` (a language's message catalogues), kept compiled beside the rule
    cache under `name` and built again when a file's size or time changes. Reading the PO files costs tens of
    milliseconds on every start; the compiled table, one."""
    import marshal

    folder = cache_dir()
    stamp = stamp_files([f"{FORMAT} {__version__} {sys.version_info[0]}.{sys.version_info[1]}"], files)
    path = folder / f"{name}.marshal" if folder is not None else None
    if path is not None:
        try:
            with path.open("rb") as handle:
                if handle.read(len(MAGIC)) == MAGIC and handle.readline().rstrip(b"\n") == stamp:
                    table = marshal.load(handle)
                    if isinstance(table, dict):
                        return table
        except FileNotFoundError:
            pass
        except Exception as exc:  # truncated or foreign: build it again
            debug("cache %s unreadable (%s: %s); rebuilding", path, type(exc).__name__, exc)
    table = build()
    if path is not None:
        write(path, MAGIC + stamp + b"\n" + marshal.dumps(table))
    return table


def read_record(name: str, stamp: bytes) -> bytes | None:
    """What write_record kept under `name` with this `stamp` (None: nothing, another stamp, or no cache)."""
    folder = cache_dir()
    if folder is None:
        return None
    try:
        with (folder / name).open("rb") as handle:
            if handle.read(len(MAGIC)) == MAGIC and handle.readline().rstrip(b"\n") == stamp:
                return handle.read()
    except OSError:
        pass
    return None


def write_record(name: str, stamp: bytes, payload: bytes) -> None:
    """Keep `payload` under `name` in the cache folder, for read_record with the same `stamp` (a stamp_of line)."""
    folder = cache_dir()
    if folder is not None:
        write(folder / name, MAGIC + stamp + b"\n" + payload)


def stamp_of(parts: list[str], files: Iterable[Path]) -> bytes:
    """`parts` and a stat of each of `files` as one line: a record is stale once any of them changes."""
    return stamp_files([f"{FORMAT} {__version__}", *parts], files)


def write_whole(path: Path, payload: bytes) -> None:
    """A file written whole: a temporary file beside it renamed into place, so concurrent readers see the old
    file or the new one, never a part (raises what the file system raises)."""
    import tempfile

    fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise


def write(path: Path, payload: bytes) -> None:
    """Write a cache file whole (write_whole); never raises."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_whole(path, payload)
    except Exception as exc:  # read-only home, full disk, a file where the folder should be: run without it
        debug("cache %s not written (%s: %s)", path, type(exc).__name__, exc)
