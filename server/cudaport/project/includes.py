"""What a file inherits from the headers it includes: portability headers that already map CUDA names.

llama.cpp-style projects keep one small header per vendor (`vendors/hip.h`: `#define cudaMalloc hipMalloc`).
Every file that includes it, directly or through other headers, already builds for that vendor with the CUDA
names, so those names are not work left to do.
"""

from __future__ import annotations

import _thread
import functools
import os
import re
import sys
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from ..analyzers.common.base import IncludeFacts, ShimMapping
from ..knowledge.ruleset import RuleSet
from ..model.folders import forget as forget_listings
from ..model.folders import listing
from ..model.records import record
from .walking import walk

# Literal first, so the regex engine skips ahead to each `#`; the line start is checked by hand (at_line_start).
_INCLUDE = re.compile(rb'#[ \t]*include[ \t]*([<"])([^>"\n]+)[>"]')
_WORD = re.compile(rb"[A-Za-z_]\w*")
_DEFINE = re.compile(rb"#[ \t]*define[ \t]+([A-Za-z_]\w*)")
_MAX_DEPTH = 24
_MAX_HEADER = 2 * 1024 * 1024
_ANCESTOR_LEVELS = 4
# The last resort for an include name: the one file under the roots whose path ends with it. Build systems put
# folders such as cuda-samples' Common/ on the include path; a tree this size is listed once, lazily.
_SEARCHED_SUFFIXES = frozenset({".h", ".hh", ".hpp", ".hxx", ".cuh", ".inl", ".inc", ".tcc", ".ipp"})
_SKIPPED_FOLDERS = frozenset({".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox"})
_MAX_LISTED = 200_000  # headers, and as many folders: a checkout that large is not listed further
_CHECKOUT_MARKERS = (".git", ".hg", ".svn")


def checkout_root(start: Path) -> Path | None:
    """The nearest folder at or above `start` that holds a version-control checkout, if any."""
    folder = _absolute(start)
    for candidate in (folder, *folder.parents):
        if any((candidate / marker).exists() for marker in _CHECKOUT_MARKERS):
            return candidate
    return None


@record(frozen=True, slots=True)
class _Header:
    mtime: float
    includes: list[Path]  # the project headers it includes that exist
    shims: dict[str, str]  # CUDA name -> target name, for the prefixes it was read with
    names: frozenset[str]  # every include name written in it, <...> and "..."
    unresolved: bool = False  # a "..." include that is not found next to it or under the roots
    uses_cuda: bool = False  # it names CUDA APIs or kernel syntax, so it needs the runtime included before it
    defines: frozenset[str] = frozenset()  # the macros it defines (`nvmlCheck`: the project's own, not NVML's)
    resolutions: tuple[tuple[Path, str, Path | None], ...] = ()  # (folder, "..." name, the file it names)


_EMPTY = _Header(0.0, [], {}, frozenset())


@record(frozen=True, slots=True)
class _Closure:
    """A header and everything it includes, directly or not."""

    shims: dict[str, ShimMapping]
    names: frozenset[str]
    unresolved: bool
    uses_cuda: bool = False
    defines: frozenset[str] = frozenset()
    files: frozenset[Path] = frozenset()  # the headers read for it
    resolutions: frozenset[tuple[Path, str, Path | None]] = frozenset()


@record
class Provenance:
    """What the answers about one file came from (the results cache checks these rather than ask again): the
    files read, and what each include name resolved to."""

    files: set[Path]
    resolutions: set[tuple[Path, str, Path | None]]


# A folder's listing tells whether a name is there only where names are case-sensitive (not macOS's or Windows's
# usual file systems).
_LISTED_NAMES_DECIDE = sys.platform not in ("darwin", "win32")


