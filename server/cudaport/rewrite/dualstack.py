"""The files a dual-stack fix (`fix --style dual-stack`) writes beside the fixed ones: the portability header
(`#define`s and call macros that map CUDA's names to the target's) and the Python device helper module, created or
extended with what the fixed files need (engine.dualplan says where they are)."""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path

from ..engine.dualplan import has_accelerator, helper_path
from ..i18n import t
from ..knowledge.ruleset import RuleSet
from ..model.findings import CompatEntry
from ..model.records import record
from ..model.source import SkipFile, SourceFile, read_source
from ..project.config import Settings


# ---- the files a dual-stack run writes beside the fixed ones ------------------------------------------------------
class OutsidePaths(ValueError):
    """A file the dual-stack fix would write lies outside the paths given; the message says which and what to do."""


@record
class FileNeeds:
    """What one fixed file needs from the portability header and helper module (the runner's worker says)."""

    path: Path
    compat: list[CompatEntry]
    names_header: Path | None = None  # the project's own portability header this file includes, if any


@record
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
                functions, _ = helpers.setdefault(folder, ({}, has_accelerator(need.path.parent, ruleset)))
                functions[entry.target] = None
                continue
            own = need.names_header
            destination = own if entry.kind != "header" and own is not None and _inside(own, given) else ours
            headers.setdefault(destination, {})[entry] = None
    from ..analyzers.c.calls import load_call_rewrites
    from . import compat, devicehelper  # only where a dual-stack fix writes its files: not on every run's start

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
