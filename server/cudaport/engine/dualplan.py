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
from pathlib import Path

from ..analyzers.common.base import DualStackPlan
from ..knowledge.ruleset import RuleSet, version_key
from ..project.config import Settings

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
    if not (top / "__init__.py").is_file():
        return _module(file_name)
    depth = len(folder.relative_to(top).parts)
    return "." * (depth + 1) + _module(file_name)


def torch_floor(folder: Path) -> tuple[int, ...] | None:
    """The lowest PyTorch release the project's requirements allow (nearest requirement file above `folder` that
    names torch with a lower bound), or None."""
    return _torch_floor(str(folder))


def has_accelerator(folder: Path, ruleset: RuleSet) -> bool:
    since = version_key(str((ruleset.tables.get("python") or {}).get("dual-stack", {}).get("accelerator-since", "")))
    floor = torch_floor(folder)
    return since is not None and floor is not None and floor >= since


@functools.lru_cache(maxsize=1024)
def _torch_floor(folder: str) -> tuple[int, ...] | None:
    here = Path(folder)
    for base in [here, *here.parents][:_LEVELS]:
        named, floor, root = _floor_in(str(base))
        if named:
            return floor
        if root:
            break  # the project's root: above it lie other projects
    return None


@functools.lru_cache(maxsize=4096)
def _floor_in(folder: str) -> tuple[bool, tuple[int, ...] | None, bool]:
    """Whether a requirement file in `folder` names torch with a lower bound, that bound, and whether `folder` is a
    project's root; once per folder (the files of a tree share their folders above)."""
    base = Path(folder)
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
            return True, version_key(match.group(1)), False
    return False, None, any((base / marker).exists() for marker in _PROJECT_MARKERS)


@functools.lru_cache(maxsize=1024)
def _package_top(folder: str) -> Path:
    here = Path(folder)
    top = here
    while (top / "__init__.py").is_file() and (top.parent / "__init__.py").is_file() and top.parent != top:
        top = top.parent
    return top


def _module(file_name: str) -> str:
    return file_name[: -len(".py")] if file_name.endswith(".py") else file_name
