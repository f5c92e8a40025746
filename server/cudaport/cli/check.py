"""`cudaport check`: the findings of a tree, written as the run reaches them."""

from __future__ import annotations

import argparse

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
from .options import target_settings

# ---- commands -------------------------------------------------------------------------------------------------


def check(args: argparse.Namespace) -> int:
    """Each file's findings are written as the run reaches them (JSON and SARIF through a spool, see
    output.formats) and dropped: memory follows the largest file, not the tree. `--target hip,npu` reads the
    files once and rates them for each target."""
    from ..engine import runner
    from .formats import CheckOutput

    require_existing(args.paths)
    settings, targets = target_settings(args, split_list(args.target) or [])
    ruleset = load_ruleset(settings.extra_rules).pinned(settings.versions)
    with progress_bar(args, t("Checking")) as progress:
        scan = runner.scan(args.paths, settings, targets, jobs=args.jobs, progress=progress)
        totals = scan.totals()
        with output_stream(args) as out:
            color = args.output_file is None and use_color(args.color, out)
            output = CheckOutput(out, args.format, targets, ruleset, args.statistics, args.show_portable, color)
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
    runs = [totals[t] for t in targets]
    if args.exit_zero or args.fail_on == "never":
        return EXIT_ERROR if any(run.errors for run in runs) else EXIT_OK
    return max(exit_code(run, settings.fail_on) for run in runs)
