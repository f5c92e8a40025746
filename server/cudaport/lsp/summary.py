"""The migration summary (`cudaport.server.summary`): `cudaport report`'s Markdown for the workspace folders, for
every target, with the paths relative to the workspace and the open documents read from their unsaved text.

It runs on a worker thread with engines of its own (an Engine is not thread-safe), so that the server goes on
answering while a large workspace is summarised; the thread looks at a stop flag between files (cancellation) and
reports each file it has done (work-done progress)."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from pathlib import Path

from ..engine import runner
from ..engine.engine import Engine
from ..knowledge.filekinds import file_kind
from ..model import records
from ..model.records import field, record
from ..model.source import SourceFile
from ..project.config import Settings
from ..project.files import Excluded, Skipped, SourcePath, discover
from ..project.includes import ProjectIndex

Progress = Callable[[int, int, str], None]  # (files done, files in all, the last file's label)


@record(frozen=True)
class Folder:
    """A workspace folder and how its files are named in the summary: relative to it, under its name when the
    workspace has several folders (as VS Code names them)."""

    path: Path
    prefix: str
    settings: Settings  # selects its files, as `cudaport check` run in it would


@record(frozen=True)
class SummaryJob:
    folders: list[Folder]
    settings: Settings  # the one the summary states and analyses with (the workspace's configuration)
    project: ProjectIndex | None  # the server's include graph (thread-safe), shared rather than built again
    buffers: dict[Path, bytes] = field(default_factory=dict)  # the open documents' text, by real path


class Cancelled(Exception):
    """The client cancelled the summary."""


def summarise(job: SummaryJob, stop: threading.Event, progress: Progress | None = None) -> str:
    """The Markdown report of the job's folders; raises Cancelled when `stop` is set before it is done."""
    from ..report import ReportBuilder, render  # the report's modules load when a summary is asked for, not at start

    run = _collect(job.folders)
    engine = Engine(job.settings, job.project)  # this thread's own
    targets = [job.settings.target, *(t for t in engine.ruleset.targets if t != job.settings.target)]
    shown = _relative_settings(job.settings, job.folders)
    builder = ReportBuilder(engine.ruleset, shown, targets, [f.prefix or f.path.name for f in job.folders])
    for skipped in run.skipped:
        (builder.error if skipped.error else builder.skip)(skipped.label, skipped.reason)
    for excluded in run.excluded:
        builder.exclude(excluded.label, excluded.reason)
    for done, source_path in enumerate(run.files, start=1):
        if stop.is_set():
            raise Cancelled
        buffer = job.buffers.get(_real(source_path.path))
        source = SourceFile(buffer) if buffer is not None else None
        builder.add(runner.file_findings(source_path, engine.check_path_targets(source_path, targets, source)))
        if progress is not None:
            progress(done, len(run.files), source_path.label)
    if stop.is_set():
        raise Cancelled
    report = builder.finish()
    return render(report, "md")


def buffers_of(documents: list[tuple[Path, str, bytes]]) -> dict[Path, bytes]:
    """The text of open documents by real path, from (path, language, text); notebook cells and binary kinds are
    read from disk (a cell is not the notebook file)."""
    out: dict[Path, bytes] = {}
    for path, language, data in documents:
        kind = file_kind(language)
        if kind is not None and kind.binary:
            continue
        out[_real(path)] = data
    return out


def _collect(folders: list[Folder]) -> runner.Run:
    """The folders' files as `cudaport check` selects them, labelled relative to the workspace."""
    files: list[SourcePath] = []
    skipped: list[Skipped] = []
    excluded: list[Excluded] = []
    seen: set[Path] = set()
    for folder in folders:
        for item in discover([str(folder.path)], folder.settings):
            label = _label(folder, item.label)
            if isinstance(item, Skipped):
                skipped.append(records.replace(item, label=label))
            elif isinstance(item, Excluded):
                excluded.append(records.replace(item, label=label))
            elif not item.path.is_symlink():
                real = _real(item.path)
                if real not in seen:  # nested workspace folders name a file twice
                    seen.add(real)
                    files.append(records.replace(item, label=label))
    return runner.Run(files, skipped, excluded)


def _label(folder: Folder, label: str) -> str:
    relative = os.path.relpath(label, folder.path) if os.path.isabs(label) else label
    relative = Path(relative).as_posix() + ("/" if label.endswith(("/", os.sep)) else "")
    return f"{folder.prefix}/{relative}" if folder.prefix else relative


def _relative_settings(settings: Settings, folders: list[Folder]) -> Settings:
    """The settings as the summary states them: the configuration file named relative to the workspace."""
    config = settings.config_path
    if config is None:
        return settings
    for folder in folders:
        if config.is_relative_to(folder.path):
            relative = config.relative_to(folder.path).as_posix()
            named = f"{folder.prefix}/{relative}" if folder.prefix else relative
            return records.replace(settings, config_path=Path(named))
    return settings


def _real(path: Path) -> Path:
    try:
        return path.resolve()
    except OSError:
        return path
