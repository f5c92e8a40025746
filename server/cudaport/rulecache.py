"""A compiled cache of the rule tables, so that a run does not parse rules/ (and extra rule files) every time.

Building the tables from the TOML and CSV files takes a quarter of a second; a one-file `check` should take a
fraction of that. The cache holds the finished RuleSet, pickled, with each CUDA symbol pickled on its own and
decoded when a file first names it (a run over a few files touches a few hundred of the ten thousand).

Where: $CUDAPORT_CACHE_DIR, else $XDG_CACHE_HOME/cudaport, else the platform's user cache folder
(~/.cache/cudaport); CUDAPORT_NO_CACHE=1 turns it off. One file per set of extra rule files, rewritten when its
fingerprint no longer matches: the cudaport version, the Python version, the modules whose classes it pickles,
and the size and modification time of every rule file. A cache that is missing, stale, unreadable or corrupt is
rebuilt; one that cannot be written is skipped (logged at debug): the cache never decides whether a run works.
It is written to a temporary file and renamed into place, so concurrent runs (--jobs, CI) never see half a file.
"""

from __future__ import annotations

import contextlib
import os
import pickle
import sys
import zlib
from collections.abc import Callable, Iterable, Iterator, MutableMapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from . import __version__

if TYPE_CHECKING:
    from .ruleset import RuleSet, Symbol

FORMAT = 1  # bump when the layout of the payload changes
_MAGIC = b"cudaport rule cache\n"
_PICKLED_MODULES = ("ruleset.py", "models.py")  # where the classes the cache holds are defined


class LazySymbols(MutableMapping[str, "Symbol"]):
    """The symbol table of a cached RuleSet: name -> Symbol, each decoded on first use and kept."""

    __slots__ = ("_blobs", "_decoded")

    def __init__(self, blobs: dict[str, bytes]) -> None:
        self._blobs = blobs
        self._decoded: dict[str, Symbol] = {}

    def get(self, name: str, default: Any = None) -> Any:  # the hot path: no exception for a miss
        found = self._decoded.get(name)
        if found is not None:
            return found
        blob = self._blobs.get(name)
        if blob is None:
            return default
        found = self._decoded[name] = pickle.loads(blob)
        return found

    def __getitem__(self, name: str) -> Symbol:
        found = self.get(name)
        if found is None:
            raise KeyError(name)
        return found  # type: ignore[no-any-return]

    def __contains__(self, name: object) -> bool:
        return name in self._blobs

    def __iter__(self) -> Iterator[str]:
        return iter(self._blobs)

    def __len__(self) -> int:
        return len(self._blobs)

    def __setitem__(self, name: str, symbol: Symbol) -> None:
        self._blobs[name] = b""  # a placeholder: the decoded entry below answers first
        self._decoded[name] = symbol

    def __delitem__(self, name: str) -> None:
        del self._blobs[name]
        self._decoded.pop(name, None)


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


def _debug(message: str, *args: object) -> None:
    import logging  # only when there is something to say: a warm start never loads it

    logging.getLogger(__name__).debug(message, *args)


def _cache_file(folder: Path, extra: tuple[Path, ...]) -> Path:
    key = zlib.crc32("\0".join(str(p) for p in extra).encode("utf-8", "surrogateescape"))
    return folder / f"rules-{key:08x}.pickle"


def fingerprint(rules_dir: Path, extra: tuple[Path, ...]) -> bytes:
    """What the cached tables were built from, as one line of text (compared whole, never hashed: a stat of each
    file, no read of its contents); any change makes the cache stale."""
    parts = [f"{FORMAT} {__version__} {sys.version_info[0]}.{sys.version_info[1]} {pickle.HIGHEST_PROTOCOL}"]
    here = Path(__file__).resolve().parent
    files = [here / name for name in _PICKLED_MODULES]
    for folder, _dirs, names in sorted(os.walk(rules_dir)):
        files.extend(Path(folder) / name for name in sorted(names))
    files.extend(extra)
    return _stamp(parts, files)


def _stamp(parts: list[str], files: Iterable[Path]) -> bytes:
    """`parts` and a stat of each file (its size and time, or that it is missing) as one line of text."""
    for path in files:
        try:
            info = path.stat()
        except OSError:
            parts.append(f"{path} missing")
            continue
        parts.append(f"{path} {info.st_size} {info.st_mtime_ns}")
    return "\t".join(parts).replace("\n", " ").encode("utf-8", "surrogateescape")