class ProjectIndex:
    """Include graph and per-header shim tables, cached by path and modification time; thread-safe."""

    def __init__(self, ruleset: RuleSet | Callable[[], RuleSet], roots: Iterable[Path] = ()) -> None:
        # the rule data, or what loads it when a header must be read (resolving include names needs none of it:
        # the results cache's checks of a file's includes)
        self._rules = ruleset
        self.roots = [_absolute(Path(r)) for r in roots]
        self._root_texts = [str(root) for root in self.roots]  # where include names are looked for last
        self._headers: dict[tuple[Path, tuple[str, ...]], _Header] = {}
        # (folder, include name) -> the file it names: every file of a folder resolves the same names.
        self._resolved: dict[tuple[Path, str], Path | None] = {}
        self._closures: dict[tuple[Path, tuple[str, ...]], _Closure] = {}
        self._by_name: dict[str, list[Path]] | None = None  # header file name -> its paths under the roots
        self._lock = _thread.allocate_lock()  # threading's Lock, without loading threading
        # While the results cache records a file's analysis: what the answers about it came from.
        self.recording: Provenance | None = None

    @property
    def ruleset(self) -> RuleSet:
        if not isinstance(self._rules, RuleSet):
            self._rules = self._rules()
        return self._rules

    @functools.cached_property
    def _cuda_words(self) -> frozenset[bytes]:
        """Words that make a header CUDA code: the distinctive CUDA names of the rule data and kernel syntax."""
        ruleset = self.ruleset
        return frozenset(
            [name.encode() for name in ruleset.symbols if name not in ruleset.generic_names]
            + [b"__global__", b"__device__", b"__shared__", b"__constant__", b"threadIdx", b"blockIdx"]
        )

    def shims_for(self, path: Path, data: bytes | None, target: str) -> Mapping[str, ShimMapping]:
        """CUDA names mapped for `target` by headers that `path` includes (its buffer may be unsaved: `data`)."""
        prefixes = self.ruleset.targets[target].shim_prefixes if target in self.ruleset.targets else ()
        if not prefixes:
            return {}
        out: dict[str, ShimMapping] = {}
        for header in self._direct(path, data, prefixes):
            for name, mapping in self._closure(header, prefixes).shims.items():
                out.setdefault(name, mapping)
        return out

    def shim_headers(self, path: Path, data: bytes | None, target: str) -> list[Path]:
        """The project headers `path` includes (directly or not) that map CUDA names for `target`, nearest first:
        where a dual-stack fix adds the names this file still needs (the project's own portability header)."""
        prefixes = self.ruleset.targets[target].shim_prefixes if target in self.ruleset.targets else ()
        if not prefixes:
            return []
        found: list[Path] = []
        visited: set[Path] = set()
        queue = list(self._direct(path, data, prefixes))
        while queue:
            header = queue.pop(0)
            if header in visited or len(visited) > _MAX_DEPTH * 8:
                continue
            visited.add(header)
            info = self._header(header, prefixes)
            if info.shims:
                found.append(header)
            queue.extend(info.includes)
        return found

    def defines_for(self, path: Path, data: bytes | None) -> frozenset[str]:
        """The macros the project headers `path` includes (directly or not) define."""
        out: set[str] = set()
        for header in self._direct(path, data, ()):
            out |= self._closure(header, ()).defines
        return frozenset(out)

    def includes_for(self, path: Path, data: bytes | None) -> frozenset[str] | None:
        """Every `#include` name written in the project headers `path` includes, directly or through others;
        None when one of those "..." includes cannot be found (its include path is the build's business)."""
        start = _absolute(path)
        if data is None:
            if self._header(start, ()).unresolved:
                return None
        elif len(self._includes_of(start, data)) < len(_quoted_includes(data)):
            return None
        names: set[str] = set()
        for header in self._direct(path, data, ()):
            closure = self._closure(header, ())
            if closure.unresolved:
                return None
            names.update(closure.names)
        return frozenset(names)

    def _direct(self, path: Path, data: bytes | None, prefixes: tuple[str, ...]) -> list[Path]:
        start = _absolute(path)
        if data is not None:
            return self._includes_of(start, data)
        info = self._header(start, prefixes)
        if self.recording is not None:
            self.recording.files.add(start)
            self.recording.resolutions.update(info.resolutions)
        return info.includes

    def _closure(self, header: Path, prefixes: tuple[str, ...]) -> _Closure:
        """What `header` and every project header it reaches add up to, worked out once per header: the files of a
        tree include the same few headers, which include the same others."""
        key = (header, prefixes)
        with self._lock:
            cached = self._closures.get(key)
        if cached is not None:
            if self.recording is not None:
                self.recording.files.update(cached.files)
                self.recording.resolutions.update(cached.resolutions)
            return cached
        shims: dict[str, ShimMapping] = {}
        names: set[str] = set()
        unresolved = uses_cuda = False
        defines: set[str] = set()
        visited: set[Path] = set()
        resolutions: set[tuple[Path, str, Path | None]] = set()
        stack = [(header, 1)]
        while stack:
            current, depth = stack.pop()
            if current in visited or depth > _MAX_DEPTH:
                continue
            visited.add(current)
            info = self._header(current, prefixes)
            if info.shims:
                label = self._label(current)
                for name, replacement in info.shims.items():
                    shims.setdefault(name, ShimMapping(replacement, label))
            names.update(info.names)
            defines.update(info.defines)
            unresolved = unresolved or info.unresolved
            uses_cuda = uses_cuda or info.uses_cuda
            resolutions.update(info.resolutions)
            stack.extend((inc, depth + 1) for inc in info.includes)
        closure = _Closure(
            shims,
            frozenset(names),
            unresolved,
            uses_cuda,
            frozenset(defines),
            frozenset(visited),
            frozenset(resolutions),
        )
        with self._lock:
            self._closures[key] = closure
        if self.recording is not None:
            self.recording.files.update(closure.files)
            self.recording.resolutions.update(closure.resolutions)
        return closure

    def invalidate(self, path: Path) -> None:
        resolved = _absolute(path)
        with self._lock:
            for key in [k for k in self._headers if k[0] == resolved]:
                del self._headers[key]
            self._resolved.clear()  # a header created or removed can change what an include name resolves to
            forget_listings()  # what the folders hold: include names are looked up in their listings
            self._closures.clear()
            self._by_name = None

    def _header(self, path: Path, prefixes: tuple[str, ...]) -> _Header:
        try:
            stat = path.stat()
        except OSError:
            return _EMPTY
        with self._lock:
            cached = self._headers.get((path, prefixes))
        if cached is not None and cached.mtime == stat.st_mtime:
            return cached
        if stat.st_size > _MAX_HEADER:
            return _EMPTY
        try:
            data = path.read_bytes()
        except OSError:
            return _EMPTY
        includes = self._includes_of(path, data)
        from ..analyzers.c.preprocessor import shim_definitions  # C's preprocessor: not loaded for a Python-only run

        info = _Header(
            stat.st_mtime,
            includes,
            shim_definitions(data, self.ruleset.mappable, prefixes) if prefixes else {},
            frozenset(name for _, name in _include_names(data)),
            unresolved=len(includes) < len(_quoted_includes(data)),
            uses_cuda=not self._cuda_words.isdisjoint(_WORD.findall(data)),
            defines=_defined_macros(data),
            resolutions=tuple((path.parent, name, self._resolve(path.parent, name)) for name in _quoted_includes(data)),
        )
        with self._lock:
            self._headers[(path, prefixes)] = info
        return info

    def _includes_of(self, path: Path, data: bytes) -> list[Path]:
        found = []
        folder = path.parent
        for name in _quoted_includes(data):
            resolved = self._resolve(folder, name)
            if resolved is not None:
                found.append(resolved)
        return found

    def _resolve(self, folder: Path, name: str) -> Path | None:
        """The including file's folder first, then its ancestors (projects put `src/` or `include/` on the include
        path: `#include "ggml-cuda/common.cuh"` from inside ggml-cuda/), then the roots of the run."""
        key = (folder, name)
        with self._lock:
            if key in self._resolved:
                found = self._resolved[key]
                if self.recording is not None:
                    self.recording.resolutions.add((folder, name, found))
                return found
        found = None
        first = name.replace("\\", "/").split("/", 1)[0]
        for base in (*_ancestors(str(folder), _ANCESTOR_LEVELS), *self._root_texts):
            # most places an include name is looked for do not hold its first part: one listing of the folder
            # tells so, instead of a system call per place and name
            if _LISTED_NAMES_DECIDE and first not in ("", ".", "..") and first not in listing(base):
                continue
            candidate = os.path.join(base, name)
            if os.path.isfile(candidate):
                found = Path(os.path.normpath(candidate))
                break
        if found is None:
            found = self._unique_under_roots(name)
        with self._lock:
            self._resolved[key] = found
        if self.recording is not None:
            self.recording.resolutions.add((folder, name, found))
        return found

    def include_facts(self, path: Path, name: str) -> IncludeFacts | None:
        """What the project header `name`, written in `path`, brings with everything it includes; None when the
        name is no file of the project."""
        found = self._resolve(_absolute(path).parent, name)
        if found is None:
            return None
        closure = self._closure(found, ())
        return IncludeFacts(closure.names, closure.uses_cuda)

    def resolves(self, path: Path, name: str) -> bool:
        """Whether the include name `name`, written in `path`, names a file of the project."""
        return self._resolve(_absolute(path).parent, name) is not None

    def _unique_under_roots(self, name: str) -> Path | None:
        """The only header under the roots whose path ends with `name` (`helper_cuda.h` in Common/), if one."""
        normal = os.path.normpath(name)
        if normal.startswith("..") or os.path.isabs(normal):
            return None
        candidates = self._headers_named(os.path.basename(normal))
        tail = os.sep + normal
        matches = {c for c in candidates if str(c).endswith(tail)}
        return matches.pop() if len(matches) == 1 else None

    def _headers_named(self, basename: str) -> list[Path]:
        with self._lock:
            listing = self._by_name
        if listing is None:
            listing = {}
            listed = folders = 0
            for root in _outermost(self.roots):
                for folder, _relative, subfolders, files in walk(str(root)):
                    if folders and any(name == "CMakeCache.txt" for name, _ in files):
                        subfolders[:] = []
                        continue  # a build tree (generated headers): CMake's cache in it
                    folders += 1
                    # hidden folders (.git, .venv, caches, a benchmark's downloads) and build outputs hold no
                    # header of the project
                    subfolders[:] = [
                        (name, link)
                        for name, link in subfolders
                        if not (name in _SKIPPED_FOLDERS or name.startswith(".") or _build_name(name))
                    ]
                    for name, _link in files:
                        if os.path.splitext(name)[1].lower() in _SEARCHED_SUFFIXES:
                            listing.setdefault(name, []).append(Path(os.path.normpath(os.path.join(folder, name))))
                            listed += 1
                    if listed > _MAX_LISTED or folders > _MAX_LISTED:
                        break
            with self._lock:
                self._by_name = listing
        return listing.get(basename, [])

    def _label(self, header: Path) -> str:
        for root in self.roots:
            try:
                return header.relative_to(root).as_posix()
            except ValueError:
                continue
        return header.name


