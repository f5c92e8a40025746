"""`cudaport check`: the findings of a tree, written as the run reaches them."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, TextIO, cast

from ..i18n import t
from ..knowledge.ruleset import load_ruleset
from ..model.findings import Difficulty
from .common import (
    EXIT_ERROR,
    EXIT_OK,
    exit_code,
    is_tty,
    output_stream,
    progress_bar,
    report_skips,
    require_existing,
    split_list,
    use_color,
)
from .options import reads_stdin, results_cache, say_cache, stdin_source, target_settings
from .showing import settings_text, show_files

if TYPE_CHECKING:
    from ..engine.runner import Scan
    from ..model.results import RunTotals
    from ..project.config import Settings
    from .progress import ProgressBar

# options that never change what `check` writes (only how it runs, where it writes, or its exit code)
_NOT_OUTPUT = frozenset({"jobs", "no_progress", "verbose", "output_file", "exit_zero", "fail_on", "cache_dir"})
_KEPT_AT_MOST = 16_000_000  # characters of output kept for the next run (more: the next run formats it again)


def answer_question(args: argparse.Namespace, targets: list[str], color: bool) -> str:
    """What a run's output depends on besides its files' records and discovery: its options (every one but
    those in _NOT_OUTPUT), the targets, the colours, the working folder (labels are relative to it)."""
    plain = sorted(
        (name, str(value) if isinstance(value, Path) else value)
        for name, value in vars(args).items()
        if name not in _NOT_OUTPUT and _plain(value)
    )
    return repr(("check", plain, targets, color, os.getcwd()))


def _plain(value: object) -> bool:
    if isinstance(value, (list, tuple)):
        return all(_plain(v) for v in value)
    return value is None or isinstance(value, (str, int, float, Path))


class _Keeping:
    """The output stream, keeping what is written to it (up to _KEPT_AT_MOST characters) for the run's answer."""

    def __init__(self, out: TextIO) -> None:
        self._out = out
        self._parts: list[str] = []
        self._size = 0
        self.whole = True

    def write(self, text: str) -> int:
        if self.whole:
            self._size += len(text)
            if self._size > _KEPT_AT_MOST:
                self.whole, self._parts = False, []
            else:
                self._parts.append(text)
        return self._out.write(text)

    def text(self) -> str:
        return "".join(self._parts)


def check(args: argparse.Namespace) -> int:
    """Each file's findings are written as the run reaches them (JSON and SARIF through a spool, see
    cli.formats) and dropped: memory follows the largest file, not the tree. `--target hip,npu` reads the
    files once and rates them for each target."""
    from ..engine import runner
    from ..engine.runanswers import keep_answer, kept_answer

    require_existing(args.paths)
    settings, targets = target_settings(args, split_list(args.target) or [])
    if args.show_settings:
        sys.stdout.write(settings_text(settings, targets))
        return EXIT_OK
    if args.show_files:
        return show_files(args.paths, settings)
    stdin = stdin_source(args) if reads_stdin(args) else None
    cache = results_cache(args, settings)
    with progress_bar(args, t("Checking")) as progress:
        scan = runner.scan(
            args.paths,
            settings,
            targets,
            jobs=args.jobs,
            progress=progress,
            excerpts=args.format == "full" and not args.statistics,
            stdin=stdin,
            cache=cache,
        )
        totals = scan.totals()
        with output_stream(args) as out:
            color = args.output_file is None and use_color(args.color, out)
            question = answer_question(args, targets, color) if cache is not None else None
            seal = scan.answered() if question is not None else None
            kept = kept_answer(cache, question, seal) if cache is not None and question is not None and seal else None
            if kept is not None:
                # every file's record holds and the run is the one the kept output answered: write it again
                out.write(kept.text)
                for target, counts in kept.levels.items():
                    totals[target].by_difficulty.update({Difficulty(d): n for d, n in counts.items()})
                report_skips(list(totals.values()))
            else:
                sink = _Keeping(out) if question is not None else None
                _write_run(args, settings, targets, scan, totals, out, sink, color, progress)
                if sink is not None and sink.whole and cache is not None and question is not None:
                    seal = scan.seal_after()
                    if seal is not None:
                        levels = {t: {int(d): n for d, n in totals[t].by_difficulty.items()} for t in targets}
                        keep_answer(cache, question, seal, levels, sink.text())
    say_cache(args, cache)
    runs = [totals[t] for t in targets]
    if args.exit_zero or args.fail_on == "never":
        return EXIT_ERROR if any(run.errors for run in runs) else EXIT_OK
    return max(exit_code(run, settings.fail_on) for run in runs)


def _write_run(
    args: argparse.Namespace,
    settings: Settings,
    targets: list[str],
    scan: Scan,
    totals: dict[str, RunTotals],
    out: TextIO,
    sink: _Keeping | None,
    color: bool,
    progress: ProgressBar,
) -> None:
    """The run's findings written in `args.format` as the stream brings them (through `sink`, which keeps them,
    when given), and its totals counted."""
    from .formats import CheckOutput

    output = CheckOutput(
        cast(TextIO, sink) if sink is not None else out,
        args.format,
        targets,
        lambda: load_ruleset(settings.extra_rules).pinned(settings.versions),
        args.statistics,
        args.show_portable,
        color,
        args.quiet,
    )
    # lines written to the terminal the bar is drawn on erase it first (it comes back on the next file)
    shared = output.streams and progress.enabled and args.output_file is None and is_tty(out)
    try:
        for result in scan:
            totals[result.target].add(result)
            if shared and result.diagnostics:
                progress.hide()
            output.add(result)
        progress.hide()
        report_skips(list(totals.values()))
        output.finish(totals)
    finally:
        output.close()
