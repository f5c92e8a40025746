"""`cudaport fix`: the safe rewrites applied (in place, into --output-dir, or shown with --diff), and what is left."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from ..i18n import t, tn
from ..model.findings import Difficulty, FixStyle
from ..model.words import difficulty_word
from ..project.config import Settings

if TYPE_CHECKING:
    from ..rewrite.batch import FixResult
from .common import (
    EXIT_ERROR,
    EXIT_FINDINGS,
    EXIT_OK,
    UsageError,
    exit_code,
    progress_bar,
    report_skips,
    require_existing,
)
from .options import reads_stdin, results_cache, say_cache, settings_from_args, stdin_source


def fix(args: argparse.Namespace) -> int:
    from ..rewrite import batch
    from ..rewrite.dualstack import OutsidePaths
    from ..rewrite.outtree import OutputTree, OutputTreeError

    require_existing(args.paths)
    settings = settings_from_args(args)
    if reads_stdin(args):
        return _fix_stdin(args, settings)
    output = None
    if args.output_dir is not None:
        if args.diff:
            raise UsageError(t("--diff shows the fixes and writes nothing: give it or --output-dir, not both"))
        try:
            output = OutputTree(args.paths, args.output_dir)
        except OutputTreeError as exc:
            raise UsageError(str(exc)) from None
    cache = results_cache(args, settings)
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
                cache=cache,
            )
        except OutsidePaths as exc:
            raise UsageError(str(exc)) from None
    say_cache(args, cache)
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
    if args.quiet:
        pass
    elif args.diff:
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
            _print_output_dir(result, args.output_dir)
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


def _print_output_dir(result: FixResult, folder: Path) -> None:
    """Where --output-dir put the fixed files (a few of them named), the original left as it was."""
    written = [str(folder / label) for label in result.changed_files]
    shown = ", ".join(written[:3]) + (t(" and {count} more", count=len(written) - 3) if len(written) > 3 else "")
    print(t("The fixed tree is under {path}; the original is unchanged.", path=folder))
    if written:
        print(t("Written: {files}.", files=shown))


def _fix_stdin(args: argparse.Namespace, settings: Settings) -> int:
    """`cudaport fix - --stdin-filename kernel.cu`: the fixed text to standard output (a diff with --diff), what is
    left to standard error, as format-on-save and pre-commit hooks use it."""
    from ..engine import fixing
    from ..engine.engine import Engine
    from ..engine.runner import include_roots, locate
    from ..model.source import LineIndex
    from ..project.includes import ProjectIndex
    from ..rewrite.batch import unified_diff

    if args.output_dir is not None or args.add_ignore:
        raise UsageError(t("standard input is fixed to standard output: --output-dir and --add-ignore do not apply"))
    source_path, source = stdin_source(args)
    engine = Engine(settings)
    engine.project = ProjectIndex(engine.ruleset, include_roots([str(source_path.path.parent)], settings))
    plan = fixing.plan_fix(engine, source.data, source_path.language, source_path.path, args.unsafe_fixes)
    if args.diff:
        sys.stdout.write(unified_diff(source_path.label, source.data, plan.data))
    else:
        sys.stdout.buffer.write(source.encode(plan.data))
        sys.stdout.flush()
    remaining = locate(source_path.label, plan.remaining, LineIndex(plan.data))
    if not args.quiet:
        for diag in remaining:
            if diag.difficulty > Difficulty.PORTABLE:
                level = difficulty_word(diag.difficulty)
                print(
                    f"{diag.path}:{diag.line}:{diag.column}: {diag.rule} [{level}] {diag.finding.message}",
                    file=sys.stderr,
                )
    if args.fail_on == "never":
        return EXIT_OK
    threshold = settings.fail_on
    return EXIT_FINDINGS if any(d.difficulty >= threshold for d in remaining) else EXIT_OK
