"""What a file inherits from the headers it includes: portability headers that already map CUDA names.

llama.cpp-style projects keep one small header per vendor (`vendors/hip.h`: `#define cudaMalloc hipMalloc`).
Every file that includes it, directly or through other headers, already builds for that vendor with the CUDA
names, so those names are not work left to do.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Iterable, Mapping
from pathlib import Path

from .analyzers.base import ShimMapping
from .analyzers.preproc import shim_definitions
from .ruleset import RuleSet

_QUOTED_INCLUDE = re.compile(rb'^[ \t]*#[ \t]*include[ \t]*"([^"\n]+)"', re.MULTILINE)
_MAX_DEPTH = 24
_MAX_HEADER = 2 * 1024 * 1024


class ProjectIndex:
    """Include graph and per-header shim tables, cached by path and modification time; thread-safe."""

    def __init__(self, ruleset: RuleSet, roots: Iterable[Path] = ()) -> None:
        self.ruleset = ruleset
        self.roots = [Path(r).resolve() for r in roots]
        self._headers: dict[tuple[Path, tuple[str, ...]], tuple[float, list[Path], dict[str, str]]] = {}
        self._lock = threading.Lock()

    def shims_for(self, path: Path, data: bytes | None, target: str) -> Mapping[str, ShimMapping]:
        """CUDA names mapped for `target` by headers that `path` includes (its buffer may be unsaved: `data`)."""
        prefixes = self.ruleset.targets[target].shim_prefixes if target in self.ruleset.targets else ()
        if not prefixes:
            return {}
        start = path.resolve()
        includes = self._includes_of(start, data) if data is not None else self._header(start, prefixes)[0]
        out: dict[str, ShimMapping] = {}
        visited = {start}
        stack = [(inc, 1) for inc in includes]
        while stack:
            header, depth = stack.pop()
            if header in visited or depth > _MAX_DEPTH:
                continue
            visited.add(header)
            nested, shims = self._header(header, prefixes)
            if shims:
                label = self._label(header)
                for name, replacement in shims.items():
                    out.setdefault(name, ShimMapping(replacement, label))
            stack.extend((inc, depth + 1) for inc in nested)
        return out

    def invalidate(self, path: Path) -> None:
        resolved = path.resolve()
        with self._lock:
            for key in [k for k in self._headers if k[0] == resolved]:
                del self._headers[key]

    def _header(self, path: Path, prefixes: tuple[str, ...]) -> tuple[list[Path], dict[str, str]]:
        try:
            stat = path.stat()
        except OSError:
            return [], {}
        with self._lock:
            cached = self._headers.get((path, prefixes))
        if cached is not None and cached[0] == stat.st_mtime:
            return cached[1], cached[2]
        if stat.st_size > _MAX_HEADER:
            return [], {}
        try:
            data = path.read_bytes()
        except OSError:
            return [], {}
        includes = self._includes_of(path, data)
        shims = shim_definitions(data, self.ruleset.symbols, prefixes)
        with self._lock:
            self._headers[(path, prefixes)] = (stat.st_mtime, includes, shims)
        return includes, shims

    def _includes_of(self, path: Path, data: bytes) -> list[Path]:
        found = []
        for match in _QUOTED_INCLUDE.finditer(data):
            name = match.group(1).decode("utf-8", "replace")
            resolved = self._resolve(path.parent, name)
            if resolved is not None:
                found.append(resolved)
        return found

    def _resolve(self, folder: Path, name: str) -> Path | None:
        for base in (folder, *self.roots):
            candidate = base / name
            if candidate.is_file():
                return Path(os.path.normpath(candidate))
        return None

    def _label(self, header: Path) -> str:
        for root in self.roots:
            try:
                return header.relative_to(root).as_posix()
            except ValueError:
                continue
        return header.name
