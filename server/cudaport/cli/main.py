"""The `cudaport` command: check, fix, report, rule, serve.

Exit codes: 0 nothing at or above --fail-on, 1 findings (or, for `fix --diff`, changes to make),
2 usage, configuration or internal error."""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import difflib
import json
import os
import re
import stat
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, TextIO

from .. import __version__, i18n
from ..i18n import N_, t, tn
from ..knowledge.ruleset import RuleDataError, RuleSet, load_ruleset
from ..model.findings import Difficulty, FixStyle
from ..model.results import RunTotals
from ..project.config import ConfigError, Settings, configured_language, load_settings
from . import argparse_i18n
from .progress import ProgressBar
from .ruledoc import all_rules_markdown, rule_markdown, rule_text

if TYPE_CHECKING:
    from ..rewrite.batch import FixResult

EXIT_OK, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
EXIT_BROKEN_PIPE = 128 + 13  # as a process SIGPIPE ended: the output was cut short by its reader


class UsageError(Exception):
    pass


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> Any:  # argparse exits with 2 too; keep its message format
        self.print_usage(sys.stderr)
        sys.stderr.write(t("cudaport: error: {message}", message=message) + "\n")
        # argparse's words (translated like ours): "argument X: invalid choice: 'w' (choose from ...)"
        choice = re.search(argparse_i18n.invalid_choice_pattern(), message)
        if choice is not None:
            known = [c.strip(" '") for c in choice.group(2).split(",")]
            _suggest(choice.group(1), known)
        raise SystemExit(EXIT_ERROR)


# Options users bring from other tools, and where cudaport has what they meant.
_ELSEWHERE = {
    ("check", "--fix"): N_("`cudaport fix` applies the safe fixes (`cudaport fix --diff` shows them first)"),
    ("check", "--diff"): N_("`cudaport fix --diff` shows the rewrites"),
    ("check", "--unsafe-fixes"): N_("`cudaport fix --unsafe-fixes` applies the fixes that need review"),
    ("fix", "--statistics"): N_("`cudaport check --statistics` counts the findings per rule"),
    ("fix", "--format"): N_("`cudaport check --format json|sarif|github` writes the findings for tools"),
}


def _suggest(word: str, known: Sequence[str]) -> None:
    close = difflib.get_close_matches(word, list(known), n=3, cutoff=0.6)
    # only those nearly as close as the closest (`--targt`: --target, not --lang as well)
    ratio = {c: difflib.SequenceMatcher(None, word, c).ratio() for c in close}
    close = [c for c in close if ratio[c] >= ratio[close[0]] - 0.15] if close else close
    if close:
        sys.stderr.write(t("cudaport: did you mean {names}?", names=t(" or ").join(close)) + "\n")


def _unknown_arguments(parser: argparse.ArgumentParser, command: str, unknown: list[str]) -> None:
    """argparse's "unrecognized arguments", with where the option lives or what it was probably meant to be."""
    parser.print_usage(sys.stderr)
    sys.stderr.write(
        t("cudaport: error: {message}", message=t("unrecognized arguments: %s") % " ".join(unknown)) + "\n"
    )
    options = [o for action in parser._actions for o in action.option_strings]
    for word in unknown:
        name = word.split("=", 1)[0]
        if not name.startswith("-"):
            continue
        elsewhere = _ELSEWHERE.get((command, name))
        if elsewhere is not None:
            sys.stderr.write(
                t(
                    "cudaport: {option} is not a `{command}` option: {instead}",
                    option=name,
                    command=command,
                    instead=t(elsewhere),
                )
                + "\n"
            )
        else:
            _suggest(name, options)
    raise SystemExit(EXIT_ERROR)


