"""Which files a run looks at: one resolver of file selection for the CLI, the language server and the report."""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from .config import Settings

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
    patterns = settings.all_excludes
    if not patterns:
        return False
    name = path.name
    base = root or settings.root
    relative = _relative(path, base)
    for pattern in patterns:
        pattern = pattern.rstrip("/")
        if fnmatch.fnmatchcase(name, pattern) or fnmatch.fnmatchcase(relative, pattern):
            return True
        if "/" in pattern and (relative.startswith(pattern + "/") or fnmatch.fnmatchcase(relative, pattern + "/*")):
            return True
    return False


def discover(paths: Iterable[str], settings: Settings) -> Iterator[SourcePath | Skipped]:
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
            dirnames[:] = sorted(
                d for d in dirnames if not (folder / d).is_symlink() and not is_excluded(folder / d, settings)
            )
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
