"""What every language analyzer receives and returns."""

from __future__ import annotations

import functools
import os
import re
from collections.abc import Callable, Iterator, Mapping
from pathlib import Path
from typing import Any, Protocol

from ...model.findings import Finding
from ...model.folders import has_entry, has_file
from ...model.records import record
from .presence import LineTable, Presence


class BadInput(ValueError):
    """A file the analyzer of its kind cannot read (a notebook that is not JSON, a truncated ELF): the run reports
    it for that file and goes on."""


@record(frozen=True, slots=True)
class ShimMapping:
    """A CUDA name that a portability header already maps to the target's name."""

    replacement: str
    header: str  # where the mapping is written (a path, for the message)


@record(frozen=True, slots=True)
class IncludeFacts:
    """What a project header brings, with every header it includes."""

    names: frozenset[str]  # the include names written in them
    uses_cuda: bool  # whether they name CUDA APIs or kernel syntax


@record(frozen=True, slots=True)
class DualStackPlan:
    """Where a file finds what its dual-stack fixes rely on (`fix --style dual-stack`), worked out by the engine
    from the configuration: analyzers write their dual-stack edits with it."""

    include: str  # the portability header as this file includes it: "cudaport_compat.h", "../cudaport_compat.h"
    header_name: str  # its file name, for fix titles
    is_header: bool  # this file is the portability header itself
    helper: str  # how this Python file imports the device helper module: "cudaport_device", "..cudaport_device"
    accelerator: bool  # the project's requirements need PyTorch with torch.accelerator (2.6 or later)


class ProjectFacts(Protocol):
    """What the project around a file knows (project.ProjectIndex)."""

    def shims_for(self, path: Path, data: bytes | None, target: str) -> Mapping[str, ShimMapping]: ...

    def includes_for(self, path: Path, data: bytes | None) -> frozenset[str] | None: ...

    def resolves(self, path: Path, name: str) -> bool: ...

    def include_facts(self, path: Path, name: str) -> IncludeFacts | None: ...

    def defines_for(self, path: Path, data: bytes | None) -> frozenset[str]: ...