def _selection_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group(t("selection and configuration"))
    group.add_argument(
        "--target",
        help=t(
            "hip (AMD ROCm, Hygon DCU), npu (Huawei Ascend: CANN, torch_npu) or mlu (Cambricon: CNToolkit, "
            "torch_mlu), or an alias (rocm, dtk, ascend, cambricon, ...); default: from the configuration, else hip"
        ),
    )
    group.add_argument("--config", type=Path, help=t("use this cudaport.toml or pyproject.toml"))
    group.add_argument("--select", help=t("comma-separated rule codes or prefixes to enable (e.g. CP1,CP20)"))
    group.add_argument("--extend-select", help=t("codes or prefixes to enable on top of the configuration"))
    group.add_argument("--ignore", help=t("comma-separated rule codes or prefixes to disable"))
    group.add_argument("--exclude", help=t("comma-separated globs replacing the default excludes"))
    group.add_argument("--extend-exclude", help=t("comma-separated globs to exclude on top of the configuration"))
    group.add_argument(
        "--respect-gitignore",
        action=argparse.BooleanOptionalAction,
        default=None,
        help=t("leave out the files .gitignore, .ignore and .git/info/exclude ignore (default: on)"),
    )
    group.add_argument(
        "--extra-rules",
        action="append",
        default=[],
        metavar="FILE",
        help=t("an extra rule file (.toml or .csv); may be repeated"),
    )
    group.add_argument(
        "-j", "--jobs", type=int, default=0, help=t("worker processes (default: automatic; 1 = single process)")
    )


def _language_option(parser: argparse.ArgumentParser) -> None:
    """--lang, before the command or after it (the same dest, never defaulted: the command's parser would otherwise
    overwrite what was given before the command)."""
    parser.add_argument(
        "--lang",
        type=_language_argument,
        default=argparse.SUPPRESS,
        metavar="{zh-CN,en}",
        help=t(
            "the language of messages and output (default: `lang` in the configuration, else CUDAPORT_LANG, "
            "LC_ALL, LC_MESSAGES, LANG)"
        ),
    )


def _language_argument(value: str) -> str:
    chosen = i18n.normalize(value)
    if chosen is None:
        raise argparse.ArgumentTypeError(
            t("unknown language {value}: cudaport speaks {known}", value=repr(value), known=", ".join(i18n.LANGUAGES))
        )
    return chosen


def _no_progress_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--no-progress", action="store_true", help=t("no progress bar, even on a terminal"))


def _paths_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("paths", nargs="*", default=["."], help=t("files or directories (default: .)"))


