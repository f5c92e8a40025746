"""The HTML report in a real browser: Debian's headless Chromium, driven by Playwright (never a downloaded browser).

It must open offline with no console error and no network request, draw its charts from the numbers of the JSON
report with no label over a bar, lay out every table without a clipped column at common screen widths, open its
collapsed groups from the embedded details, sort its tables, and print on A4 without overflowing. One report is of
a tree generated here with 20,000 findings per target: it must stay within its size bounds (HTML <= 3 MB,
Markdown <= 500 KB) and read the same. Screenshots and a PDF land in tests/artifacts/ (git-ignored) for a person
to look at."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Page, sync_playwright

from cudaport.cli import main as cli
from cudaport.knowledge.ruleset import Target, load_ruleset
from tooling import require_tool

FIXTURES = Path(__file__).parent / "fixtures"
ARTIFACTS = Path(__file__).parent / "artifacts"
ALL_TARGETS = list(load_ruleset().targets)
LEVELS = ("portable", "mechanical", "manual", "blocker")
CHROMIUM_FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
A4_PRINTABLE_PX = 703  # 210 mm less the report's 12 mm margins, at 96 px per inch
WIDTHS = (1280, 1400, 1920)  # common screen widths: the report must lay out without a clipped column at each
HTML_LIMIT = 3_000_000
MARKDOWN_LIMIT = 500_000
GENERATED_FINDINGS = 20_000


def stand_in(name: str) -> Target:
    return Target(name, f"Stand-in {name[-1]}", "layout test stand-in: no counterparts", re.compile(r"(?!)"), ())


# ---- a generated tree: many findings in deep folders with long names ---------------------------------------------
_CALLS = (
    "  cudaMalloc(&buf, n * sizeof(float));",
    "  cudaMemcpy(buf, host, n * sizeof(float), cudaMemcpyHostToDevice);",
    "  cudaStreamSynchronize(stream);",
    "  cudaEventRecord(start, stream);",
    "  cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, a, n, b, n, &zero, c, n);",
    "  cufftExecC2C(plan, data, data, CUFFT_FORWARD);",
    "  curandGenerateUniform(gen, buf, n);",
    "  nppiFilterBox_8u_C1R(src, step, dst, step, roi, mask, anchor);",
    "  cuMemAlloc(&dptr, n);",
    "  cudaFree(buf);",
)
_HEADERS = ("cuda_runtime.h", "cublas_v2.h", "cufft.h", "curand.h", "npp.h", "cuda.h")
_KERNEL = """__global__ void {name}(float* x, int n) {{
  int lane = threadIdx.x & 31;
  float v = x[threadIdx.x];
  v += __shfl_down_sync(0xffffffff, v, 16);
  if (lane == 0) x[blockIdx.x] = v;
}}
"""


def generate_tree(root: Path, files: int) -> None:
    """CUDA sources written for this test: each holds two warp-level kernels, a launch and sixty host calls of
    the runtime, driver, cuBLAS, cuFFT, cuRAND and NPP, in folders three deep with long names."""
    rng = random.Random(15)
    for index in range(files):
        folder = root / f"component_{index % 7}_with_a_rather_long_descriptive_name" / f"stage_{index % 3}"
        folder = folder / f"module_{index % 11}_of_the_pipeline"
        folder.mkdir(parents=True, exist_ok=True)
        lines = [f"#include <{header}>" for header in _HEADERS] + [""]
        lines += [_KERNEL.format(name=f"reduce_{index}_{k}") for k in range(2)]
        lines.append("void run(float* buf, float* host, int n) {")
        lines += [rng.choice(_CALLS) for _ in range(60)]
        lines += [f"  reduce_{index}_0<<<n / 256, 256>>>(buf, n);", "}"]
        (folder / f"unit_{index}_processing_stage.cu").write_text("\n".join(lines) + "\n", encoding="utf-8")


def cudaport(*args: str, cwd: Path) -> None:
    subprocess.run([sys.executable, "-m", "cudaport", *args], cwd=cwd, check=True, capture_output=True, timeout=600)


@pytest.fixture(scope="module", params=["targets-of-the-rule-data", "three-targets", "generated-20000"])
def report_files(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, dict[str, Any]]:
    """The report for every target the rule data defines (through the CLI, as users run it); the same report
    with stand-in targets added in this process only, so that three targets side by side are tested before the
    rule data has them; and the report of a generated tree with 20,000 findings per target, for every target."""
    out = tmp_path_factory.mktemp("browser")
    if request.param == "targets-of-the-rule-data":
        for suffix in ("html", "md", "json"):
            cudaport("report", "report_project", "--target", ",".join(ALL_TARGETS), "-o", str(out / f"r.{suffix}"),
                     cwd=FIXTURES)  # fmt: skip
    elif request.param == "three-targets":
        extra = [f"standin{i}" for i in range(1, max(0, 3 - len(ALL_TARGETS)) + 1)]
        with pytest.MonkeyPatch.context() as patch:
            for name in extra:
                patch.setitem(load_ruleset().targets, name, stand_in(name))
            patch.chdir(FIXTURES)
            for suffix in ("html", "md", "json"):
                targets = ",".join(ALL_TARGETS + extra)
                command = [
                    "report",
                    "report_project",
                    "--target",
                    targets,
                    "--jobs",
                    "1",
                    "-o",
                    str(out / f"r.{suffix}"),
                ]
                assert cli.main(command) == 0
    else:
        generate_tree(out / "tree", files=210)
        for suffix in ("html", "md", "json"):
            cudaport("report", "tree", "--target", ",".join(ALL_TARGETS), "-o", str(out / f"r.{suffix}"), cwd=out)
    return out / "r.html", json.loads((out / "r.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserContext]:
    chromium = require_tool("chromium", "chromium")
    with sync_playwright() as playwright:
        context = playwright.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")),
            executable_path=chromium,
            headless=True,
            args=CHROMIUM_FLAGS,
            viewport={"width": 1280, "height": 900},
        )
        try:
            yield context
        finally:
            context.close()


@pytest.fixture
def loaded(
    browser: BrowserContext, report_files: tuple[Path, dict[str, Any]]
) -> Iterator[tuple[Page, dict[str, Any], list[str], list[str]]]:
    html, report = report_files
    page = browser.new_page()
    problems: list[str] = []
    requests: list[str] = []
    page.on(
        "console", lambda m: problems.append(f"console {m.type}: {m.text}") if m.type in ("error", "warning") else None
    )
    page.on("pageerror", lambda e: problems.append(f"page error: {e}"))
    page.on("request", lambda r: requests.append(r.url))
    page.goto(html.as_uri(), wait_until="load")
    try:
        yield page, report, problems, requests
    finally:
        page.close()


def stem(report: dict[str, Any]) -> str:
    scanned = report["scanned"]["files"]
    count = len(report["targets"])
    return f"report-{count}-target{'s' if count > 1 else ''}-{scanned}-files"


def test_opens_offline_without_errors_or_requests(
    loaded: tuple[Page, dict[str, Any], list[str], list[str]], report_files: tuple[Path, dict[str, Any]]
) -> None:
    page, report, problems, requests = loaded
    page.wait_for_selector("svg#chart-targets")
    ARTIFACTS.mkdir(exist_ok=True)
    page.pdf(path=str(ARTIFACTS / f"{stem(report)}.pdf"), format="A4", print_background=True)
    assert problems == []
    assert requests == [report_files[0].as_uri()]
    assert page.title().startswith("CUDA migration assessment")
    visible = page.inner_text("body")
    for target in report["targets"]:
        assert target["label"] in visible


def test_size_bounds(report_files: tuple[Path, dict[str, Any]]) -> None:
    """HTML <= 3 MB and Markdown <= 500 KB, the generated tree's 20,000 findings per target included; the JSON
    lists every one of them."""
    html, report = report_files
    if report["paths"] == ["tree"]:
        for target in ALL_TARGETS:
            assert report["verdicts"][target]["findings"]["total"] >= GENERATED_FINDINGS
    for target in report["verdicts"]:
        assert len(report["findings"][target]) == report["verdicts"][target]["findings"]["total"]
    assert html.stat().st_size <= HTML_LIMIT
    assert html.with_suffix(".md").stat().st_size <= MARKDOWN_LIMIT


CHART_DATA = """
() => Array.from(document.querySelectorAll('svg.chart')).map(svg => ({
  id: svg.id,
  mode: svg.dataset.mode,
  bars: Array.from(svg.querySelectorAll('g.bar')).map(g => ({
    group: g.dataset.group, bar: g.dataset.bar, target: g.dataset.target, measure: g.dataset.measure || null,
    total: Number(g.dataset.total),
    value: g.querySelector('text.value').textContent,
    segments: Array.from(g.querySelectorAll('rect[data-difficulty]')).map(r => ({
      difficulty: r.dataset.difficulty, count: Number(r.dataset.count), width: r.getBBox().width,
    })),
  })),
}))
"""


def counts(bar: dict[str, Any]) -> dict[str, int]:
    found = {level: 0 for level in LEVELS}
    for segment in bar["segments"]:
        found[segment["difficulty"]] = segment["count"]
    return found


def folder_nodes(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    nodes: dict[str, dict[str, Any]] = {}
    stack = [report["folders"]]
    while stack:
        node = stack.pop()
        nodes[node["path"] or "."] = node
        stack.extend(node["folders"])
    return nodes


def weight(node: dict[str, Any], names: list[str]) -> tuple[int, ...]:
    return tuple(sum(node["targets"][t]["findings"][level] for t in names) for level in reversed(LEVELS))


def test_charts_draw_the_numbers_of_the_json(loaded: tuple[Page, dict[str, Any], list[str], list[str]]) -> None:
    page, report, problems, _ = loaded
    charts = {c["id"]: c for c in page.evaluate(CHART_DATA)}
    assert set(charts) == {"chart-targets", "chart-folders", "chart-apis"}

    names = [t["name"] for t in report["targets"]]
    targets = charts["chart-targets"]
    assert targets["mode"] == "share"
    for target in names:
        verdict = report["verdicts"][target]
        for measure in ("findings", "files"):
            [bar] = [b for b in targets["bars"] if b["target"] == target and b["measure"] == measure]
            assert counts(bar) == {level: verdict[measure][level] for level in LEVELS}
            assert bar["value"] == f"{verdict[measure]['total']:,} {measure}"
    full = [sum(s["width"] for s in b["segments"]) for b in targets["bars"] if b["total"]]
    assert max(full) - min(full) < 0.05  # every share bar spans the same width

    # folders: each bar the totals of its folder in the JSON tree, heaviest first
    nodes = folder_nodes(report)
    folders = charts["chart-folders"]
    groups = list(dict.fromkeys(b["group"] for b in folders["bars"]))
    assert groups and len(groups) <= 12
    assert [weight(nodes[g], names) for g in groups] == sorted((weight(nodes[g], names) for g in groups), reverse=True)
    for bar in folders["bars"]:
        findings = nodes[bar["group"]]["targets"][bar["target"]]["findings"]
        assert counts(bar) == {level: findings[level] for level in LEVELS}
        assert bar["value"] == f"{findings['total']:,} findings"

    apis = charts["chart-apis"]
    assert [(b["group"], b["target"]) for b in apis["bars"]] == [
        (a["symbol"], t) for a in report["apis"][:15] for t in names
    ]
    expected_bars = [(a, t) for a in report["apis"][:15] for t in names]
    for bar, (api, target) in zip(apis["bars"], expected_bars, strict=True):
        uses = api["targets"][target]["uses"]
        assert counts(bar) == {level: uses[level] for level in LEVELS}

    for chart in (folders, apis):  # one scale per chart: width proportional to count
        ratios = [s["width"] / s["count"] for b in chart["bars"] for s in b["segments"]]
        assert max(ratios) - min(ratios) < 0.01
    assert problems == []


# Every label's box against every bar's, in each chart's own coordinates; and every label inside the chart.
OVERLAPS = """
() => {
  const found = [];
  for (const svg of document.querySelectorAll('svg.chart')) {
    const width = svg.viewBox.baseVal.width;
    const bars = Array.from(svg.querySelectorAll('g.bar rect')).map(r => r.getBBox()).filter(b => b.width > 0);
    for (const text of svg.querySelectorAll('text')) {
      const t = text.getBBox();
      if (t.x < 0 || t.x + t.width > width + 0.5) found.push(`${svg.id}: "${text.textContent}" leaves the chart`);
      for (const b of bars) {
        const apart = t.x + t.width <= b.x + 0.5 || b.x + b.width <= t.x + 0.5 ||
                      t.y + t.height <= b.y + 0.5 || b.y + b.height <= t.y + 0.5;
        if (!apart) { found.push(`${svg.id}: "${text.textContent}" overlaps a bar`); break; }
      }
    }
  }
  return found;
}
"""

# Every table that is wider than the box it scrolls in, and the page itself.
OVERFLOWS = """
() => {
  const found = [];
  for (const box of document.querySelectorAll('.scroll')) {
    if (box.scrollWidth > box.clientWidth + 1) {
      const table = box.querySelector('table');
      found.push(`${table ? '#' + (table.id || table.className) : 'a box'}: ${box.scrollWidth} > ${box.clientWidth}`);
    }
  }
  if (document.documentElement.scrollWidth > window.innerWidth) {
    found.push(`the page: ${document.documentElement.scrollWidth} > ${window.innerWidth}`);
  }
  return found;
}
"""


def open_groups(page: Page) -> None:
    """Open what a reader opens: an API group and a file in it, a file's lines, a folder, a route's files, and
    every list shown in full."""
    for selector in (
        "#work-apis button.expand",
        "#work-apis tr.detail button.expand",
        "#files button.expand",
        "#folders tbody tr:nth-child(2) button.expand",
        "table.routes button.expand",
    ):
        button = page.locator(selector).first
        if button.count():
            button.click()
            page.wait_for_selector("tr.detail table, tr[data-depth='2']", timeout=10_000)
    shown = page.locator("button.show-all")
    for _ in range(shown.count()):
        count = shown.count()
        shown.first.click()
        page.wait_for_function(f"document.querySelectorAll('button.show-all').length < {count}", timeout=20_000)
    page.wait_for_function("document.querySelectorAll('button.show-all').length === 0", timeout=20_000)


@pytest.mark.parametrize("width", WIDTHS)
def test_no_label_over_a_bar_and_nothing_overflows(
    loaded: tuple[Page, dict[str, Any], list[str], list[str]], width: int
) -> None:
    page, report, problems, _ = loaded
    page.set_viewport_size({"width": width, "height": 1000})
    assert page.evaluate(OVERLAPS) == []
    assert page.evaluate(OVERFLOWS) == []
    shots = width in (1280, 1920)
    if shots:  # the page as it opens, and the work section once a reader has opened its groups
        ARTIFACTS.mkdir(exist_ok=True)
        page.screenshot(path=str(ARTIFACTS / f"{stem(report)}-{width}px.png"), full_page=True)
    open_groups(page)
    assert page.locator("tr.detail table.lines").count() >= 1  # the embedded details opened
    assert page.evaluate(OVERFLOWS) == []
    if shots:
        page.locator("#work").screenshot(path=str(ARTIFACTS / f"{stem(report)}-{width}px-opened.png"))
        for name in (f"{stem(report)}-{width}px.png", f"{stem(report)}-{width}px-opened.png"):
            assert (ARTIFACTS / name).stat().st_size > 10_000
    assert problems == []


DETAIL_ROWS = """
(table) => Array.from(document.querySelectorAll(`#${table} tr.detail table.lines tbody tr[data-line]`)).map(row => ({
  where: row.cells[0].textContent, name: row.dataset.name, code: row.cells[1].textContent,
  levels: Array.from(row.querySelectorAll('td[data-target]')).map(c => [c.dataset.target, c.textContent]),
}))
"""


def test_groups_open_to_the_findings_of_the_json(
    loaded: tuple[Page, dict[str, Any], list[str], list[str]],
) -> None:
    """An API group opens to its files, a file to its lines: those of `check`, with each target's difficulty."""
    page, report, problems, _ = loaded
    names = [t["name"] for t in report["targets"]]
    group = report["work"][0]
    page.locator("#work-apis tr[data-work='0'] button.expand").click()
    page.wait_for_selector("#work-apis tr.detail table.work-files")
    files = page.evaluate(
        "Array.from(document.querySelectorAll('#work-apis table.work-files tbody tr'))"
        ".map(r => [r.cells[0].textContent, Number(r.cells[1].textContent)])"
    )
    assert len(files) == group["files"]
    assert max(count for _, count in files) <= group["uses"]
    first_path = files[0][0]
    page.locator("#work-apis table.work-files button.expand").first.click()
    page.wait_for_selector("#work-apis table.lines")
    lines = page.evaluate(DETAIL_ROWS, "work-apis")
    assert len(lines) == files[0][1]
    short = {"portable": "portable", "mechanical": "mech.", "manual": "manual", "blocker": "blocker"}
    for line in lines:
        row, column = (int(x) for x in line["where"].split(":"))
        for target, shown in line["levels"]:
            [finding] = [
                f
                for f in report["findings"][target]
                if f["path"] == first_path
                and f["line"] == row
                and f["column"] == column
                and (f["symbol"] == line["name"] or group["construct"])
            ]
            assert shown == short[finding["difficulty"]]
    # a file opens to all its lines
    first_file = page.locator("#files tbody tr").first
    path = first_file.locator("td").first.inner_text().strip()
    first_file.locator("button.expand").click()
    page.wait_for_selector("#files table.lines")
    rows = page.evaluate(DETAIL_ROWS, "files")
    every = {(f["line"], f["column"], f["rule"]) for t in names for f in report["findings"][t] if f["path"] == path}
    assert len(rows) == len(every)
    assert problems == []


