"""Which files a run looks at: one resolver of file selection for the CLI, the language server and the report."""

from __future__ import annotations

import contextlib
import fnmatch
import functools
import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path

from ..i18n import N_, t
from ..knowledge.filekinds import file_kind, file_kinds, language_for
from ..model.records import record
from .config import DEFAULT_EXCLUDE, Settings
from .ignorefiles import IgnoreRules
from .includes import checkout_root
from .walking import walk


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


def _relative(path: Path | str, base: Path) -> str:
    """`path` relative to `base`, as text: lexically when it lies under `base` (no system calls: this runs for every
    file of a tree), else through the real path (symbolic links), else as written."""
    text = os.path.abspath(path)
    top = str(base)
    if os.path.isabs(top):
        if text == top:
            return "."
        prefix = top if top.endswith(os.sep) else top + os.sep
        if text.startswith(prefix):
            return text[len(prefix) :].replace(os.sep, "/")
    else:
        with contextlib.suppress(ValueError):
            return Path(text).relative_to(base).as_posix()
    try:
        return Path(path).resolve().relative_to(base).as_posix()
    except (ValueError, OSError):
        return Path(path).as_posix()


def is_excluded(path: Path, settings: Settings, root: Path | None = None) -> bool:
    """Whether a file is none of the project's: it, or a folder above it below the project root, is excluded by a
    pattern, is a build tree or virtual environment, or is ignored (an editor's open document)."""
    return Selection(settings, root).path_excluded(path) is not None


def why_excluded(path: Path, settings: Settings, root: Path | None = None) -> str | None:
    """Why a file is none of the project's (is_excluded), in the words the file listing uses, or None."""
    return Selection(settings, root).path_excluded(path)


def excluded_by(
    path: Path | str, settings: Settings, root: Path | None = None, absolute: str | None = None
) -> str | None:
    """The exclude pattern `path` matches, if any (`absolute`: its absolute path, when known). A default exclude
    never hides a Python package (`pkg/dist/` with an `__init__.py` is source, not a build output)."""
    patterns = settings.all_excludes
    if not patterns:
        return None
    relative = _relative(absolute or path, root or settings.root)
    for pattern in _matching(_exclude_patterns(patterns), os.path.basename(path), relative):
        if _is_default(pattern, settings) and (Path(absolute or path) / "__init__.py").is_file():
            continue
        return pattern
    return None


@record(frozen=True, slots=True)
class _Pattern:
    text: str  # as configured, without a trailing slash
    regex: re.Pattern[str]  # fnmatch's, matched against the name and the relative path
    under: re.Pattern[str] | None  # for a pattern with a slash: what lies under what it names


@record(frozen=True, slots=True)
class _Patterns:
    each: tuple[_Pattern, ...]
    # every pattern in one expression each for the name and the relative path: most paths match none, and one
    # search tells so (a tree's files times the default excludes)
    any_name: re.Pattern[str]
    any_relative: re.Pattern[str]


@functools.lru_cache(maxsize=16)
def _exclude_patterns(patterns: tuple[str, ...]) -> _Patterns:
    compiled = []
    names, relatives = [], []
    for pattern in patterns:
        text = pattern.rstrip("/")
        translated = fnmatch.translate(text)
        names.append(translated)
        relatives.append(translated)
        under = None
        if "/" in text:
            under = re.compile(fnmatch.translate(text + "/*"))
            relatives += [re.escape(text + "/"), under.pattern]
        compiled.append(_Pattern(text, re.compile(translated), under))
    return _Patterns(tuple(compiled), _any_of(names), _any_of(relatives))


def _any_of(expressions: list[str]) -> re.Pattern[str]:
    if not expressions:
        return re.compile(r"(?!)")
    try:
        return re.compile("|".join(expressions))
    except re.error:  # fnmatch's group names clashed (another Python's): each pattern is tried in turn
        return re.compile("")


def _matching(patterns: _Patterns, name: str, relative: str) -> Iterator[str]:
    """The patterns that match a path by its name or its relative path, in their order (fnmatchcase's matching)."""
    if patterns.any_name.match(name) is None and patterns.any_relative.match(relative) is None:
        return
    for pattern in patterns.each:
        named = pattern.regex.match(name) or pattern.regex.match(relative)
        if named or (pattern.under is not None and _lies_under(pattern, relative)):
            yield pattern.text


def _lies_under(pattern: _Pattern, relative: str) -> bool:
    assert pattern.under is not None
    return relative.startswith(pattern.text + "/") or pattern.under.match(relative) is not None


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

    def file_excluded(self, path: Path | str, folder: str | None = None) -> str | None:
        """Why a file met in a walk is left out, or None; `folder`: the absolute path of the folder it is in, when
        the walk knows it (it spares a look at the working folder per file; `path` may then be its name)."""
        absolute = os.path.join(folder, os.path.basename(path)) if folder is not None else os.path.abspath(path)
        if excluded_by(path, self.settings, absolute=absolute) is not None:
            return t("excluded by a pattern")
        return self._ignored(absolute, False)

    def _ignored(self, path: Path | str, is_dir: bool) -> str | None:
        if self.ignores is None:
            return None
        found = self.ignores.ignored(path if os.path.isabs(path) else os.path.abspath(path), is_dir)
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
    seen: set[str] = set()  # the real paths of the files taken
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
            key = os.path.realpath(path)
            if key not in seen:
                seen.add(key)
                yield SourcePath(given, path, language)
            continue
        # A file's key among those seen is its real path: the walk's real top and the path below it (the walk
        # never enters a linked folder), through the link for a file that is one.
        real_top = os.path.realpath(path)
        for folder_text, relative, folders, files in walk(str(path)):
            folder = Path(folder_text)
            kept = []
            for name, link in folders:
                if link:
                    continue
                reason = selection.folder_excluded(folder / name)
                if reason is None:
                    kept.append((name, link))
                elif name not in _NO_SOURCES and holds_sources(folder / name):
                    label = _label(given, os.path.join(relative, name)).replace(os.sep, "/")
                    yield Excluded(label + "/", t("{reason}; it holds sources", reason=reason))
            folders[:] = kept
            real_folder = os.path.join(real_top, relative) if relative else real_top
            absolute_folder = os.path.abspath(folder_text)
            for name, link in files:
                # no Path for the many files that are no kind cudaport reads, or that are left out
                language = language_for(name) or (file_kinds().sniff(folder / name) if "." not in name else None)
                if language is None or selection.file_excluded(name, absolute_folder) is not None:
                    continue
                file_path = folder / name
                key = os.path.realpath(file_path) if link else os.path.join(real_folder, name)
                if key in seen:
                    continue
                seen.add(key)
                yield SourcePath(_label(given, os.path.join(relative, name)), file_path, language)


def _label(given: str, relative: str) -> str:
    """How a run names a path found `relative` below the folder given on the command line as `given`."""
    return relative if given in (".", "./") else os.path.join(given, relative)
