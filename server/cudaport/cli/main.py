"""The `cudaport` command: check, fix, report, rule, serve.

Exit codes: 0 nothing at or above --fail-on, 1 findings (or, for `fix --diff`, changes to make),
2 usage, configuration or internal error."""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence

# Only what every run needs is imported here: `cudaport --version` prints before anything else loads, and each
# command imports its own module (check never loads the report, the rewriting, the rule documentation or the
# language server); tests/test_import_budget.py holds each run to what it uses.


def main(argv: Sequence[str] | None = None) -> int:
    arguments = sys.argv[1:] if argv is None else list(argv)
    if arguments[:1] == ["--version"]:  # what argparse's version action prints, without building the parser
        from .. import __version__

        sys.stdout.write(f"cudaport {__version__}\n")
        sys.stdout.flush()
        return 0
    import contextlib

    from .. import i18n
    from .common import EXIT_BROKEN_PIPE, set_language

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
        set_language(before)  # in-process callers (tests, tools) get back the language they had
    if argv is None:  # the `cudaport` command itself (tests call main with their arguments)
        _exit_at_once(code)
    return code


def _exit_at_once(code: int) -> None:
    """End the process without the interpreter's teardown, which frees every object one at a time: a sixth of a
    one-file check. Everything has been written and closed by now (output files, worker pools, the rule cache);
    the language server, which logs to files, exits the ordinary way."""
    if "cudaport.lsp.stdio" in sys.modules or "cudaport.lsp.server" in sys.modules:
        return
    records = sys.modules.get("cudaport.model.records")
    if records is not None:
        records.save()  # what atexit would have written: the methods compiled by this run (model.records)
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):  # a closed pipe: let the ordinary exit say so
        return
    os._exit(code)


def _main(argv: Sequence[str]) -> int:
    from .. import i18n
    from ..i18n import t
    from ..project.config import ConfigError
    from ..resources.paths import RuleDataError
    from .common import EXIT_ERROR, UsageError, reset_warnings, set_language
    from .parser import build_parser, subparser, unknown_arguments

    reset_warnings()
    # argparse's words, and errors before the configuration is read, in the language of --lang or the environment
    set_language(i18n.choose(_language_given(argv)))
    parser = build_parser()
    args, unknown = parser.parse_known_args(argv)
    if unknown:
        unknown_arguments(subparser(parser, args.command), args.command or "", unknown)
    if args.command is None:
        parser.print_help(sys.stderr)
        return EXIT_ERROR
    try:
        if args.command == "check":
            from ..project.walking import listed_once
            from .check import check

            with listed_once():
                return check(args)
        if args.command == "fix":
            from .fix import fix

            return fix(args)
        if args.command == "report":
            from ..project.walking import listed_once
            from .report_command import report

            with listed_once():
                return report(args)
        if args.command == "rule":
            from .rule import rule

            return rule(args)
        if args.command == "serve":
            from .serve import serve

            return serve(args)
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
    from .. import i18n

    given = None
    for position, word in enumerate(argv):
        if word == "--":
            break
        if word == "--lang" and position + 1 < len(argv):
            given = argv[position + 1]
        elif word.startswith("--lang="):
            given = word.partition("=")[2]
    return given if i18n.normalize(given) is not None else None
