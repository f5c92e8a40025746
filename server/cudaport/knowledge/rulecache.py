"""A compiled cache of the rule tables, so that a run does not parse rules/ (and extra rule files) every time.

Building the tables from the TOML and CSV files takes a quarter of a second; a one-file `check` should take a
fraction of that. The cache holds the finished RuleSet, pickled, with each CUDA symbol pickled on its own and
decoded when a file first names it (a run over a few files touches a few hundred of the ten thousand). One file per
rule folder and set of extra rule files (in the cache folder, resources.cache), rewritten when its fingerprint no
longer matches: the cudaport version, the Python version, the modules whose classes it pickles, and the size and
modification time of every rule file.

The layout after the fingerprint line: the length of the prologue (8 bytes, little-endian) and the prologue, one
marshal of the few facts a run needs before it knows it will analyse anything (RuleSet.prologue: the file kinds,
which file selection asks for; what the results cache's checks ask), so that a run answered whole by the results
cache reads nothing else; the length of the head (8 bytes,
little-endian); the head, one pickle of
(the RuleSet without its symbols, name -> position, the end offset of each symbol's pickle); then the symbols'
pickles back to back. A start reads the head only (a few hundred kilobytes) and reads each symbol's bytes when
the symbol is first named (os.pread on the open file, which no rename of a newer cache over it disturbs: the
symbols come from the file the head came from); where there is no pread (Windows) the symbols are read at once.
The operator data (rules/operators/) stays pickled in the head until a Python file asks for it.
"""

from __future__ import annotations

import marshal
import os
import sys
import zlib
from array import array
from collections.abc import Callable, Iterator, MutableMapping
from pathlib import Path
from typing import Any, BinaryIO, TypeVar

from .. import __version__
from ..resources.cache import FORMAT, MAGIC, cache_dir, debug, stamp_files, write

Cached = TypeVar("Cached")

LAYOUT = 3  # this module's layout of the file after the fingerprint (2: no prologue; 1: a dict of blobs)
_OFFSETS = "Q"  # the array type of the end offsets


class LazySymbols(MutableMapping[str, Any]):
    """The symbol table of a cached RuleSet: name -> Symbol, each read and decoded on first use and kept."""

    __slots__ = ("_decoded", "_ends", "_index", "_read")

    def __init__(self, index: dict[str, int], ends: array[int], read: Callable[[int, int], bytes]) -> None:
        self._index = index  # name -> position in `ends`; -1: set in this process, only in `_decoded`
        self._ends = ends
        self._read = read  # (offset, size) -> the bytes of the symbols' region
        self._decoded: dict[str, Any] = {}

    def get(self, name: str, default: Any = None) -> Any:  # the hot path: no exception for a miss
        found = self._decoded.get(name)
        if found is not None:
            return found
        position = self._index.get(name)
        if position is None or position < 0:
            return default
        start = self._ends[position - 1] if position else 0
        import pickle  # loaded by `load`, which made this table: a name look-up, not an import

        found = self._decoded[name] = pickle.loads(self._read(start, self._ends[position] - start))
        return found

    def __getitem__(self, name: str) -> Any:
        found = self.get(name)
        if found is None:
            raise KeyError(name)
        return found

    def __contains__(self, name: object) -> bool:
        return name in self._index

    def __iter__(self) -> Iterator[str]:
        return iter(self._index)

    def __len__(self) -> int:
        return len(self._index)

    def __setitem__(self, name: str, symbol: Any) -> None:
        self._index.setdefault(name, -1)  # a replaced symbol keeps its place; the decoded entry answers first
        self._decoded[name] = symbol

    def __delitem__(self, name: str) -> None:
        del self._index[name]
        self._decoded.pop(name, None)

    def __reduce__(self) -> tuple[Any, ...]:  # pickled or deep-copied: every symbol decoded, as a plain dict
        return (dict, (dict(self.items()),))


def _cache_file(folder: Path, rules_dir: Path, extra: tuple[Path, ...]) -> Path:
    # the rule folder too: two installs (or checkouts) sharing the user's cache folder would otherwise take turns
    # rewriting one file, each finding the other's stale
    key = zlib.crc32("\0".join(str(p) for p in (rules_dir, *extra)).encode("utf-8", "surrogateescape"))
    return folder / f"rules-{key:08x}.pickle"


def fingerprint(rules_dir: Path, extra: tuple[Path, ...], modules: tuple[Path, ...] = ()) -> bytes:
    """What the cached tables were built from, as one line of text (compared whole, never hashed: a stat of each
    file, no read of its contents); any change makes the cache stale. `modules`: the source files of the classes
    the cache pickles."""
    # the Python version decides pickle's and marshal's formats
    parts = [f"{FORMAT}.{LAYOUT} {__version__} {sys.version_info[0]}.{sys.version_info[1]}"]
    files = list(modules)
    for folder, _dirs, names in sorted(os.walk(rules_dir)):
        files.extend(Path(folder) / name for name in sorted(names))
    files.extend(extra)
    return stamp_files(parts, files)


