"""argparse's own words (`usage:`, `options`, its errors) in the user's language.

argparse writes them through gettext (`_()` and `ngettext()` looked up in its module); pointing those two at our
catalogue translates them like every other message. The messages a user can meet are marked below so that the
extractor puts them in the template; argparse's complaints about a broken parser definition (a programming
error, never seen by a user) are left out and stay English. Each Python release words a few of them differently:
the list holds the wordings of 3.10 to 3.13.
"""

from __future__ import annotations

import argparse

from ..i18n import N_, t

MESSAGES = (
    N_("usage: "),
    N_("positional arguments"),
    N_("options"),
    N_("subcommands"),  # 3.13: the default title of a subparsers group
    N_("%(heading)s:"),  # 3.13: a section heading of --help
    N_("show this help message and exit"),
    N_("show program's version number and exit"),  # 3.13 (a plain English default before)
    N_(" (default: %(default)s)"),  # 3.12
    N_("%(prog)s: error: %(message)s\n"),
    N_("%(prog)s: warning: %(message)s\n"),  # 3.13
    N_("argument %(argument_name)s: %(message)s"),
    N_("ambiguous option: %(option)s could match %(matches)s"),
    N_("unrecognized arguments: %s"),
    N_("the following arguments are required: %s"),
    N_("one of the arguments %s is required"),
    N_("not allowed with argument %s"),
    N_("ignored explicit argument %r"),
    N_("expected one argument"),
    N_("expected at most one argument"),
    N_("expected at least one argument"),
    N_("expected %s argument"),  # ngettext, with "expected %s arguments"
    N_("invalid choice: %(value)r (choose from %(choices)s)"),
    N_("invalid %(type)s value: %(value)r"),
    N_("can't open '%(filename)s': %(error)s"),
    N_("unexpected option string: %s"),
    N_("unknown parser %(parser_name)r (choices: %(choices)s)"),
    N_("option '%(option)s' is deprecated"),  # 3.13
    N_("argument '%(argument_name)s' is deprecated"),  # 3.13
    N_("command '%(parser_name)s' is deprecated"),  # 3.13
)


def _gettext(message: str) -> str:
    return t(message)  # no fields: argparse fills its %-placeholders itself


def _ngettext(one: str, other: str, count: int) -> str:
    text = t(one)
    if text != one:
        return text  # Chinese has one form for every count
    return one if count == 1 else other


def install() -> None:
    """Make argparse look its words up in cudaport's catalogue (in the language active when it writes them).
    argparse only ever calls these two names, so English stays exactly argparse's own."""
    argparse._ = _gettext  # type: ignore[attr-defined]
    argparse.ngettext = _ngettext  # type: ignore[attr-defined]


def invalid_choice_pattern() -> str:
    """A regular expression for argparse's `invalid choice` error in the active language: group 1 is the word
    given, group 2 the choices, as argparse formats them."""
    import re

    template = t("invalid choice: %(value)r (choose from %(choices)s)")
    pattern = re.escape(template)
    pattern = pattern.replace(re.escape("%(value)r"), "'([^']*)'").replace(re.escape("%(choices)s"), "(.*)")
    return pattern
