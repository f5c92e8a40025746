"""The language of the server's messages: the `lang` setting (initializationOptions, workspace configuration), else
the client's `initialize` locale (LSP 3.16), else the environment, as the CLI reads it (i18n.choose). It is one per
process: set before the first analysis, and again (with every open document analysed anew, since findings carry
their messages) when the setting changes."""

from __future__ import annotations

import logging
import os
from collections.abc import Mapping

from .. import i18n
from ..i18n import N_
from ..model.records import record
from .logs import Said, said

log = logging.getLogger(__name__)


@record(frozen=True)
class Choice:
    language: str  # one of i18n.LANGUAGES
    source: str  # where it came from: "setting", "locale" or "environment"
    asked: str  # what that source said ("" for an environment that says nothing)


def choose(setting: str | None, locale: str | None, environ: Mapping[str, str] | None = None) -> Choice:
    """`setting`: the `lang` option ("" or None: follow the client); `locale`: initialize's. A tag cudaport has no
    messages in (a client in French or Japanese) means English, not the next source: the user's word stands."""
    if setting:
        return Choice(i18n.normalize(setting) or i18n.ENGLISH, "setting", setting)
    if locale:
        return Choice(i18n.normalize(locale) or i18n.ENGLISH, "locale", locale)
    env = os.environ if environ is None else environ
    said = next((env[name] for name in i18n.ENVIRONMENT if env.get(name)), "")
    return Choice(i18n.choose(None, env), "environment", said)


def describe(choice: Choice) -> Said:
    """A log line saying which language the server speaks and why (in that language)."""
    if choice.source == "setting":
        return said(
            N_("cudaport speaks {language}: the lang setting is '{asked}'"),
            language=choice.language,
            asked=choice.asked,
        )
    if choice.source == "locale":
        return said(
            N_("cudaport speaks {language}: the editor's locale is '{asked}'"),
            language=choice.language,
            asked=choice.asked,
        )
    return said(N_("cudaport speaks {language}, as the environment says"), language=choice.language)


def apply(setting: str | None, locale: str | None, starting: bool = False) -> Said | None:
    """Speak the language the `lang` setting, the client's locale or the environment asks for (one language per
    process); the log line that says so when it changed (always when `starting`). Called before any analysis,
    since findings carry their messages."""
    choice = choose(setting, locale)
    if not starting and choice.language == i18n.language():
        return None
    try:
        i18n.set_language(choice.language)
    except i18n.CatalogueError as exc:  # a broken catalogue must not stop the server: English it is
        log.error("%s", exc)
        i18n.set_language(i18n.ENGLISH)
    return describe(choice)
