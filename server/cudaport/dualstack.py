"""Where the files of a dual-stack fix (`fix --style dual-stack`) are, as the engine tells each analyzed file: the
portability header C/C++/CUDA files include, the Python helper module, and whether the project's PyTorch has
torch.accelerator.

The portability header is `compat-header` of the configuration (default `cudaport_compat.h` in the project's
root, beside its top source folders); files include it by a path relative to themselves, which needs no change to
the build. The Python helper goes in the topmost package a file is part of (imported relatively), or beside a
script that is in no package.
"""

from __future__ import annotations

import contextlib
import functools
import os
import re
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from .analyzers.base import DualStackPlan
from .config import Settings
from .i18n import t
from .models import CompatEntry
from .ruleset import RuleSet, version_key
from .source import SkipFile, SourceFile, read_source

_PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git", "cudaport.toml")
_REQUIREMENT_FILES = ("pyproject.toml", "setup.py", "setup.cfg", "environment.yml", "environment.yaml")
# `torch>=2.6`, `torch==2.7.1+cu126`, `"torch ~= 2.6"`: the lowest release a requirement allows.
_TORCH_FLOOR = re.compile(r"(?<![\w.-])torch\s*(?:\[[^\]]*\])?\s*(?:===|==|~=|>=|>|=)\s*v?(\d+(?:\.\d+)*)")
_LEVELS = 6  # folders above a file searched for the project's requirements


def plan_for(settings: Settings, ruleset: RuleSet, path: Path | None) -> DualStackPlan:
    """The dual-stack plan for the file `path` (None: a buffer without a file, which names things plainly)."""
    header = settings.compat_header_path
    if path is None:
        return DualStackPlan(header.name, header.name, False, _module(settings.device_helper), False)
    absolute = Path(os.path.abspath(path))
    include = os.path.relpath(header, absolute.parent).replace(os.sep, "/")
    helper = helper_import(absolute, settings.device_helper) if absolute.suffix == ".py" else ""
    accelerator = absolute.suffix == ".py" and _has_accelerator(absolute.parent, ruleset)
    return DualStackPlan(include, header.name, absolute == Path(os.path.abspath(header)), helper, accelerator)


def helper_path(path: Path, file_name: str) -> Path:
    """Where the device helper module of the Python file `path` goes: its topmost package, else beside it."""
    return _package_top(str(Path(os.path.abspath(path)).parent)) / file_name


def helper_import(path: Path, file_name: str) -> str:
    """How the Python file `path` imports the helper module: relatively inside a package ("..cudaport_device" two
    folders down), by its name beside a script."""
    folder = Path(os.path.abspath(path)).parent
    top = _package_top(str(folder))
    if not (top / "__init__.py").is_file():
        return _module(file_name)
    depth = len(folder.relative_to(top).parts)
    return "." * (depth + 1) + _module(file_name)


def torch_floor(folder: Path) -> tuple[int, ...] | None:
    """The lowest PyTorch release the project's requirements allow (nearest requirement file above `folder` that
    names torch with a lower bound), or None."""
    return _torch_floor(str(folder))


def _has_accelerator(folder: Path, ruleset: RuleSet) -> bool:
    since = version_key(str((ruleset.tables.get("python") or {}).get("dual-stack", {}).get("accelerator-since", "")))
    floor = torch_floor(folder)
    return since is not None and floor is not None and floor >= since


@functools.lru_cache(maxsize=1024)
def _torch_floor(folder: str) -> tuple[int, ...] | None:
    here = Path(folder)
    for base in [here, *here.parents][:_LEVELS]:
        candidates = [base / name for name in _REQUIREMENT_FILES]
        with contextlib.suppress(OSError):
            candidates += sorted(base.glob("requirements*.txt")) + sorted(base.glob("requirements/*.txt"))
        for candidate in candidates:
            try:
                text = candidate.read_text(encoding="utf-8", errors="replace") if candidate.is_file() else ""
            except OSError:
                continue
            for match in _TORCH_FLOOR.finditer(text):
                line_start = text.rfind("\n", 0, match.start()) + 1
                if text[line_start : match.start()].lstrip().startswith("#"):
                    continue  # a commented-out requirement
                return version_key(match.group(1))
        if any((base / marker).exists() for marker in _PROJECT_MARKERS):
            break  # the project's root: above it lie other projects
    return None


