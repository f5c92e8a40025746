"""The migration report in Simplified Chinese (issue 17): the HTML, Markdown and JSON report of a realistic project
(tests/fixtures/report_project) with the language set to zh-CN carry the same numbers as the English one, in
Chinese prose; JSON keys, ids, rule codes and difficulty names stay English; the HTML page says lang="zh-CN" and
its Chinese renders as glyphs in a real browser (Debian's Chromium with Noto CJK), never as boxes.

The language is one per process (`i18n.set_language`), so the reports are built in-process through the report API
(the English report of the same tree next to it); the CLI test runs `cudaport report` with CUDAPORT_LANG=zh-CN, as
a user with a Chinese environment would."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Page

from cudaport import i18n
from cudaport.knowledge import tomlcompat as tomllib
from cudaport.knowledge.ruleset import load_ruleset
from cudaport.project.config import load_settings
from cudaport.report import assess, render
from test_report_browser import ARTIFACTS, browser  # noqa: F401  (the browser fixture, Debian's Chromium)
from tooling import require_file

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = Path(__file__).parent / "fixtures"
PROJECT = "report_project"
TARGETS = ["hip", "npu", "mlu"]
CJK = re.compile(r"[\u4e00-\u9fff]")
NOTO_CJK = "/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc"

sys.path.insert(0, str(ROOT / "tools"))
import extract_messages  # noqa: E402


def build(language: str) -> dict[str, str]:
    """The report of the fixture project for TARGETS in `language`, in every format."""
    previous = i18n.language()
    cwd = Path.cwd()
    i18n.set_language(language)
    try:
        os.chdir(FIXTURES)
        settings = load_settings(FIXTURES / PROJECT)
        report = assess([PROJECT], settings, TARGETS, load_ruleset(), jobs=1)
        return {fmt: render(report, fmt) for fmt in ("html", "md", "json")}
    finally:
        os.chdir(cwd)
        i18n.set_language(previous)


@pytest.fixture(scope="module")
def reports(monkeypatch_module: pytest.MonkeyPatch) -> dict[str, dict[str, str]]:
    monkeypatch_module.setenv("SOURCE_DATE_EPOCH", "1700000000")
    return {"en": build(i18n.ENGLISH), "zh": build(i18n.CHINESE)}


@pytest.fixture(scope="module")
def monkeypatch_module() -> Iterator[pytest.MonkeyPatch]:
    with pytest.MonkeyPatch.context() as patch:
        yield patch


def markdown_rows(markdown: str) -> list[list[str]]:
    return [
        [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        for line in markdown.splitlines()
        if line.startswith("| ") and not line.startswith("|---")
    ]


# ---- the rule data's prose is in the catalogue template ----------------------------------------------------------
def _strings(value: Any) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for inner in value.values():
            yield from _strings(inner)
    elif isinstance(value, list):
        for inner in value:
            yield from _strings(inner)


def test_every_text_of_the_report_s_rule_data_is_extracted() -> None:
    """What the report shows of rules/effort.toml, routes.toml, verification.toml and rules.toml's areas is in the
    template (rules/locale/sources/report.toml lists its keys; a text per target, such as a check's `detail.musa`,
    must not be missed when a target is added), and the Chinese catalogue has every one."""
    rules = ROOT / "rules"
    effort = tomllib.loads((rules / "effort.toml").read_text(encoding="utf-8"))
    routes = tomllib.loads((rules / "routes.toml").read_text(encoding="utf-8"))
    checks = tomllib.loads((rules / "verification.toml").read_text(encoding="utf-8"))
    areas = tomllib.loads((rules / "rules.toml").read_text(encoding="utf-8"))["area"]
    shown = [k[key] for k in effort["kind"] for key in ("name", "about")]
    shown += [r[key] for r in routes["route"] for key in ("name", "about")]
    shown += [text for r in routes["route"] for text in r.get("languages", {}).values()]
    shown += [c[key] for c in checks["check"] for key in ("title", "check", "threshold", "why") if key in c]
    shown += [text for c in checks["check"] for text in _strings(c.get("detail", {}))]
    shown += [a[key] for a in areas for key in ("name", "about")]
    extracted = extract_messages.extract().messages
    assert [text for text in shown if text not in extracted] == []
    chinese = i18n.read_catalogue(i18n.CHINESE)
    assert [text for text in shown if text not in chinese] == []


# ---- Markdown -----------------------------------------------------------------------------------------------------
def test_markdown_in_chinese_carries_the_numbers_of_the_english(reports: dict[str, dict[str, str]]) -> None:
    english, chinese = reports["en"]["md"], reports["zh"]["md"]
    for heading in ("# CUDA 迁移评估报告：`report_project`", "## 概要", "## 工作量", "## 迁移路线", "## 工作量分布",
                    "## 代码依赖", "## 迁移后需验证的事项", "## 扫描详情", "### 按文件夹", "### 按 API"):  # fmt: skip
        assert heading in chinese.splitlines(), heading
    for english_only in ("## Summary", "person-days", "Cheapest target", " because", "findings in all", "Why:"):
        assert english_only not in chinese
    # every table has the same shape and the same numbers: only the words differ
    en_rows, zh_rows = markdown_rows(english), markdown_rows(chinese)
    assert len(en_rows) == len(zh_rows)
    digits = re.compile(r"\d+(?:[.,]\d+)*")
    for en_row, zh_row in zip(en_rows, zh_rows, strict=True):
        assert len(en_row) == len(zh_row)
        assert [digits.findall(c) for c in en_row[1:]] == [digits.findall(c) for c in zh_row[1:]], en_row
    # the verdict and its reasons, as a team lead hands them on
    assert "**结论** | **大幅改动** | **大幅改动** | **大幅改动** |" in chinese
    assert re.search(r"^\*\*HIP：大幅改动\*\*，依据如下$", chinese, re.M)
    assert re.search(r"^- 估算 [\d.]+–[\d.]+ 人日，每千行 [\d.]+ 人日（代码 \d+ 行，按 1,000 行计）$", chinese, re.M)
    assert re.search(
        r"^- \d+ 个文件中共有 \d+ 个阻断发现项：目标平台上没有对应项，这些部分需要重新设计$", chinese, re.M
    )
    assert re.search(r"^迁移成本最低的目标平台：HIP（大幅改动，[\d.–]+ 人日），其次是 .+。$", chinese, re.M)
    assert "### HIP：路线 B，算子重写" in chinese
    assert re.search(r"^原因：估算工作量的 \d+%（其余：.*）集中在 \d+ 个文件中，", chinese, re.M)
    assert "- **C，双栈共存**：" in chinese
    # the checklist and the effort kinds come from the rule data, in Chinese
    assert "- [ ] **FP32 数值一致性** — FP32：最大绝对误差 \\< 1e-5" in chinese
    assert "  _HIP：_两边都不开启 fast-math 编译选项；" in chinese
    assert "| 核函数 |" in chinese and "| API 调用 |" in chinese
    # API names, rule codes and paths are never translated
    for kept in ("`cudaMalloc`", "CP1001", "`report_project/src/kernels/reduce.cu`", "`cudaport fix`", "hipMalloc"):
        assert kept in chinese, kept


# ---- JSON ---------------------------------------------------------------------------------------------------------
def _shape(value: Any) -> Any:
    """Keys and machine values (ids, codes, numbers, difficulty and status names), the prose left out."""
    if isinstance(value, dict):
        return {k: _shape(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_shape(v) for v in value]
    return value if not isinstance(value, str) else None


def test_json_keeps_keys_and_codes_english_and_carries_the_prose_in_chinese(
    reports: dict[str, dict[str, str]],
) -> None:
    english, chinese = json.loads(reports["en"]["json"]), json.loads(reports["zh"]["json"])
    assert english["language"] == "en" and chinese["language"] == "zh-CN"
    english["language"] = chinese["language"] = None
    assert _shape(english) == _shape(chinese)  # the same keys, numbers and shape
    for en_verdict, zh_verdict in zip(english["verdicts"].values(), chinese["verdicts"].values(), strict=True):
        assert zh_verdict["verdict"] == en_verdict["verdict"]  # "major-change": an id
        assert zh_verdict["route"]["recommended"] == en_verdict["route"]["recommended"]
        assert all(CJK.search(reason) for reason in zh_verdict["reasons"])
        assert CJK.search(zh_verdict["route"]["why"])
    assert [level["id"] for level in chinese["scale"]["levels"]] == [
        level["id"] for level in english["scale"]["levels"]
    ]
    assert chinese["scale"]["levels"][3]["title"] == "大幅改动"
    assert chinese["routes"]["B"]["name"] == "算子重写"
    assert (
        chinese["verification"][0]["id"] == "numerics-fp32" and chinese["verification"][0]["title"] == "FP32 数值一致性"
    )
    # codes, difficulty and status names, kinds and areas by their English names
    assert chinese["dependencies"] == [
        {**dep, "summary": chinese_dep["summary"], "family": chinese_dep["family"], "targets": chinese_dep["targets"]}
        for dep, chinese_dep in zip(english["dependencies"], chinese["dependencies"], strict=True)
    ]
    for en_dep, zh_dep in zip(english["dependencies"], chinese["dependencies"], strict=True):
        for target in TARGETS:
            assert zh_dep["targets"][target]["status"] == en_dep["targets"][target]["status"]
    assert [k["name"] for k in chinese["effort"]["kinds"]] == [k["name"] for k in english["effort"]["kinds"]]
    assert [a["name"] for a in chinese["areas"]] == [a["name"] for a in english["areas"]]
    assert {f["difficulty"] for t in TARGETS for f in chinese["findings"][t]} <= {
        "portable",
        "mechanical",
        "manual",
        "blocker",
    }


# ---- HTML ---------------------------------------------------------------------------------------------------------
def test_html_says_its_language_and_sets_chinese_in_a_cjk_font(reports: dict[str, dict[str, str]]) -> None:
    english, chinese = reports["en"]["html"], reports["zh"]["html"]
    assert '<html lang="en">' in english
    assert '<html lang="zh-CN">' in chinese
    assert "<title>CUDA 迁移评估报告 — report_project</title>" in chinese
    assert "<h1>CUDA 迁移评估报告：report_project</h1>" in chinese and "<h2>概要</h2>" in chinese
    stack = re.search(r"html:lang\(zh\) body, html:lang\(zh\) button \{\s*font-family: ([^;]+);", chinese)
    assert stack, "no font stack for Chinese"
    families = stack.group(1)
    assert families.index('"Noto Sans CJK SC"') < families.index("system-ui")  # CJK first, not a late fallback
    for family in ('"Source Han Sans SC"', '"PingFang SC"', '"Microsoft YaHei"'):
        assert family in families
    words = json.loads(re.search(r'<script type="application/json" id="report-text">(.*?)</script>', chinese).group(1))
    assert words["file"] == "文件" and words["levels"][3] == "阻断"


@pytest.fixture(scope="module")
def chinese_page_file(reports: dict[str, dict[str, str]], tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("report-zh") / "report.html"
    path.write_text(reports["zh"]["html"], encoding="utf-8")
    return path


@pytest.fixture
def chinese_page(browser: BrowserContext, chinese_page_file: Path) -> Iterator[tuple[Page, list[str]]]:  # noqa: F811
    require_file(NOTO_CJK, "fonts-noto-cjk")  # what a Chinese reader's machine has
    page = browser.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.goto(chinese_page_file.as_uri(), wait_until="load")
    page.evaluate("document.fonts.ready")
    try:
        yield page, problems
    finally:
        page.close()


# Each Chinese character of the heading drawn alone in the heading's own font, and a code point no font has (the
# box a missing glyph is drawn as): the characters must each be a glyph of their own, none of them that box.
GLYPHS = """
(selector) => {
  const heading = document.querySelector(selector);
  const font = getComputedStyle(heading).font;
  const canvas = document.createElement('canvas');
  canvas.width = 64; canvas.height = 64;
  const context = canvas.getContext('2d', { willReadFrequently: true });
  const draw = (text) => {
    context.clearRect(0, 0, 64, 64);
    context.font = font.replace(/\\d+(\\.\\d+)?px/, '40px');
    context.fillStyle = '#000';
    context.textBaseline = 'top';
    context.fillText(text, 4, 8);
    const pixels = context.getImageData(0, 0, 64, 64).data;
    let inked = 0, signature = '';
    for (let i = 3; i < pixels.length; i += 4) { if (pixels[i] > 64) inked++; signature += pixels[i] > 64 ? '1' : '0'; }
    return { inked, signature, width: context.measureText(text).width };
  };
  const chars = Array.from(new Set(heading.textContent.match(/[\\u4e00-\\u9fff]/g)));
  return { font, missing: draw('\\u{10FFFD}'), glyphs: chars.map(c => ({ char: c, ...draw(c) })) };
}
"""


def test_chinese_renders_as_glyphs_in_the_browser(chinese_page: tuple[Page, list[str]]) -> None:
    page, problems = chinese_page
    page.wait_for_selector("svg#chart-targets")
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / "report-zh-CN.png"), full_page=False)
    # Chromium's own account of the fonts that drew the heading: a CJK face drew every Chinese character
    session = page.context.new_cdp_session(page)
    session.send("DOM.enable")
    session.send("CSS.enable")
    root = session.send("DOM.getDocument")["root"]["nodeId"]
    for selector in ("h1", "#summary > h2", "#summary p.cheapest", "#verdict-numbers tbody th"):
        node = session.send("DOM.querySelector", {"nodeId": root, "selector": selector})["nodeId"]
        text = page.inner_text(selector)
        fonts = session.send("CSS.getPlatformFontsForNode", {"nodeId": node})["fonts"]
        cjk = sum(f["glyphCount"] for f in fonts if re.search(r"CJK|Source Han|PingFang|YaHei|Hei", f["familyName"]))
        assert cjk >= len(CJK.findall(text)) > 0, (selector, text, fonts)
    # and the pixels: every character a glyph of its own, none the box of a missing one
    drawn = page.evaluate(GLYPHS, "h1")
    glyphs = drawn["glyphs"]
    assert len(glyphs) >= 6, drawn["font"]
    assert all(g["inked"] > 30 for g in glyphs)
    assert all(g["signature"] != drawn["missing"]["signature"] for g in glyphs)
    assert len({g["signature"] for g in glyphs}) == len(glyphs)  # boxes would all look alike
    assert problems == []


def test_the_page_s_script_writes_chinese_when_a_group_opens(chinese_page: tuple[Page, list[str]]) -> None:
    page, problems = chinese_page
    page.locator("#work-apis tr[data-work='0'] button.expand").click()
    page.wait_for_selector("#work-apis tr.detail table.work-files")
    assert page.evaluate(
        "Array.from(document.querySelectorAll('#work-apis table.work-files thead th')).slice(0, 2)"
        ".map(th => th.textContent)"
    ) == ["文件", "使用次数"]
    page.locator("#work-apis table.work-files button.expand").first.click()
    page.wait_for_selector("#work-apis table.lines")
    heads = page.evaluate(
        "Array.from(document.querySelectorAll('#work-apis table.lines thead th')).map(t => t.textContent)"
    )
    assert heads[:2] == ["行", "代码"]  # each line's code, under the message its group shares
    levels = page.evaluate(
        "Array.from(document.querySelectorAll('#work-apis table.lines td[data-target] span')).map(s => s.textContent)"
    )
    assert levels and set(levels) <= {"可直接运行", "可机械改写", "需人工修改", "阻断"}
    tip = page.get_attribute("#work-apis table.work-files td.tally", "title") or ""
    assert re.fullmatch(r".+：阻断 \d+，需人工修改 \d+，可机械改写 \d+，可直接运行 \d+", tip), tip
    assert problems == []


# ---- the command line ---------------------------------------------------------------------------------------------
def test_cudaport_report_follows_cudaport_lang(tmp_path: Path) -> None:
    """`cudaport report` in an environment that asks for Chinese writes the Chinese report (the CLI chooses the
    language from --lang, `lang` in the configuration, else CUDAPORT_LANG, LC_ALL, LC_MESSAGES, LANG)."""
    env = {**os.environ, "CUDAPORT_LANG": "zh-CN", "SOURCE_DATE_EPOCH": "1700000000"}
    for suffix in ("html", "md"):
        out = tmp_path / f"r.{suffix}"
        result = subprocess.run(
            [sys.executable, "-m", "cudaport", "report", PROJECT, "--target", "hip,npu", "-o", str(out)],
            cwd=FIXTURES,
            env=env,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert result.returncode == 0, result.stderr
    html = (tmp_path / "r.html").read_text(encoding="utf-8")
    assert '<html lang="zh-CN">' in html and "<h1>CUDA 迁移评估报告：report_project</h1>" in html
    assert (tmp_path / "r.md").read_text(encoding="utf-8").startswith("# CUDA 迁移评估报告：`report_project`\n")
