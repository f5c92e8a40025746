"""`cudaport report`: the migration assessment, written as HTML, Markdown or JSON."""

from __future__ import annotations

import argparse
import sys

from ..i18n import t
from ..knowledge.ruleset import load_ruleset
from .common import EXIT_ERROR, EXIT_OK, UsageError, output_stream, progress_bar, require_existing, split_list
from .options import results_cache, say_cache, target_settings


def _report_format(args: argparse.Namespace) -> str:
    from ..report import format_for

    if args.format:
        return "md" if args.format == "markdown" else str(args.format)
    if args.output_file is None:
        return "md"
    fmt = format_for(args.output_file)
    if fmt is None:
        raise UsageError(
            t(
                "cannot tell the format from {path}: give --format html, md or json",
                path=repr(str(args.output_file)),
            )
        )
    return fmt


def report(args: argparse.Namespace) -> int:
    from ..report import assess, iter_render

    require_existing(args.paths)
    specs = split_list(args.target) or []
    fmt = _report_format(args)
    settings, targets = target_settings(args, specs)
    ruleset = load_ruleset(settings.extra_rules).pinned(settings.versions)
    cache = results_cache(args, settings)
    with progress_bar(args, t("Scanning")) as progress:
        report = assess(args.paths, settings, targets, ruleset, jobs=args.jobs, progress=progress, cache=cache)
    say_cache(args, cache)
    for problem in report.skipped:
        print(t("cudaport: skipped {path}: {reason}", path=problem.path, reason=problem.reason), file=sys.stderr)
    for problem in report.errors:
        where = f"{problem.path} ({problem.target})" if len(targets) > 1 and problem.target else problem.path
        print(t("cudaport: error in {path}: {reason}", path=where, reason=problem.reason), file=sys.stderr)
    with output_stream(args) as out:
        for piece in iter_render(report, fmt):  # the JSON lists every finding: never one string
            out.write(piece)
    if args.output_file is not None:
        verdicts = t(", ").join(
            t(
                "{target}: {verdict}",
                target=report.label(target),
                verdict=t(report.summaries[target].scale.title).lower(),
            )
            for target in targets
        )
        print(
            t(
                "cudaport: wrote {path} ({count} files; {verdicts})",
                path=args.output_file,
                count=report.files_scanned,
                verdicts=verdicts,
            ),
            file=sys.stderr,
        )
    return EXIT_ERROR if report.errors else EXIT_OK