_BUILD_NAMES = ("build", "_build", "cmake-build-*", "CMakeFiles", "dist", "site-packages", "*.egg-info")


def _build_name(name: str) -> bool:
    """A folder named as the default excludes name build outputs and environments."""
    import fnmatch

    return any(fnmatch.fnmatchcase(name, p) for p in _BUILD_NAMES)


def _ancestors(folder: str, levels: int) -> list[str]:
    """`folder` and up to `levels` folders above it, as text (Path.parents, without a Path each)."""
    found = [folder]
    for _ in range(levels):
        parent = os.path.dirname(folder)
        if parent == folder:
            break
        found.append(parent)
        folder = parent
    return found


def _absolute(path: Path) -> Path:
    """The key a file has in the include graph: absolute and normalised like the include paths resolved from it
    (`os.path.normpath`), without following symbolic links (resolve() costs a system call per path component)."""
    return Path(os.path.normpath(os.path.abspath(path)))


def _outermost(roots: list[Path]) -> list[Path]:
    """The roots that lie inside no other root (a folder is listed once)."""
    unique = sorted(set(roots), key=lambda r: len(r.parts))
    kept: list[Path] = []
    for root in unique:
        if not any(root.is_relative_to(outer) for outer in kept):
            kept.append(root)
    return kept


def _include_names(data: bytes) -> list[tuple[bool, str]]:
    """(quoted, name) of every `#include` line."""
    if b"include" not in data:
        return []
    from ..analyzers.c.preprocessor import at_line_start  # C's preprocessor: not loaded for a Python-only run

    return [
        (match.group(1) == b'"', match.group(2).decode("utf-8", "replace").strip())
        for match in _INCLUDE.finditer(data)
        if at_line_start(data, match.start())
    ]


def _defined_macros(data: bytes) -> frozenset[str]:
    """The names of the `#define` lines of a header."""
    if b"define" not in data:
        return frozenset()
    from ..analyzers.c.preprocessor import at_line_start

    return frozenset(m.group(1).decode("ascii") for m in _DEFINE.finditer(data) if at_line_start(data, m.start()))


def _quoted_includes(data: bytes) -> list[str]:
    return [name for quoted, name in _include_names(data) if quoted]
