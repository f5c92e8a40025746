"""`cudaport check`: the findings of a tree, written as the run reaches them."""

from __future__ import annotations

import argparse
import sys

from ..i18n import t
from ..knowledge.ruleset import load_ruleset
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


def check(args: argparse.Namespace) -> int:
    """Each file's findings are written as the run reaches them (JSON and SARIF through a spool, see
    cli.formats) and dropped: memory follows the largest file, not the tree. `--target hip,npu` reads the
    files once and rates them for each target."""
    from ..engine import runner
    from .formats import CheckOutput

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
            output = CheckOutput(
                out,
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
    say_cache(args, cache)
    runs = [totals[t] for t in targets]
    if args.exit_zero or args.fail_on == "never":
        return EXIT_ERROR if any(run.errors for run in runs) else EXIT_OK
    return max(exit_code(run, settings.fail_on) for run in runs)
