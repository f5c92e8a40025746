"""The command line: its parser in the active language, with the options each command takes, and the did-you-mean of
a misspelt option or choice."""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .. import __version__, i18n
from ..i18n import N_, t
from ..model.findings import Difficulty
from ..model.nearest import nearest
from . import argparse_i18n
from .common import EXIT_ERROR


class _Parser(argparse.ArgumentParser):
    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("allow_abbrev", False)  # `--statistic` is no `--statistics`: said, not guessed
        self._adding = False
        super().__init__(*args, **kwargs)

    # argparse makes a help formatter for every option it adds (to check the option's metavar), and a formatter
    # asks the terminal for its width, importing shutil first: a tenth of a one-file check's start. The check
    # needs no width; help and usage, made later, still ask.
    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        self._adding = True
        try:
            return super().add_argument(*args, **kwargs)
        finally:
            self._adding = False

    def add_subparsers(self, **kwargs: Any) -> Any:  # its formatter names the commands' program: no width needed
        self._adding = True
        try:
            return super().add_subparsers(**kwargs)
        finally:
            self._adding = False

    def _get_formatter(self) -> argparse.HelpFormatter:
        if self._adding:
            return argparse.HelpFormatter(prog=self.prog, width=80)
        return super()._get_formatter()

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
    close = nearest(word, known, n=3)
    if close:
        sys.stderr.write(t("cudaport: did you mean {names}?", names=t(" or ").join(close)) + "\n")


def unknown_arguments(parser: argparse.ArgumentParser, command: str, unknown: list[str]) -> None:
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
            "hip (AMD ROCm, Hygon DCU), npu (Huawei Ascend: CANN, torch_npu), mlu (Cambricon: CNToolkit, torch_mlu), "
            "maca (MetaX), corex (Iluvatar CoreX) or musa (Moore Threads), or an alias (rocm, dtk, ascend, "
            "cambricon, ...), with @release (hip@6.2); several comma-separated for check and report; default: from "
            "the configuration, else hip"
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
        "--force-exclude",
        action=argparse.BooleanOptionalAction,
        default=None,
        help=t("apply the excludes to files named on the command line too, as a pre-commit hook needs"),
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
    group.add_argument(
        "--no-cache", action="store_true", help=t("neither read nor write the results cache: analyse every file")
    )
    group.add_argument(
        "--cache-dir",
        type=Path,
        metavar="DIR",
        help=t(
            "where the results cache lives (default: $CUDAPORT_RESULTS_CACHE_DIR, else `cache-dir` of the "
            "configuration, else .cudaport_cache in the project's root)"
        ),
    )
    group.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help=t("also say on stderr what the results cache did (cache: N hits, M misses)"),
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


CHECK_FORMATS = ("full", "concise", "text", "json", "sarif", "github", "gitlab", "junit")


def _stdin_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--stdin-filename",
        metavar="PATH",
        help=t("with `-` as the path: the file the text on standard input stands for (its kind and configuration)"),
    )


def _paths_argument(parser: argparse.ArgumentParser, stdin: bool = False) -> None:
    shown = (
        t("files or directories (default: .); `-`: standard input") if stdin else t("files or directories (default: .)")
    )
    parser.add_argument("paths", nargs="*", default=["."], help=shown)


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
    _paths_argument(check, stdin=True)
    check.add_argument(
        "--format",
        "--output-format",
        dest="format",
        default="full",
        choices=CHECK_FORMATS,
        help=t(
            "full: each finding with its source line (the default); concise (or text): a line per finding; json, "
            "sarif, github, gitlab (Code Quality), junit"
        ),
    )
    check.add_argument("-o", "--output-file", type=Path, help=t("write the report here instead of stdout"))
    check.add_argument(
        "--statistics",
        nargs="?",
        const="rules",
        choices=("rules", "api"),
        help=t("counts per rule and per difficulty (rules, the default), or per API and what it becomes (api)"),
    )
    check.add_argument("-q", "--quiet", action="store_true", help=t("the findings only: no summary"))
    check.add_argument(
        "--show-files", action="store_true", help=t("list the files a check would read, with their kind, and exit")
    )
    check.add_argument(
        "--show-settings", action="store_true", help=t("show the settings a check would run with, and exit")
    )
    _stdin_option(check)
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
    _paths_argument(fix, stdin=True)
    fix.add_argument("--diff", action="store_true", help=t("print a unified diff instead of writing files"))
    fix.add_argument("-q", "--quiet", action="store_true", help=t("say nothing but errors"))
    _stdin_option(fix)
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


def subparser(parser: argparse.ArgumentParser, command: str | None) -> argparse.ArgumentParser:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and command in action.choices:
            chosen: argparse.ArgumentParser = action.choices[command]
            return chosen
    return parser
