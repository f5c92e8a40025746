"""A compiled cache of the rule tables, so that a run does not parse rules/ (and extra rule files) every time.

Building the tables from the TOML and CSV files takes a quarter of a second; a one-file `check` should take a
fraction of that. The cache holds the finished RuleSet, pickled, with each CUDA symbol pickled on its own and
decoded when a file first names it (a run over a few files touches a few hundred of the ten thousand). One file per
set of extra rule files (in the cache folder, resources.cache), rewritten when its fingerprint no longer matches:
the cudaport version, the Python version, the modules whose classes it pickles, and the size and modification
time of every rule file.
"""

from __future__ import annotations

import os
import pickle
import sys
import zlib
from collections.abc import Iterator, MutableMapping
from pathlib import Path
from typing import Any, TypeVar

from .. import __version__
from ..resources.cache import FORMAT, MAGIC, cache_dir, debug, stamp_files, write

Cached = TypeVar("Cached")


class LazySymbols(MutableMapping[str, Any]):
    """The symbol table of a cached RuleSet: name -> Symbol, each decoded on first use and kept."""

    __slots__ = ("_blobs", "_decoded")

    def __init__(self, blobs: dict[str, bytes]) -> None:
        self._blobs = blobs
        self._decoded: dict[str, Any] = {}

    def get(self, name: str, default: Any = None) -> Any:  # the hot path: no exception for a miss
        found = self._decoded.get(name)
        if found is not None:
            return found
        blob = self._blobs.get(name)
        if blob is None:
            return default
        found = self._decoded[name] = pickle.loads(blob)
        return found

    def __getitem__(self, name: str) -> Any:
        found = self.get(name)
        if found is None:
            raise KeyError(name)
        return found

    def __contains__(self, name: object) -> bool:
        return name in self._blobs

    def __iter__(self) -> Iterator[str]:
        return iter(self._blobs)

    def __len__(self) -> int:
        return len(self._blobs)

    def __setitem__(self, name: str, symbol: Any) -> None:
        self._blobs[name] = b""  # a placeholder: the decoded entry below answers first
        self._decoded[name] = symbol

    def __delitem__(self, name: str) -> None:
        del self._blobs[name]
        self._decoded.pop(name, None)


def _cache_file(folder: Path, extra: tuple[Path, ...]) -> Path:
    key = zlib.crc32("\0".join(str(p) for p in extra).encode("utf-8", "surrogateescape"))
    return folder / f"rules-{key:08x}.pickle"


def fingerprint(rules_dir: Path, extra: tuple[Path, ...], modules: tuple[Path, ...] = ()) -> bytes:
    """What the cached tables were built from, as one line of text (compared whole, never hashed: a stat of each
    file, no read of its contents); any change makes the cache stale. `modules`: the source files of the classes
    the cache pickles."""
    parts = [f"{FORMAT} {__version__} {sys.version_info[0]}.{sys.version_info[1]} {pickle.HIGHEST_PROTOCOL}"]
    files = list(modules)
    for folder, _dirs, names in sorted(os.walk(rules_dir)):
        files.extend(Path(folder) / name for name in sorted(names))
    files.extend(extra)
    return stamp_files(parts, files)


def load(rules_dir: Path, extra: tuple[Path, ...], kind: type[Cached], modules: tuple[Path, ...]) -> Cached | None:
    """The cached rule set (a `kind`) for these rule files, or None (no cache, stale, unreadable: build it)."""
    folder = cache_dir()
    if folder is None:
        return None
    path = _cache_file(folder, extra)
    try:
        with path.open("rb") as handle:
            if handle.read(len(MAGIC)) != MAGIC:
                debug("rule cache %s: not a cache file; rebuilding", path)
                return None
            stored = handle.readline().rstrip(b"\n")
            if stored != fingerprint(rules_dir, extra, modules):
                debug("rule cache %s: the rule data or cudaport changed; rebuilding", path)
                return None
            ruleset, blobs = pickle.load(handle)
    except FileNotFoundError:
        return None
    except Exception as exc:  # a truncated, corrupt or incompatible file: the data is still there to build from
        debug("rule cache %s unreadable (%s: %s); rebuilding", path, type(exc).__name__, exc)
        return None
    if not isinstance(ruleset, kind) or not isinstance(blobs, dict):
        debug("rule cache %s: unexpected contents; rebuilding", path)
        return None
    ruleset.symbols = LazySymbols(blobs)  # type: ignore[attr-defined]
    return ruleset


def store(rules_dir: Path, extra: tuple[Path, ...], ruleset: Any, built_from: bytes) -> None:
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
        debug("rule cache %s not written (%s: %s)", path, type(exc).__name__, exc)
        return
    write(path, MAGIC + built_from + b"\n" + payload)
