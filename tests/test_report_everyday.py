"""`cudaport report` as a new user runs it on a tree of their own: `cudaport report .` in the project's folder, in
English and in Chinese, read beside ruff's and hipify-perl's output. The tree is written here (an image tool of our
own, big enough that its counts pass a thousand): its name, its sizes, its counts, its family names, its grouped
APIs, the shares behind a "partial", the lines behind a group and the labels of its charts must read right in the
HTML, the Markdown and the JSON alike."""

from __future__ import annotations

import base64
import html as html_module
import json
import os
import re
import subprocess
import sys
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Page

from test_report_browser import browser  # noqa: F401  (the browser fixture, Debian's Chromium)

TARGETS = "hip,npu"
EPOCH = "1700000000"
GENERATED = "2023-11-14T22:13:20Z"  # SOURCE_DATE_EPOCH above, as the report writes it
CJK = re.compile(r"[\u4e00-\u9fff]")
FORMATS = ("html", "md", "json")
LANGUAGES = ("en", "zh-CN")


# ---- the tree ---------------------------------------------------------------------------------------------------
def write_tree(root: Path) -> None:
    """lumen: a small image tool of our own. One file uploads its frames with a thousand and more copies, one
    smooths them with NPP (types, constants and calls), one refines a solve with cuSOLVER calls HIP has no
    counterpart for (and three it has) and plans FFTs partly with calls HIP has, beside a CMake build, a
    requirements file and a launch script."""
    src = root / "src"
    src.mkdir(parents=True)
    copies = "\n".join(f"  cudaMemcpy(frames[{i}], staging, bytes, cudaMemcpyHostToDevice);" for i in range(1100))
    (src / "frames.cu").write_text(
        "#include <cuda_runtime.h>\n\n"
        + "".join(
            f"__global__ void {name}(float* px, int n) {{\n"
            "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
            f"  if (i < n) px[i] *= {gain}f;\n"
            "}\n\n"
            for name, gain in (("brighten", 1.5), ("darken", 0.5), ("fade", 0.9))
        )
        + "void upload_all(float** frames, const float* staging, size_t bytes) {\n"
        f"{copies}\n"
        "  brighten<<<64, 256>>>(frames[0], 1024);\n"
        "  darken<<<64, 256>>>(frames[1], 1024);\n"
        "  fade<<<64, 256>>>(frames[2], 1024);\n"
        "}\n",
        encoding="utf-8",
    )
    (src / "filters.cpp").write_text(
        "#include <npp.h>\n\n"
        "int smooth(const Npp8u* in, Npp8u* out, int pitch, NppiSize box) {\n"
        "  Npp32f gain = 1.0f;\n"
        "  Npp8u* scratch = nppiMalloc_8u_C1(box.width, box.height, &pitch);\n"
        "  NppStatus status = nppiFilterBox_8u_C1R(in, pitch, out, pitch, box, box, NppiPoint{0, 0});\n"
        "  nppiFree(scratch);\n"
        "  return status == NPP_SUCCESS ? 0 : 1;\n"
        "}\n",
        encoding="utf-8",
    )
    solves = "\n".join(
        f"  cusolverDnCEgesv(h, n, 1, a{i}, n, piv, b, n, x, n, work, bytes, &iters, info);" for i in range(80)
    )
    (src / "solve.cu").write_text(
        "#include <cusolverDn.h>\n\nvoid refine(int n) {\n  cusolverDnHandle_t h;\n  cusolverDnCreate(&h);\n"
        f"{solves}\n}}\n\n"
        "void spectra(void** parts) {\n"
        + "".join(f"  cufftPlan1d(&plans[{i}], 256, CUFFT_C2C, 1);\n" for i in range(5))
        + "".join(f"  cufftXtMalloc(plans[{i}], &parts[{i}], CUFFT_XT_FORMAT_INPLACE);\n" for i in range(3))
        + "}\n",
        encoding="utf-8",
    )
    (root / "CMakeLists.txt").write_text(
        "cmake_minimum_required(VERSION 3.24)\nproject(lumen LANGUAGES CXX CUDA)\n"
        "find_package(CUDAToolkit REQUIRED)\nadd_executable(lumen src/frames.cu src/filters.cpp src/solve.cu)\n"
        "target_link_libraries(lumen CUDA::cudart CUDA::cusolver)\n",
        encoding="utf-8",
    )
    (root / "requirements.txt").write_text("numpy\ncupy-cuda12x\n", encoding="utf-8")
    (root / "run.sh").write_text("#!/bin/sh\nexport CUDA_VISIBLE_DEVICES=0\n./lumen\n", encoding="utf-8")