@functools.lru_cache(maxsize=1024)
def _package_top(folder: str) -> Path:
    here = Path(folder)
    top = here
    while (top / "__init__.py").is_file() and (top.parent / "__init__.py").is_file() and top.parent != top:
        top = top.parent
    return top


def _module(file_name: str) -> str:
    return file_name[: -len(".py")] if file_name.endswith(".py") else file_name


# ---- the files a dual-stack run writes beside the fixed ones ------------------------------------------------------
class OutsidePaths(ValueError):
    """A file the dual-stack fix would write lies outside the paths given; the message says which and what to do."""


@dataclass
class FileNeeds:
    """What one fixed file needs from the portability header and helper module (the runner's worker says)."""

    path: Path
    compat: list[CompatEntry]
    names_header: Path | None = None  # the project's own portability header this file includes, if any


@dataclass
class SupportFile:
    """A portability header or helper module to write: its path, what it was (None: a new file), what it becomes."""

    path: Path
    before: SourceFile | None
    after: bytes
    entries: int  # how many names, headers or functions it gains


def support_files(
    needs: Iterable[FileNeeds],
    settings: Settings,
    ruleset: RuleSet,
    given: Sequence[Path],
    open_text: Callable[[Path], bytes | None] | None = None,
) -> list[SupportFile]:
    """The headers and helper modules to create or extend for the files fixed, every one inside `given` (the paths
    the run was given): a file outside them is an OutsidePaths error, raised before anything is written."""
    ours = Path(os.path.abspath(settings.compat_header_path))
    headers: dict[Path, dict[CompatEntry, None]] = {}
    helpers: dict[Path, tuple[dict[str, None], bool]] = {}
    for need in needs:
        for entry in need.compat:
            if entry.kind == "python":
                folder = helper_path(need.path, settings.device_helper)
                functions, _ = helpers.setdefault(folder, ({}, _has_accelerator(need.path.parent, ruleset)))
                functions[entry.target] = None
                continue
            own = need.names_header
            destination = own if entry.kind != "header" and own is not None and _inside(own, given) else ours
            headers.setdefault(destination, {})[entry] = None
    from . import compat, devicehelper  # only where a dual-stack fix writes its files: not on every run's start
    from .analyzers.calls import load_call_rewrites

    out: list[SupportFile] = []
    target = ruleset.targets.get(settings.target)
    calls = load_call_rewrites(ruleset.tables.get("calls"))
    for path, entries in sorted(headers.items()):
        if target is None or not target.dual_stack:
            continue
        before = _read(path, settings, open_text)
        text = compat.update(before.text() if before is not None else None, entries, target, calls, path.name)
        if text is not None:
            out.append(_support(path, before, text, len(entries), given))
    table = devicehelper.backends(ruleset.tables.get("python") or {})
    for path, (functions, accelerator) in sorted(helpers.items()):
        before = _read(path, settings, open_text)
        text = devicehelper.update(before.text() if before is not None else None, functions, table, accelerator)
        if text is not None:
            count = len(devicehelper.FUNCTIONS) if before is None else len(functions)
            out.append(_support(path, before, text, count, given))
    return out


def _support(path: Path, before: SourceFile | None, text: str, entries: int, given: Sequence[Path]) -> SupportFile:
    if not _inside(path, given):
        raise OutsidePaths(
            t(
                "the dual-stack fix writes {path}, which is outside the paths given: fix the project from the folder "
                "that holds it, or name another place with `compat-header` in the configuration",
                path=path,
            )
        )
    data = text.encode("utf-8")
    return SupportFile(path, before, before.encode(data) if before is not None else data, entries)


def _read(path: Path, settings: Settings, open_text: Callable[[Path], bytes | None] | None) -> SourceFile | None:
    """The file as it is: an editor's unsaved buffer of it when there is one, else on disk (None: no file yet)."""
    buffer = open_text(path) if open_text is not None else None
    if buffer is not None:
        return SourceFile(buffer)
    if not path.is_file():
        return None
    try:
        return read_source(path, settings.max_file_size)
    except SkipFile as exc:
        raise OutsidePaths(t("cannot extend {path}: {error}", path=path, error=exc)) from None


def _inside(path: Path, given: Sequence[Path]) -> bool:
    """Inside a folder given, or beside a file given (`fix --style dual-stack kernel.cu` writes its header next to
    it)."""
    absolute = Path(os.path.abspath(path))
    for root in given:
        base = Path(os.path.abspath(root))
        folder = base if base.is_dir() else base.parent
        if absolute == base or folder in absolute.parents:
            return True
    return False
