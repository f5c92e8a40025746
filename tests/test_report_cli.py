"""`cudaport report` through the CLI on a realistic multi-directory CUDA project (tests/fixtures/report_project).

The numbers in the JSON report are checked against the findings that `cudaport check --format json` gives for the
same tree and target, and the Markdown and HTML are checked to carry the same numbers. The multi-target parts run
for every target the rule data defines, so new targets are covered without changing these tests."""

from __future__ import annotations

import json
import os
import pty
import re
import select
import shutil
import subprocess
import sys
from collections import Counter, defaultdict
from html.parser import HTMLParser
from pathlib import Path, PurePosixPath
from typing import Any

import pytest

from cudaport.ruleset import load_ruleset

FIXTURES = Path(__file__).parent / "fixtures"
PROJECT = "report_project"
ALL_TARGETS = list(load_ruleset().targets)
ORDER = ("blocker", "manual", "mechanical", "portable")
LEVELS = ("portable", "mechanical", "manual", "blocker")
PATTERN_RULES = {"CP2004", "CP2005", "CP2006", "CP3001", "CP4002"}  # warp-size literals and masks, inline asm
USER_CODE_RULES = {"CP1030", "CP1031"}  # the user's own kernels and launches, named by the kernel


def cudaport(
    *args: str, cwd: Path = FIXTURES, check_rc: int | None = 0, **kwargs: Any
) -> subprocess.CompletedProcess[str]:
    result = subprocess.run(
        [sys.executable, "-m", "cudaport", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=300,
        **kwargs,
    )
    if check_rc is not None:
        assert result.returncode == check_rc, (
            f"exit {result.returncode}\nstdout:\n{result.stdout}\nstderr:\n{result.stderr}"
        )
    return result


def check_json(path: str, target: str, *extra: str, cwd: Path = FIXTURES) -> dict[str, Any]:
    result = cudaport("check", path, "--target", target, "--format", "json", *extra, cwd=cwd, check_rc=None)
    assert result.returncode in (0, 1), result.stderr
    return json.loads(result.stdout)


def report_json(path: str, targets: list[str], *extra: str, cwd: Path = FIXTURES) -> dict[str, Any]:
    result = cudaport("report", path, "--target", ",".join(targets), "--format", "json", *extra, cwd=cwd)
    return json.loads(result.stdout)


# ---- what the report must say, computed independently from `check`'s findings --------------------------------------
def expected_from_check(doc: dict[str, Any]) -> dict[str, Any]:
    diagnostics = doc["diagnostics"]
    per_file: dict[str, Counter[str]] = defaultdict(Counter)
    for diag in diagnostics:
        per_file[diag["path"]][diag["difficulty"]] += 1
    files_by_worst: Counter[str] = Counter()
    for counts in per_file.values():
        files_by_worst[next(level for level in ORDER if counts[level])] += 1
    files_by_worst["portable"] += doc["files_scanned"] - len(per_file)
    per_dir: dict[str, Counter[str]] = defaultdict(Counter)
    for path, counts in per_file.items():
        per_dir[PurePosixPath(path).parent.as_posix()].update(counts)
    work = sorted(
        (
            (d["path"], d["line"], d["column"], d["rule"], d["difficulty"], d["message"])
            for d in diagnostics
            if d["difficulty"] in ("manual", "blocker")
        ),
    )
    return {
        "summary": doc["summary"],
        "files_by_worst": {level: files_by_worst[level] for level in LEVELS},
        "per_file": {p: {level: c[level] for level in LEVELS} for p, c in per_file.items()},
        "per_dir": {p: {level: c[level] for level in LEVELS} for p, c in per_dir.items()},
        "work": work,
        "by_rule": Counter(d["rule"] for d in diagnostics),
        "by_symbol": Counter((d["symbol"], d["rule"]) for d in diagnostics),
        "fixable": sum(1 for d in diagnostics if d["fixable"]),
        "needing_person": sum(1 for c in per_file.values() if c["manual"] or c["blocker"]),
        "with_blockers": sum(1 for c in per_file.values() if c["blocker"]),
    }


def levels(tally: dict[str, int]) -> dict[str, int]:
    return {level: tally[level] for level in LEVELS}


def assert_report_matches_check(report: dict[str, Any], target: str, check: dict[str, Any]) -> None:
    want = expected_from_check(check)
    verdict = report["verdicts"][target]
    assert report["scanned"]["files"] == check["files_scanned"]
    assert levels(verdict["findings"]) == want["summary"]
    assert verdict["findings"]["total"] == len(check["diagnostics"])
    assert levels(verdict["files"]) == want["files_by_worst"]
    assert verdict["files"]["total"] == check["files_scanned"]
    assert verdict["fixable"] == want["fixable"]
    assert verdict["files_needing_person"] == want["needing_person"]
    assert verdict["files_with_blockers"] == want["with_blockers"]
    assert verdict["files_with_findings"] == len(want["per_file"])

    files = {f["path"]: f for f in report["files"]}
    assert len(files) == check["files_scanned"]
    for path, counts in want["per_file"].items():
        assert levels(files[path]["targets"][target]["findings"]) == counts, path
    for path, row in files.items():
        if path not in want["per_file"]:
            assert row["targets"][target]["findings"]["total"] == 0, path

    directories = {d["path"]: d for d in report["directories"]}
    for path, counts in want["per_dir"].items():
        assert levels(directories[path]["targets"][target]["findings"]) == counts, path
    assert sum(d["files"] for d in report["directories"]) == check["files_scanned"]
    for path, directory in directories.items():
        assert directory["files"] == sum(1 for f in files.values() if f["directory"] == path)
        assert directory["lines"] == sum(f["lines"] for f in files.values() if f["directory"] == path)

    work = sorted(
        (w["path"], w["line"], w["column"], w["rule"], w["difficulty"], w["message"]) for w in report["work"][target]
    )
    assert work == want["work"]

    by_rule = {d["rule"]: d for d in report["dependencies"]}
    for rule, count in want["by_rule"].items():
        assert by_rule[rule]["targets"][target]["uses"]["total"] == count, rule
    for rule, dep in by_rule.items():
        assert dep["targets"][target]["uses"]["total"] == want["by_rule"].get(rule, 0)
    by_symbol = {(a["symbol"], a["rule"]): a for a in report["apis"]}
    for key, api in by_symbol.items():
        assert api["targets"][target]["uses"]["total"] == want["by_symbol"][key], key
    # what is not an API is a construct found by its shape (warp-size literals and masks, inline asm blocks) or
    # the user's own kernels and launches
    for symbol, rule in set(want["by_symbol"]) - set(by_symbol):
        if rule in USER_CODE_RULES:
            continue
        assert rule in PATTERN_RULES and (symbol == "asm" or not re.fullmatch(r"[A-Za-z_]\w*", symbol)), symbol


# ---- fixtures ---------------------------------------------------------------------------------------------------
@pytest.fixture(scope="module")
def checks() -> dict[str, dict[str, Any]]:
    return {target: check_json(PROJECT, target) for target in ALL_TARGETS}


@pytest.fixture(scope="module")
def multi_report() -> dict[str, Any]:
    return report_json(PROJECT, ALL_TARGETS)


@pytest.fixture(scope="module")
def rendered(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    out = tmp_path_factory.mktemp("rendered")
    texts = {}
    for suffix in ("md", "html", "json"):
        target_file = out / f"report.{suffix}"
        result = cudaport("report", PROJECT, "--target", ",".join(ALL_TARGETS), "-o", str(target_file))
        assert f"wrote {target_file}" in result.stderr
        assert result.stdout == ""
        texts[suffix] = target_file.read_text(encoding="utf-8")
    return texts


# ---- JSON against check -----------------------------------------------------------------------------------------
def test_fixture_is_a_realistic_project(checks: dict[str, dict[str, Any]]) -> None:
    hip = checks["hip"]
    rules = {d["rule"] for d in hip["diagnostics"]}
    directories = {PurePosixPath(d["path"]).parent.as_posix() for d in hip["diagnostics"]}
    # runtime, driver, cuBLAS, cuFFT, cuRAND, cuDNN, NCCL, warp code, PTX, tensor cores, TensorRT, NVML, NVTX
    for rule in ("CP1001", "CP1002", "CP1010", "CP1011", "CP1012", "CP1016", "CP1017", "CP2001", "CP3001", "CP4001"):
        assert rule in rules
    assert {"CP5001", "CP5010", "CP5011"} <= rules
    assert len(directories) >= 8
    assert {d["difficulty"] for d in hip["diagnostics"]} == set(LEVELS)


@pytest.mark.parametrize("target", ALL_TARGETS)
def test_single_target_report_matches_check(target: str, checks: dict[str, dict[str, Any]]) -> None:
    report = report_json(PROJECT, [target])
    assert [t["name"] for t in report["targets"]] == [target]
    assert report["ranking"] == [target] and report["cheapest"] == target
    assert_report_matches_check(report, target, checks[target])


def test_multi_target_report_matches_check_for_every_target(
    multi_report: dict[str, Any], checks: dict[str, dict[str, Any]]
) -> None:
    assert [t["name"] for t in multi_report["targets"]] == ALL_TARGETS
    assert sorted(multi_report["ranking"]) == sorted(ALL_TARGETS)
    assert multi_report["cheapest"] == multi_report["ranking"][0]
    for target in ALL_TARGETS:
        assert_report_matches_check(multi_report, target, checks[target])
        assert multi_report["verdicts"][target]["rank"] == multi_report["ranking"].index(target) + 1


def test_ranking_follows_the_stated_rule(multi_report: dict[str, Any]) -> None:
    scale = [level["id"] for level in multi_report["scale"]["levels"]]

    def key(target: str) -> tuple[int, ...]:
        v = multi_report["verdicts"][target]
        f = v["findings"]
        return (scale.index(v["verdict"]), f["blocker"], f["manual"], v["files_needing_person"], f["mechanical"])

    assert multi_report["ranking"] == sorted(multi_report["ranking"], key=key)


def test_verdict_of_the_fixture_for_hip(checks: dict[str, dict[str, Any]]) -> None:
    report = report_json(PROJECT, ["hip"])
    hip = report["verdicts"]["hip"]
    # TensorRT and tensor-core code have no HIP counterpart: a major change, and the report says why.
    assert hip["verdict"] == "major-change"
    assert any("blocker" in reason for reason in hip["reasons"])
    assert report["scale"]["minor_max_person_file_share"] == 0.1
    shares = hip["findings_share"]
    assert abs(sum(shares.values()) - 1.0) < 1e-3
    assert shares["blocker"] == round(hip["findings"]["blocker"] / hip["findings"]["total"], 4)


def test_heaviest_first_ordering(multi_report: dict[str, Any]) -> None:
    def weight(row: dict[str, Any]) -> tuple[int, ...]:
        return tuple(sum(row["targets"][t]["findings"][level] for t in ALL_TARGETS) for level in ORDER)

    for table in ("directories", "files"):
        weights = [weight(row) for row in multi_report[table]]
        assert weights == sorted(weights, reverse=True), table
    for items in multi_report["work"].values():
        ranks = [ORDER.index(w["difficulty"]) for w in items]
        assert ranks == sorted(ranks)


def test_dependencies_say_whether_each_target_has_a_counterpart(multi_report: dict[str, Any]) -> None:
    by_rule = {d["rule"]: d for d in multi_report["dependencies"]}
    hip = {rule: dep["targets"]["hip"] for rule, dep in by_rule.items()}
    assert hip["CP5001"]["status"] == "none" and "MIGraphX" in hip["CP5001"]["instead"]  # TensorRT
    assert hip["CP4001"]["status"] == "none"  # WMMA
    assert hip["CP1016"]["status"] == "adapt" and hip["CP1016"]["instead"] == "MIOpen"  # cuDNN
    assert hip["CP1010"]["status"] == "drop-in" and "hipblasSgemm" in hip["CP1010"]["replacements"]
    assert hip["CP1017"]["status"] == "drop-in"  # NCCL through RCCL
    assert by_rule["CP1010"]["apis"]["CUBLAS_OP_N"] == 4
    for dep in multi_report["dependencies"]:
        for availability in dep["targets"].values():
            uses = availability["uses"]
            assert availability["with_counterpart"] == uses["total"] - uses["blocker"]
    families = [d["uses"] for d in multi_report["dependencies"]]
    assert families == sorted(families, reverse=True)


def test_inventory_areas_follow_the_guides_and_add_up(
    multi_report: dict[str, Any], checks: dict[str, dict[str, Any]]
) -> None:
    """Framework API, runtime API, libraries, kernels, build and environment, binaries: in that order, every
    finding in exactly one of them, and each area's counts those of `check` for its rules."""
    ruleset = load_ruleset()
    order = [area.name for area in ruleset.areas]
    names = [a["name"] for a in multi_report["areas"]]
    assert names == sorted(names, key=order.index)
    assert {"runtime API", "libraries", "hand-written kernels"} <= set(names)
    for target in ALL_TARGETS:
        per_area: Counter[str] = Counter()
        for item in checks[target]["diagnostics"]:
            per_area[ruleset.rules[item["rule"]].area] += 1
        assert {a["name"]: a["targets"][target]["total"] for a in multi_report["areas"]} == dict(per_area)


def test_checklist_is_tailored_to_the_fixture(multi_report: dict[str, Any]) -> None:
    checks = {c["id"]: c for c in multi_report["verification"]}
    applying = {cid for cid, c in checks.items() if c["applies"]}
    # NCCL, fp16, warp code, PTX/tensor cores, cuRAND, cuFFT, cuDNN, TensorRT and cudaMalloc are all in the fixture
    assert applying >= {
        "numerics-fp32",
        "numerics-low-precision",
        "collectives",
        "memory-growth",
        "throughput",
        "warp-width",
        "kernel-rewrites",
        "random-numbers",
        "fft",
        "dnn-library",
        "inference-accuracy",
    }
    assert checks["numerics-fp32"]["threshold"] == "FP32: max abs error < 1e-5"
    assert checks["numerics-low-precision"]["threshold"] == "BF16/FP16: max abs error < 1e-2"
    assert {
        "rule": "CP1017",
        "names": [
            "nccl.h",
            "ncclAllReduce",
            "ncclCommInitRank",
            "ncclComm_t",
            "ncclFloat",
            "ncclGroupEnd",
            "ncclGroupStart",
            "ncclSum",
            "ncclUniqueId",
        ],
    } in checks["collectives"]["triggers"]
    assert checks["loss-curve"]["applies"]  # cudnnConvolutionBackwardData: the code trains
    assert "hip" in checks["warp-width"]["targets"] and "64" in checks["warp-width"]["targets"]["hip"]


def write_project(root: Path, files: dict[str, str | bytes]) -> Path:
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def test_checklist_leaves_out_what_the_code_does_not_use(tmp_path: Path) -> None:
    write_project(
        tmp_path / "app",
        {"main.cu": "#include <cuda_runtime.h>\nint main() { float* p; cudaMalloc(&p, 4); cudaFree(p); }\n"},
    )
    report = report_json("app", ["hip"], cwd=tmp_path)
    applying = {c["id"] for c in report["verification"] if c["applies"]}
    assert applying == {"numerics-fp32", "memory-growth"}
    none = report_json(".", ["hip"], cwd=write_project(tmp_path / "plain", {"a.cpp": "int main() { return 0; }\n"}))
    assert not any(c["applies"] for c in none["verification"])
    assert none["verdicts"]["hip"]["verdict"] == "zero-change"
    assert none["verdicts"]["hip"]["reasons"] == ["no CUDA dependency found"]


@pytest.mark.parametrize(
    ("files", "verdict"),
    [
        # Thrust runs unchanged through rocThrust: nothing to change
        ({"a.cu": "#include <thrust/device_vector.h>\nthrust::device_vector<int> v;\n"}, "zero-change"),
        # renames only: `cudaport fix` does it all
        (
            {f"f{i}.cu": "#include <cuda_runtime.h>\nvoid f() { cudaDeviceSynchronize(); }\n" for i in range(3)},
            "minor-change",
        ),
        # one manual file in eleven (9%): still minor
        (
            {
                **{f"f{i}.cu": "void f() { cudaDeviceSynchronize(); }\n" for i in range(10)},
                "warp.cu": "__device__ int lane() { return threadIdx.x & 31; }\n",
            },
            "minor-change",
        ),
        # two manual files in eleven (18%): major
        (
            {
                **{f"f{i}.cu": "void f() { cudaDeviceSynchronize(); }\n" for i in range(9)},
                "warp.cu": "__device__ int lane() { return threadIdx.x & 31; }\n",
                "warp2.cu": "__device__ int lane2() { return threadIdx.x & 31; }\n",
            },
            "major-change",
        ),
        # one blocker anywhere: major
        ({"a.cpp": "#include <NvInfer.h>\n", **{f"f{i}.cu": "int x;\n" for i in range(30)}}, "major-change"),
    ],
)
def test_verdict_scale_thresholds(tmp_path: Path, files: dict[str, str], verdict: str) -> None:
    write_project(tmp_path / "p", files)
    report = report_json("p", ["hip"], cwd=tmp_path)
    assert report["verdicts"]["hip"]["verdict"] == verdict
    assert_report_matches_check(report, "hip", check_json("p", "hip", cwd=tmp_path))


# ---- configuration, excludes, suppressions: the same as check ----------------------------------------------------
def test_configuration_excludes_and_suppressions_are_those_of_check(multi_report: dict[str, Any]) -> None:
    paths = {f["path"] for f in multi_report["files"]}
    assert not any("third_party" in p for p in paths)  # excluded by the project's cudaport.toml
    assert multi_report["configuration"]["file"].endswith("cudaport.toml")
    assert "third_party" in multi_report["configuration"]["exclude"]
    symbols = {a["symbol"] for a in multi_report["apis"]}
    assert "cudaMallocManaged" not in symbols  # `// cudaport: ignore[CP1001]` on its line
    assert "cudaMallocAsync" in symbols
    assert "cudaHelperInit" not in symbols and "cuCount" not in symbols  # the user's own names
    assert "report_project/src/host/tokenizer.cpp" in paths  # scanned, with nothing to report
    row = next(f for f in multi_report["files"] if f["path"] == "report_project/src/host/tokenizer.cpp")
    assert all(row["targets"][t]["findings"]["total"] == 0 for t in ALL_TARGETS)


@pytest.mark.parametrize(
    "options",
    [["--ignore", "CP4,CP5001"], ["--select", "CP2"], ["--extend-exclude", "src/infer,src/kernels/*.cuh"]],
)
def test_command_line_selection_is_that_of_check(options: list[str]) -> None:
    for target in ALL_TARGETS:
        report = report_json(PROJECT, [target], *options)
        assert_report_matches_check(report, target, check_json(PROJECT, target, *options))


def test_extend_exclude_removes_files(tmp_path: Path) -> None:
    report = report_json(PROJECT, ["hip"], "--extend-exclude", "src/infer")
    assert not any("src/infer" in f["path"] for f in report["files"])
    assert "CP5001" not in {d["rule"] for d in report["dependencies"]}


# ---- formats, errors and bad input --------------------------------------------------------------------------------
def test_format_from_suffix_and_flag(tmp_path: Path) -> None:
    md = cudaport("report", PROJECT, "-o", str(tmp_path / "r.markdown"))
    assert md.returncode == 0
    assert (tmp_path / "r.markdown").read_text(encoding="utf-8").startswith("# CUDA migration assessment")
    cudaport("report", PROJECT, "-o", str(tmp_path / "r.htm"))
    assert (tmp_path / "r.htm").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    cudaport("report", PROJECT, "--format", "json", "-o", str(tmp_path / "r.txt"))
    assert json.loads((tmp_path / "r.txt").read_text(encoding="utf-8"))["version"] == 1
    stdout = cudaport("report", PROJECT).stdout  # no -o, no --format: Markdown on stdout
    assert stdout.startswith("# CUDA migration assessment")
    bad = cudaport("report", PROJECT, "-o", str(tmp_path / "r.txt"), check_rc=2)
    assert "cannot tell the format" in bad.stderr and "--format" in bad.stderr


def test_usage_and_configuration_errors(tmp_path: Path) -> None:
    unknown = cudaport("report", PROJECT, "--target", "hip,cuda", check_rc=2)
    assert "unknown target 'cuda'" in unknown.stderr
    project = write_project(tmp_path / "p", {"cudaport.toml": 'target = "hip"\ncolour = "red"\n', "a.cu": "int x;\n"})
    broken = cudaport("report", "p", cwd=tmp_path, check_rc=2)
    assert str(project / "cudaport.toml") in broken.stderr and "colour" in broken.stderr
    unwritable = cudaport("report", PROJECT, "-o", str(tmp_path / "missing" / "r.html"), check_rc=2)
    assert "cannot write" in unwritable.stderr


def test_bad_files_are_skipped_or_reported_like_check(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = {
        "ok.cu": "#include <cuda_runtime.h>\nvoid f() { cudaDeviceSynchronize(); }\n",
        "binary.cu": b"\x7fELF\x00\x00\x01\x02" * 64,
        "gbk.cu": "// 初始化设备\nvoid g() { cudaDeviceReset(); }\n".encode("gbk"),
        "broken.cu": b"void h() { cudaFree(p); \xff\xfe bad bytes }\n",
        "half.cu": "__global__ void k( { cudaMalloc(\n",
    }
    write_project(tmp_path / "p", files)
    report = report_json("p", ["hip"], cwd=tmp_path)
    assert_report_matches_check(report, "hip", check_json("p", "hip", cwd=tmp_path))
    assert [s["path"] for s in report["skipped"]] == ["p/binary.cu"]
    assert {f["path"] for f in report["files"]} == {"p/ok.cu", "p/gbk.cu", "p/broken.cu", "p/half.cu"}


# ---- Markdown and HTML carry the same numbers ---------------------------------------------------------------------
def tally_text(findings: dict[str, int]) -> str:
    return " / ".join(str(findings[level]) for level in ORDER)


def share(part: int, whole: int) -> str:
    if whole == 0 or part == 0:
        return f"{part} (0%)"
    value = 100 * part / whole
    text = "<1%" if value < 1 else ">99%" if value > 99 and part < whole else f"{value:.0f}%"
    return f"{part} ({text})"


def markdown_rows(markdown: str, first_cell: str) -> list[list[str]]:
    rows = []
    for line in markdown.splitlines():
        if line.startswith("| "):
            cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
            if cells and cells[0] == first_cell:
                rows.append(cells)
    return rows


def test_markdown_carries_the_numbers(rendered: dict[str, str]) -> None:
    markdown, report = rendered["md"], json.loads(rendered["json"])
    for level in LEVELS:
        [row] = markdown_rows(markdown, f"findings {level}")
        assert row[1:] == [
            share(report["verdicts"][t]["findings"][level], report["verdicts"][t]["findings"]["total"])
            for t in ALL_TARGETS
        ]
        [row] = markdown_rows(markdown, f"files {level}")
        assert row[1:] == [
            share(report["verdicts"][t]["files"][level], report["scanned"]["files"]) for t in ALL_TARGETS
        ]
    [row] = markdown_rows(markdown, "**verdict**")
    assert row[1:] == [f"**{report['verdicts'][t]['verdict'].replace('-', ' ')}**" for t in ALL_TARGETS]
    for directory in report["directories"]:
        [row] = markdown_rows(markdown, f"`{directory['path']}`")
        assert row[1:3] == [str(directory["files"]), str(directory["lines"])]
        assert row[3 : 3 + len(ALL_TARGETS)] == [tally_text(directory["targets"][t]["findings"]) for t in ALL_TARGETS]
    for file in report["files"]:
        rows = markdown_rows(markdown, f"`{file['path']}`")
        if any(file["targets"][t]["findings"]["total"] for t in ALL_TARGETS):
            assert rows[0][2 : 2 + len(ALL_TARGETS)] == [
                tally_text(file["targets"][t]["findings"]) for t in ALL_TARGETS
            ]
        else:
            assert rows == []
    for target, items in report["work"].items():
        assert f"findings for {report_label(report, target)} ({len(items)})" in markdown
        for item in items:
            assert f"`{item['path']}:{item['line']}:{item['column']}`" in markdown
    for dep in report["dependencies"]:
        [row] = markdown_rows(markdown, f"{dep['family']} ({dep['rule']})".replace("_", "\\_"))
        assert row[1:3] == [str(dep["uses"]), str(dep["files"])]
    for check in report["verification"]:
        assert (f"**{check['title']}**" in markdown.replace("\\", "")) == check["applies"]
    assert "FP32: max abs error \\< 1e-5" in markdown and "BF16/FP16: max abs error \\< 1e-2" in markdown
    assert "at most 10% of the files need a person" in markdown


def report_label(report: dict[str, Any], target: str) -> str:
    return next(t["label"] for t in report["targets"] if t["name"] == target)


class Elements(HTMLParser):
    """Every element with its attributes and text, enough to read the report back."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[dict[str, Any]] = []
        self._open: list[dict[str, Any]] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = {"tag": tag, "attrs": dict(attrs), "text": ""}
        for parent in self._open:  # keep the texts of neighbouring cells apart
            parent["text"] += " "
        self.elements.append(element)
        if tag not in ("input", "br", "meta", "link", "img", "hr"):
            self._open.append(element)

    def handle_endtag(self, tag: str) -> None:
        for index in range(len(self._open) - 1, -1, -1):
            if self._open[index]["tag"] == tag:
                del self._open[index:]
                return

    def handle_data(self, data: str) -> None:
        for element in self._open:
            element["text"] += data

    def find(self, tag: str, **attrs: str) -> list[dict[str, Any]]:
        return [
            e
            for e in self.elements
            if e["tag"] == tag and all(e["attrs"].get(k.replace("_", "-")) == v for k, v in attrs.items())
        ]


def parse_html(text: str) -> Elements:
    parser = Elements()
    parser.feed(text)
    return parser


def test_html_carries_the_numbers(rendered: dict[str, str]) -> None:
    html, report = rendered["html"], json.loads(rendered["json"])
    page = parse_html(html)
    for target in ALL_TARGETS:
        verdict = report["verdicts"][target]
        cells = {
            c["attrs"]["data-key"]: int(c["attrs"]["data-value"])
            for c in page.find("td", data_target=target)
            if "data-key" in c["attrs"]
        }
        for level in LEVELS:
            assert cells[f"findings.{level}"] == verdict["findings"][level]
            assert cells[f"files.{level}"] == verdict["files"][level]
        assert cells["findings.total"] == verdict["findings"]["total"]
        assert cells["files_needing_person"] == verdict["files_needing_person"]
        assert cells["fixable"] == verdict["fixable"]
        [badge] = [b for b in page.find("article", data_target=target)]
        assert f"scale-{verdict['verdict']}" in badge["attrs"]["class"]
        if report["work"][target]:
            assert len(_rows_of(page, f"work-table-{target}")) == len(report["work"][target])
        else:
            assert not page.find("table", id=f"work-table-{target}")
        for item in report["work"][target]:
            assert f"{item['path']}:{item['line']}:{item['column']}" in html
    directory_rows = _rows_of(page, "directories")
    assert [r["text"].split()[0] for r in directory_rows] == [d["path"] for d in report["directories"]]
    files_with_findings = [f for f in report["files"] if any(f["targets"][t]["findings"]["total"] for t in ALL_TARGETS)]
    assert [r["text"].split()[0] for r in _rows_of(page, "files")] == [f["path"] for f in files_with_findings]
    # the dependencies come one table per area, in the areas' order, each listing its area's rules
    area_tables = [e["attrs"]["data-area"] for e in page.find("table") if "data-area" in e["attrs"]]
    assert area_tables == [a["name"] for a in report["areas"]]
    assert [r["attrs"]["data-area"] for r in _rows_of(page, "areas-table")] == area_tables
    statuses = {
        (row["attrs"]["data-rule"], cell["attrs"]["data-target"]): cell["attrs"]["data-status"]
        for area in area_tables
        for row, cell in _cells_with(page, area, "data-status", key="data-area")
    }
    for dep in report["dependencies"]:
        assert dep["rule"] in next(a["rules"] for a in report["areas"] if a["name"] == dep["area"])
        for target in ALL_TARGETS:
            assert statuses[(dep["rule"], target)] == dep["targets"][target]["status"]
    shown = {e["attrs"]["data-check"] for e in page.find("li") if "data-check" in e["attrs"]}
    assert shown == {c["id"] for c in report["verification"] if c["applies"]}
    assert len(_rows_of(page, "apis-table")) == len(report["apis"])


def _rows_of(page: Elements, table_id: str) -> list[dict[str, Any]]:
    """The body rows of one table (in document order)."""
    start = next(i for i, e in enumerate(page.elements) if e["tag"] == "table" and e["attrs"].get("id") == table_id)
    rows = []
    in_body = False
    for element in page.elements[start + 1 :]:
        if element["tag"] == "table":
            break
        if element["tag"] == "tbody":
            in_body = True
        elif element["tag"] == "tr" and in_body:
            rows.append(element)
    return rows


def _cells_with(
    page: Elements, table_id: str, attribute: str, key: str = "id"
) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    start = next(i for i, e in enumerate(page.elements) if e["tag"] == "table" and e["attrs"].get(key) == table_id)
    pairs = []
    row: dict[str, Any] | None = None
    for element in page.elements[start + 1 :]:
        if element["tag"] == "table":
            break
        if element["tag"] == "tr":
            row = element
        elif element["tag"] == "td" and attribute in element["attrs"] and row is not None:
            pairs.append((row, element))
    return pairs


def test_html_is_self_contained(rendered: dict[str, str]) -> None:
    html = rendered["html"]
    page = parse_html(html)
    assert not page.find("link") and not page.find("img") and not page.find("iframe")
    assert all("src" not in e["attrs"] for e in page.elements if e["tag"] == "script")
    assert "http://" not in html.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "https://" not in html and "@import" not in html and "url(" not in html
    [policy] = [e for e in page.find("meta") if e["attrs"].get("http-equiv") == "Content-Security-Policy"]
    assert "default-src 'none'" in policy["attrs"]["content"]
    assert "@media print" in html
    assert len(page.find("svg")) == 3


def test_text_from_the_code_base_is_escaped(tmp_path: Path) -> None:
    evil = '<img src=x onerror="alert(1)">&amp;|'
    source = (
        "#include <NvInfer.h>\n__device__ int lane() { return threadIdx.x & 31; }\nvoid f() { cudaThreadExit(); }\n"
    )
    write_project(tmp_path / "p", {f"{evil}/k|<b>.cu": source})
    out = tmp_path / "r.html"
    cudaport("report", "p", "-o", str(out), cwd=tmp_path)
    html = out.read_text(encoding="utf-8")
    assert "<img" not in html and "<b>" not in html
    assert "&lt;img src=x onerror=&quot;alert(1)&quot;&gt;&amp;amp;|" in html
    page = parse_html(html)
    assert any(r["text"].strip().startswith(f"p/{evil}/k|<b>.cu") for r in _rows_of(page, "files"))
    work = _rows_of(page, "work-table-hip")
    assert len(work) == 2 and all(r["text"].strip().startswith(f"p/{evil}/k|<b>.cu:") for r in work)
    markdown = cudaport("report", "p", "--format", "md", cwd=tmp_path).stdout
    [row] = markdown_rows(markdown, "`p/" + f"{evil}/k|<b>.cu".replace("|", "\\|") + "`")
    assert len(row) == 4  # the pipes in the path did not split the table row


# ---- progress bar -----------------------------------------------------------------------------------------------
def run_with_terminal_stderr(args: list[str], cwd: Path) -> tuple[int, str]:
    """Run the CLI with stderr on a pseudo-terminal (as in an interactive shell) and return what it drew there."""
    master, slave = pty.openpty()
    process = subprocess.Popen(
        [sys.executable, "-m", "cudaport", *args],
        cwd=cwd,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=slave,
        env={**os.environ, "TERM": "xterm", "COLUMNS": "100"},
    )
    os.close(slave)
    chunks = []
    while True:
        ready, _, _ = select.select([master], [], [], 60)
        if not ready:
            process.kill()
            break
        try:
            data = os.read(master, 65536)
        except OSError:  # the child closed the terminal
            break
        if not data:
            break
        chunks.append(data)
    os.close(master)
    return process.wait(timeout=60), b"".join(chunks).decode("utf-8", "replace")


def test_progress_bar_only_on_a_terminal(tmp_path: Path) -> None:
    source = (FIXTURES / PROJECT / "src" / "runtime" / "device_buffer.cu").read_text(encoding="utf-8")
    write_project(tmp_path / "big", {f"part{i // 20}/f{i}.cu": source for i in range(60)})
    code, drawn = run_with_terminal_stderr(["report", "big", "-o", "r.json"], tmp_path)
    assert code == 0
    assert "Scanning [" in drawn and "60/60 files 100%" in drawn
    assert "\x1b[2K" in drawn  # the bar is erased before the closing message
    assert "wrote r.json" in drawn
    quiet = cudaport("report", "big", "-o", "r2.json", cwd=tmp_path)
    assert "Scanning" not in quiet.stderr and "\r" not in quiet.stderr
    code, drawn = run_with_terminal_stderr(["report", "big", "-o", "r3.json", "--no-progress"], tmp_path)
    assert code == 0 and "Scanning" not in drawn


def test_python_module_entry_and_console_script_agree(tmp_path: Path) -> None:
    script = shutil.which("cudaport", path=str(Path(sys.executable).parent))
    assert script is not None
    direct = subprocess.run(
        [script, "report", PROJECT, "--format", "json"],
        cwd=FIXTURES,
        capture_output=True,
        text=True,
        timeout=300,
        env={**os.environ, "SOURCE_DATE_EPOCH": "0"},
    )
    module = cudaport("report", PROJECT, "--format", "json", env={**os.environ, "SOURCE_DATE_EPOCH": "0"})
    assert direct.returncode == 0 and direct.stdout == module.stdout
    assert json.loads(direct.stdout)["generated"] == "1970-01-01T00:00:00Z"