def build_parser() -> argparse.ArgumentParser:
    """The command line, its help in the active language (build it after choosing the language)."""
    argparse_i18n.install()
    parser = _Parser(prog="cudaport", description=t("Find, rate and rewrite CUDA dependencies."))
    parser.add_argument(
        "--version",
        action="version",
        version=f"cudaport {__version__}",
        help=t("show program's version number and exit"),
    )
    _language_option(parser)
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)

    check = sub.add_parser("check", help=t("report CUDA dependencies with their migration difficulty"))
    _paths_argument(check)
    check.add_argument(
        "--format", "--output-format", dest="format", default="text", choices=("text", "json", "github", "sarif")
    )
    check.add_argument("-o", "--output-file", type=Path, help=t("write the report here instead of stdout"))
    check.add_argument("--statistics", action="store_true", help=t("counts per rule and per difficulty"))
    check.add_argument(
        "--fail-on",
        choices=[d.label for d in Difficulty] + ["never"],
        help=t("lowest difficulty that makes the exit code 1 (default: mechanical)"),
    )
    check.add_argument("--exit-zero", action="store_true", help=t("exit 0 even when there are findings"))
    check.add_argument("--show-portable", action="store_true", help=t("list portable findings in text output"))
    check.add_argument("--color", choices=("auto", "always", "never"), default="auto")
    _no_progress_option(check)
    _language_option(check)
    _selection_options(check)

    fix = sub.add_parser("fix", help=t("apply the safe rewrites in place (or show them with --diff)"))
    _paths_argument(fix)
    fix.add_argument("--diff", action="store_true", help=t("print a unified diff instead of writing files"))
    fix.add_argument("--unsafe-fixes", action="store_true", help=t("also apply fixes that need review"))
    fix.add_argument(
        "--style",
        choices=("rename", "dual-stack"),
        help=t(
            "rename: CUDA names become the target's (the default); dual-stack: the code keeps them and a generated "
            "portability header (C/C++/CUDA) or helper module (Python) makes the same tree build for CUDA and the "
            "target"
        ),
    )
    fix.add_argument(
        "--fail-on",
        choices=[d.label for d in Difficulty] + ["never"],
        help=t("lowest difficulty left after fixing that makes the exit code 1"),
    )
    _no_progress_option(fix)
    fix.add_argument(
        "--add-ignore",
        action="store_true",
        help=t(
            "after fixing, add a `cudaport: ignore[CODE]` comment for each finding left at or above --fail-on "
            "(default mechanical; --fail-on portable: every finding), in each file's comment syntax"
        ),
    )
    fix.add_argument(
        "--output-dir",
        type=Path,
        metavar="DIR",
        help=t(
            "write the fixed tree under DIR (laid out as under the current directory) and leave the original as it is"
        ),
    )
    _language_option(fix)
    _selection_options(fix)

    report = sub.add_parser(
        "report",
        help=t("migration assessment: how much runs unchanged, what a tool rewrites, what a person redoes, per target"),
        description=t(
            "Assess a port: the verdict per target, where the work is, what the code depends on, and what "
            "to verify afterwards. --target takes several targets, comma-separated (hip,npu,mlu)."
        ),
    )
    _paths_argument(report)
    report.add_argument(
        "--format",
        choices=("html", "md", "markdown", "json"),
        help=t("html, md or json (default: from the -o suffix, else md)"),
    )
    report.add_argument("-o", "--output-file", type=Path, help=t("write the report here (.html, .md or .json)"))
    _no_progress_option(report)
    _language_option(report)
    _selection_options(report)

    rule = sub.add_parser("rule", help=t("explain a rule: what, why, example, fix safety"))
    rule.add_argument("code", nargs="?", help=t("a rule code such as CP1001"))
    rule.add_argument("--all", action="store_true", help=t("every rule"))
    rule.add_argument("--format", choices=("text", "markdown", "json"), default="text")
    rule.add_argument("--extra-rules", action="append", type=Path, metavar="FILE", help=t("rule files to load too"))
    _language_option(rule)

    serve = sub.add_parser("serve", help=t("run the language server (LSP over stdio)"))
    serve.add_argument("--stdio", action="store_true", help=t("speak LSP over stdin/stdout (the default)"))
    serve.add_argument("--tcp", metavar="HOST:PORT", help=t("listen on a loopback TCP port instead (debugging)"))
    serve.add_argument("--log-file", type=Path, help=t("also write the server log here"))
    _language_option(serve)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else list(argv)
    before = i18n.language()
    try:
        code = _main(arguments)
    except BrokenPipeError:
        # The reader went away (`cudaport check src | head`): stop quietly, as a tool killed by SIGPIPE does, and
        # let nothing flush into the closed pipe on the way out.
        with contextlib.suppress(OSError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        code = EXIT_BROKEN_PIPE
    finally:
        _set_language(before)  # in-process callers (tests, tools) get back the language they had
    if argv is None:  # the `cudaport` command itself (tests call main with their arguments)
        _exit_at_once(code)
    return code


def _exit_at_once(code: int) -> None:
    """End the process without the interpreter's teardown, which frees every object one at a time: a sixth of a
    one-file check. Everything has been written and closed by now (output files, worker pools, the rule cache);
    the language server, which logs to files, exits the ordinary way."""
    if "cudaport.lsp.stdio" in sys.modules or "cudaport.lsp.server" in sys.modules:
        return
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # a closed pipe: let the ordinary exit say so
        return
    os._exit(code)


def _main(argv: Sequence[str]) -> int:
    _warned.clear()  # once per run (in-process callers run several)
    # argparse's words, and errors before the configuration is read, in the language of --lang or the environment
    _set_language(i18n.choose(_language_given(argv)))
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        _unknown_arguments(_subparser(parser, args.command), args.command or "", unknown)
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_ERROR
    try:
        if args.command == "check":
            return _check(args)
        if args.command == "fix":
            return _fix(args)
        if args.command == "report":
            return _report(args)
        if args.command == "rule":
            return _rule(args)
        if args.command == "serve":
            return _serve(args)
    except (ConfigError, RuleDataError, UsageError) as exc:
        print(t("cudaport: error: {message}", message=exc), file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:
        print(t("cudaport: interrupted"), file=sys.stderr)
        return EXIT_ERROR
    parser.print_help(sys.stderr)
    return EXIT_ERROR


def _language_given(argv: Sequence[str]) -> str | None:
    """The language --lang names (the last one, as argparse takes it), looked for before argparse runs so that its
    own help and errors are in it; a value that names no language is left for argparse to reject."""
    given = None
    for position, word in enumerate(argv):
        if word == "--":
            break
        if word == "--lang" and position + 1 < len(argv):
            given = argv[position + 1]
        elif word.startswith("--lang="):
            given = word.partition("=")[2]
    return given if i18n.normalize(given) is not None else None


def use_language(args: argparse.Namespace, settings: Settings | None) -> None:
    """The run's language, before anything is analysed: --lang, else `lang` in the configuration, else the
    environment (CUDAPORT_LANG, LC_ALL, LC_MESSAGES, LANG)."""
    explicit = getattr(args, "lang", None) or (settings.lang if settings is not None else None)
    _set_language(i18n.choose(explicit))


def _set_language(language: str) -> None:
    if language != i18n.language():  # reading a language's catalogues is not free: once per run
        i18n.set_language(language)


def _subparser(parser: argparse.ArgumentParser, command: str | None) -> argparse.ArgumentParser:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and command in action.choices:
            chosen: argparse.ArgumentParser = action.choices[command]
            return chosen
    return parser


@contextlib.contextmanager
def _progress(args: argparse.Namespace, label: str) -> Iterator[ProgressBar]:
    """A progress bar on stderr while a large tree is processed, when stderr is a terminal (never in pipes, files
    or CI logs), erased when done."""
    bar = ProgressBar(sys.stderr, label, enabled=False if args.no_progress else None)
    try:
        yield bar
    finally:
        bar.close()


def _existing(paths: Sequence[str]) -> None:
    """Paths none of which exists are a usage error, said once before anything runs (no summary of nothing). With
    some that exist, those are checked and each missing one is an error of the run (exit code 2)."""
    if paths and not any(Path(p).exists() for p in paths):
        raise UsageError(t("{paths}: no such file or directory", paths=", ".join(paths)))


# ---- settings from the command line ------------------------------------------------------------------------------
def _split(value: str | None) -> list[str] | None:
    if value is None:
        return None
    return [part.strip() for part in value.split(",") if part.strip()]


def settings_from_args(args: argparse.Namespace) -> Settings:
    overrides: dict[str, Any] = {}
    if args.target:
        overrides["target"] = args.target
    for key, attr in (
        ("select", "select"),
        ("extend-select", "extend_select"),
        ("ignore", "ignore"),
        ("exclude", "exclude"),
        ("extend-exclude", "extend_exclude"),
    ):
        value = _split(getattr(args, attr, None))
        if value is not None:
            overrides[key] = value
    if getattr(args, "respect_gitignore", None) is not None:
        overrides["respect-gitignore"] = args.respect_gitignore
    if args.extra_rules:
        overrides["extra-rules"] = [str(Path(p).resolve()) for p in args.extra_rules]
    if getattr(args, "fail_on", None) and args.fail_on != "never":
        overrides["fail-on"] = args.fail_on
    if getattr(args, "style", None):
        overrides["fix-style"] = args.style
    start = Path(args.paths[0]) if getattr(args, "paths", None) else Path.cwd()
    if args.config is not None and not args.config.is_file():
        raise ConfigError(t("{path}: configuration file not found", path=args.config))
    settings = load_settings(start=start if start.exists() else Path.cwd(), config=args.config, overrides=overrides)
    use_language(args, settings)
    for warning in settings.warnings:
        _warn(warning)
    load_ruleset(settings.extra_rules)  # fail early, with the file name, on broken extra rule files
    return settings


_warned: set[str] = set()


def _warn(message: str) -> None:
    """A warning on stderr, once per run (the configuration and --target may say the same)."""
    if message not in _warned:
        _warned.add(message)
        print(t("cudaport: warning: {message}", message=message), file=sys.stderr)


def _exit_code(totals: RunTotals, fail_on: Difficulty | None) -> int:
    if totals.errors:
        return EXIT_ERROR
    if fail_on is None:
        return EXIT_OK
    return EXIT_FINDINGS if totals.any_at_or_above(fail_on) else EXIT_OK


def _report_skips(totals: Sequence[RunTotals]) -> None:
    """Skipped files (the same for every target) and errors (each target's, named when there are several)."""
    for label, reason in totals[0].skipped:
        print(t("cudaport: skipped {path}: {reason}", path=label, reason=reason), file=sys.stderr)
    for each in totals:
        for label, reason in each.errors:
            where = f"{label} ({each.target})" if len(totals) > 1 else label
            print(t("cudaport: error in {path}: {reason}", path=where, reason=reason), file=sys.stderr)


def _use_color(choice: str, stream: TextIO) -> bool:
    if choice == "always":
        return True
    if choice == "never" or os.environ.get("NO_COLOR"):
        return False
    return stream.isatty()


@contextlib.contextmanager
def _output(args: argparse.Namespace) -> Iterator[TextIO]:
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


# ---- commands -------------------------------------------------------------------------------------------------
def _check(args: argparse.Namespace) -> int:
    """Each file's findings are written as the run reaches them (JSON and SARIF through a spool, see
    output.formats) and dropped: memory follows the largest file, not the tree. `--target hip,npu` reads the
    files once and rates them for each target."""
    from ..engine import runner
    from .formats import CheckOutput

    _existing(args.paths)
    settings, targets = _target_settings(args, _split(args.target) or [])
    ruleset = load_ruleset(settings.extra_rules).pinned(settings.versions)
    with _progress(args, t("Checking")) as progress:
        scan = runner.scan(args.paths, settings, targets, jobs=args.jobs, progress=progress)
        totals = scan.totals()
        with _output(args) as out:
            color = args.output_file is None and _use_color(args.color, out)
            output = CheckOutput(out, args.format, targets, ruleset, args.statistics, args.show_portable, color)
            # lines written to the terminal the bar is drawn on erase it first (it comes back on the next file)
            shared = output.streams and progress.enabled and args.output_file is None and _is_tty(out)
            try:
                for result in scan:
                    totals[result.target].add(result)
                    if shared and result.diagnostics:
                        progress.hide()
                    output.add(result)
                progress.hide()
                _report_skips(list(totals.values()))
                output.finish(totals)
            finally:
                output.close()
    runs = [totals[t] for t in targets]
    if args.exit_zero or args.fail_on == "never":
        return EXIT_ERROR if any(run.errors for run in runs) else EXIT_OK
    return max(_exit_code(run, settings.fail_on) for run in runs)


def _is_tty(stream: TextIO) -> bool:
    try:
        return stream.isatty()
    except (AttributeError, ValueError):
        return False


def _fix(args: argparse.Namespace) -> int:
    from ..rewrite import batch
    from ..rewrite.dualstack import OutsidePaths
    from ..rewrite.outtree import OutputTree, OutputTreeError

    _existing(args.paths)
    settings = settings_from_args(args)
    output = None
    if args.output_dir is not None:
        if args.diff:
            raise UsageError(t("--diff shows the fixes and writes nothing: give it or --output-dir, not both"))
        try:
            output = OutputTree(args.paths, args.output_dir)
        except OutputTreeError as exc:
            raise UsageError(str(exc)) from None
    with _progress(args, t("Fixing")) as progress:

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
    _report_skips([result.run])
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
    return _exit_code(result.run, settings.fail_on)  # --diff too: what would be left decides, as after a fix


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


def _target_settings(args: argparse.Namespace, specs: list[str]) -> tuple[Settings, list[str]]:
    """The settings and targets for `--target hip@5.2,npu` (check and report): the configuration is resolved
    (and checked) as for the first target, and each target's release pins its version."""
    args.target = specs[0] if specs else None
    settings = settings_from_args(args)
    targets, versions = _report_targets(specs, load_ruleset(settings.extra_rules))
    if versions:
        settings = dataclasses.replace(settings, versions={**settings.versions, **versions})
    return settings, targets or [settings.target]


def _report_targets(specs: list[str], ruleset: RuleSet) -> tuple[list[str], dict[str, str]]:
    """`hip@5.2`, `npu` -> (["hip", "npu"], {"hip": "5.2"})."""
    resolved: list[str] = []
    versions: dict[str, str] = {}
    for spec in specs:
        try:
            name, version, warning = ruleset.parse_target(spec)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        if warning:
            _warn(warning)
        resolved.append(name)
        if version:
            versions[name] = version
    return list(dict.fromkeys(resolved)), versions


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


def _report(args: argparse.Namespace) -> int:
    from ..report import assess, iter_render

    _existing(args.paths)
    specs = _split(args.target) or []
    fmt = _report_format(args)
    settings, targets = _target_settings(args, specs)
    ruleset = load_ruleset(settings.extra_rules).pinned(settings.versions)
    with _progress(args, t("Scanning")) as progress:
        report = assess(args.paths, settings, targets, ruleset, jobs=args.jobs, progress=progress)
    for problem in report.skipped:
        print(t("cudaport: skipped {path}: {reason}", path=problem.path, reason=problem.reason), file=sys.stderr)
    for problem in report.errors:
        where = f"{problem.path} ({problem.target})" if len(targets) > 1 and problem.target else problem.path
        print(t("cudaport: error in {path}: {reason}", path=where, reason=problem.reason), file=sys.stderr)
    with _output(args) as out:
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


def _rule(args: argparse.Namespace) -> int:
    if getattr(args, "lang", None) is None:
        configured = configured_language(Path.cwd())
        if configured is not None:
            _set_language(configured)
    ruleset = load_ruleset(args.extra_rules or ())
    targets = list(ruleset.targets)
    if args.all:
        if args.format == "markdown":
            sys.stdout.write(all_rules_markdown(ruleset))
        elif args.format == "json":
            print(json.dumps([_rule_json(r, targets) for r in ruleset.rules.values()], indent=2))
        else:
            for each in ruleset.rules.values():
                print(f"{each.code}  {each.name:28} {t(each.summary)}")
        return EXIT_OK
    if not args.code:
        raise UsageError(t("give a rule code (such as CP1001) or --all"))
    code = args.code.strip().upper()
    rule = ruleset.rules.get(code)
    if rule is None:
        by_name = {r.name: r for r in ruleset.rules.values()}
        rule = by_name.get(args.code.strip().lower())  # `cudaport rule cuda-runtime-api`, as ruff takes names
    if rule is None:
        close = [c for c in ruleset.rules if c.startswith(code)][:5]  # a code cut short: the rules it begins
        close = close or difflib.get_close_matches(code, list(ruleset.rules), n=3, cutoff=0.6)
        close += difflib.get_close_matches(args.code.strip().lower(), list(by_name), n=2, cutoff=0.6)
        hint = t("did you mean {names}? ", names=t(" or ").join(close)) if close else ""
        raise UsageError(
            t("unknown rule {code}; {hint}`cudaport rule --all` lists them", code=repr(args.code), hint=hint)
        )
    if args.format == "markdown":
        sys.stdout.write(rule_markdown(rule, targets))
    elif args.format == "json":
        print(json.dumps(_rule_json(rule, targets), indent=2))
    else:
        sys.stdout.write(rule_text(rule, targets))
    return EXIT_OK


def _rule_json(rule: Any, targets: list[str]) -> dict[str, Any]:
    """Keys, codes and difficulties in English; the prose in the active language, with the English beside it
    (`english`) when that is another."""
    docs = {"what": rule.docs.what, "why": rule.docs.why, "example": rule.docs.example, "fix": rule.docs.fix}
    out = {
        "code": rule.code,
        "name": rule.name,
        "summary": t(rule.summary),
        "difficulty": {name: rule.difficulty[name].label for name in targets if name in rule.difficulty},
        "unmapped": {name: rule.unmapped[name].label for name in targets if name in rule.unmapped},
        "docs": {key: t(text) if text else text for key, text in docs.items()},
    }
    if i18n.language() != i18n.ENGLISH:
        out["english"] = {"summary": rule.summary, "docs": docs}
    return out


def _serve(args: argparse.Namespace) -> int:
    if getattr(args, "lang", None):
        # the server chooses its language itself (its `lang` setting, else the client's locale, else the
        # environment): --lang speaks for the environment, for clients that send no locale
        os.environ["CUDAPORT_LANG"] = args.lang
    try:
        if args.tcp is not None:
            from ..lsp.server import run_tcp

            return int(run_tcp(args.tcp, log_file=args.log_file))
        from ..lsp.stdio import serve_stdio

        return int(serve_stdio(log_file=args.log_file))  # pygls is loaded once the first diagnostics are out
    except ImportError as exc:
        raise UsageError(t("the language server is not available: {error}", error=exc)) from exc


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
