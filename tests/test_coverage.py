"""Coverage of the shared CUDA→HIP maps (../shared/reference, present in CI too): every API name and every header
resolves through the rule data to a rule, with the HIP counterpart the map gives or "no equivalent", both in the
rule data and in what `cudaport check` reports for a file that uses each of them."""

from __future__ import annotations

import csv
import importlib.util
import re
from collections import defaultdict
from pathlib import Path

import pytest

from conftest import REPO, SHARED_REFERENCE, Cli, require_shared_reference
from cudaport.analyzers.c.calls import load_call_rewrites
from cudaport.knowledge.ruleset import RuleSet, load_ruleset
from cudaport.model.findings import Difficulty

API_MAP = SHARED_REFERENCE / "cuda-hip-api-map.csv"
# The importer's corrections of HIPIFY's header table (paths HIP does not install), the one list of them.
_IMPORTER = importlib.util.spec_from_file_location("import_hipify_map", REPO / "tools" / "import_hipify_map.py")
assert _IMPORTER is not None and _IMPORTER.loader is not None
_importer = importlib.util.module_from_spec(_IMPORTER)
_IMPORTER.loader.exec_module(_importer)
HEADER_CORRECTIONS: dict[str, str] = _importer.HEADER_CORRECTIONS
HEADER_MAP = SHARED_REFERENCE / "cuda-hip-header-map.csv"