def column_values(page: Page, table: str, column: int) -> list[float]:
    return page.evaluate(
        "([table, column]) => Array.from(document.querySelectorAll(`#${table} tbody tr:not(.detail)`))"
        ".map(row => Number(row.cells[column].dataset.value))",
        [table, column],
    )


def test_tables_sort_when_a_heading_is_clicked(loaded: tuple[Page, dict[str, Any], list[str], list[str]]) -> None:
    page, report, problems, _ = loaded
    page.locator("#files button.expand").first.click()  # an open file closes when its table is sorted
    page.wait_for_selector("#files tr.detail")
    lines = page.locator("#files thead th[data-col='1'] button")
    lines.click()
    values = column_values(page, "files", 1)
    assert values == sorted(values, reverse=True) and len(values) > 5
    assert page.get_attribute("#files thead th[data-col='1']", "aria-sort") == "descending"
    assert page.locator("#files tr.detail").count() == 0
    lines.click()
    assert column_values(page, "files", 1) == sorted(values)
    page.locator("#work-apis thead th[data-col='0'] button").click()
    names = page.evaluate(
        "Array.from(document.querySelectorAll('#work-apis tbody tr')).map(r => r.cells[0].dataset.value)"
    )
    in_order = page.evaluate("(names) => names.slice().sort((a, b) => a.localeCompare(b))", names)
    assert names == in_order and names != [w["title"] for w in report["work"][:50]]  # A to Z, not as it came
    assert len(names) == min(50, len(report["work"]))
    assert problems == []


def test_prints_on_a4_without_overflow(loaded: tuple[Page, dict[str, Any], list[str], list[str]]) -> None:
    page, _, problems, _ = loaded
    page.set_viewport_size({"width": A4_PRINTABLE_PX, "height": 1000})
    page.emulate_media(media="print")
    assert page.evaluate("getComputedStyle(document.querySelector('nav')).display") == "none"
    widest = page.evaluate("document.documentElement.scrollWidth")
    assert widest <= A4_PRINTABLE_PX
    assert problems == []