class FileContext:
    """The target and what the file inherits from its project. The project facts (the include graph) are worked
    out on first use: most files never need them (only findings that may be already ported, or a kernel file
    without a runtime include, ask)."""

    __slots__ = (
        "_data",
        "_file",
        "_includes",
        "_memo",
        "_project",
        "_shims",
        "_tables",
        "declared_elsewhere",
        "dual",
        "file_root",
        "path",
        "presence",
        "target",
    )

    def __init__(
        self,
        target: str,
        path: str = "",
        shims: Mapping[str, ShimMapping] | None = None,
        includes: frozenset[str] | None = None,
        *,
        project: ProjectFacts | None = None,
        file: Path | None = None,
        data: bytes | None = None,
    ) -> None:
        self.target = target
        self.path = path
        self._project = project if file is not None else None
        self._file = file
        self._data = data
        self._shims = shims if shims is not None or self._project is not None else {}
        self._includes: frozenset[str] | object | None = includes if self._project is None else _UNKNOWN
        # An editor session's word counts and line tables, kept up to date across edits (None: the buffer itself).
        self.presence: Presence | None = None
        # For a ranged analysis in a session: the CUDA-named functions and struct fields the file defines outside
        # the ranges, as the session keeps them (None: the analyzer looks for them itself).
        self.declared_elsewhere: tuple[frozenset[str], frozenset[str]] | None = None
        # For a session analysing an edited function parsed alone: the root of the whole file's tree (the tree of
        # the text before the edit, edited, which is current outside the function), for what finders look up
        # elsewhere in the file (a struct's definition, where an #include goes). None: the tree analysed is whole.
        self.file_root: Any | None = None
        self._tables: dict[bytes, tuple[bytes, LineTable]] = {}
        self._memo: dict[object, tuple[object, Any]] = {}
        # Where the dual-stack fixes' portability header and helper module are (None: no dual-stack fixes).
        self.dual: DualStackPlan | None = None

    def has(self, data: bytes, word: bytes) -> bool:
        """Whether the buffer contains `word` (anywhere, comments too: a quick test before real work)."""
        return self.presence.has(data, word) if self.presence is not None else word in data

    def lines(self, data: bytes, word: bytes) -> LineTable:
        """The lines of the buffer whose first non-blank text is `word` (an editor session keeps them per edit)."""
        if self.presence is not None:
            return self.presence.lines_starting_with(data, word)
        known = self._tables.get(word)
        if known is None or known[0] is not data:
            known = self._tables[word] = (data, LineTable(data, word))
        return known[1]

    def remember(self, key: object, stamp: object, compute: Callable[[], Any]) -> Any:
        """`compute()`, or what it returned last time for `key` if `stamp` is the same (line-table generations:
        facts worked out from directive lines hold until one of them is edited)."""
        known = self._memo.get(key)
        if known is not None and known[0] == stamp:
            return known[1]
        value = compute()
        self._memo[key] = (stamp, value)
        return value

    @property
    def shims(self) -> Mapping[str, ShimMapping]:
        """CUDA names a portability header this file includes maps to the target's names."""
        if self._shims is None:
            assert self._project is not None and self._file is not None
            self._shims = dict(self._project.shims_for(self._file, self._data, self.target))
        return self._shims

    @property
    def includes(self) -> frozenset[str] | None:
        """`#include` names written in the project headers this file includes (directly or not); None = unknown."""
        if self._includes is _UNKNOWN:
            assert self._project is not None and self._file is not None
            self._includes = self._project.includes_for(self._file, self._data)
        return self._includes  # type: ignore[return-value]

    def include_facts(self, name: str) -> IncludeFacts | None:
        """What the project header `name` brings (None: not a header of the project, or no project known)."""
        if self._project is None or self._file is None:
            return None
        return self._project.include_facts(self._file, name)

    def project_macros(self) -> frozenset[str]:
        """The macros the project headers this file includes define (the project's own names)."""
        if self._project is None or self._file is None:
            return frozenset()
        return self._project.defines_for(self._file, self._data)

    def is_own_module(self, top: str) -> bool:
        """Whether the top-level Python module `top` is the project's own: the package this file is part of, or a
        package or module beside one of the folders above it (`flash_attn/` in flash-attn's own checkout)."""
        location = self._file if self._file is not None else (Path(self.path) if self.path else None)
        return location is not None and _own_module(str(Path(location).absolute().parent), top)

    def flags_unused_imports(self) -> bool:
        """Whether the project lints Python with ruff or flake8 (a configuration of either above this file): an
        import added only for its side effect then needs `# noqa: F401`."""
        location = self._file if self._file is not None else (Path(self.path) if self.path else None)
        return location is not None and _lints_unused_imports(str(Path(location).absolute().parent))

    def is_project_file(self, name: str) -> bool:
        """Whether the include name `name` names a file of the project (a header of its own, not a library's)."""
        if self._project is None or self._file is None:
            return False
        return self._project.resolves(self._file, name)


_UNKNOWN = object()
_MODULE_LEVELS = 5  # how far up a project's own packages are looked for (src/ layouts and test folders)
_PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git", "cudaport.toml")


@functools.lru_cache(maxsize=4096)
def _own_module(folder: str, top: str) -> bool:
    package = folder
    while has_file(package, "__init__.py") and os.path.dirname(package) != package:
        if os.path.basename(package) == top:
            return True
        package = os.path.dirname(package)
    # The folders from this one up to the project's root (the first with a project marker), never beyond it:
    # a sibling checkout of the library is not this project.
    base = folder
    for _ in range(_MODULE_LEVELS):
        for holder in (base, os.path.join(base, "src")):
            if has_file(os.path.join(holder, top), "__init__.py") or has_file(holder, top + ".py"):
                return True
        if any(has_entry(base, marker) for marker in _PROJECT_MARKERS) or os.path.dirname(base) == base:
            break
        base = os.path.dirname(base)
    return False


_LINTER_FILES = {"ruff.toml": b"", ".ruff.toml": b"", ".flake8": b"", "pyproject.toml": b"[tool.ruff"}
_LINTER_FILES |= {"setup.cfg": b"[flake8]", "tox.ini": b"[flake8]"}


