"""The command line in Simplified Chinese: the language chosen (--lang, `lang` in the configuration, the
environment), the text, JSON, SARIF and GitHub outputs, `cudaport rule`, the fix summary, argparse's own words
and errors. Machine outputs keep their keys, codes and difficulty names in English."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from conftest import Cli, copy_fixtures, run_subprocess
from cudaport import i18n
from cudaport.engine.engine import Engine
from cudaport.knowledge.ruleset import load_ruleset
from cudaport.project.config import load_settings

CJK = re.compile(r"[\u4e00-\u9fff]")
DIFFICULTIES = ("portable", "mechanical", "manual", "blocker")
CHINESE_HEADINGS = ("## 规则说明", "## 为什么重要", "## 示例", "## 修复安全性")


@pytest.fixture(autouse=True)
def _english_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test starts from an environment that names no language but the C locale (English)."""
    for name in i18n.ENVIRONMENT:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("LANG", "C.UTF-8")


def _summary(out: str) -> str:
    return out.rstrip("\n").splitlines()[-1]


# ---- text and the language choice -------------------------------------------------------------------------------
def test_text_output_in_chinese_before_or_after_the_command(cli: Cli, workdir: Path) -> None:
    copy_fixtures(workdir, ["runtime_check.cu", "warp_reduce.cu"])
    before = cli("--lang", "zh-CN", "check", ".", cwd=workdir)
    after = cli("check", ".", "--lang", "zh-CN", cwd=workdir)
    assert before.code == after.code == 1
    assert before.out == after.out
    lines = before.out.splitlines()
    assert any(re.match(r"runtime_check\.cu:\d+:\d+: CP1001 \[可机械改写\] .* \(可修复\)$", line) for line in lines)
    assert any(" CP2001 [需人工修改] " in line for line in lines)
    assert "[mechanical]" not in before.out and "(fixable)" not in before.out
    assert _summary(before.out) == (
        "目标平台 hip：检查了 2 个文件，其中 2 个有发现项，共 66 个发现项（可直接运行 12 个，可机械改写 35 个，"
        "需人工修改 19 个，阻断 0 个）；35 个可用 `cudaport fix` 修复；"
        "12 个可直接运行的发现项未显示（--show-portable）。"
    )
    english = cli("check", ".", cwd=workdir)
    assert _summary(english.out).startswith("Found 66 findings in 2 of 2 files for hip (12 portable, 35 mechanical,")
    assert cli("check", ".", "--lang", "en", cwd=workdir).out == english.out
    assert i18n.language() == i18n.ENGLISH  # the run's language does not outlive it in this process


def test_statistics_in_chinese(cli: Cli, workdir: Path) -> None:
    copy_fixtures(workdir, ["runtime_check.cu"])
    out = cli("check", ".", "--statistics", "--lang", "zh-CN", cwd=workdir).out.splitlines()
    assert out[0] == "34  CP1001  cuda-runtime-api  (可机械改写 34 个)  [34 个可修复]"
    assert out[-2:] == ["按迁移难度：可直接运行 2，可机械改写 34，需人工修改 0，阻断 0", "扫描文件数：1；发现项数：36"]