def load(rules_dir: Path, extra: tuple[Path, ...], kind: type[Cached], modules: tuple[Path, ...]) -> Cached | None:
    """The cached rule set (a `kind`) for these rule files, or None (no cache, stale, unreadable: build it)."""
    import pickle  # here, not at the top: a run answered by the results cache reads only the prologue

    folder = cache_dir()
    if folder is None:
        return None
    path = _cache_file(folder, rules_dir, extra)
    try:
        descriptor = os.open(path, os.O_RDONLY | getattr(os, "O_BINARY", 0) | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        debug("rule cache %s unreadable (%s: %s); rebuilding", path, type(exc).__name__, exc)
        return None
    keep = False
    try:
        with open(descriptor, "rb", closefd=False) as handle:
            stale = _stale(handle, rules_dir, extra, modules)
            if stale is not None:
                debug("rule cache %s: %s; rebuilding", path, stale)
                return None
            handle.seek(int.from_bytes(handle.read(8), "little"), os.SEEK_CUR)  # the prologue
            size = int.from_bytes(handle.read(8), "little")
            ruleset, index, raw_ends = pickle.loads(handle.read(size))
            base = handle.tell()
            ends: array[int] = array(_OFFSETS)
            ends.frombytes(raw_ends)
            if not isinstance(ruleset, kind) or not isinstance(index, dict) or len(ends) != len(index):
                debug("rule cache %s: unexpected contents; rebuilding", path)
                return None
            if os.fstat(descriptor).st_size - base != (ends[-1] if ends else 0):
                debug("rule cache %s: truncated; rebuilding", path)
                return None
            if hasattr(os, "pread"):
                read = _reader(descriptor, base)
                keep = True
            else:  # no positioned reads: the symbols' region whole, now
                region = handle.read()
                read = lambda offset, size: region[offset : offset + size]  # noqa: E731
    except Exception as exc:  # a truncated, corrupt or incompatible file: the data is still there to build from
        debug("rule cache %s unreadable (%s: %s); rebuilding", path, type(exc).__name__, exc)
        return None
    finally:
        if not keep:
            os.close(descriptor)
    ruleset.symbols = LazySymbols(index, ends, read)  # type: ignore[attr-defined]
    return ruleset


def _stale(handle: BinaryIO, rules_dir: Path, extra: tuple[Path, ...], modules: tuple[Path, ...]) -> str | None:
    """Why the cache file open in `handle` is not one for these rule files (read past its fingerprint), or None."""
    if handle.read(len(MAGIC)) != MAGIC:
        return "not a cache file"
    if handle.readline().rstrip(b"\n") != fingerprint(rules_dir, extra, modules):
        return "the rule data or cudaport changed"
    return None


def load_prologue(rules_dir: Path, extra: tuple[Path, ...], modules: tuple[Path, ...]) -> dict[str, Any] | None:
    """The prologue's facts (RuleSet.prologue) of the cache for these rule files, or None (no cache, stale,
    unreadable: the caller loads the rule set whole, which builds the cache)."""
    folder = cache_dir()
    if folder is None:
        return None
    path = _cache_file(folder, rules_dir, extra)
    try:
        with open(path, "rb") as handle:
            if _stale(handle, rules_dir, extra, modules) is not None:
                return None
            size = int.from_bytes(handle.read(8), "little")
            tables = marshal.loads(handle.read(size))
    except Exception:  # missing, truncated, corrupt: the whole load says why, and rebuilds
        return None
    return tables if isinstance(tables, dict) else None


def _reader(descriptor: int, base: int) -> Callable[[int, int], bytes]:
    """Reads of the symbols' region of the open cache file, which stays open while the rule set lives."""
    import weakref

    def read(offset: int, size: int) -> bytes:
        return os.pread(descriptor, size, base + offset)

    weakref.finalize(read, os.close, descriptor)
    return read


def store(rules_dir: Path, extra: tuple[Path, ...], ruleset: Any, built_from: bytes) -> None:
    """Write the cache for a RuleSet just built from the files `built_from` fingerprints (taken before reading
    them, so that a file changed meanwhile makes this cache stale, not wrong). Never raises."""
    import pickle

    folder = cache_dir()
    if folder is None:
        return
    path = _cache_file(folder, rules_dir, extra)
    try:
        index: dict[str, int] = {}
        ends: array[int] = array(_OFFSETS)
        pickles: list[bytes] = []
        offset = 0
        for name, symbol in ruleset.symbols.items():
            blob = pickle.dumps(symbol, protocol=pickle.HIGHEST_PROTOCOL)
            index[name] = len(pickles)
            pickles.append(blob)
            offset += len(blob)
            ends.append(offset)
        head = ruleset.without_symbols()
        if head.operators is not None:  # kept pickled until asked for (RuleSet.operators)
            head._operators_pickled = pickle.dumps(head.operators, protocol=pickle.HIGHEST_PROTOCOL)
            head._operators = None
        head_bytes = pickle.dumps((head, index, ends.tobytes()), protocol=pickle.HIGHEST_PROTOCOL)
        prologue = marshal.dumps(ruleset.prologue())  # plain data, read by a start that loads no pickle
    except Exception as exc:  # a table that does not pickle: run without the cache
        debug("rule cache %s not written (%s: %s)", path, type(exc).__name__, exc)
        return
    sizes = len(prologue).to_bytes(8, "little"), len(head_bytes).to_bytes(8, "little")
    write(path, b"".join([MAGIC, built_from, b"\n", sizes[0], prologue, sizes[1], head_bytes, *pickles]))