def _rows(path: Path) -> list[dict[str, str]]:
    require_shared_reference()
    with path.open(encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def _api_map() -> dict[str, dict[str, str]]:
    """cuda_name -> row; a name listed by two libraries must agree on its HIP name."""
    by_name: dict[str, list[dict[str, str]]] = defaultdict(list)
    for row in _rows(API_MAP):
        by_name[row["cuda_name"]].append(row)
    for name, rows in by_name.items():
        assert len({r["hip_name"] for r in rows}) == 1, f"{name} has conflicting HIP names in the map"
    return {name: rows[0] for name, rows in by_name.items()}


@pytest.fixture(scope="module")
def ruleset() -> RuleSet:
    return load_ruleset()


def _from_hip_headers() -> dict[str, str]:
    """Counterparts HIPIFY's map lacks but HIP's own headers define (rules/versions/hip.csv, `source = headers`)."""
    rows = _rows(REPO / "rules" / "versions" / "hip.csv")
    return {row["name"]: row["counterpart"] for row in rows if row["source"] == "headers" and row["counterpart"]}


def test_the_map_is_the_one_the_issue_names() -> None:
    assert len(_rows(API_MAP)) == 8932
    assert len(_api_map()) > 8700


def test_every_api_name_resolves_to_a_rule_with_the_maps_counterpart(ruleset: RuleSet) -> None:
    problems = []
    headers = _from_hip_headers()
    for name, row in _api_map().items():
        symbol = ruleset.symbol(name)
        if symbol is None:
            problems.append(f"{name}: no rule")
            continue
        mapping = symbol.targets.get("hip")
        recorded = mapping.replacement if mapping is not None else ""
        row = {**row, "hip_name": headers.get(name) or row["hip_name"]}  # the newest release first
        if recorded != row["hip_name"]:
            problems.append(f"{name}: rule data says {recorded!r}, the map {row['hip_name']!r}")
            continue
        outcome = ruleset.outcome(symbol, "hip")
        rule = ruleset.rule(symbol.rule)
        if not row["hip_name"]:  # no equivalent
            if outcome.replacement is not None or outcome.difficulty < Difficulty.MANUAL:
                problems.append(f"{name}: no HIP equivalent, yet {outcome.difficulty.label} → {outcome.replacement}")
        elif row["hip_name"] == name:
            if outcome.replacement is not None:
                problems.append(f"{name}: same name on HIP, yet a rewrite to {outcome.replacement}")
        elif rule.renames:
            if outcome.replacement != row["hip_name"]:
                problems.append(f"{name}: rewrite {outcome.replacement!r} instead of {row['hip_name']!r}")
        elif outcome.replacement is not None or outcome.difficulty < Difficulty.MANUAL:  # cuDNN → MIOpen
            problems.append(f"{name}: {rule.code} never renames, yet {outcome.difficulty.label} {outcome.replacement}")
    assert problems == [], "\n".join(problems[:50])


def test_every_api_name_is_reported_by_check_with_its_counterpart(cli: Cli, ruleset: RuleSet, tmp_path: Path) -> None:
    """One file that uses all 8,7xx names, each where a CUDA name of its kind belongs (a call in a function for
    both host and device, so that host APIs are not calls of the device-side runtime, a declaration, an
    expression), checked through the CLI. Plain C math that is never reported (`sqrtf`) and plain
    enum names that only count in CUDA positions are checked in the rule data above instead."""
    lines = ["__host__ __device__ void uses_everything() {"]
    expected: dict[int, tuple[str, dict[str, str]]] = {}
    # Calls whose HIP form differs (rules/calls.toml) are written with as many arguments as their first template
    # takes: a call that fits no template is left to a person, with no replacement.
    rewrites = load_call_rewrites(ruleset.tables["calls"])
    headers = _from_hip_headers()
    callees: dict[str, str] = {}
    for name, row in _api_map().items():
        symbol = ruleset.symbol(name)
        assert symbol is not None
        if symbol.quiet or (symbol.generic and row["kind"] not in ("function", "device_function", "type")):
            continue
        calls = rewrites.get((name, "hip"))
        if calls is not None:
            count = max(int(n) for n in re.findall(r"\{&?(\d+)(?!\?)(?::[^{}]+)?\}", calls[0].template))
            lines.append(f"  {name}({', '.join(f'a{i}' for i in range(1, count + 1))});")
            # a template for one form of the API gives way when the file names the other form (this one does)
            callees[name] = "" if calls[0].unless_file_mentions else calls[0].callee
        elif row["kind"] in ("function", "device_function"):
            lines.append(f"  {name}();")
        elif row["kind"] == "type":
            lines.append(f"  {name} value_{len(lines)};")
        else:
            lines.append(f"  (void){name};")
        expected[len(lines)] = (name, row)
    lines.append("}")
    (tmp_path / "uses_everything.cu").write_text("#include <cuda_runtime.h>\n" + "\n".join(lines) + "\n")
    report = cli("check", "uses_everything.cu", "--format", "json", cwd=tmp_path).json()
    by_line = {d["line"] - 1: d for d in report["diagnostics"] if d["line"] > 1}
    problems = []
    for line, (name, row) in expected.items():
        diagnostic = by_line.get(line)
        if diagnostic is None or diagnostic["symbol"] != name:
            problems.append(f"line {line}: {name} not reported")
            continue
        rule = ruleset.rule(diagnostic["rule"])
        hip = headers.get(name) or row["hip_name"]
        if name in callees:
            if diagnostic["replacement"] != (callees[name] or None):
                problems.append(f"{name}: replacement {diagnostic['replacement']!r}, calls.toml says {callees[name]!r}")
        elif not hip and (
            diagnostic["replacement"] is not None or diagnostic["difficulty"] in ("portable", "mechanical")
        ):
            problems.append(f"{name}: no HIP equivalent, reported as {diagnostic}")
        elif name not in callees and hip and hip != name and rule.renames and diagnostic["replacement"] != hip:
            problems.append(f"{name}: replacement {diagnostic['replacement']!r}, the map says {hip!r}")
        elif hip == name and diagnostic["replacement"] is not None:
            problems.append(f"{name}: same name on HIP, yet replaced by {diagnostic['replacement']!r}")
        if diagnostic["fixable"] and diagnostic["difficulty"] != "mechanical":
            problems.append(f"{name}: a safe fix for a {diagnostic['difficulty']} finding")
    assert len(expected) > 8700
    assert problems == [], "\n".join(problems[:50])


def test_every_header_resolves_to_a_rule_with_the_maps_counterpart(cli: Cli, ruleset: RuleSet, tmp_path: Path) -> None:
    rows = _rows(HEADER_MAP)
    source = "".join(f"#include <{row['cuda_header']}>\n" for row in rows)
    (tmp_path / "headers.cu").write_text(source)
    report = cli("check", "headers.cu", "--format", "json", cwd=tmp_path).json()
    by_line = {d["line"]: d for d in report["diagnostics"]}
    assert len(by_line) == len(rows)
    for line, row in enumerate(rows, start=1):
        header = ruleset.header(row["cuda_header"])
        assert header is not None, row
        mapping = header.targets.get("hip")
        hip_header = HEADER_CORRECTIONS.get(row["cuda_header"], row["hip_header"])
        assert (mapping.replacement if mapping else "") == hip_header, row
        diagnostic = by_line[line]
        assert diagnostic["symbol"] == row["cuda_header"]
        rule = ruleset.rule(diagnostic["rule"])
        if not hip_header:
            assert diagnostic["replacement"] is None and diagnostic["difficulty"] in ("manual", "blocker"), diagnostic
        elif rule.renames:
            assert diagnostic["replacement"] == hip_header, diagnostic
            assert diagnostic["fixable"] is True
        else:  # cuDNN headers: the counterpart is recorded but the port goes to MIOpen by hand
            assert diagnostic["replacement"] is None and diagnostic["difficulty"] == "manual", diagnostic
