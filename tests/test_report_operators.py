"""The report's operator coverage, as a user reads it: `cudaport report` on a small PyTorch project of our own for
Ascend (torch_npu: a call without a kernel falls back to the CPU), Moore Threads (torch_musa: it fails) and HIP
(PyTorch built from CUDA's kernels: nothing to list), in the JSON, the Markdown and the HTML opened in Chromium,
in English and in Chinese. Every count is checked against the tree written here, and against `cudaport check`."""

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

from test_report_browser import browser  # noqa: F401  (the browser fixture, Debian's Chromium)

TARGETS = "npu,musa,hip"
LANGUAGES = ("en", "zh-CN")
CJK = re.compile(r"[\u4e00-\u9fff]")

# A line of the tree and the API it calls that some plugin lacks (the `# <-` marks say which).
TRAIN = '''"""Training steps of a small count model."""

import torch
import torch.nn.functional as F


def nll(counts: torch.Tensor, rate: torch.Tensor) -> torch.Tensor:
    first = torch.lgamma(counts + 1)  # <- torch.lgamma
    second = torch.lgamma(rate)  # <- torch.lgamma
    return first - second


def smooth(guess: torch.Tensor, truth: torch.Tensor) -> torch.Tensor:
    return F.huber_loss(guess, truth)  # <- torch.nn.functional.huber_loss
'''
BESSEL = '''"""A prior with a Bessel function."""

import torch


def prior(rate: torch.Tensor) -> torch.Tensor:
    scale = torch.special.modified_bessel_i0(rate)  # <- torch.special.modified_bessel_i0
    table = torch.arange(5.0).lgamma()  # <- Tensor.lgamma (made on the CPU: runs there)
    again = torch.lgamma(rate * 2)  # <- torch.lgamma
    return scale + table.sum() + again
'''


def calls_in(root: Path) -> dict[str, dict[str, list[int]]]:
    """api -> path -> the lines that call it, from the tree's marks."""
    out: dict[str, dict[str, list[int]]] = {}
    for path in sorted(root.rglob("*.py")):
        label = path.relative_to(root).as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            mark = re.search(r"# <- (\S+)", line)
            if mark:
                out.setdefault(mark.group(1), {}).setdefault(label, []).append(number)
    return out


