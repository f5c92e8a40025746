"""Which files a run looks at: one resolver of file selection for the CLI, the language server and the report."""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Iterable, Iterator
from pathlib import Path

from ..i18n import N_, t
from ..knowledge.filekinds import file_kind, file_kinds, language_for
from ..model.records import record
from .config import DEFAULT_EXCLUDE, Settings
from .ignorefiles import IgnoreRules
from .includes import checkout_root


@record(frozen=True, slots=True)
class SourcePath:
    label: str  # as the user wrote it (relative stays relative)
    path: Path
    language: str


@record(frozen=True, slots=True)
class Excluded:
    """A directory left out although it held sources (an exclude pattern, a build tree, an ignore file): every
    run says so, and why."""

    label: str
    reason: str


@record(frozen=True, slots=True)
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
    """Whether a file is none of the project's: it, or a folder above it below the project root, is excluded by a
    pattern, is a build tree or virtual environment, or is ignored (an editor's open document)."""
    return Selection(settings, root).path_excluded(path) is not None


def why_excluded(path: Path, settings: Settings, root: Path | None = None) -> str | None:
    """Why a file is none of the project's (is_excluded), in the words the file listing uses, or None."""
    return Selection(settings, root).path_excluded(path)


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


# What makes a folder a build tree or an environment, whatever its name (`cmake -B out`, `python -m venv env`).
_TREE_MARKERS = (
    ("CMakeCache.txt", N_("a CMake build tree")),
    ("pyvenv.cfg", N_("a Python virtual environment")),
    ("conda-meta", N_("a conda environment")),
    ("meson-private", N_("a Meson build tree")),
)


class Selection:
    """Which files are the project's own (ruff's file selection): not matched by an exclude pattern, not in a
    build tree or an environment, not ignored by `.gitignore`, `.ignore` or `.git/info/exclude` (unless
    `respect-gitignore` is off). Paths given explicitly are always read; this decides what a walk finds."""

    def __init__(self, settings: Settings, root: Path | None = None) -> None:
        self.settings = settings
        self.root = root
        self.ignores = IgnoreRules() if settings.respect_gitignore else None

    def folder_excluded(self, folder: Path) -> str | None:
        """Why a folder met in a walk is left out, or None."""
        pattern = excluded_by(folder, self.settings, self.root)
        if pattern is not None:
            source = t("a default exclude") if _is_default(pattern, self.settings) else t("the configuration")
            return t("excluded by `{pattern}` ({source})", pattern=pattern, source=source)
        if self.settings.exclude == DEFAULT_EXCLUDE:  # a configuration that lists its excludes decides alone
            for marker, what in _TREE_MARKERS:
                if (folder / marker).exists():
                    return t("{what} (it has {marker})", what=t(what), marker=marker)
        return self._ignored(folder, True)

    def file_excluded(self, path: Path) -> str | None:
        """Why a file met in a walk is left out, or None."""
        if is_excluded_name(path, self.settings):
            return t("excluded by a pattern")
        return self._ignored(path, False)

    def _ignored(self, path: Path, is_dir: bool) -> str | None:
        if self.ignores is None:
            return None
        found = self.ignores.ignored(Path(os.path.abspath(path)), is_dir)
        if found is None:
            return None
        source, line = found
        return t("ignored by `{line}` in {file}", line=line, file=source)

    def path_excluded(self, path: Path) -> str | None:
        """Why a file is none of the project's, looking at it and every folder above it up to the project root."""
        absolute = Path(os.path.abspath(path))
        reason = self.file_excluded(absolute) if absolute.is_file() or not absolute.exists() else None
        if reason is not None:
            return reason
        # up to the project's root, or the working folder or the checkout when that holds it (no configuration:
        # the root is the first path's folder, and `cudaport check build/x.cu` must still see `build`)
        root = Path(os.path.abspath(self.root or self.settings.root))
        bases = [root, Path.cwd(), checkout_root(absolute.parent) or root]
        holding = [b for b in bases if b in absolute.parents]
        base = min(holding, key=lambda b: len(b.parts)) if holding else bases[0]
        folder = absolute.parent
        while folder != folder.parent and (folder == base or base in folder.parents):
            if folder == base:
                break
            reason = self.folder_excluded(folder)
            if reason is not None:
                return reason
            folder = folder.parent
        return None


def is_excluded_name(path: Path, settings: Settings, root: Path | None = None) -> bool:
    return excluded_by(path, settings, root) is not None


_NO_SOURCES = frozenset({".git", ".hg", ".svn", ".bzr", "__pycache__", ".mypy_cache", ".ruff_cache", ".pytest_cache"})
_SCAN_BUDGET = 2000  # entries looked at to tell whether an excluded directory holds sources


def _is_source(name: str) -> bool:
    """A file of source code (not a build file, a config or a binary, which build outputs are full of)."""
    language = language_for(name)
    kind = file_kind(language) if language is not None else None
    return kind is not None and kind.group == "sources"


def holds_sources(folder: Path) -> bool:
    """Whether an excluded directory has a source file in it (a bounded look: the first few thousand entries)."""
    if folder.name in _NO_SOURCES:
        return False
    seen = 0
    for _dirpath, dirnames, filenames in os.walk(folder):
        dirnames[:] = [d for d in dirnames if d not in _NO_SOURCES]
        if any(_is_source(name) for name in filenames):
            return True
        seen += len(filenames) + len(dirnames)
        if seen > _SCAN_BUDGET:
            return False
    return False


def discover(paths: Iterable[str], settings: Settings) -> Iterator[SourcePath | Skipped | Excluded]:
    """Source files under `paths`, sorted per directory. Files named explicitly are taken (unless `force-exclude`
    is on and the project leaves them out: then silently, as ruff does), and so is a directory named explicitly
    (what lies in it is selected as in any walk)."""
    seen: set[Path] = set()
    selection = Selection(settings)
    for given in paths:
        path = Path(given)
        if not path.exists():
            yield Skipped(given, t("no such file or directory"), error=True)
            continue
        if path.is_file():
            if settings.force_exclude and selection.path_excluded(path) is not None:
                continue
            language = language_for(path)
            if language is None:
                language = file_kinds().sniff(path)
            if language is None:
                yield Skipped(given, t("not a kind of file cudaport reads (rules/files.toml lists them)"))
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
                reason = selection.folder_excluded(folder / d)
                if reason is None:
                    kept.append(d)
                elif d not in _NO_SOURCES and holds_sources(folder / d):
                    yield Excluded(
                        _label(given, path, folder / d) + "/", t("{reason}; it holds sources", reason=reason)
                    )
            dirnames[:] = kept
            for filename in sorted(filenames):
                file_path = folder / filename
                language = language_for(file_path) or file_kinds().sniff(file_path)
                if language is None or selection.file_excluded(file_path) is not None:
                    continue
                key = file_path.resolve()
                if key in seen:
                    continue
                seen.add(key)
                yield SourcePath(_label(given, path, file_path), file_path, language)


def _label(given: str, walked: Path, found: Path) -> str:
    """How a run names a path found under `walked` (given on the command line as `given`)."""
    relative = os.path.relpath(found, walked)
    label = relative if given in (".", "./") else os.path.join(given, relative)
    return label.replace(os.sep, "/") if found.is_dir() else label