def test_the_language_comes_from_lang_then_the_configuration_then_the_environment(
    cli: Cli, workdir: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy_fixtures(workdir, ["runtime_check.cu"])

    def language() -> str:
        summary = _summary(cli("check", "runtime_check.cu", cwd=workdir).out)
        return "zh-CN" if summary.startswith("目标平台") else "en" if summary.startswith("Found") else summary

    assert language() == "en"
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")  # a Chinese system and nothing else
    assert language() == "zh-CN"
    monkeypatch.setenv("CUDAPORT_LANG", "en")  # CUDAPORT_LANG beats the locale
    assert language() == "en"
    (workdir / "cudaport.toml").write_text('lang = "zh-CN"\n', encoding="utf-8")  # the configuration beats both
    assert language() == "zh-CN"
    summary = _summary(cli("check", "runtime_check.cu", "--lang", "en", cwd=workdir).out)  # --lang beats all
    assert summary.startswith("Found 36 findings")
    (workdir / "cudaport.toml").write_text('lang = "en"\n', encoding="utf-8")
    monkeypatch.setenv("CUDAPORT_LANG", "zh-CN")
    assert language() == "en"
    assert _summary(cli("--lang", "zh_CN", "check", "runtime_check.cu", cwd=workdir).out).startswith("目标平台")


def test_pyproject_lang_and_the_rule_command_follow_the_configuration(cli: Cli, workdir: Path) -> None:
    (workdir / "pyproject.toml").write_text('[tool.cudaport]\nlang = "zh"\n', encoding="utf-8")
    shown = cli("rule", "CP2001", cwd=workdir)
    assert shown.code == 0 and "## 规则说明" in shown.out
    assert "## What it does" in cli("rule", "CP2001", "--lang", "en", cwd=workdir).out


def test_chinese_from_the_locale_alone_in_the_real_command(workdir: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy_fixtures(workdir, ["runtime_check.cu"])
    monkeypatch.setenv("LANG", "zh_CN.UTF-8")
    result = run_subprocess("check", "runtime_check.cu", "--no-progress", cwd=workdir)
    assert result.code == 1
    assert _summary(result.out).startswith("目标平台 hip：检查了 1 个文件")
    missing = run_subprocess("check", "nowhere.cu", cwd=workdir)
    assert (missing.code, missing.err) == (2, "cudaport: 错误：nowhere.cu：文件或目录不存在\n")


# ---- errors -----------------------------------------------------------------------------------------------------
def test_an_unknown_language_is_a_usage_error(cli: Cli, workdir: Path) -> None:
    copy_fixtures(workdir, ["runtime_check.cu"])
    for args in (("--lang", "fr", "check", "."), ("check", ".", "--lang=klingon"), ("rule", "CP1001", "--lang", "")):
        result = cli(*args, cwd=workdir)
        assert result.code == 2 and result.out == ""
        assert result.err.startswith("usage: cudaport")
        assert re.search(
            r"cudaport: error: argument --lang: unknown language '.*': cudaport speaks en, zh-CN\n$", result.err
        )


@pytest.mark.parametrize(
    ("name", "text", "error"),
    [
        ("cudaport.toml", 'lang = "fr"\n', "cudaport.toml: 'lang' must be one of en, zh-CN, not 'fr'"),
        ("cudaport.toml", "lang = 2\n", "cudaport.toml: 'lang' must be one of en, zh-CN, not 2"),
        ("pyproject.toml", '[tool.cudaport]\nlang = "zh-TW"\n', "'tool.cudaport.lang' must be one of en, zh-CN"),
    ],
)
def test_an_unknown_language_in_the_configuration_is_an_error(
    cli: Cli, workdir: Path, name: str, text: str, error: str
) -> None:
    copy_fixtures(workdir, ["runtime_check.cu"])
    (workdir / name).write_text(text, encoding="utf-8")
    for command in (("check", "."), ("fix", "--diff", "."), ("rule", "CP1001")):
        result = cli(*command, cwd=workdir)
        assert result.code == 2, command
        assert result.out == ""
        assert error in result.err and result.err.startswith("cudaport: error: ")


def test_errors_and_argparse_in_chinese(cli: Cli, workdir: Path) -> None:
    copy_fixtures(workdir, ["runtime_check.cu"])
    bad = cli("--lang", "zh-CN", "check", ".", "--fail-on", "bogus", cwd=workdir)
    assert bad.code == 2
    assert bad.err.startswith("用法： cudaport check ")
    assert "cudaport: 错误：参数 --fail-on：无效的取值：'bogus'（可选：" in bad.err
    typo = cli("--lang", "zh-CN", "chek", ".", cwd=workdir)
    assert typo.code == 2 and typo.err.endswith("cudaport: 你要用的是不是 check？\n")  # the suggestion still works
    moved = cli("check", ".", "--fix", "--lang", "zh-CN", cwd=workdir)
    assert "cudaport: --fix 不是 `check` 的选项：`cudaport fix` 应用安全修复" in moved.err
    helped = cli("check", "--help", "--lang", "zh-CN", cwd=workdir)
    assert helped.code == 0
    assert "显示此帮助信息并退出" in helped.out and "选择与配置:" in helped.out
    assert "--lang {zh-CN,en}" in helped.out and "消息和输出的语言" in helped.out
    (workdir / "cudaport.toml").write_text('targte = "hip"\n', encoding="utf-8")
    config = cli("check", ".", "--lang", "zh-CN", cwd=workdir)
    assert config.code == 2
    assert (
        config.err.startswith("cudaport: 错误：")
        and "cudaport.toml：未知的配置项 'targte'；是否要用 'target'？（可用的有：" in config.err
    )
    unknown_rule = cli("rule", "CP1O01", "--lang", "zh-CN", cwd=workdir)
    assert unknown_rule.code == 2 and unknown_rule.err.startswith("cudaport: 错误：未知规则 'CP1O01'；")


# ---- machine outputs ---------------------------------------------------------------------------------------------
def _engine_messages(workdir: Path, names: list[str], language: str) -> list[str]:
    """What the engine itself says about the files in `language`, in the order check writes it."""
    i18n.set_language(language)
    try:
        engine = Engine(load_settings(start=workdir))
        out = []
        for name in names:
            findings, _ = engine.check_data((workdir / name).read_bytes(), "c", workdir / name)
            out += [f.message for f in sorted(findings, key=lambda f: (f.start, f.rule))]
        return out
    finally:
        i18n.set_language(i18n.ENGLISH)


def test_json_keeps_keys_codes_and_difficulties_in_english(cli: Cli, workdir: Path) -> None:
    copy_fixtures(workdir, ["runtime_check.cu", "warp_reduce.cu"])
    chinese = cli("check", ".", "--format", "json", "--lang", "zh-CN", cwd=workdir).json()
    english = cli("check", ".", "--format", "json", cwd=workdir).json()
    assert (
        list(chinese) == list(english) == ["version", "target", "files_scanned", "diagnostics", "summary", "excluded"]
    )
    assert chinese["summary"] == english["summary"] and set(chinese["summary"]) == set(DIFFICULTIES)
    assert len(chinese["diagnostics"]) == len(english["diagnostics"]) == 66
    for zh, en in zip(chinese["diagnostics"], english["diagnostics"], strict=True):
        assert list(zh) == list(en)
        assert {k: v for k, v in zh.items() if k != "message"} == {k: v for k, v in en.items() if k != "message"}
        assert zh["difficulty"] in DIFFICULTIES and zh["severity"] in ("hint", "information", "warning", "error")
    # the message is the engine's in the chosen language (as the analysis writes it, in the workers too)
    names = ["runtime_check.cu", "warp_reduce.cu"]
    assert [d["message"] for d in chinese["diagnostics"]] == _engine_messages(workdir, names, i18n.CHINESE)
    assert [d["message"] for d in english["diagnostics"]] == _engine_messages(workdir, names, i18n.ENGLISH)
    parallel = cli("check", ".", "--format", "json", "--lang", "zh-CN", "-j", "2", cwd=workdir).json()
    assert parallel == chinese


def _sarif_rules(document: dict[str, Any]) -> list[dict[str, Any]]:
    [run] = document["runs"]
    rules: list[dict[str, Any]] = run["tool"]["driver"]["rules"]
    return rules


def _check_sarif_structure(document: dict[str, Any]) -> None:
    """The parts of SARIF 2.1.0 this output uses, as the schema defines them."""
    assert document["version"] == "2.1.0"
    for run in document["runs"]:
        if "language" in run:
            assert re.fullmatch(r"[a-zA-Z]{2,8}(-[a-zA-Z0-9]{1,8})*", run["language"])  # RFC 5646
        for rule in run["tool"]["driver"]["rules"]:
            assert re.fullmatch(r"CP\d{4}", rule["id"])
            for key in ("shortDescription", "fullDescription"):  # multiformatMessageString: text required
                assert isinstance(rule[key]["text"], str) and rule[key]["text"]
            assert isinstance(rule["help"]["text"], str) and isinstance(rule["help"]["markdown"], str)
            assert rule["defaultConfiguration"]["level"] in ("none", "note", "warning", "error")
            assert isinstance(rule["properties"], dict)  # a property bag
            assert all(isinstance(tag, str) for tag in rule["properties"]["tags"])
        for result in run["results"]:
            assert result["level"] in ("none", "note", "warning", "error")
            assert isinstance(result["message"]["text"], str)
            assert run["tool"]["driver"]["rules"][result["ruleIndex"]]["id"] == result["ruleId"]


def test_sarif_descriptions_in_chinese_with_the_english_beside_them(cli: Cli, workdir: Path) -> None:
    copy_fixtures(workdir, ["runtime_check.cu", "warp_reduce.cu"])
    chinese = cli("check", ".", "--format", "sarif", "--lang", "zh-CN", cwd=workdir).json()
    english = cli("check", ".", "--format", "sarif", cwd=workdir).json()
    _check_sarif_structure(chinese)
    _check_sarif_structure(english)
    [zh_run], [en_run] = chinese["runs"], english["runs"]
    assert zh_run["language"] == "zh-CN" and "language" not in en_run  # absent: English (SARIF's default)
    ruleset = load_ruleset()
    for zh, en in zip(_sarif_rules(chinese), _sarif_rules(english), strict=True):
        assert (zh["id"], zh["name"], zh["helpUri"]) == (en["id"], en["name"], en["helpUri"])
        assert zh["defaultConfiguration"] == en["defaultConfiguration"]
        assert zh["properties"]["tags"] == en["properties"]["tags"]
        assert "english" not in en["properties"]
        original = {key: en[key] for key in ("shortDescription", "fullDescription", "help")}
        assert zh["properties"]["english"] == original
        rule = ruleset.rules[zh["id"]]
        assert (
            zh["shortDescription"]["text"]
            == cli("rule", rule.code, "--format", "json", "--lang", "zh-CN").json()["summary"]
        )
        for heading in CHINESE_HEADINGS:
            assert heading in zh["help"]["text"] and "#" + heading in zh["help"]["markdown"]
        assert "各目标平台的迁移难度（有对应项 / 无对应项）：" in zh["help"]["text"]
        assert "| 目标平台 | 有对应项 | 无对应项 |" in zh["help"]["markdown"]
        assert "## What it does" in en["help"]["text"] and "## 规则说明" not in en["help"]["text"]
    for zh, en in zip(zh_run["results"], en_run["results"], strict=True):
        assert (zh["ruleId"], zh["level"], zh["properties"]) == (en["ruleId"], en["level"], en["properties"])
        assert zh["properties"]["difficulty"] in DIFFICULTIES
    json_report = cli("check", ".", "--format", "json", "--lang", "zh-CN", cwd=workdir).json()
    assert [r["message"]["text"] for r in zh_run["results"]] == [d["message"] for d in json_report["diagnostics"]]


def test_github_annotations_in_chinese(cli: Cli, workdir: Path) -> None:
    copy_fixtures(workdir, ["runtime_check.cu", "warp_reduce.cu"])
    lines = cli("check", ".", "--format", "github", "--lang", "zh-CN", cwd=workdir).out.splitlines()
    english = cli("check", ".", "--format", "github", cwd=workdir).out.splitlines()
    assert len(lines) == len(english) > 40
    assert any(line.startswith("::notice ") and "title=cudaport CP1001 (可机械改写)::" in line for line in lines)
    assert any(line.startswith("::warning ") and "title=cudaport CP2001 (需人工修改)::" in line for line in lines)
    assert [line.split(" ", 1)[0] for line in lines] == [line.split(" ", 1)[0] for line in english]


# ---- cudaport rule ----------------------------------------------------------------------------------------------
def test_rule_in_chinese_with_english_prose_where_no_translation_exists(cli: Cli, workdir: Path) -> None:
    shown = cli("rule", "CP2001", "--lang", "zh-CN", cwd=workdir)
    assert shown.code == 0
    lines = shown.out.splitlines()
    assert lines[2].startswith("类别：")
    assert "各目标平台的迁移难度（有对应项 / 无对应项）：" in lines
    english = cli("rule", "CP2001", cwd=workdir).out.splitlines()
    words = {"portable": "可直接运行", "mechanical": "可机械改写", "manual": "需人工修改", "blocker": "阻断", "-": "-"}
    table = [line for line in english if re.match(r"  \w+: \S+ / \S+$", line)]
    assert len(table) == 6
    for line in table:  # the same table, the difficulties as words
        target, _, pair = line.strip().partition(": ")
        first, second = pair.split(" / ")
        assert f"  {target}: {words[first]} / {words[second]}" in lines
    for heading in CHINESE_HEADINGS:
        assert heading in lines
    rule = load_ruleset().rules["CP2001"]
    i18n.set_language(i18n.CHINESE)
    try:
        body = i18n.t(rule.docs.what)
    finally:
        i18n.set_language(i18n.ENGLISH)
    assert body in shown.out  # the rule data's prose as the catalogue gives it, English where it has none

    # A rule no catalogue knows: Chinese headings, its own English prose.
    (workdir / "extra.toml").write_text(
        '[[rule]]\ncode = "CP9901"\nname = "odd-api"\nsubject = "Odd API"\nsummary = "An odd API nobody ports"\n'
        'difficulty = { default = "manual" }\nunmapped = { default = "blocker" }\n'
        '[rule.docs]\nwhat = "Finds calls of the odd API."\nwhy = "It has no counterpart."\n'
        '[[symbol]]\nname = "oddApiCall"\nkind = "function"\nrule = "CP9901"\n',
        encoding="utf-8",
    )
    extra = cli("rule", "CP9901", "--extra-rules", "extra.toml", "--lang", "zh-CN", cwd=workdir)
    assert extra.code == 0, extra.err
    assert extra.out.startswith("CP9901 (odd-api): An odd API nobody ports\n\n类别：other\n")
    assert "## 规则说明\nFinds calls of the odd API.\n\n## 为什么重要\nIt has no counterpart.\n" in extra.out
    assert "  hip: 需人工修改 / 阻断" in extra.out.splitlines()


def test_rule_json_keeps_keys_and_gives_the_english(cli: Cli, workdir: Path) -> None:
    chinese = cli("rule", "CP1001", "--format", "json", "--lang", "zh-CN", cwd=workdir).json()
    english = cli("rule", "CP1001", "--format", "json", cwd=workdir).json()
    assert list(english) == ["code", "name", "summary", "difficulty", "unmapped", "docs"]
    assert list(chinese) == [*english, "english"]
    assert chinese["difficulty"] == english["difficulty"] and chinese["code"] == "CP1001"
    assert chinese["english"] == {"summary": english["summary"], "docs": english["docs"]}
    assert list(chinese["docs"]) == ["what", "why", "example", "fix"]


# ---- fix ---------------------------------------------------------------------------------------------------------
def test_fix_summaries_in_chinese(cli: Cli, workdir: Path) -> None:
    copy_fixtures(workdir, ["runtime_check.cu", "warp_reduce.cu"])
    diff = cli("fix", "--diff", ".", "--lang", "zh-CN", cwd=workdir)
    assert diff.err.splitlines()[-1] == "将修复 2 个文件中的 35 个发现项。"
    fixed = cli("fix", ".", "--lang", "zh-CN", cwd=workdir)
    assert (
        fixed.out == "已修复 2 个文件中的 35 个发现项；留待人工处理：可机械改写 0 个，需人工修改 19 个，阻断 0 个。\n"
    )
    added = cli("fix", ".", "--add-ignore", "--lang", "zh-CN", cwd=workdir)
    assert added.out.splitlines()[-1].startswith("已添加 ")
    assert "条抑制注释（`cudaport: ignore[...]`），覆盖 " in added.out


# ---- files: GBK, binary, worker processes ------------------------------------------------------------------------
def test_gbk_file_checks_as_in_english_and_workers_speak_chinese(cli: Cli, workdir: Path) -> None:
    source = "// 申请设备内存\nint f(float* p) {\n  cudaMalloc(&p, 64);  // 分配\n  return 0;\n}\n"
    (workdir / "legacy.cu").write_bytes(source.encode("gbk"))
    (workdir / "blob.cu").write_bytes(b"int x;\0\0\0\n")
    for index in range(3):
        (workdir / f"more{index}.cu").write_text("void g() { cudaFree(0); }\n", encoding="utf-8")
    before = (workdir / "legacy.cu").read_bytes()
    chinese = cli("check", ".", "--format", "json", "--lang", "zh-CN", "-j", "2", cwd=workdir)
    english = cli("check", ".", "--format", "json", "-j", "2", cwd=workdir)
    zh_rows = [{k: v for k, v in d.items() if k != "message"} for d in chinese.json()["diagnostics"]]
    en_rows = [{k: v for k, v in d.items() if k != "message"} for d in english.json()["diagnostics"]]
    assert zh_rows == en_rows
    gbk = [d for d in chinese.json()["diagnostics"] if d["path"] == "legacy.cu"]
    assert [(d["line"], d["column"], d["symbol"]) for d in gbk] == [(3, 3, "cudaMalloc")]
    assert (workdir / "legacy.cu").read_bytes() == before
    # the binary file is read in a worker process: its reason comes back in the run's language
    assert chinese.err == "cudaport: 已跳过 blob.cu：二进制文件（含有 NUL 字节）\n"
    assert english.err == "cudaport: skipped blob.cu: binary file (contains NUL bytes)\n"


def test_a_sarif_file_written_with_o_is_utf8_with_the_chinese_as_it_is(cli: Cli, workdir: Path) -> None:
    copy_fixtures(workdir, ["runtime_check.cu"])
    out = workdir / "out.sarif"
    cli("check", ".", "--format", "sarif", "--lang", "zh-CN", "-o", str(out), cwd=workdir)
    document = json.loads(out.read_text(encoding="utf-8"))
    assert CJK.search(json.dumps(document, ensure_ascii=False))