def cudaport(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SOURCE_DATE_EPOCH": EPOCH}
    result = subprocess.run(
        [sys.executable, "-m", "cudaport", *args],
        cwd=cwd,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=300,
    )
    assert result.returncode == 0, result.stderr
    return result


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("everyday") / "lumen"
    write_tree(root)
    return root


@pytest.fixture(scope="module")
def reports(tree: Path) -> dict[tuple[str, str], str]:
    """`cudaport report . --target hip,npu -o report.<fmt> [--lang zh-CN]`, run in the tree's folder."""
    out: dict[tuple[str, str], str] = {}
    for language in LANGUAGES:
        for fmt in FORMATS:
            path = tree.parent / f"report-{language}.{fmt}"
            cudaport("report", ".", "--target", TARGETS, "--lang", language, "-o", str(path), cwd=tree)
            out[language, fmt] = path.read_text(encoding="utf-8")
    return out


def visible(page: str) -> str:
    """What a reader of the page sees: its text and its tooltips, without the script, the style and the data."""
    page = re.sub(r"<(script|style)\b.*?</\1>", " ", page, flags=re.S)
    tips = " ".join(html_module.unescape(t) for t in re.findall(r'title="([^"]*)"', page))
    text = html_module.unescape(re.sub(r"<[^>]+>", " ", page))
    return f"{text} {tips}"


def flat(text: str) -> str:
    """Text without its blanks: what a page says, wherever its tags broke the lines."""
    return re.sub(r"\s+", "", text)


def without_code(text: str, fmt: str) -> str:
    """Prose only: code spans (names, paths, commands) and the generation time left out."""
    text = text.replace(GENERATED, " ")
    if fmt == "md":
        return re.sub(r"`[^`]*`", " ", text)
    return text


UNGROUPED = re.compile(r"(?<![\w.,/:-])\d{4,}(?![\w.,/:%-])")


# ---- 3: one way of writing a count ---------------------------------------------------------------------------------
@pytest.mark.parametrize("language", LANGUAGES)
def test_every_count_shown_is_grouped_by_thousands_and_json_numbers_are_numbers(
    reports: dict[tuple[str, str], str], language: str
) -> None:
    page = re.sub(r"<code\b[^>]*>.*?</code>", " ", reports[language, "html"], flags=re.S)
    shown = {"html": visible(page), "md": without_code(reports[language, "md"], "md")}
    for fmt, text in shown.items():
        assert UNGROUPED.findall(without_code(text, fmt)) == [], fmt
        assert "1,100" in text  # the thousand and more copies, as people write them
    doc = json.loads(reports[language, "json"])
    assert isinstance(doc["scanned"]["lines"], int) and doc["scanned"]["lines"] > 1000
    total = doc["verdicts"]["hip"]["findings"]["total"]
    assert isinstance(total, int) and total > 1000
    assert f"{total:,}" in reports[language, "md"] and f"{total:,}" in reports[language, "html"]
    assert any(f"{doc['verdicts']['hip']['fixable']:,}" in reason for reason in doc["verdicts"]["hip"]["reasons"])


# ---- 1: the project's name -----------------------------------------------------------------------------------------
@pytest.mark.parametrize("language", LANGUAGES)
def test_report_dot_is_named_after_its_folder(reports: dict[tuple[str, str], str], language: str) -> None:
    page, markdown = reports[language, "html"], reports[language, "md"]
    heading = "CUDA 迁移评估报告" if language == "zh-CN" else "CUDA migration assessment"
    colon = "：" if language == "zh-CN" else ": "
    assert f"<title>{heading} — lumen</title>" in page
    assert f"<h1>{heading}{colon}lumen</h1>" in page
    assert markdown.startswith(f"# {heading}{colon}`lumen`\n")
    doc = json.loads(reports[language, "json"])
    assert doc["name"] == "lumen" and doc["paths"] == ["."]  # the paths as given, the name as a person says it


def test_several_paths_are_named_by_their_names_joined(tree: Path) -> None:
    doc = json.loads(
        cudaport("report", "src", "./CMakeLists.txt", "--target", "hip", "--format", "json", cwd=tree).stdout
    )
    assert doc["name"] == "src, CMakeLists.txt"
    markdown = cudaport("report", "..", "--target", "hip", cwd=tree / "src").stdout
    assert markdown.startswith("# CUDA migration assessment: `lumen`\n")


# ---- 2: lines and files, each called what it is ----------------------------------------------------------------------
SCANNED = {
    "en": "Scanned {lines} lines in {files} files (C/C++/CUDA 3 files, CMake 1, pip requirements 1, shell script 1);",
    "zh-CN": "共扫描 {files} 个文件，{lines} 行（C/C++/CUDA 3 个文件，CMake 1 个，pip 依赖清单 1 个，"
    "Shell 脚本 1 个）；",
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_the_scan_says_lines_for_lines_and_files_for_files(reports: dict[tuple[str, str], str], language: str) -> None:
    doc = json.loads(reports[language, "json"])
    scanned = doc["scanned"]
    assert scanned["languages"] == {"c": 3, "cmake": 1, "requirements": 1, "shell": 1}  # files of each kind
    assert sum(scanned["languages"].values()) == scanned["files"] == 6
    sentence = SCANNED[language].format(lines=f"{scanned['lines']:,}", files=scanned["files"])
    assert sentence in reports[language, "md"]
    assert flat(sentence) in flat(visible(reports[language, "html"]))
    for text in (reports[language, "md"], visible(reports[language, "html"])):  # never the analyzers' ids
        assert not re.search(r"\bcmake 1|\bshell 1|(?<!pip )requirements 1", text)


# ---- 4: family names from the catalogue --------------------------------------------------------------------------
def test_every_family_in_the_chinese_report_comes_from_the_catalogue(reports: dict[tuple[str, str], str]) -> None:
    from cudaport import i18n
    from cudaport.knowledge.ruleset import load_ruleset

    rules = load_ruleset().rules
    catalogue = i18n.read_catalogue(i18n.CHINESE)
    doc = json.loads(reports["zh-CN", "json"])
    listed = [*doc["dependencies"], *doc["apis"], *doc["work"]]
    assert listed
    for item in listed:
        rule = rules[item["rule"]]
        english = rule.family or rule.subject
        assert item["family"] == catalogue.get(english, english), item["rule"]
        assert english in catalogue or not re.search(r"[a-z]{3,} [a-z]{3,}", english), english  # words translated
    families = {d["rule"]: d["family"] for d in doc["dependencies"]}
    assert families["CP8001"] != families["CP8002"]  # two CMake rules, two names
    # the routes' reasons name the families as the catalogue says them, never a rule's kebab-case id
    why = doc["verdicts"]["npu"]["route"]["why"]
    assert catalogue["kernel launch"] in why and catalogue["CUDA kernel"] in why
    named = {(rule.family or rule.subject).lower() for rule in rules.values()}
    ids = {rule.name.replace("-", " ") for rule in rules.values() if "-" in rule.name} - named
    for verdict in doc["verdicts"].values():
        for text in (*verdict["reasons"], verdict["route"]["why"]):
            assert not [name for name in ids if name in text.lower()], text


# ---- 5: a library's declarations under the library ------------------------------------------------------------------
NPP_DECLARED = {"Npp8u", "Npp32f", "NppiSize", "NppiPoint", "NppStatus", "NPP_SUCCESS", "npp.h"}
NPP_CALLED = {"nppiMalloc_8u_C1", "nppiFilterBox_8u_C1R", "nppiFree"}


@pytest.mark.parametrize("language", LANGUAGES)
def test_types_and_constants_are_one_row_under_their_library(
    reports: dict[tuple[str, str], str], language: str
) -> None:
    doc = json.loads(reports[language, "json"])
    npp = [w for w in doc["work"] if w["rule"] == "CP5005"]
    [declared] = [w for w in npp if w["declarations"]]
    assert set(declared["symbols"]) == NPP_DECLARED
    uses = {a["symbol"]: a["uses"] for a in doc["apis"] if a["rule"] == "CP5005"}
    assert declared["uses"] == sum(uses[name] for name in NPP_DECLARED)
    assert declared["symbols"][0] == "Npp8u"  # most used first
    assert {w["title"] for w in npp if not w["declarations"]} == NPP_CALLED  # the calls, each a row of its own
    assert all(w["symbols"] == [w["title"]] for w in doc["work"] if not w["declarations"] and not w["construct"])
    title = "NPP：类型、常量和头文件" if language == "zh-CN" else "NPP: types, constants and headers"
    assert declared["title"] == title
    # the row says how many names it stands for, and the first of them
    names = "7 个名称：" if language == "zh-CN" else "7 names: "
    markdown = reports[language, "md"]
    assert f"{title} — " in markdown and f"{names}`Npp8u`, " in markdown
    page = reports[language, "html"]
    row = re.search(r'<tr data-work="\d+" data-names="7">.*?</tr>', page, flags=re.S)
    assert row is not None and title in row.group() and f"{names}<code>Npp8u</code>" in row.group()


# ---- 6: what "partial" stands for --------------------------------------------------------------------------------
SHARES = {
    "en": ("none but 3 of 83 uses", "no counterpart but 3 of 83 uses (", "partial: {count} of {total} uses have one"),
    "zh-CN": (
        "无（83 处用法中仅 3 处例外）",
        "无对应项，83 处用法中仅 3 处例外（",
        "部分：{total} 处用法中有 {count} 处有对应项",
    ),
}


@pytest.mark.parametrize("language", LANGUAGES)
def test_a_partial_counterpart_says_its_share_and_a_small_one_reads_as_none(
    reports: dict[tuple[str, str], str], language: str
) -> None:
    doc = json.loads(reports[language, "json"])
    deps = {d["rule"]: d["targets"]["hip"] for d in doc["dependencies"]}
    solver, fft = deps["CP1014"], deps["CP1012"]
    # cuSOLVER: 3 of 83 uses have a HIP counterpart, under 5%: the words say none and name the three
    assert (solver["status"], solver["reads"], solver["with_counterpart"]) == ("partial", "none", 3)
    assert solver["share"] == round(3 / 83, 4)
    assert solver["exceptions"] == {"cusolverDnCreate": 1, "cusolverDnHandle_t": 1, "cusolverDn.h": 1}
    # cuFFT: 13 of its 16 uses have one (the plans and their constants), the three XT allocations have none
    assert (fft["status"], fft["reads"], fft["with_counterpart"]) == ("partial", "partial", 13)
    assert fft["exceptions"] == {"cufftXtMalloc": 3}
    short, words, partial = SHARES[language]
    partial = partial.format(count=fft["with_counterpart"], total=fft["uses"]["total"])
    markdown, page = reports[language, "md"], reports[language, "html"]
    for text in (markdown.replace("\\", ""), visible(page)):
        assert short in text and words in text and "cusolverDnCreate" in text.split(words, 1)[1][:120]
    cell = re.search(
        r'<td class="status-none" data-target="hip" data-status="partial" data-reads="none"[^>]*>([^<]*)', page
    )
    assert cell is not None and cell.group(1) == short
    assert f">{partial}</td>" in page and f"| {partial} |" in markdown


# ---- 7: the lines of a group, with their code ------------------------------------------------------------------------
@pytest.fixture
def opened(
    browser: BrowserContext,  # noqa: F811
    reports: dict[tuple[str, str], str],
    tree: Path,
    request: pytest.FixtureRequest,
) -> Iterator[tuple[Page, list[str]]]:
    """The HTML report in `request.param`'s language, open in the browser."""
    path = tree.parent / f"opened-{request.param}.html"
    path.write_text(reports[request.param, "html"], encoding="utf-8")
    page = browser.new_page()
    problems: list[str] = []
    page.on("console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None)
    page.on("pageerror", lambda e: problems.append(str(e)))
    page.goto(path.as_uri(), wait_until="load")
    try:
        yield page, problems
    finally:
        page.close()


def open_lines(page: Page, report: str, rule: str, title: str) -> None:
    """Open the work list's row of `title` of `rule` (found in the JSON `report`), then its first file."""
    work = json.loads(report)["work"]
    index = next(i for i, w in enumerate(work) if (w["rule"], w["title"]) == (rule, title))
    page.locator(f"#work-apis tr[data-work='{index}'] button.expand").click()
    page.wait_for_selector("#work-apis table.work-files")
    page.locator("#work-apis table.work-files button.expand").first.click()
    page.wait_for_selector("#work-apis table.lines")


LINES = """
() => ({
  groups: Array.from(document.querySelectorAll('#work-apis table.lines tr.why-group')).map(r => r.textContent),
  rows: Array.from(document.querySelectorAll('#work-apis table.lines tr[data-line]')).map(r => ({
    line: Number(r.dataset.line), name: r.dataset.name, code: r.cells[1].textContent,
    mark: (r.querySelector('td.code mark') || {}).textContent})),
  uses: Array.from(document.querySelectorAll('#work-apis table.work-files tbody td.num')).map(c => c.textContent),
})
"""


@pytest.mark.parametrize("opened", LANGUAGES, indirect=True)
def test_a_groups_lines_show_their_code_under_one_message(
    opened: tuple[Page, list[str]], tree: Path, reports: dict[tuple[str, str], str]
) -> None:
    page, problems = opened
    language = page.evaluate("document.documentElement.lang")
    chinese = language == "zh-CN"
    open_lines(page, reports[language, "json"], "CP1001", "cudaMemcpy")
    shown = page.evaluate(LINES)
    source = (tree / "src" / "frames.cu").read_text(encoding="utf-8").splitlines()
    assert len(shown["rows"]) == 1100
    for row in shown["rows"]:  # each line's own code, trimmed, the name it is about set off in it
        assert row["code"] == source[row["line"] - 1].strip() and row["mark"] == row["name"] == "cudaMemcpy"
    # the message once, for all 1,100 lines, each target's: the same lines are not told the same thing 1,100 times
    [group] = shown["groups"]
    assert group.count("cudaMemcpy") == 2 and "hipMemcpy" in group
    assert ("1,100 行" if chinese else "1,100 lines") in group
    assert shown["uses"][0] == "1,100"  # and the script writes its counts as the page does
    assert problems == []


@pytest.mark.parametrize("opened", ["en"], indirect=True)
def test_lines_about_several_names_share_one_message(
    opened: tuple[Page, list[str]], reports: dict[tuple[str, str], str]
) -> None:
    """Three kernels' launches tell the same thing: one message, the name in it left to each line."""
    page, problems = opened
    open_lines(page, reports["en", "json"], "CP1031", "`kernel<<<grid, block, shared, stream>>>(...)` launches")
    shown = page.evaluate(LINES)
    assert [(r["mark"], r["code"]) for r in shown["rows"]] == [
        ("brighten", "brighten<<<64, 256>>>(frames[0], 1024);"),
        ("darken", "darken<<<64, 256>>>(frames[1], 1024);"),
        ("fade", "fade<<<64, 256>>>(frames[2], 1024);"),
    ]
    [group] = shown["groups"]
    assert "…" in group and "brighten" not in group and "3 lines" in group
    assert problems == []


def details_of(page: str) -> dict[str, Any]:
    """The page's embedded details block, inflated as its script inflates it."""
    block = re.search(r'<script type="application/octet-stream" id="report-details">([^<]*)</script>', page)
    assert block is not None
    return json.loads(zlib.decompress(base64.b64decode(block.group(1))))


def test_a_notebook_line_shows_the_code_of_its_cell(tmp_path: Path) -> None:
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None}
    notebook = {
        "cells": [{**cell, "source": ["import torch\n", "x = torch.ones(4).cuda()  # to the card\n"]}],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    (tmp_path / "nb").mkdir()
    (tmp_path / "nb" / "try.ipynb").write_text(json.dumps(notebook, indent=1), encoding="utf-8")
    page = cudaport("report", "nb", "--target", "npu", "--format", "html", cwd=tmp_path).stdout
    details = details_of(page)
    texts = [details["strings"][row[5]] for rows in details["rows"] for row in rows if row[5] >= 0]
    assert texts and all(text.strip() == "x = torch.ones(4).cuda()  # to the card" for text in texts)


# ---- 8: chart labels that fit ----------------------------------------------------------------------------------------
LABELS = """
() => Array.from(document.querySelectorAll('svg.chart')).flatMap(svg => {
  const bars = Math.min(...Array.from(svg.querySelectorAll('g.bar rect')).map(r => r.getBBox().x));
  return Array.from(svg.querySelectorAll('text.group-label, text.bar-label')).map(text => {
    const box = text.getBBox();
    const tip = text.querySelector('title');
    return {chart: svg.id, kind: text.getAttribute('class'), shown: text.lastChild.textContent,
            full: tip ? tip.textContent : text.lastChild.textContent, left: box.x, right: box.x + box.width, bars};
  });
})
"""


@pytest.mark.parametrize("opened", LANGUAGES, indirect=True)
def test_chart_labels_are_whole_and_inside_their_column(
    opened: tuple[Page, list[str]], reports: dict[tuple[str, str], str]
) -> None:
    page, problems = opened
    page.evaluate("document.fonts.ready")
    language = page.evaluate("document.documentElement.lang")
    labels = page.evaluate(LABELS)
    targets = [t["label"] for t in json.loads(reports[language, "json"])["targets"]]  # "Ascend NPU", "昇腾 NPU"
    shown = {label["shown"] for label in labels if label["chart"] == "chart-targets"}
    assert set(targets) <= shown  # the targets' names whole, never "昇腾 NP…"
    for label in labels:
        assert label["left"] >= 0, label  # nothing cut at the chart's left edge
        assert label["right"] <= label["bars"] + 0.5, label  # nor running into the bars
        assert label["shown"] == label["full"] or label["shown"].endswith("…") or "/…/" in label["shown"]
    assert all(label["shown"] == label["full"] for label in labels if len(label["full"]) <= 12)
    assert problems == []