def load(rules_dir: Path, extra: tuple[Path, ...]) -> RuleSet | None:
    """The cached RuleSet for these rule files, or None (no cache, stale, unreadable: build it instead)."""
    folder = cache_dir()
    if folder is None:
        return None
    path = _cache_file(folder, extra)
    try:
        with path.open("rb") as handle:
            if handle.read(len(_MAGIC)) != _MAGIC:
                _debug("rule cache %s: not a cache file; rebuilding", path)
                return None
            stored = handle.readline().rstrip(b"\n")
            if stored != fingerprint(rules_dir, extra):
                _debug("rule cache %s: the rule data or cudaport changed; rebuilding", path)
                return None
            ruleset, blobs = pickle.load(handle)
    except FileNotFoundError:
        return None
    except Exception as exc:  # a truncated, corrupt or incompatible file: the data is still there to build from
        _debug("rule cache %s unreadable (%s: %s); rebuilding", path, type(exc).__name__, exc)
        return None
    from .ruleset import RuleSet

    if not isinstance(ruleset, RuleSet) or not isinstance(blobs, dict):
        _debug("rule cache %s: unexpected contents; rebuilding", path)
        return None
    ruleset.symbols = LazySymbols(blobs)
    return ruleset


def store(rules_dir: Path, extra: tuple[Path, ...], ruleset: RuleSet, built_from: bytes) -> None:
    """Write the cache for a RuleSet just built from the files `built_from` fingerprints (taken before reading
    them, so that a file changed meanwhile makes this cache stale, not wrong). Never raises."""
    folder = cache_dir()
    if folder is None:
        return
    path = _cache_file(folder, extra)
    try:
        blobs = {
            name: pickle.dumps(symbol, protocol=pickle.HIGHEST_PROTOCOL) for name, symbol in ruleset.symbols.items()
        }
        head = ruleset.without_symbols()
        payload = pickle.dumps((head, blobs), protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as exc:  # a table that does not pickle: run without the cache
        _debug("rule cache %s not written (%s: %s)", path, type(exc).__name__, exc)
        return
    _write(path, _MAGIC + built_from + b"\n" + payload)


def cached_table(name: str, files: list[Path], build: Callable[[], dict[str, str]]) -> dict[str, str]:
    """A table of strings built from `files` (a language's message catalogues), kept compiled beside the rule
    cache under `name` and built again when a file's size or time changes. Reading the PO files costs tens of
    milliseconds on every start; the compiled table, one."""
    import marshal

    folder = cache_dir()
    stamp = _stamp([f"{FORMAT} {__version__} {sys.version_info[0]}.{sys.version_info[1]}"], files)
    path = folder / f"{name}.marshal" if folder is not None else None
    if path is not None:
        try:
            with path.open("rb") as handle:
                if handle.read(len(_MAGIC)) == _MAGIC and handle.readline().rstrip(b"\n") == stamp:
                    table = marshal.load(handle)
                    if isinstance(table, dict):
                        return table
        except FileNotFoundError:
            pass
        except Exception as exc:  # truncated or foreign: build it again
            _debug("cache %s unreadable (%s: %s); rebuilding", path, type(exc).__name__, exc)
    table = build()
    if path is not None:
        _write(path, _MAGIC + stamp + b"\n" + marshal.dumps(table))
    return table


def read_record(name: str, stamp: bytes) -> bytes | None:
    """What write_record kept under `name` with this `stamp` (None: nothing, another stamp, or no cache)."""
    folder = cache_dir()
    if folder is None:
        return None
    try:
        with (folder / name).open("rb") as handle:
            if handle.read(len(_MAGIC)) == _MAGIC and handle.readline().rstrip(b"\n") == stamp:
                return handle.read()
    except OSError:
        pass
    return None


def write_record(name: str, stamp: bytes, payload: bytes) -> None:
    """Keep `payload` under `name` in the cache folder, for read_record with the same `stamp` (a stamp_of line)."""
    folder = cache_dir()
    if folder is not None:
        _write(folder / name, _MAGIC + stamp + b"\n" + payload)


def stamp_of(parts: list[str], files: Iterable[Path]) -> bytes:
    """`parts` and a stat of each of `files` as one line: a record is stale once any of them changes."""
    return _stamp([f"{FORMAT} {__version__}", *parts], files)


def _write(path: Path, payload: bytes) -> None:
    """Write a cache file whole (a temporary file renamed into place); never raises."""
    import tempfile

    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(payload)
            os.replace(temporary, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
    except Exception as exc:  # read-only home, full disk, a file where the folder should be: run without it
        _debug("cache %s not written (%s: %s)", path, type(exc).__name__, exc)
