"""Messages a person reads, in the user's language.

Every sentence cudaport shows is written in English in the code or the rule data, and looked up, by that English
text, in the catalogues of the chosen language: gettext PO files under `rules/locale/<lang>/` (plain data shipped
in the wheel; `tools/extract_messages.py` writes the template `rules/locale/messages.pot`). Anything a catalogue
lacks stays English. Names of APIs, rule codes, difficulty names and machine keys are never translated.

In code: `t("{count} files fixed", count=n)` for a message, `N_("...")` to mark a constant that is translated where
it is shown (`t(CONSTANT)`), `t(text)` on prose from the rule data (the extractor lists it from the files). The
placeholders are `str.format` fields; a literal brace is doubled in the message. Chinese has no plural forms, so a
count is a placeholder: write `"{count} file(s)"`-free sentences that read right for any count, or `tn()`.

The language is one per process (a CLI run, a language server session): `set_language()` chooses it, before the
analysis, since findings carry their messages already written.

May import: resources (where the catalogues lie, the cache that keeps them compiled).
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable, Mapping
from pathlib import Path
from string import Formatter

from ..resources.paths import locale_dir

ENGLISH = "en"
CHINESE = "zh-CN"
LANGUAGES = (ENGLISH, CHINESE)
# What a user may type or a system may say, lower-cased with '_' as '-', to one of LANGUAGES. Traditional Chinese
# (zh-TW, zh-HK, zh-Hant) is not mapped: it gets English rather than a script its readers did not ask for.
_ALIASES = {
    "en": ENGLISH,
    "c": ENGLISH,
    "posix": ENGLISH,
    "zh": CHINESE,
    "zh-cn": CHINESE,
    "zh-sg": CHINESE,
    "zh-hans": CHINESE,
    "zh-hans-cn": CHINESE,
    "cn": CHINESE,
    "chinese": CHINESE,
}
# Where the language comes from when neither the command line nor the configuration says, in POSIX's order.
ENVIRONMENT = ("CUDAPORT_LANG", "LC_ALL", "LC_MESSAGES", "LANG")


class UnknownLanguage(ValueError):
    """A language asked for by name (--lang, `lang` in the configuration) that cudaport has no messages in."""


def normalize(tag: str | None) -> str | None:
    """A language tag or POSIX locale (`zh_CN.UTF-8`, `zh-Hans`, `en_US`, `C`) as one of LANGUAGES, or None."""
    if not tag:
        return None
    base = tag.split(".", 1)[0].split("@", 1)[0].strip().replace("_", "-").lower()
    if base in _ALIASES:
        return _ALIASES[base]
    if base.startswith("en-"):
        return ENGLISH
    return None


def choose(explicit: str | None = None, environ: Mapping[str, str] | None = None) -> str:
    """The language of a run: `explicit` (--lang, else `lang` from the configuration; an unknown one is an error),
    else the first of CUDAPORT_LANG, LC_ALL, LC_MESSAGES and LANG that is set (an unknown locale means English)."""
    if explicit:
        chosen = normalize(explicit)
        if chosen is None:
            raise UnknownLanguage(f"unknown language {explicit!r}: cudaport speaks {', '.join(LANGUAGES)}")
        return chosen
    env = os.environ if environ is None else environ
    for name in ENVIRONMENT:
        value = env.get(name)
        if value:
            return normalize(value) or ENGLISH
    return ENGLISH


# ---- catalogues ---------------------------------------------------------------------------------------------------
class CatalogueError(ValueError):
    """A PO file cudaport cannot read (a broken edit): the message says where."""


_ESCAPES = {"n": "\n", "t": "\t", '"': '"', "\\": "\\", "r": "\r"}


def _unquote(token: str, where: str) -> str:
    if len(token) < 2 or token[0] != '"' or token[-1] != '"':
        raise CatalogueError(f"{where}: expected a quoted string, found {token[:40]!r}")
    body = token[1:-1]
    return re.sub(r"\\(.)", lambda m: _ESCAPES.get(m.group(1), "\\" + m.group(1)), body)


def parse_po(text: str, where: str = "<po>") -> dict[str, str]:
    """The translated entries of a PO file: English msgid -> msgstr (msgstr[0] for a plural entry). Entries that
    are untranslated, fuzzy or obsolete are left out, so English shows for them. msgctxt is not used here."""
    entries: dict[str, str] = {}
    fields: dict[str, str] = {}
    current: str | None = None
    fuzzy = False

    def flush() -> None:
        nonlocal fields, current, fuzzy
        msgid = fields.get("msgid")
        msgstr = fields.get("msgstr", fields.get("msgstr[0]", ""))
        if msgid and msgstr and not fuzzy:
            entries[msgid] = msgstr
        fields, current, fuzzy = {}, None, False

    for number, raw in enumerate(text.splitlines(), 1):
        line = raw.strip()
        here = f"{where}:{number}"
        if not line:
            if fields:
                flush()
            continue
        if line.startswith("#~"):
            continue  # obsolete
        if line.startswith("#"):
            if line.startswith("#,") and "fuzzy" in line:
                if "msgstr" in fields or "msgstr[0]" in fields:
                    flush()
                fuzzy = True
            continue
        if line.startswith('"'):
            if current is None:
                raise CatalogueError(f"{here}: a continued string with no keyword before it")
            fields[current] += _unquote(line, here)
            continue
        keyword, _, rest = line.partition(" ")
        if keyword not in ("msgctxt", "msgid", "msgid_plural", "msgstr") and not re.fullmatch(
            r"msgstr\[\d+\]", keyword
        ):
            raise CatalogueError(f"{here}: unknown keyword {keyword!r}")
        if keyword in ("msgctxt", "msgid") and ("msgstr" in fields or "msgstr[0]" in fields):
            flush()  # a new entry with no blank line before it
        current = keyword
        fields[keyword] = _unquote(rest.strip(), here)
    if fields:
        flush()
    entries.pop("", None)  # the header entry
    return entries


def read_catalogue(language: str, directory: Path | None = None) -> dict[str, str]:
    """Every PO file of `language`, merged (the first file, by name, wins a msgid two files translate)."""
    folder = (directory or locale_dir()) / language
    merged: dict[str, str] = {}
    for path in sorted(folder.glob("*.po")):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError) as error:
            raise CatalogueError(f"{path}: {error}") from error
        for msgid, msgstr in parse_po(text, str(path)).items():
            merged.setdefault(msgid, msgstr)
    return merged


# ---- the active language ------------------------------------------------------------------------------------------
_language = ENGLISH
_catalogue: dict[str, str] = {}


def set_language(language: str) -> None:
    """Make `language` (one of LANGUAGES) the language of every message from now on."""
    global _language, _catalogue
    if language not in LANGUAGES:
        raise UnknownLanguage(f"unknown language {language!r}: cudaport speaks {', '.join(LANGUAGES)}")
    _catalogue = {} if language == ENGLISH else _compiled_catalogue(language)
    _language = language


def _compiled_catalogue(language: str) -> dict[str, str]:
    """The language's catalogues as the cache keeps them compiled (see resources.cache.cached_table)."""
    from ..resources import cache

    files = sorted((locale_dir() / language).glob("*.po"))
    return cache.cached_table(f"catalogue-{language}", files, lambda: read_catalogue(language))