@functools.lru_cache(maxsize=4096)
def _lints_unused_imports(folder: str) -> bool:
    """This folder's answer, else its parent's (each folder is asked once: the files of a tree share them)."""
    for name, marker in _LINTER_FILES.items():
        if has_file(folder, name):
            try:
                with open(os.path.join(folder, name), "rb") as handle:
                    if not marker or marker in handle.read():
                        return True
            except OSError:
                continue
    if has_entry(folder, ".git") or has_entry(folder, "setup.py") or has_file(folder, "pyproject.toml"):
        return False  # the project's root: what lies above configures other projects
    parent = os.path.dirname(folder)
    return parent != folder and _lints_unused_imports(parent)


def search_windows(data: bytes, ranges: list[tuple[int, int]] | None) -> list[tuple[int, int]]:
    """Where a finder looks: the whole buffer, or the requested byte ranges widened to whole lines and merged.

    A finding must still start inside a requested range; the widening only lets line-anchored patterns
    (`#include`, `#define`) and tokens that cross a range's edge match exactly as they do in a full scan."""
    if ranges is None:
        return [(0, len(data))]
    windows: list[tuple[int, int]] = []
    for lo, hi in sorted(ranges):
        lo = max(0, min(lo, len(data)))
        hi = max(lo, min(hi, len(data)))
        lo = data.rfind(b"\n", 0, lo) + 1
        while lo > 0 and _continued(data, lo - 1):  # a line continued from the one above: one logical line
            lo = data.rfind(b"\n", 0, lo - 1) + 1
        end = data.find(b"\n", hi)
        while end != -1 and _continued(data, end):
            end = data.find(b"\n", end + 1)
        hi = len(data) if end == -1 else end + 1
        if windows and lo <= windows[-1][1]:
            windows[-1] = (windows[-1][0], max(windows[-1][1], hi))
        else:
            windows.append((lo, hi))
    return windows


def _continued(data: bytes, newline: int) -> bool:
    """Whether the line ending at `newline` ends with a backslash that splices the next line onto it."""
    if newline >= 1 and data[newline - 1] == 0x5C:
        return True
    return newline >= 2 and data[newline - 1] == 0x0D and data[newline - 2] == 0x5C


@record(frozen=True, slots=True)
class IncrementalProfile:
    """What an edit can invalidate, as the analyzer of a language knows it: the engine's analysis session
    (cudaport.session) re-analyses only the syntax around an edit, and the whole file when this says so."""

    # Edits to lines matching this can change findings anywhere in the file (conditional compilation guards,
    # portability #defines, imports that alias `torch.cuda`, file-level suppressions): the whole file again.
    file_wide: re.Pattern[bytes]
    # Edits to lines matching this change what the file includes: the project headers it sees are looked up
    # again (a portability header mapping CUDA names for the whole file makes the edit file-wide).
    context_lines: re.Pattern[bytes] | None
    # A re-analysis widens an edit to the outermost enclosing node of one of these types (a function: whether
    # code is device code depends on its qualifiers) ...
    scopes: frozenset[str]
    # ... or, outside any of them, to the outermost node below one of these (never a whole namespace or class).
    containers: frozenset[str]
    # A tree-sitter query capturing (@name) the functions a file declares and (@field) the struct fields: one named
    # like a CUDA API makes every use of that name the user's own (a function when it is a definition, a field
    # when it is declared, not read), so a change to one is a whole-file change.
    declarations: str | None = None
    # Rules with at most one finding per file, placed by what the whole file holds (the first runtime call of a
    # file that never initialises the runtime): windows cannot place them, so the session keeps the one it has
    # and analyses the whole file when the edit could move or remove it.
    file_level: frozenset[str] = frozenset()
    # Whether each `file_wide` match is the whole statement that acts on the file (the directive with its
    # condition or header name): then an edit after which the touched lines hold the same matches, in order, is
    # not file-wide (text typed after `#include <x.h>`, a new line after `#endif`). Otherwise any touched match is.
    file_wide_statements: bool = False
    # Whether the analyzer works out its file-wide statements' effect as FileFacts (its `facts()` method): an edit
    # to such a statement then re-analyses what changed in them (a conditional chain, the findings of a name a
    # #define maps), not the whole file.
    facts: bool = False
    # The file-wide statements whose every change the facts would answer with "the whole file" (an #include: the
    # file-level findings and every dual-stack fix read the includes): an edit that changes only such statements
    # is analysed locally, provisional until a whole-file analysis, without working the facts out first.
    whole_file_statements: re.Pattern[bytes] | None = None
    # Node types that only group what they hold, for the analyzer (conditional-compilation blocks): when an edit
    # moves where one ends (`#endif` typed into `#endifx` makes an #if take in the rest of the file), the
    # subtrees it takes in or lets go, the same as before, are not changes.
    transparent: frozenset[str] = frozenset()
    # Top-level node types whose text parses the same alone as in its file (a function definition): an edit
    # inside one can be analysed with that text parsed alone before the whole file is re-parsed, which takes
    # time that grows with the number of top-level nodes however small the edit (see Session.analyse). The
    # analyzer is then a SpanParser.
    items: frozenset[str] = frozenset()