def cudaport(*args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "SOURCE_DATE_EPOCH": "1700000000"}
    result = subprocess.run(
        [sys.executable, "-m", "cudaport", *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=300
    )
    assert result.returncode in (0, 1), result.stderr
    return result


@pytest.fixture(scope="module")
def tree(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("operators") / "counts"
    (root / "model").mkdir(parents=True)
    (root / "model" / "train.py").write_text(TRAIN, encoding="utf-8")
    (root / "model" / "bessel.py").write_text(BESSEL, encoding="utf-8")
    return root


@pytest.fixture(scope="module")
def reports(tree: Path) -> dict[tuple[str, str], str]:
    out = {}
    for language in LANGUAGES:
        for fmt in ("json", "md", "html"):
            path = tree.parent / f"report-{language}.{fmt}"
            cudaport("report", ".", "--target", TARGETS, "--lang", language, "-o", str(path), cwd=tree)
            out[language, fmt] = path.read_text(encoding="utf-8")
    return out


# ---- the JSON ---------------------------------------------------------------------------------------------------
def test_json_lists_each_api_the_plugin_lacks_with_its_calls_and_lines(
    reports: dict[tuple[str, str], str], tree: Path
) -> None:
    doc = json.loads(reports["en", "json"])
    marks = calls_in(tree)
    operators = doc["operators"]
    assert list(operators) == ["npu", "musa", "hip"]
    npu, musa, hip = operators["npu"], operators["musa"], operators["hip"]
    assert npu["plugin"] == {
        "package": "torch_npu",
        "release": "2.14.0",
        "torch": "2.14.0",
        "missing": "cpu-fallback",
        "strict": "TORCH_NPU_FALLBACK_CPU_DISABLE=1",
    }
    gaps = {g["api"]: g for g in npu["gaps"]}
    assert set(gaps) == set(marks)  # every marked call, none else
    for api, gap in gaps.items():
        assert {w["path"]: w["lines"] for w in gap["where"]} == marks[api], api
        assert gap["calls"] == sum(len(lines) for lines in marks[api].values())
        assert gap["files"] == len(marks[api])
    assert gaps["torch.lgamma"]["operators"] == ["aten::lgamma"] and gaps["torch.lgamma"]["calls"] == 3
    assert (
        gaps["torch.lgamma"]["happens"] == "cpu-fallback" and gaps["torch.lgamma"]["reads"] == "falls back to the CPU"
    )
    # the one made on the CPU runs there: listed, not counted
    assert gaps["Tensor.lgamma"]["happens"] == "cpu" and gaps["Tensor.lgamma"]["on_cpu"] == 1
    assert npu["apis"] == 3 and npu["calls"] == 5
    assert npu["summary"].startswith("Ascend NPU (torch_npu 2.14.0, for PyTorch 2.14.0): 3 PyTorch APIs the project ")
    # torch_musa has every one of them but the Bessel function, and there the call fails
    [bessel] = musa["gaps"]
    assert bessel["api"] == "torch.special.modified_bessel_i0" and bessel["happens"] == "error"
    assert musa["plugin"]["missing"] == "error" and musa["plugin"]["strict"] is None
    assert musa["apis"] == 1 and musa["calls"] == 1
    # ROCm's PyTorch is built from CUDA's kernels: nothing to list, and the JSON says why
    assert hip == {
        "plugin": None,
        "builtin": True,
        "summary": hip["summary"],
        "apis": 0,
        "calls": 0,
        "days": [0.0, 0.0],
        "gaps": [],
    }
    assert "built from PyTorch's own CUDA kernels" in hip["summary"]


def test_json_counts_match_cudaport_check(reports: dict[tuple[str, str], str], tree: Path) -> None:
    doc = json.loads(reports["en", "json"])
    for target in ("npu", "musa"):
        check = json.loads(cudaport("check", ".", "--target", target, "--format", "json", cwd=tree).stdout)
        found = [d for d in check["diagnostics"] if d["rule"] == "CP7100"]
        on_device = [d for d in found if d["difficulty"] == "manual"]
        assert doc["operators"][target]["calls"] == len(on_device), target
        assert doc["operators"][target]["apis"] == len({d["symbol"] for d in on_device}), target
        assert sum(g["calls"] for g in doc["operators"][target]["gaps"]) == len(found), target


def test_the_gaps_feed_the_estimate_and_the_route(reports: dict[tuple[str, str], str]) -> None:
    doc = json.loads(reports["en", "json"])
    for target, plugin in (("npu", "torch_npu 2.14.0"), ("musa", "torch_musa 2.7.1")):
        verdict = doc["verdicts"][target]
        [kind] = [k for k in verdict["effort"]["kinds"] if k["kind"] == "operator without a kernel"]
        assert kind["findings"] == doc["operators"][target]["calls"]
        assert kind["days"] == doc["operators"][target]["days"] and kind["days"][0] > 0
        why = verdict["route"]["why"]
        assert f"have no kernel in {plugin}" in why or f"has no kernel in {plugin}" in why
    assert doc["verdicts"]["npu"]["route"]["why"].endswith(
        "3 PyTorch APIs it calls have no kernel in torch_npu 2.14.0: 5 calls fall back to the CPU, until each is "
        "replaced or given one"
    )
    assert doc["verdicts"]["musa"]["route"]["why"].endswith(
        "1 PyTorch API it calls has no kernel in torch_musa 2.7.1: 1 call fails, until it is replaced or given one"
    )
    assert "no kernel" not in doc["verdicts"]["hip"]["route"]["why"]


def test_chinese_json_says_it_in_chinese(reports: dict[tuple[str, str], str]) -> None:
    doc = json.loads(reports["zh-CN", "json"])
    npu = doc["operators"]["npu"]
    assert npu["summary"].startswith("昇腾 NPU（torch_npu 2.14.0，对应 PyTorch 2.14.0）：")
    assert {g["api"]: g["reads"] for g in npu["gaps"]}["torch.lgamma"] == "回退到 CPU 上执行"
    assert CJK.search(doc["operators"]["hip"]["summary"])
    assert "在替换掉或补上内核之前，5 次调用会回退到 CPU 上执行" in doc["verdicts"]["npu"]["route"]["why"]
    assert npu["gaps"][0]["happens"] == "cpu-fallback"  # ids stay English


# ---- the Markdown -----------------------------------------------------------------------------------------------
def test_markdown_has_a_table_per_plugin_and_a_line_for_hip(reports: dict[tuple[str, str], str], tree: Path) -> None:
    markdown = reports["en", "md"]
    section = markdown.split("## Operator coverage\n", 1)[1].split("\n## ", 1)[0]
    assert "### Ascend NPU\n" in section and "### Moore Threads MUSA\n" in section and "### HIP" not in section
    lines = calls_in(tree)["torch.lgamma"]
    where = "; ".join(f"`{path}`: {', '.join(map(str, numbers))}" for path, numbers in lines.items())
    assert f"| `torch.lgamma` | `aten::lgamma` | 3 | falls back to the CPU | {where} |" in section
    assert (
        "| `torch.special.modified_bessel_i0` | `aten::special_modified_bessel_i0` | 1 | fails (NotImplementedError) |"
        in (section.split("### Moore Threads MUSA", 1)[1])
    )
    assert "- HIP: its PyTorch is built from PyTorch's own CUDA kernels" in section
    assert re.search(r"The estimate counts [\d.]+–[\d.]+ person-days for them\.", section)
    zh = reports["zh-CN", "md"]
    section = zh.split("## 算子覆盖\n", 1)[1].split("\n## ", 1)[0]
    assert "| PyTorch API | ATen 算子 | 调用次数 | 会发生什么 | 位置 |" in section
    assert "| `torch.lgamma` | `aten::lgamma` | 3 | 回退到 CPU 上执行 |" in section
    assert re.search(r"工作量估算为此计入 [\d.]+–[\d.]+ 人日。", section)


def test_a_tree_without_python_has_no_section(tmp_path: Path) -> None:
    (tmp_path / "k.cu").write_text("__global__ void k(float* x) { x[threadIdx.x] = 1; }\n", encoding="utf-8")
    markdown = cudaport("report", ".", "--target", "npu", cwd=tmp_path).stdout
    assert "Operator coverage" not in markdown
    doc = json.loads(cudaport("report", ".", "--target", "npu", "--format", "json", cwd=tmp_path).stdout)
    assert doc["operators"]["npu"]["gaps"] == [] and doc["operators"]["npu"]["apis"] == 0


# ---- the page ---------------------------------------------------------------------------------------------------
@pytest.fixture(params=LANGUAGES)
def page(
    request: pytest.FixtureRequest,
    browser: BrowserContext,  # noqa: F811
    reports: dict[tuple[str, str], str],
    tree: Path,
) -> Iterator[tuple[Page, str, list[str]]]:
    language = request.param
    path = tree.parent / f"opened-{language}.html"
    path.write_text(reports[language, "html"], encoding="utf-8")
    opened = browser.new_page()
    problems: list[str] = []
    opened.on("console", lambda m: problems.append(m.text) if m.type in ("error", "warning") else None)
    opened.on("pageerror", lambda e: problems.append(str(e)))
    opened.goto(path.as_uri(), wait_until="load")
    try:
        yield opened, language, problems
    finally:
        opened.close()


SECTION = """
() => {
  const section = document.getElementById('operators');
  const tables = Array.from(section.querySelectorAll('table.operators')).map(table => ({
    target: table.dataset.target,
    rows: Array.from(table.tBodies[0].rows).map(row => ({
      api: row.dataset.api, happens: row.dataset.happens,
      cells: Array.from(row.cells).map(cell => cell.innerText.trim()),
    })),
  }));
  return {
    heading: section.querySelector('h2').innerText,
    nav: Array.from(document.querySelectorAll('nav a')).map(a => a.getAttribute('href')),
    text: section.innerText,
    builtin: Array.from(section.querySelectorAll('p.operators-builtin')).map(p => [p.dataset.target, p.innerText]),
    tables,
  };
}
"""


def test_the_section_renders_and_opens_to_the_lines(
    page: tuple[Page, str, list[str]], reports: dict[tuple[str, str], str], tree: Path
) -> None:
    opened, language, problems = page
    shown: dict[str, Any] = opened.evaluate(SECTION)
    assert "#operators" in shown["nav"] and shown["nav"].index("#operators") == shown["nav"].index("#work") - 1
    assert [t["target"] for t in shown["tables"]] == ["npu", "musa"]
    assert [b[0] for b in shown["builtin"]] == ["hip"]
    npu = {row["api"]: row for row in shown["tables"][0]["rows"]}
    assert npu["torch.lgamma"]["cells"][:4] == ["torch.lgamma", "aten::lgamma", "3", "2"]
    assert npu["Tensor.lgamma"]["happens"] == "cpu"
    if language == "zh-CN":
        assert shown["heading"] == "算子覆盖"
        assert npu["torch.lgamma"]["cells"][4] == "回退到 CPU 上执行"
        prose = re.sub(r"[\w.:=-]*[A-Za-z_][\w.:=-]*", "", shown["text"])  # names, paths and commands out
        assert len(CJK.findall(prose)) > 200 and CJK.search(shown["builtin"][0][1])
    else:
        assert shown["heading"] == "Operator coverage"
        assert npu["torch.lgamma"]["cells"][4] == "falls back to the CPU"
    # torch.lgamma opens to its files (the work list's), a file to its lines with their code
    table = opened.locator("#operators table.operators[data-target='npu']")
    table.locator("tr[data-api='torch.lgamma'] button.expand").click()
    opened.wait_for_selector("#operators table.work-files")
    files = opened.evaluate(
        "() => Array.from(document.querySelectorAll('#operators table.work-files tbody tr'))"
        ".map(r => [r.cells[0].innerText.trim(), r.cells[1].innerText.trim()])"
    )
    marks = calls_in(tree)["torch.lgamma"]
    assert sorted(files) == sorted([path, str(len(lines))] for path, lines in marks.items())
    opened.locator("#operators table.work-files button.expand", has_text="model/train.py").click()
    opened.wait_for_selector("#operators table.lines")
    lines = opened.evaluate(
        "() => Array.from(document.querySelectorAll('#operators table.lines tr[data-line]'))"
        ".map(r => [Number(r.dataset.line), r.dataset.name, r.querySelector('td.code').innerText])"
    )
    assert [line for line, _, _ in lines] == marks["model/train.py"]
    assert all(name == "torch.lgamma" and "torch.lgamma(" in code for _, name, code in lines)
    assert problems == []