def language() -> str:
    return _language


def t(message: str, /, **fields: object) -> str:
    """`message` in the active language, its {fields} filled in."""
    text = _catalogue.get(message, message) if _catalogue else message
    return text.format(**fields) if fields else text


def tn(one: str, other: str, count: int, /, **fields: object) -> str:
    """A message with a count: English picks `one` or `other`; the catalogue translates `one` (with msgid_plural
    `other`), for every count. `count` is a field too."""
    return plural(one, other, count).format(count=count, **fields)


def plural(one: str, other: str, count: int, /) -> str:
    """The template `tn` fills: `one` or `other` for `count`, in the active language (for a caller that writes
    the count its own way, such as the report's '1,234')."""
    message = one if count == 1 else other
    return _catalogue.get(one, message) if _catalogue else message


def N_(message: str) -> str:
    """Marks a constant for the extractor; translated where it is shown, with t()."""
    return message


def english(message: str, /, **fields: object) -> str:
    """The English of a message whatever the active language (SARIF's English beside the translation)."""
    return message.format(**fields) if fields else message


def placeholders(message: str) -> set[str]:
    """The {fields} of a message (a test compares a translation's with its English)."""
    try:
        return {name for _, name, _, _ in Formatter().parse(message) if name is not None}
    except ValueError:
        return {"<unbalanced brace>"}


def translated(messages: Iterable[str]) -> list[str]:
    """Each of `messages` in the active language (for lists of rule data)."""
    return [t(m) for m in messages]
