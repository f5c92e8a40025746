"""`cudaport fix`: the safe rewrites applied (in place, into --output-dir, or shown with --diff), and what is left."""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

from ..i18n import t, tn
from ..model.findings import Difficulty, FixStyle

if TYPE_CHECKING:
    from ..rewrite.batch import FixResult
from .common import EXIT_ERROR, EXIT_OK, UsageError, exit_code, progress_bar, report_skips, require_existing
from .options import settings_from_args


def fix(args: argparse.Namespace) -> int:
    from ..rewrite import batch
    from ..rewrite.dualstack import OutsidePaths
    from ..rewrite.outtree import OutputTree, OutputTreeError

    require_existing(args.paths)
    settings = settings_from_args(args)
    output = None
    if args.output_dir is not None:
        if args.diff:
            raise UsageError(t("--diff shows the fixes and writes nothing: give it or --output-dir, not both"))
        try:
            output = OutputTree(args.paths, args.output_dir)
        except OutputTreeError as exc:
            raise UsageError(str(exc)) from None
    with progress_bar(args, t("Fixing")) as progress:

        def show(diff: str) -> None:  # each file's diff as it is planned, in output order
            progress.hide()
            sys.stdout.write(diff)

        try:
            result = batch.fix(
                args.paths,
                settings,
                jobs=args.jobs,
                unsafe=args.unsafe_fixes,
                diff_only=args.diff,
                progress=progress,
                output=output,
                on_diff=show,
                add_ignore=args.add_ignore,
            )
        except OutsidePaths as exc:
            raise UsageError(str(exc)) from None
    report_skips([result.run])
    for label, line, rule, why in result.refused:
        print(
            t(
                "cudaport: no suppression added for {rule} at {path}:{line}: {reason}",
                rule=rule,
                path=label,
                line=line,
                reason=why,
            ),
            file=sys.stderr,
        )
    for label, line, rule, why in result.withheld:
        print(
            t(
                "cudaport: withheld the rewrite of {rule} at {path}:{line}: {reason}",
                rule=rule,
                path=label,
                line=line,
                reason=why,
            ),
            file=sys.stderr,
        )
    for label, new, entries in result.support:
        print(_support_text(label, new, entries, args.diff), file=sys.stderr if args.diff else sys.stdout)
    if args.diff:
        count = len(result.changed_files)
        findings = tn("{count} finding", "{count} findings", result.fixed)
        files = tn("{count} file", "{count} files", count)
        print(t("Would fix {findings} in {files}.", findings=findings, files=files), file=sys.stderr)
        if args.add_ignore:
            print(t("Would add {suppressions}.", suppressions=_ignores_text(result)), file=sys.stderr)
    else:
        _print_fixed(result, settings.fix_style)
        if args.add_ignore:
            print(t("Added {suppressions}.", suppressions=_ignores_text(result)))
        if args.output_dir is not None:
            print(t("The fixed tree is under {path}; the original is unchanged.", path=args.output_dir))
    if args.fail_on == "never":
        return EXIT_ERROR if result.run.errors else EXIT_OK
    return exit_code(result.run, settings.fail_on)  # --diff too: what would be left decides, as after a fix


def _support_text(label: str, new: bool, entries: int, diff: bool) -> str:
    """A portability header or helper module a dual-stack fix writes (or, with --diff, would write)."""
    count = tn("{count} entry", "{count} entries", entries)
    if diff:
        if new:
            return t("Would create {path} ({entries}).", path=label, entries=count)
        return t("Would extend {path} ({entries}).", path=label, entries=count)
    if new:
        return t("Created {path} ({entries}).", path=label, entries=count)
    return t("Extended {path} ({entries}).", path=label, entries=count)


def _ignores_text(result: FixResult) -> str:
    text = t(
        "{suppressions} (`cudaport: ignore[...]`) for {findings} in {files}",
        suppressions=tn("{count} suppression", "{count} suppressions", result.ignores),
        findings=tn("{count} finding", "{count} findings", result.ignored),
        files=tn("{count} file", "{count} files", result.ignore_files),
    )
    if result.refused:
        count = len(result.refused)
        text += t(
            "; {findings} left without one (listed above)",
            findings=tn("{count} finding", "{count} findings", count),
        )
    return text


def _print_fixed(result: FixResult, style: FixStyle = FixStyle.RENAME) -> None:
    from ..model.words import difficulty_counts

    remaining = result.run.summary()
    left = difficulty_counts(remaining, [d for d in Difficulty if d > Difficulty.PORTABLE])
    # a mechanical finding left by a dual-stack fix has a rename but no form that builds for both
    renames = (
        t(" (the mechanical ones only as renames: --style rename)")
        if style is FixStyle.DUAL_STACK and remaining[Difficulty.MECHANICAL.label]
        else ""
    )
    print(
        t(
            "Fixed {findings} in {files}; left for a person: {left}{renames}.",
            findings=tn("{count} finding", "{count} findings", result.fixed),
            files=tn("{count} file", "{count} files", len(result.changed_files)),
            left=left,
            renames=renames,
        )
    )
