"""Which files a run looks at: one resolver of file selection for the CLI, the language server and the report."""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from .config import DEFAULT_EXCLUDE, Settings

LANGUAGES = {
    ".cu": "c",
    ".cuh": "c",
    ".c": "c",
    ".cc": "c",
    ".cpp": "c",
    ".cxx": "c",
    ".c++": "c",
    ".h": "c",
    ".hh": "c",
    ".hpp": "c",
    ".hxx": "c",
    ".inl": "c",
    ".inc": "c",
    ".py": "python",
    ".pyi": "python",
}


def language_for(path: str | Path) -> str | None:
    return LANGUAGES.get(Path(path).suffix.lower())


@dataclass(frozen=True, slots=True)
class SourcePath:
    label: str  # as the user wrote it (relative stays relative)
    path: Path
    language: str


@dataclass(frozen=True, slots=True)
class Excluded:
    """A directory an exclude pattern left out although it held sources: every run says so."""

    label: str
    pattern: str
    default: bool  # one of the default excludes (else the configuration's or the command line's)

    @property
    def reason(self) -> str:
        source = "a default exclude" if self.default else "the configuration"
        return f"excluded by `{self.pattern}` ({source}); it holds sources"


@dataclass(frozen=True, slots=True)
class Skipped:
    label: str
    reason: str
    error: bool = False  # a path the user named that does not exist: a usage error, not a quiet skip


def _relative(path: Path, base: Path) -> str:
    """`path` relative to `base`, as text: lexically when it lies under `base` (no system calls: this runs for every
    file of a tree), else through the real path (symbolic links), else as written."""
    try:
        return Path(os.path.abspath(path)).relative_to(base).as_posix()
    except ValueError:
        pass
    try:
        return path.resolve().relative_to(base).as_posix()
    except (ValueError, OSError):
        return path.as_posix()


def is_excluded(path: Path, settings: Settings, root: Path | None = None) -> bool:
    """A path matches an exclude pattern by its name, or by its path relative to the project root."""
    return excluded_by(path, settings, root) is not None


def excluded_by(path: Path, settings: Settings, root: Path | None = None) -> str | None:
    """The exclude pattern `path` matches, if any. A default exclude never hides a Python package (`pkg/dist/`
    with an `__init__.py` is source, not a build output)."""
    patterns = settings.all_excludes
    if not patterns:
        return None
    name = path.name
    base = root or settings.root
    relative = _relative(path, base)
    for pattern in patterns:
        pattern = pattern.rstrip("/")
        matched = fnmatch.fnmatchcase(name, pattern) or fnmatch.fnmatchcase(relative, pattern)
        if not matched and "/" in pattern:
            matched = relative.startswith(pattern + "/") or fnmatch.fnmatchcase(relative, pattern + "/*")
        if matched:
            if _is_default(pattern, settings) and (path / "__init__.py").is_file():
                continue
            return pattern
    return None


def _is_default(pattern: str, settings: Settings) -> bool:
    return pattern in DEFAULT_EXCLUDE and pattern in settings.exclude and settings.exclude == DEFAULT_EXCLUDE


_NO_SOURCES = frozenset({".git", ".hg", ".svn", ".bzr", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache"})
_SCAN_BUDGET = 2000  # entries looked at to tell whether an excluded directory holds sources


def holds_sources(folder: Path) -> bool:
    """Whether an excluded directory has a source file in it (a bounded look: the first few thousand entries)."""
    if folder.name in _NO_SOURCES:
        return False
    seen = 0
    for _dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = [d for d in dirnames if d not in _NO_SOURCES]
        if any(language_for(name) is not None for name in filenames):
            return True
        seen += len(filenames) + len(dirnames)
        if seen > _SCAN_BUDGET:
            return False
    return False


def discover(paths: Iterable[str], settings: Settings) -> Iterator[SourcePath | Skipped | Excluded]:
    """Source files under `paths`, sorted per directory. Files named explicitly are always taken."""
    seen: set[Path] = set()
    for given in paths:
        path = Path(given)
        if not path.exists():
            yield Skipped(given, "no such file or directory", error=True)
            continue
        if path.is_file():
            language = language_for(path)
            if language is None:
                yield Skipped(given, "not a C, C++, CUDA or Python source")
                continue
            key = path.resolve()
            if key not in seen:
                seen.add(key)
                yield SourcePath(given, path, language)
            continue
        for dirpath, dirnames, filenames in os.walk(path):
            folder = Path(dirpath)
            kept = []
            for d in sorted(dirnames):
                if (folder / d).is_symlink():
                    continue
                pattern = excluded_by(folder / d, settings)
                if pattern is None:
                    kept.append(d)
                elif holds_sources(folder / d):
                    label = (
                        os.path.relpath(folder / d, path)
                        if given in (".", "./")
                        else os.path.join(given, os.path.relpath(folder / d, path))
                    )
                    yield Excluded(label.replace(os.sep, "/") + "/", pattern, _is_default(pattern, settings))
            dirnames[:] = kept
            for filename in sorted(filenames):
                file_path = folder / filename
                language = language_for(file_path)
                if language is None or is_excluded(file_path, settings):
                    continue
                key = file_path.resolve()
                if key in seen:
                    continue
                seen.add(key)
                label = (
                    os.path.join(given, os.path.relpath(file_path, path))
                    if given not in (".", "./")
                    else (os.path.relpath(file_path, path))
                )
                yield SourcePath(label, file_path, language)