@record(frozen=True, slots=True)
class FactChanges:
    """Where a change of a file's whole-file facts can change findings: these ranges (current offsets), and the
    findings of these symbols wherever they are."""

    ranges: list[tuple[int, int]]
    symbols: frozenset[str] = frozenset()


class FileFacts(Protocol):
    """What an analyzer works out from a file's file-wide statements (see IncrementalProfile.file_wide): where the
    conditional chains that select a target's path are, which names a portability #define maps, which headers
    are included. Worked out after every analysis (cheaply: from line tables kept per edit), so that an edit to
    such a statement re-analyses what the facts say it changed, not the whole file."""

    def changes(self, new: Any, moved: Callable[[int], int]) -> FactChanges | None:
        """What differs in `new` (the facts of the edited buffer) from these (`moved` maps an offset of the buffer
        these were worked out from to the edited one); None: the whole file."""
        ...


class SpanParser(Protocol):
    """An analyzer that parses a part of a buffer alone (IncrementalProfile.items)."""

    def parse_span(
        self, data: bytes, start: int, end: int, start_point: tuple[int, int], end_point: tuple[int, int]
    ) -> Any: ...


class FactFinder(Protocol):
    """An analyzer whose IncrementalProfile says `facts=True`."""

    def facts(self, data: bytes, tree: Any, context: FileContext) -> FileFacts:
        """The file's whole-file facts (cheap to ask after every analysis: worked out from line tables)."""
        ...


class Analyzer(Protocol):
    language: str

    @property
    def incremental(self) -> IncrementalProfile | None:
        """What an edit can invalidate; None: every edit re-analyses the whole file."""
        ...

    def parse(self, data: bytes, old_tree: Any | None = None) -> Any: ...

    def analyze(
        self, data: bytes, tree: Any, context: FileContext, ranges: list[tuple[int, int]] | None = None
    ) -> list[Finding]:
        """Findings in `data`; with `ranges`, only those that start inside one of the byte ranges."""
        ...


# Bytes that continue an identifier: ASCII only, like `\w` in a bytes regex (the tree decides about non-ASCII
# identifiers, whose node must span the word).
WORD_BYTE = [c < 128 and (chr(c).isalnum() or chr(c) in "_$") for c in range(256)]


def starts_word(data: bytes, start: int) -> bool:
    """No identifier byte right before `start`: a regex without a look-behind (which would stop the regex engine
    from skipping ahead to the literal) checks this by hand."""
    return start == 0 or not WORD_BYTE[data[start - 1]]


def whole_words(data: bytes, word: bytes, lo: int = 0, hi: int | None = None) -> Iterator[int]:
    """The starts of `word`'s whole-word occurrences in data[lo:hi], in order, found with bytes.find: it runs in C
    at memory speed, where a regex with look-arounds tries every position of the buffer."""
    if hi is None:
        hi = len(data)
    size, length = len(data), len(word)
    position = data.find(word, lo, hi)
    while position != -1:
        end = position + length
        if (position == 0 or not WORD_BYTE[data[position - 1]]) and (end >= size or not WORD_BYTE[data[end]]):
            yield position
        position = data.find(word, end, hi)
