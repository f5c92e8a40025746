"""`cudaport report` through the CLI on a realistic multi-directory CUDA project (tests/fixtures/report_project).

The numbers in the JSON report are checked against the findings that `cudaport check --format json` gives for the
same tree and target, and the Markdown and HTML are checked to carry the same numbers. The multi-target parts run
for every target the rule data defines, so new targets are covered without changing these tests."""

from __future__ import annotations

import base64
import json
import os
import pty
import re
import select
import shutil
import subprocess
import sys
import zlib
from collections import Counter, defaultdict
from html.parser import HTMLParser
from pathlib import Path, PurePosixPath
from typing import Any

import pytest

from cudaport.knowledge.ruleset import load_ruleset

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
    return {
        "summary": doc["summary"],
        "files_by_worst": {level: files_by_worst[level] for level in LEVELS},
        "per_file": {p: {level: c[level] for level in LEVELS} for p, c in per_file.items()},
        "per_dir": {p: {level: c[level] for level in LEVELS} for p, c in per_dir.items()},
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

    # every finding, exactly as `check` gives it, with what the effort estimate counts for it
    listed = report["findings"][target]
    assert [{k: v for k, v in f.items() if not k.startswith("effort_")} for f in listed] == check["diagnostics"]
    for finding in listed:
        low, high = finding["effort_hours"]
        assert (finding["effort_kind"] is None) == (finding["difficulty"] == "portable")
        assert 0 <= low <= high and (high > 0) == (finding["difficulty"] != "portable")

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
    """Cheapest first by the estimated effort (the middle of its range), then blockers, manual findings, files."""

    def key(target: str) -> tuple[float, ...]:
        v = multi_report["verdicts"][target]
        f = v["findings"]
        low, high = v["effort"]["days"]
        return (round((low + high) / 2, 2), f["blocker"], f["manual"], v["files_needing_person"])

    assert multi_report["ranking"] == sorted(multi_report["ranking"], key=key)
    assert "least estimated effort" in multi_report["ranking_rule"]


def test_verdict_of_the_fixture_for_hip(checks: dict[str, dict[str, Any]]) -> None:
    report = report_json(PROJECT, ["hip"])
    hip = report["verdicts"]["hip"]
    # TensorRT and tensor-core code have no HIP counterpart: days of redesign in a 422-line project, a major change,
    # and the report says why.
    assert hip["verdict"] == "major-change"
    assert_days(hip["reasons"][0].split(" person-days estimated")[0], hip["effort"]["days"])
    assert any("blocker" in reason for reason in hip["reasons"])
    assert [level["id"] for level in report["scale"]["levels"]] == [
        "zero-change",
        "minor-change",
        "moderate-change",
        "major-change",
    ]
    shares = hip["findings_share"]
    assert abs(sum(shares.values()) - 1.0) < 1e-3
    assert shares["blocker"] == round(hip["findings"]["blocker"] / hip["findings"]["total"], 4)


def test_heaviest_first_ordering(multi_report: dict[str, Any]) -> None:
    def weight(row: dict[str, Any]) -> tuple[int, ...]:
        return tuple(sum(row["targets"][t]["findings"][level] for t in ALL_TARGETS) for level in ORDER)

    def work_weight(group: dict[str, Any]) -> tuple[int, ...]:
        return tuple(sum(group["targets"][t]["uses"][level] for t in ALL_TARGETS) for level in ORDER)

    for table in ("directories", "files"):
        weights = [weight(row) for row in multi_report[table]]
        assert weights == sorted(weights, reverse=True), table
    groups = [work_weight(g) for g in multi_report["work"]]
    assert groups == sorted(groups, reverse=True)


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


NPP_FILE = """#include <npp.h>
void blur(const Npp8u* src, int step, Npp8u* dst, NppiSize roi) {
  NppiSize mask = {3, 3};
  NppiPoint anchor = {1, 1};
  nppiFilterBox_8u_C1R(src, step, dst, step, roi, mask, anchor);
}
"""
KERNEL_FILE = """#include <cuda_runtime.h>
__global__ void scale(float* x, float a, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] *= a;
}
void run(float* x, int n) { scale<<<(n + 255) / 256, 256>>>(x, 2.0f, n); cudaDeviceSynchronize(); }
"""
RENAMES = {f"f{i}.cu": "#include <cuda_runtime.h>\nvoid f() { cudaDeviceSynchronize(); }\n" for i in range(3)}


def assert_days(text: str, pair: list[float]) -> None:
    """A range of person-days as written ('0.92–2.7') stands for `pair` (the JSON's, rounded to two decimals)."""
    for shown, value in zip(text.replace(",", "").split("–"), pair, strict=True):
        step = 0.01 if value < 1 else 0.1 if value < 10 else 1
        assert abs(float(shown) - value) <= step / 2 + 0.006, (text, pair)


def assert_verdict_is_the_stated_rule(report: dict[str, Any], target: str) -> None:
    """The verdict from the estimate's high end per 1,000 lines, with the thresholds the report states."""
    scale = report["scale"]
    verdict = report["verdicts"][target]
    counted = max(report["scanned"]["code_lines"], scale["lines_at_least"])
    density = verdict["effort"]["days"][1] * 1000 / counted
    findings = verdict["findings"]
    if not (findings["mechanical"] or findings["manual"] or findings["blocker"]):
        expected = "zero-change"
    elif density <= scale["minor"] + 1e-9:
        expected = "minor-change"
    elif density <= scale["moderate"] + 1e-9:
        expected = "moderate-change"
    else:
        expected = "major-change"
    assert verdict["verdict"] == expected, (target, density)
    assert abs(verdict["days_per_1000_lines"] - density) < 0.01


@pytest.mark.parametrize(
    ("files", "target", "verdict"),
    [
        # Thrust runs unchanged through rocThrust: nothing to change
        ({"a.cu": "#include <thrust/device_vector.h>\nthrust::device_vector<int> v;\n"}, "hip", "zero-change"),
        # renames only: `cudaport fix` does it all, minutes of review
        (RENAMES, "hip", "minor-change"),
        # a kernel and its launch compile with hipcc as they are
        ({"k.cu": KERNEL_FILE}, "hip", "minor-change"),
        # NPP has no counterpart: a file's use of it is redesigned (one to three days, in a tree counted as 1,000 lines)
        ({"filter.cpp": NPP_FILE}, "hip", "moderate-change"),
        # the kernel is rewritten in Ascend C: days of work
        ({"k.cu": KERNEL_FILE}, "npu", "major-change"),
    ],
)
def test_verdict_follows_the_estimated_effort(tmp_path: Path, files: dict[str, str], target: str, verdict: str) -> None:
    write_project(tmp_path / "p", files)
    report = report_json("p", [target], cwd=tmp_path)
    assert report["verdicts"][target]["verdict"] == verdict
    assert_verdict_is_the_stated_rule(report, target)
    assert_report_matches_check(report, target, check_json("p", target, cwd=tmp_path))


def test_every_verdict_of_the_fixture_is_the_stated_rule(multi_report: dict[str, Any]) -> None:
    for target in ALL_TARGETS:
        assert_verdict_is_the_stated_rule(multi_report, target)


# ---- the effort estimate ----------------------------------------------------------------------------------------
def kind_costs(report: dict[str, Any]) -> dict[str, dict[str, dict[str, Any]]]:
    return {kind["name"]: kind["hours"] for kind in report["effort"]["kinds"]}


def test_effort_adds_up_from_the_findings(multi_report: dict[str, Any]) -> None:
    """A target's estimate is its findings' hours plus each file's build-and-test hours by its heaviest finding,
    and each kind's line in the table is the sum of its findings."""
    file_hours = multi_report["effort"]["file_hours"]
    per_day = multi_report["effort"]["hours_per_day"]
    for target in ALL_TARGETS:
        findings = multi_report["findings"][target]
        worst: dict[str, int] = {}
        by_kind: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
        for finding in findings:
            level = LEVELS.index(finding["difficulty"])
            worst[finding["path"]] = max(worst.get(finding["path"], 0), level)
            if finding["effort_kind"]:
                totals = by_kind[finding["effort_kind"]]
                totals[0] += finding["effort_hours"][0]
                totals[1] += finding["effort_hours"][1]
                totals[2] += 1
        overhead = [0.0, 0.0]
        for level in worst.values():
            if level:
                overhead[0] += file_hours[LEVELS[level]][0]
                overhead[1] += file_hours[LEVELS[level]][1]
        estimate = multi_report["verdicts"][target]["effort"]
        total = [sum(t[0] for t in by_kind.values()) + overhead[0], sum(t[1] for t in by_kind.values()) + overhead[1]]
        assert estimate["hours"] == pytest.approx(total, abs=0.02), target
        assert estimate["days"] == pytest.approx([total[0] / per_day, total[1] / per_day], abs=0.01), target
        assert estimate["files"]["days"] == pytest.approx([h / per_day for h in overhead], abs=0.01)
        assert {k["kind"]: k["findings"] for k in estimate["kinds"]} == {k: int(v[2]) for k, v in by_kind.items()}
        for kind in estimate["kinds"]:
            low, high = by_kind[kind["kind"]][:2]
            assert kind["days"] == pytest.approx([low / per_day, high / per_day], abs=0.01)


def test_effort_counts_the_first_use_of_each_unit_in_full(multi_report: dict[str, Any]) -> None:
    """The stated rule: in each unit of work (a name across the project, a rule in one file, or every use) the
    first use costs `first` and each further one `more`."""
    costs = kind_costs(multi_report)
    for target in ALL_TARGETS:
        units: dict[tuple[Any, ...], list[list[float]]] = defaultdict(list)
        for finding in multi_report["findings"][target]:
            if not finding["effort_kind"]:
                continue
            cost = costs[finding["effort_kind"]][finding["difficulty"]]
            key: tuple[Any, ...] = (finding["effort_kind"], finding["rule"], finding["difficulty"])
            if cost["per"] == "name":
                key += (finding["symbol"],)
            elif cost["per"] == "file":
                key += (finding["path"],)
            else:
                key += (finding["path"], finding["line"], finding["column"])
            assert finding["effort_hours"] in (cost["first"], cost["more"]), finding
            units[key].append(finding["effort_hours"])
        for key, spent in units.items():
            cost = costs[key[0]][key[2]]
            if cost["first"] != cost["more"]:
                assert spent.count(cost["first"]) == 1, (target, key)
                assert spent.count(cost["more"]) == len(spent) - 1, (target, key)


def test_effort_tells_the_targets_apart_and_picks_the_cheapest(tmp_path: Path) -> None:
    """Kernels that compile with hipcc cost minutes on HIP and a rewrite on the NPU: the estimate says so, the
    verdicts differ, and the cheapest target is the one with the least estimated effort."""
    write_project(tmp_path / "p", {"k.cu": KERNEL_FILE, "filter.cpp": NPP_FILE, **RENAMES})
    report = report_json("p", ["npu", "hip"], cwd=tmp_path)
    hip, npu = report["verdicts"]["hip"], report["verdicts"]["npu"]
    assert hip["effort"]["days"][1] < npu["effort"]["days"][0]
    assert report["cheapest"] == "hip" and report["ranking"] == ["hip", "npu"]
    kinds = {k["kind"]: k for k in npu["effort"]["kinds"]}
    assert kinds["kernel"]["findings"] == 1
    costs = kind_costs(report)
    per_day = report["effort"]["hours_per_day"]
    assert kinds["kernel"]["days"] == pytest.approx(
        [h / per_day for h in costs["kernel"]["blocker"]["first"]], abs=0.01
    )
    assert "kernel" not in {k["kind"] for k in hip["effort"]["kinds"] if k["days"][1] > 0.5}
    markdown = cudaport("report", "p", "--target", "npu,hip", "--format", "md", cwd=tmp_path).stdout
    [row] = markdown_rows(markdown, "effort (person-days)")
    assert_days(row[1], npu["effort"]["days"])
    assert_days(row[2], hip["effort"]["days"])
    assert "A person-day is 6 productive hours" in markdown
    assert "- **kernel** (a `__global__` kernel the project wrote): " in markdown


def test_effort_weights_from_the_configuration(tmp_path: Path) -> None:
    """`effort` in cudaport.toml or [tool.cudaport.effort] changes the weights it names, and the report says so."""
    project = write_project(tmp_path / "p", {"k.cu": KERNEL_FILE, "filter.cpp": NPP_FILE})
    base = report_json("p", ["npu"], cwd=tmp_path)
    (project / "cudaport.toml").write_text(
        "[effort]\nhours-per-day = 3\n[effort.kind.kernel]\nblocker = { first = [40, 80] }\n", encoding="utf-8"
    )
    changed = report_json("p", ["npu"], cwd=tmp_path)
    kinds = {k["kind"]: k for k in changed["verdicts"]["npu"]["effort"]["kinds"]}
    assert kinds["kernel"]["days"] == pytest.approx([40 / 3, 80 / 3], abs=0.01)
    before = {k["kind"]: k for k in base["verdicts"]["npu"]["effort"]["kinds"]}
    for name, kind in kinds.items():
        if name != "kernel":  # the same hours, in days of three hours instead of six
            assert kind["days"] == pytest.approx([d * 2 for d in before[name]["days"]], abs=0.02), name
    assert changed["effort"]["hours_per_day"] == 3
    assert changed["effort"]["overridden"] == ["hours-per-day", "kind.kernel.blocker.first"]
    assert changed["configuration"]["effort"] == {
        "hours-per-day": 3,
        "kind": {"kernel": {"blocker": {"first": [40, 80]}}},
    }
    markdown = cudaport("report", "p", "--target", "npu", "--format", "md", cwd=tmp_path).stdout
    assert "changed by the configuration: `hours-per-day`, `kind.kernel.blocker.first`" in markdown
    assert "A person-day is 3 productive hours" in markdown
    html = cudaport("report", "p", "--target", "npu", "--format", "html", cwd=tmp_path).stdout
    assert "Changed by the configuration: <code>hours-per-day</code>, <code>kind.kernel.blocker.first</code>" in html
    # the same keys under [tool.cudaport.effort] in pyproject.toml
    (project / "cudaport.toml").unlink()
    (project / "pyproject.toml").write_text("[tool.cudaport.effort]\nhours-per-day = 3\n", encoding="utf-8")
    pyproject = report_json("p", ["npu"], cwd=tmp_path)
    assert pyproject["verdicts"]["npu"]["effort"]["hours"] == base["verdicts"]["npu"]["effort"]["hours"]
    assert pyproject["verdicts"]["npu"]["effort"]["days"] == pytest.approx(
        [d * 2 for d in base["verdicts"]["npu"]["effort"]["days"]], abs=0.02
    )


# ---- routes -----------------------------------------------------------------------------------------------------
def route_files(report: dict[str, Any], target: str) -> dict[str, set[str]]:
    return {r: set(v["files"]) for r, v in report["verdicts"][target]["route"]["routes"].items()}


def assert_routes_are_the_files(report: dict[str, Any], target: str) -> None:
    """Each file with work is under exactly one route, the one its row names."""
    lists = route_files(report, target)
    for file in report["files"]:
        route = file["targets"][target]["route"]
        for name, members in lists.items():
            assert (file["path"] in members) == (route == name), (file["path"], route)


@pytest.mark.parametrize(
    ("files", "target", "route", "words"),
    [
        # renames and adapted calls: the framework-level route
        (RENAMES, "hip", "A", "renames `cudaport fix` applies"),
        # the project's kernels cannot run on the NPU: the rewrite shapes the port
        ({"k.cu": KERNEL_FILE, **RENAMES}, "npu", "B", "rewritten in Ascend C"),
        # NPP has no HIP counterpart: that file keeps its CUDA path while the rest moves
        ({"filter.cpp": NPP_FILE, "f0.cu": RENAMES["f0.cu"]}, "hip", "C", "NPP (7 uses)"),
    ],
)
def test_route_follows_what_the_code_uses(
    tmp_path: Path, files: dict[str, str], target: str, route: str, words: str
) -> None:
    write_project(tmp_path / "p", files)
    report = report_json("p", [target], cwd=tmp_path)
    plan = report["verdicts"][target]["route"]
    assert plan["recommended"] == route
    assert words in plan["why"]
    assert_routes_are_the_files(report, target)
    if route == "B":
        assert route_files(report, target)["B"] == {"p/k.cu"}
    if route == "C":
        assert route_files(report, target)["C"] == {"p/filter.cpp"}
        assert route_files(report, target)["A"] == {"p/f0.cu"}
    markdown = cudaport("report", "p", "--target", target, "--format", "md", cwd=tmp_path).stdout
    assert f"route {route}, {report['routes'][route]['name']}" in markdown
    assert "`cudaport fix --style dual-stack`" in markdown  # route C names the fix that writes it


def test_route_c_says_what_the_dual_stack_fix_covers_when_told(tmp_path: Path) -> None:
    """The seam for `fix --style dual-stack`: given which findings it covers, route C's files say how many it
    writes and how many remain; without it the report lists the files and claims nothing."""
    from cudaport.model.results import Diagnostic
    from cudaport.project.config import load_settings
    from cudaport.report import assess, render

    write_project(tmp_path / "p", {"filter.cpp": NPP_FILE, "f0.cu": RENAMES["f0.cu"]})
    settings = load_settings(tmp_path)
    ruleset = load_ruleset()

    def covers(
        target: str, diagnostic: Diagnostic
    ) -> bool:  # a stand-in: the NPP types (5), not the header and the call
        return diagnostic.finding.symbol.startswith("Npp")

    told = assess([str(tmp_path / "p")], settings, ["hip"], ruleset, dual_stack=covers)
    share = told.summaries["hip"].plan.shares["C"]
    assert share.coverage is not None and (share.coverage.covered, share.coverage.remaining) == (5, 2)
    assert "the dual-stack fix covers 5 of their findings, 2 remain for a person" in render(told, "md")
    document = json.loads(render(told, "json"))
    assert document["verdicts"]["hip"]["route"]["routes"]["C"]["dual_stack_fix"] == {"covered": 5, "remaining": 2}
    untold = assess([str(tmp_path / "p")], settings, ["hip"], ruleset, dual_stack=None)
    assert untold.summaries["hip"].plan.shares["C"].coverage is None
    assert "dual-stack fix covers" not in render(untold, "md") + render(untold, "html")


def test_route_c_counts_what_the_engine_s_dual_stack_fix_covers(tmp_path: Path) -> None:
    """By default route C's coverage is the engine's own: the findings of its files that `check` marks
    dual_stack_fixable, the rest left for a person; `cudaport report` says both numbers."""
    mixed = "#include <cuda_runtime.h>\n" + NPP_FILE + "void wait() { cudaDeviceSynchronize(); }\n"
    write_project(tmp_path / "p", {"filter.cpp": mixed, "f0.cu": RENAMES["f0.cu"]})
    report = report_json("p", ["hip"], cwd=tmp_path)
    coverage = report["verdicts"]["hip"]["route"]["routes"]["C"]["dual_stack_fix"]
    checked = json.loads(
        cudaport(
            "check", "p/filter.cpp", "--target", "hip", "--format", "json", "--fail-on", "never", cwd=tmp_path
        ).stdout
    )
    ported = [d for d in checked["diagnostics"] if d["difficulty"] != "portable"]
    covered = sum(1 for d in ported if d["dual_stack_fixable"])
    assert covered > 0 and coverage == {"covered": covered, "remaining": len(ported) - covered}
    markdown = cudaport("report", "p", "--target", "hip", "--format", "md", cwd=tmp_path).stdout
    assert f"the dual-stack fix covers {covered} of their findings" in markdown


def test_routes_of_the_fixture(multi_report: dict[str, Any]) -> None:
    """The fixture's kernels are rewritten on the NPU (B); its already dual-stack header is under C, counted."""
    for target in ALL_TARGETS:
        assert_routes_are_the_files(multi_report, target)
    npu = multi_report["verdicts"]["npu"]["route"]
    assert npu["recommended"] == "B"
    assert "report_project/src/kernels/reduce.cu" in npu["routes"]["B"]["files"]
    hip = multi_report["verdicts"]["hip"]["route"]["routes"]["C"]
    assert "report_project/src/compat/gpu_runtime.h" in hip["files"] and hip["dual_stack_files"] >= 1
    assert multi_report["routes"]["C"]["fix"] == "cudaport fix --style dual-stack"


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
    assert json.loads((tmp_path / "r.txt").read_text(encoding="utf-8"))["version"] == 2
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


FILE_ROWS = {
    "portable": "files unchanged (portable or no finding)",
    "mechanical": "files with safe rewrites only",
    "manual": "files a person changes (no blocker)",
    "blocker": "files with a blocker",
}


def folder_nodes(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    nodes: dict[str, dict[str, Any]] = {}
    stack = [report["folders"]]
    while stack:
        node = stack.pop()
        nodes[node["path"]] = node
        stack.extend(node["folders"])
    return nodes


def test_markdown_carries_the_numbers(rendered: dict[str, str]) -> None:
    markdown, report = rendered["md"], json.loads(rendered["json"])
    for level in LEVELS:
        [row] = markdown_rows(markdown, f"findings {level}")
        assert row[1:] == [
            share(report["verdicts"][t]["findings"][level], report["verdicts"][t]["findings"]["total"])
            for t in ALL_TARGETS
        ]
        [row] = markdown_rows(markdown, FILE_ROWS[level])
        assert row[1:] == [
            share(report["verdicts"][t]["files"][level], report["scanned"]["files"]) for t in ALL_TARGETS
        ]
    [row] = markdown_rows(markdown, "**verdict**")
    assert row[1:] == [f"**{report['verdicts'][t]['verdict'].replace('-', ' ')}**" for t in ALL_TARGETS]
    [row] = markdown_rows(markdown, "effort (person-days)")
    for cell, target in zip(row[1:], ALL_TARGETS, strict=True):
        assert_days(cell, report["verdicts"][target]["effort"]["days"])
    [row] = markdown_rows(markdown, "route")
    assert [cell.split(":")[0] for cell in row[1:]] == [
        report["verdicts"][t]["route"]["recommended"] for t in ALL_TARGETS
    ]
    for target in ALL_TARGETS:
        plan = report["verdicts"][target]["route"]
        route = plan["recommended"]
        assert f"### {report_label(report, target)}: route {route}, {report['routes'][route]['name']}" in markdown
        assert f"Why: {plan['why']}." in markdown.replace("\\", "")
    # the folders: each row the totals of its folder in the JSON tree
    nodes = folder_nodes(report)
    folder_rows = [r for r in (markdown_rows(markdown, f"`{path}`") for path in nodes if path) if r]
    assert folder_rows
    for [row] in folder_rows:
        node = nodes[row[0].strip("`")]
        assert row[1:3] == [str(node["files"]), str(node["lines"])]
        assert row[3 : 3 + len(ALL_TARGETS)] == [tally_text(node["targets"][t]["findings"]) for t in ALL_TARGETS]
    touched = [f for f in report["files"] if any(f["targets"][t]["findings"]["total"] for t in ALL_TARGETS)]
    for file in touched[:40]:
        [row] = markdown_rows(markdown, f"`{file['path']}`")
        assert row[2 : 2 + len(ALL_TARGETS)] == [tally_text(file["targets"][t]["findings"]) for t in ALL_TARGETS]
        assert row[2 + len(ALL_TARGETS) :] == [file["targets"][t]["route"] or "—" for t in ALL_TARGETS]
    for group in report["work"][:40]:
        title = group["title"] if group["construct"] or group["declarations"] else f"`{group['title']}`"
        uses, files = group["uses"], group["files"]
        line = f"- {title} — {uses} use{'s' if uses != 1 else ''} in {files} file{'s' if files != 1 else ''}"
        assert line in markdown.replace("\\", ""), line
    for index, dep in enumerate(report["dependencies"]):
        rows = markdown_rows(markdown, f"{dep['family']} ({dep['rule']})".replace("_", "\\_"))
        assert len(rows) == (2 if index < 8 else 1)  # its area's table, and the summary's for the top eight
        assert all(row[1:3] == [str(dep["uses"]), str(dep["files"])] for row in rows)
    for check in report["verification"]:
        assert (f"**{check['title']}**" in markdown.replace("\\", "")) == check["applies"]
    assert "FP32: max abs error \\< 1e-5" in markdown and "BF16/FP16: max abs error \\< 1e-2" in markdown
    assert "at most 1 person-days per 1,000 lines of code (C/C++/CUDA and Python" in markdown


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
                for closed in self._open[index:]:
                    closed["end"] = len(self.elements)  # the elements inside it are those before this index
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


def embedded_details(html: str) -> dict[str, Any]:
    """The page's compressed block of details, read as its script reads it."""
    match = re.search(r'<script type="application/octet-stream" id="report-details">([^<]*)</script>', html)
    assert match is not None
    return json.loads(zlib.decompress(base64.b64decode(match.group(1))).decode("utf-8"))


def test_html_carries_the_numbers(rendered: dict[str, str]) -> None:
    html, report = rendered["html"], json.loads(rendered["json"])
    page = parse_html(html)
    for target in ALL_TARGETS:
        verdict = report["verdicts"][target]
        cells = {
            c["attrs"]["data-key"]: float(c["attrs"]["data-value"])
            for c in page.find("td", data_target=target)
            if "data-key" in c["attrs"]
        }
        low, high = verdict["effort"]["days"]
        assert cells["effort"] == pytest.approx((low + high) / 2, abs=0.01)
        for level in LEVELS:
            assert cells[f"findings.{level}"] == verdict["findings"][level]
            assert cells[f"files.{level}"] == verdict["files"][level]
        assert cells["findings.total"] == verdict["findings"]["total"]
        assert cells["files_needing_person"] == verdict["files_needing_person"]
        assert cells["fixable"] == verdict["fixable"]
        [card] = page.find("article", data_target=target)
        assert f"scale-{verdict['verdict']}" in card["attrs"]["class"]
        [effort] = [e for e in _inside(page, card) if e["tag"] == "p" and e["attrs"].get("class") == "effort"]
        assert (float(effort["attrs"]["data-low"]), float(effort["attrs"]["data-high"])) == pytest.approx(
            verdict["effort"]["days"], abs=0.006
        )
        # the card's file rows split the scanned files: they add up to all of them, no more
        counts = [int(e["text"]) for e in _inside(page, card) if e["tag"] == "td" and e["attrs"].get("class") == "num"]
        assert counts == [verdict["files"][level] for level in LEVELS] and sum(counts) == report["scanned"]["files"]
        [why] = [p for p in page.find("p") if p["attrs"].get("data-target") == target]
        assert why["attrs"]["data-route"] == verdict["route"]["recommended"]
        assert " ".join(why["text"].split()) == " ".join((verdict["route"]["why"] + ".").replace("`", "").split())
        kinds = {
            c["attrs"]["data-kind"]: int(c["attrs"]["data-findings"])
            for c in page.find("td", data_target=target)
            if "data-kind" in c["attrs"]
        }
        assert kinds == {k["kind"]: k["findings"] for k in verdict["effort"]["kinds"]}
    # work by API, files and APIs: the first rows in the page, the rest in the embedded details
    assert [r["attrs"]["data-work"] for r in _rows_of(page, "work-apis")] == [
        str(i) for i in range(min(50, len(report["work"])))
    ]
    touched = [f for f in report["files"] if any(f["targets"][t]["findings"]["total"] for t in ALL_TARGETS)]
    assert [r["text"].split()[0] for r in _rows_of(page, "files")] == [f["path"] for f in touched[:40]]
    nodes = folder_nodes(report)
    folder_rows = [r["attrs"]["data-folder"] for r in _rows_of(page, "folders")]
    assert folder_rows == [report["folders"]["path"], *[f["path"] for f in report["folders"]["folders"]]]
    for row in _rows_of(page, "folders"):
        tallies = [e for e in _inside(page, row) if e["tag"] == "td" and "data-counts" in e["attrs"]]
        node = nodes[row["attrs"]["data-folder"]]
        assert [t["attrs"]["data-counts"] for t in tallies] == [
            " ".join(str(node["targets"][t]["findings"][level]) for level in ORDER) for t in ALL_TARGETS
        ]
    details = embedded_details(html)
    assert details["targets"] == ALL_TARGETS
    assert [f[0] for f in details["files"]] == [f["path"] for f in touched]
    assert [w[0] for w in details["work"]] == [w["title"] for w in report["work"]]
    assert [a[0] for a in details["apis"]] == [a["symbol"] for a in report["apis"]]
    for index, target in enumerate(ALL_TARGETS):
        present = sum(1 for rows in details["rows"] for row in rows if row[3][index] != "-")
        assert present == len(report["findings"][target])
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
    assert len(_rows_of(page, "apis-table")) == min(50, len(report["apis"]))


def _inside(page: Elements, parent: dict[str, Any]) -> list[dict[str, Any]]:
    """The elements inside `parent`, in document order (the parser closes an element when its end tag comes)."""
    start = next(i for i, e in enumerate(page.elements) if e is parent)
    return page.elements[start + 1 : parent.get("end", len(page.elements))]


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
    # the embedded details hold the names as data: the page's script only ever sets them as text
    details = embedded_details(html)
    assert [f[0] for f in details["files"]] == [f"p/{evil}/k|<b>.cu"]
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
