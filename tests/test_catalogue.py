"""The message catalogues: the template lists every message the code and the rule data show, and the Chinese
catalogue translates each of them with the same placeholders, nothing missing and nothing left over."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cudaport import i18n

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tools"))

import extract_messages  # noqa: E402

LOCALE = ROOT / "rules" / "locale"


@pytest.fixture(scope="module")
def extraction() -> extract_messages.Extraction:
    return extract_messages.extract()


def test_the_template_is_current_and_every_message_is_a_literal(extraction: extract_messages.Extraction) -> None:
    assert extraction.errors == []
    result = subprocess.run(
        [sys.executable, str(ROOT / "tools" / "extract_messages.py"), "--check"], capture_output=True, text=True
    )
    assert result.returncode == 0, result.stderr
    assert len(extraction.messages) > 500  # the code's messages and the rule data's prose


def test_nothing_is_missing_in_chinese(extraction: extract_messages.Extraction) -> None:
    missing = extract_messages.missing(extraction, i18n.CHINESE)
    listed = "\n".join(f"{m.references[0]}: {m.msgid[:90]!r}" for m in missing)
    assert not missing, f"{len(missing)} messages have no Chinese:\n{listed}"


def test_translations_keep_the_placeholders(extraction: extract_messages.Extraction) -> None:
    catalogue = i18n.read_catalogue(i18n.CHINESE, LOCALE)
    wrong = [
        f"{msgid[:70]!r}: {sorted(i18n.placeholders(msgid))} vs {sorted(i18n.placeholders(text))}"
        for msgid, text in catalogue.items()
        if i18n.placeholders(msgid) != i18n.placeholders(text)
    ]
    assert not wrong, "\n".join(wrong)


def test_no_translation_is_left_over_or_given_twice(extraction: extract_messages.Extraction) -> None:
    seen: dict[str, tuple[str, str]] = {}
    twice, stale = [], []
    for path in sorted((LOCALE / i18n.CHINESE).glob("*.po")):
        for msgid, text in i18n.parse_po(path.read_text(encoding="utf-8"), str(path)).items():
            if msgid not in extraction.messages:
                stale.append(f"{path.name}: {msgid[:80]!r}")
            if msgid in seen and seen[msgid][1] != text:
                twice.append(f"{path.name} and {seen[msgid][0]}: {msgid[:80]!r}")
            seen.setdefault(msgid, (path.name, text))
    assert not stale, "translations of messages nothing shows any more:\n" + "\n".join(stale)
    assert not twice, "translated differently in two files:\n" + "\n".join(twice)


def test_a_source_can_read_a_key_only_in_some_tables(tmp_path: Path) -> None:
    rules = tmp_path / "rules"
    (rules / "locale" / "sources").mkdir(parents=True)
    (rules / "locale" / "sources" / "areas.toml").write_text(
        '[[toml]]\nfiles = "data.toml"\ntables = ["area"]\nkeys = ["name"]\n', encoding="utf-8"
    )
    (rules / "data.toml").write_text(
        '[[area]]\nname = "hand-written kernels"\n\n[[rule]]\ncode = "CP1"\nname = "kebab-id"\n', encoding="utf-8"
    )
    extraction = extract_messages.Extraction()
    extract_messages.from_data(extraction, rules)
    assert {m.msgid: m.references for m in extraction.messages.values()} == {
        "hand-written kernels": ["rules/data.toml:area[0].name"]
    }


def test_the_area_names_are_prose_and_the_rule_names_are_not(extraction: extract_messages.Extraction) -> None:
    assert "rules/rules.toml:area[3].name" in extraction.messages["hand-written kernels"].references
    assert "cuda-runtime-api" not in extraction.messages


def test_the_catalogue_reader() -> None:
    text = """# header
msgid ""
msgstr "Content-Type: text/plain; charset=UTF-8\\n"

#: somewhere
msgid "{count} files"
msgstr "{count} 个文件"

#, fuzzy
msgid "Fuzzy"
msgstr "模糊"

msgid ""
"two\\n"
"lines"
msgstr "两\\n行"

msgid "untranslated"
msgstr ""

#~ msgid "gone"
#~ msgstr "已删除"
"""
    assert i18n.parse_po(text) == {"{count} files": "{count} 个文件", "two\nlines": "两\n行"}
    with pytest.raises(i18n.CatalogueError, match=":2:"):
        i18n.parse_po('msgid "x"\nmsgstr "unterminated\n')


@pytest.mark.parametrize(
    ("environ", "expected"),
    [
        ({"LANG": "zh_CN.UTF-8"}, "zh-CN"),
        ({"LC_ALL": "C", "LANG": "zh_CN.UTF-8"}, "en"),
        ({"CUDAPORT_LANG": "zh-CN", "LC_ALL": "en_US.UTF-8"}, "zh-CN"),
        ({"LC_MESSAGES": "zh_SG", "LANG": "en_GB"}, "zh-CN"),
        ({"LANG": "de_DE.UTF-8"}, "en"),
        ({"LANG": "zh_TW.UTF-8"}, "en"),
        ({}, "en"),
    ],
)
def test_the_language_from_the_environment(environ: dict[str, str], expected: str) -> None:
    assert i18n.choose(None, environ) == expected


def test_an_explicit_language_wins_and_an_unknown_one_is_an_error() -> None:
    assert i18n.choose("zh-cn", {"LANG": "en_US"}) == "zh-CN"
    assert i18n.choose("en", {"CUDAPORT_LANG": "zh-CN"}) == "en"
    with pytest.raises(i18n.UnknownLanguage, match="fr"):
        i18n.choose("fr", {})
