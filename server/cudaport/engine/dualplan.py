"""Where the files of a dual-stack fix (`fix --style dual-stack`) are, as the engine tells each analyzed file: the
portability header C/C++/CUDA files include, the Python helper module, and whether the project's PyTorch has
torch.accelerator.

The portability header is `compat-header` of the configuration (default `cudaport_compat.h` in the project's
root, beside its top source folders); files include it by a path relative to themselves, which needs no change to
the build. The Python helper goes in the topmost package a file is part of (imported relatively), or beside a
script that is in no package.
"""

from __future__ import annotations

import fnmatch
import functools
import os
import re
from collections.abc import Callable
from pathlib import Path

from ..analyzers.common.base import DualStackPlan
from ..knowledge.ruleset import RuleSet, version_key
from ..model.folders import has_entry, has_file, listing
from ..project.config import Settings

_PROJECT_MARKERS = ("pyproject.toml", "setup.py", "setup.cfg", ".git", "cudaport.toml")
_REQUIREMENT_FILES = ("pyproject.toml", "setup.py", "setup.cfg", "environment.yml", "environment.yaml")
# `torch>=2.6`, `torch==2.7.1+cu126`, `"torch ~= 2.6"`: the lowest release a requirement allows.
_TORCH_FLOOR = re.compile(r"(?<![\w.-])torch\s*(?:\[[^\]]*\])?\s*(?:===|==|~=|>=|>|=)\s*v?(\d+(?:\.\d+)*)")
_LEVELS = 6  # folders above a file searched for the project's requirements


def plan_for(settings: Settings, ruleset: RuleSet | Callable[[], str], path: Path | None) -> DualStackPlan:
    """The dual-stack plan for the file `path` (None: a buffer without a file, which names things plainly);
    `ruleset`, or what tells the release torch.accelerator came with (has_accelerator)."""
    header = settings.compat_header_path
    if path is None:
        return DualStackPlan(header.name, header.name, False, _module(settings.device_helper), False)
    absolute = Path(os.path.abspath(path))
    include = os.path.relpath(header, absolute.parent).replace(os.sep, "/")
    helper = helper_import(absolute, settings.device_helper) if absolute.suffix == ".py" else ""
    accelerator = absolute.suffix == ".py" and has_accelerator(absolute.parent, ruleset)
    return DualStackPlan(include, header.name, absolute == Path(os.path.abspath(header)), helper, accelerator)


def helper_path(path: Path, file_name: str) -> Path:
    """Where the device helper module of the Python file `path` goes: its topmost package, else beside it."""
    return _package_top(str(Path(os.path.abspath(path)).parent)) / file_name


def helper_import(path: Path, file_name: str) -> str:
    """How the Python file `path` imports the helper module: relatively inside a package ("..cudaport_device" two
    folders down), by its name beside a script."""
    folder = Path(os.path.abspath(path)).parent
    top = _package_top(str(folder))
    if not has_file(str(top), "__init__.py"):
        return _module(file_name)
    depth = len(folder.relative_to(top).parts)
    return "." * (depth + 1) + _module(file_name)


def torch_floor(folder: Path) -> tuple[int, ...] | None:
    """The lowest PyTorch release the project's requirements allow (nearest requirement file above `folder` that
    names torch with a lower bound), or None."""
    return _torch_floor(str(folder))


def has_accelerator(folder: Path, ruleset: RuleSet | Callable[[], str]) -> bool:
    """Whether the project's PyTorch has torch.accelerator: its requirements' lowest release against the one the
    rule data names (`ruleset`, or what tells that release: the results cache's checks read no rule set)."""
    floor = torch_floor(folder)
    if floor is None:
        return False  # the rule data's release is not needed
    since = version_key(ruleset() if callable(ruleset) else ruleset.prologue()["accelerator-since"])
    return since is not None and floor >= since


def _torch_floor(folder: str) -> tuple[int, ...] | None:
    return _floor_from(folder, _LEVELS)


@functools.lru_cache(maxsize=4096)
def _floor_from(folder: str, levels: int) -> tuple[int, ...] | None:
    """The floor named in `folder`, else in the `levels - 1` folders above it, up to the project's root."""
    named, floor, root = _floor_in(folder)
    if named:
        return floor
    parent = os.path.dirname(folder)
    if root or levels <= 1 or parent == folder:
        return None  # the project's root: above it lie other projects
    return _floor_from(parent, levels - 1)


@functools.lru_cache(maxsize=4096)
def _floor_in(folder: str) -> tuple[bool, tuple[int, ...] | None, bool]:
    """Whether a requirement file in `folder` names torch with a lower bound, that bound, and whether `folder` is a
    project's root; once per folder (the files of a tree share their folders above)."""
    names = listing(folder)
    candidates = [name for name in _REQUIREMENT_FILES if name in names]
    candidates += sorted(n for n in names if fnmatch.fnmatchcase(n, "requirements*.txt"))
    if "requirements" in names:
        inner = os.path.join(folder, "requirements")
        candidates += sorted(os.path.join("requirements", n) for n in listing(inner) if fnmatch.fnmatchcase(n, "*.txt"))
    for name in candidates:
        candidate = os.path.join(folder, name)
        try:
            if not os.path.isfile(candidate):
                continue
            with open(candidate, encoding="utf-8", errors="replace") as handle:
                text = handle.read()
        except OSError:
            continue
        for match in _TORCH_FLOOR.finditer(text):
            line_start = text.rfind("\n", 0, match.start()) + 1
            if text[line_start : match.start()].lstrip().startswith("#"):
                continue  # a commented-out requirement
            return True, version_key(match.group(1)), False
    return False, None, any(has_entry(folder, marker) for marker in _PROJECT_MARKERS)


@functools.lru_cache(maxsize=1024)
def _package_top(folder: str) -> Path:
    here = Path(folder)
    top = here
    while has_file(str(top), "__init__.py") and has_file(str(top.parent), "__init__.py") and top.parent != top:
        top = top.parent
    return top


def _module(file_name: str) -> str:
    return file_name[: -len(".py")] if file_name.endswith(".py") else file_name
