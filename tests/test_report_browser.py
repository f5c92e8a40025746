"""The HTML report in a real browser: Debian's headless Chromium, driven by Playwright (never a downloaded browser).

It must open offline with no console error and no network request, sort its tables, print on A4 without
overflowing, and its charts must draw the numbers of the JSON report. A screenshot and a PDF land in
tests/artifacts/ (git-ignored) for a person to look at."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.sync_api import BrowserContext, Page, sync_playwright

from cudaport import cli
from cudaport.ruleset import Target, load_ruleset
from tooling import ensure_apt

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


def stand_in(name: str) -> Target:
    return Target(name, f"Stand-in {name[-1]}", "layout test stand-in: no counterparts", re.compile(r"(?!)"), ())


@pytest.fixture(scope="module", params=["targets-of-the-rule-data", "three-targets"])
def report_files(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, dict[str, Any]]:
    """The report for every target the rule data defines (through the CLI, as users run it); and, so that the
    side-by-side layout of three targets (hip,npu,mlu) is tested before the rule data has them, the same report
    with stand-in targets added in this process only (nothing in the product knows them)."""
    out = tmp_path_factory.mktemp("browser")
    if request.param == "targets-of-the-rule-data":
        for suffix in ("html", "json"):
            command = ["report", "report_project", "--target", ",".join(ALL_TARGETS), "-o", str(out / f"r.{suffix}")]
            subprocess.run([sys.executable, "-m", "cudaport", *command], cwd=FIXTURES, check=True, capture_output=True)
    else:
        extra = [f"standin{i}" for i in range(1, max(0, 3 - len(ALL_TARGETS)) + 1)]
        with pytest.MonkeyPatch.context() as patch:
            for name in extra:
                patch.setitem(load_ruleset().targets, name, stand_in(name))
            patch.chdir(FIXTURES)
            for suffix in ("html", "json"):
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
    return out / "r.html", json.loads((out / "r.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BrowserContext]:
    chromium = ensure_apt("chromium", "chromium")
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


def test_opens_offline_without_errors_or_requests(
    loaded: tuple[Page, dict[str, Any], list[str], list[str]], report_files: tuple[Path, dict[str, Any]]
) -> None:
    page, report, problems, requests = loaded
    page.wait_for_selector("svg#chart-targets")
    ARTIFACTS.mkdir(exist_ok=True)
    stem = f"report-{len(report['targets'])}-target{'s' if len(report['targets']) > 1 else ''}"
    page.screenshot(path=str(ARTIFACTS / f"{stem}.png"), full_page=True)
    page.pdf(path=str(ARTIFACTS / f"{stem}.pdf"), format="A4", print_background=True)
    assert problems == []
    assert requests == [report_files[0].as_uri()]
    assert (ARTIFACTS / f"{stem}.png").stat().st_size > 10_000
    assert page.title().startswith("CUDA migration assessment")
    visible = page.inner_text("body")
    for target in report["targets"]:
        assert target["label"] in visible


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


def test_charts_draw_the_numbers_of_the_json(loaded: tuple[Page, dict[str, Any], list[str], list[str]]) -> None:
    page, report, problems, _ = loaded
    charts = {c["id"]: c for c in page.evaluate(CHART_DATA)}
    assert set(charts) == {"chart-targets", "chart-directories", "chart-apis"}

    names = [t["name"] for t in report["targets"]]
    targets = charts["chart-targets"]
    assert targets["mode"] == "share"
    for target in names:
        verdict = report["verdicts"][target]
        for measure in ("findings", "files"):
            [bar] = [b for b in targets["bars"] if b["target"] == target and b["measure"] == measure]
            assert counts(bar) == {level: verdict[measure][level] for level in LEVELS}
            assert bar["value"] == f"{verdict[measure]['total']} {measure}"
    full = {round(sum(s["width"] for s in b["segments"]), 1) for b in targets["bars"] if b["total"]}
    assert len(full) == 1  # every share bar spans the same width

    busy = [d for d in report["directories"] if any(d["targets"][t]["findings"]["total"] for t in names)]
    directories = charts["chart-directories"]
    assert [(b["group"], b["target"]) for b in directories["bars"]] == [
        (d["path"], t) for d in busy[:12] for t in names
    ]
    for bar in directories["bars"]:
        directory = next(d for d in busy if d["path"] == bar["group"])
        findings = directory["targets"][bar["target"]]["findings"]
        assert counts(bar) == {level: findings[level] for level in LEVELS}
        assert bar["value"] == f"{findings['total']} findings"

    apis = charts["chart-apis"]
    assert [(b["group"], b["target"]) for b in apis["bars"]] == [
        (a["symbol"], t) for a in report["apis"][:15] for t in names
    ]
    expected_bars = [(a, t) for a in report["apis"][:15] for t in names]
    for bar, (api, target) in zip(apis["bars"], expected_bars, strict=True):
        uses = api["targets"][target]["uses"]
        assert counts(bar) == {level: uses[level] for level in LEVELS}

    for chart in (directories, apis):  # one scale per chart: width proportional to count
        ratios = [s["width"] / s["count"] for b in chart["bars"] for s in b["segments"]]
        assert max(ratios) - min(ratios) < 0.01
    assert problems == []


def column_values(page: Page, table: str, column: int) -> list[float]:
    return page.evaluate(
        "([table, column]) => Array.from(document.querySelectorAll(`#${table} tbody tr`))"
        ".map(row => Number(row.cells[column].dataset.value))",
        [table, column],
    )


def test_tables_sort_when_a_heading_is_clicked(loaded: tuple[Page, dict[str, Any], list[str], list[str]]) -> None:
    page, report, problems, _ = loaded
    lines = page.locator("#files thead th[data-col='1'] button")
    lines.click()
    values = column_values(page, "files", 1)
    assert values == sorted(values, reverse=True) and len(values) > 5
    assert page.get_attribute("#files thead th[data-col='1']", "aria-sort") == "descending"
    lines.click()
    assert column_values(page, "files", 1) == sorted(values)
    page.locator("#directories thead th[data-col='0'] button").click()
    names = page.evaluate(
        "Array.from(document.querySelectorAll('#directories tbody tr')).map(r => r.cells[0].textContent)"
    )
    assert names == sorted(names, key=lambda n: n.lower()) or names == sorted(names)
    assert len(names) == len(report["directories"])
    assert problems == []


def test_prints_on_a4_without_overflow(loaded: tuple[Page, dict[str, Any], list[str], list[str]]) -> None:
    page, _, problems, _ = loaded
    page.set_viewport_size({"width": A4_PRINTABLE_PX, "height": 1000})
    page.emulate_media(media="print")
    assert page.evaluate("getComputedStyle(document.querySelector('nav')).display") == "none"
    widest = page.evaluate("document.documentElement.scrollWidth")
    assert widest <= A4_PRINTABLE_PX
    assert problems == []
