"""What the commands share: exit codes, usage errors, warnings, where output goes (a file written whole, or
stdout), colour and the progress bar."""

from __future__ import annotations

import argparse
import contextlib
import os
import stat
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TextIO

from .. import i18n
from ..i18n import t
from ..model.findings import Difficulty
from ..model.results import RunTotals
from ..project.config import Settings
from .progress import ProgressBar

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
EXIT_BROKEN_PIPE = 128 + 13  # as a process SIGPIPE ended: the output was cut short by its reader


class UsageError(Exception):
    pass


_warned: set[str] = set()  # said already in this run


def reset_warnings() -> None:
    """A new run (in-process callers run several) says each warning again."""
    _warned.clear()


def warn(message: str) -> None:
    """A warning on stderr, once per run (the configuration and --target may say the same)."""
    if message not in _warned:
        _warned.add(message)
        print(t("cudaport: warning: {message}", message=message), file=sys.stderr)


def require_existing(paths: Sequence[str]) -> None:
    """Paths none of which exists are a usage error, said once before anything runs (no summary of nothing). With
    some that exist, those are checked and each missing one is an error of the run (exit code 2)."""
    if paths == ["-"]:
        return  # standard input
    if paths and not any(Path(p).exists() for p in paths):
        raise UsageError(t("{paths}: no such file or directory", paths=", ".join(paths)))


# ---- settings from the command line ------------------------------------------------------------------------------


def split_list(value: str | None) -> list[str] | None:
    if value is None:
        return None
    return [part.strip() for part in value.split(",") if part.strip()]


def exit_code(totals: RunTotals, fail_on: Difficulty | None) -> int:
    if totals.errors:
        return EXIT_ERROR
    if fail_on is None:
        return EXIT_OK
    return EXIT_FINDINGS if totals.any_at_or_above(fail_on) else EXIT_OK


def report_skips(totals: Sequence[RunTotals]) -> None:
    """Skipped files (the same for every target) and errors (each target's, named when there are several)."""
    for label, reason in totals[0].skipped:
        print(t("cudaport: skipped {path}: {reason}", path=label, reason=reason), file=sys.stderr)
    for each in totals:
        for label, reason in each.errors:
            where = f"{label} ({each.target})" if len(totals) > 1 else label
            print(t("cudaport: error in {path}: {reason}", path=where, reason=reason), file=sys.stderr)


def use_color(choice: str, stream: TextIO) -> bool:
    if choice == "always":
        return True
    if choice == "never" or os.environ.get("NO_COLOR"):
        return False
    return stream.isatty()


def is_tty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


@contextlib.contextmanager
def progress_bar(args: argparse.Namespace, label: str) -> Iterator[ProgressBar]:
    """A progress bar on stderr while a large tree is processed, when stderr is a terminal (never in pipes, files
    or CI logs), erased when done."""
    bar = ProgressBar(sys.stderr, label, enabled=False if args.no_progress else None)
    try:
        yield bar
    finally:
        bar.close()


@contextlib.contextmanager
def output_stream(args: argparse.Namespace) -> Iterator[TextIO]:
    """Where a command writes: stdout, or the -o file, written beside it under a temporary name and moved into
    place when complete (a run that fails leaves no half file, and a file the run reads is read as it was)."""
    if args.output_file is None:
        yield sys.stdout
        return
    import tempfile

    target: Path = args.output_file
    try:
        handle = tempfile.NamedTemporaryFile(  # noqa: SIM115 (closed below, on every path)
            "w", encoding="utf-8", newline="", dir=target.parent, prefix=f".{target.name}.", delete=False
        )
    except OSError as exc:
        raise UsageError(t("cannot write {path}: {error}", path=target, error=exc.strerror or exc)) from exc
    try:
        with handle:
            yield handle  # type: ignore[misc]  # a text file, as TextIO
        os.chmod(handle.name, _new_file_mode(target))
        os.replace(handle.name, target)
    except OSError as exc:
        raise UsageError(t("cannot write {path}: {error}", path=target, error=exc.strerror or exc)) from exc
    finally:
        with contextlib.suppress(OSError):
            os.unlink(handle.name)


def _new_file_mode(path: Path) -> int:
    """The mode `open(path, "w")` would give: the existing file's, else 0o666 less the umask."""
    try:
        return stat.S_IMODE(path.stat().st_mode)
    except OSError:
        umask = os.umask(0)
        os.umask(umask)
        return 0o666 & ~umask


def use_language(args: argparse.Namespace, settings: Settings | None) -> None:
    """The run's language, before anything is analysed: --lang, else `lang` in the configuration, else the
    environment (CUDAPORT_LANG, LC_ALL, LC_MESSAGES, LANG)."""
    explicit = getattr(args, "lang", None) or (settings.lang if settings is not None else None)
    set_language(i18n.choose(explicit))


def set_language(language: str) -> None:
    if language != i18n.language():  # reading a language's catalogues is not free: once per run
        i18n.set_language(language)
