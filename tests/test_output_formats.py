"""Every output format of `cudaport check`: text, json (the exact shape other tools read), github, sarif, and
--statistics as text and json."""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

from conftest import REPO, Cli, copy_fixtures

_EXPECTED = shutil.ignore_patterns("expected")

DIAGNOSTIC_KEYS = [
    "path",
    "line",
    "column",
    "end_line",
    "end_column",
    "rule",
    "difficulty",
    "severity",
    "message",
    "symbol",
    "replacement",
    "fixable",
    "dual_stack_fixable",
]


def test_json_has_exactly_the_documented_shape(cli: Cli, workdir: Path) -> None:
    copy_fixtures(workdir, ["runtime_check.cu", "warp_reduce.cu", "prose_only.cpp"])
    report = cli("check", ".", "--format", "json", cwd=workdir).json()
    assert list(report) == ["version", "target", "files_scanned", "diagnostics", "summary", "excluded"]
    assert report["excluded"] == []  # directories with sources that an exclude left out
    assert report["version"] == 1
    assert report["target"] == "hip"
    assert report["files_scanned"] == 3
    assert report["summary"] == {"portable": 13, "mechanical": 35, "manual": 19, "blocker": 0}
    assert len(report["diagnostics"]) == 67
    for diagnostic in report["diagnostics"]:
        assert list(diagnostic) == DIAGNOSTIC_KEYS
        assert diagnostic["difficulty"] in ("portable", "mechanical", "manual", "blocker")
        assert isinstance(diagnostic["line"], int) and diagnostic["line"] >= 1
        assert isinstance(diagnostic["column"], int) and diagnostic["column"] >= 1
        assert diagnostic["replacement"] is None or isinstance(diagnostic["replacement"], str)
        assert isinstance(diagnostic["fixable"], bool)
        assert isinstance(diagnostic["dual_stack_fixable"], bool)
    first = next(d for d in report["diagnostics"] if d["path"] == "runtime_check.cu")
    assert first == {
        "path": "runtime_check.cu",
        "line": 5,
        "column": 11,
        "end_line": 5,
        "end_column": 25,
        "rule": "CP1001",
        "difficulty": "mechanical",
        "severity": "information",
        "message": "CUDA runtime header `cuda_runtime.h` → `hip/hip_runtime.h` on HIP",
        "symbol": "cuda_runtime.h",
        "replacement": "hip/hip_runtime.h",
        "fixable": True,
        "dual_stack_fixable": True,
    }
    # paths as given: relative stays relative, a subfolder keeps its prefix, an absolute path stays absolute
    (workdir / "sub").mkdir()
    (workdir / "runtime_check.cu").rename(workdir / "sub" / "runtime_check.cu")
    paths = {d["path"] for d in cli("check", "sub", "--format", "json", cwd=workdir).json()["diagnostics"]}
    assert paths == {"sub/runtime_check.cu"}
    absolute = str(workdir / "sub" / "runtime_check.cu")
    paths = {d["path"] for d in cli("check", absolute, "--format", "json").json()["diagnostics"]}
    assert paths == {absolute}


def test_json_output_file(cli: Cli, workdir: Path) -> None:
    copy_fixtures(workdir, ["half_math.cu"])
    result = cli("check", "half_math.cu", "--format", "json", "-o", "report.json", cwd=workdir)
    assert result.out == ""
    assert '"files_scanned": 1' in (workdir / "report.json").read_text()


def test_text_lines_and_summary(cli: Cli, workdir: Path) -> None:
    copy_fixtures(workdir, ["coop_groups.cu", "prose_only.cpp"])
    result = cli("check", ".", "--format", "concise", "--color", "never", cwd=workdir)
    assert result.out.splitlines() == [
        "coop_groups.cu:2:11: CP1001 [mechanical] CUDA runtime header `cuda_runtime.h` → `hip/hip_runtime.h` on HIP"
        " (fixable)",
        "coop_groups.cu:3:11: CP1019 [mechanical] cooperative groups header `cooperative_groups.h` →"
        " `hip/hip_cooperative_groups.h` on HIP (fixable)",
        "coop_groups.cu:22:49: CP1001 [mechanical] CUDA runtime type `cudaStream_t` → `hipStream_t` on HIP (fixable)",
        "Found 8 findings in 2 of 2 files for hip (5 portable, 3 mechanical, 0 manual, 0 blocker); 3 fixable with"
        " `cudaport fix`; 5 portable not shown (--show-portable).",
    ]
    shown = cli(
        "check", ".", "--format", "concise", "--show-portable", "--color", "never", cwd=workdir
    ).out.splitlines()
    assert "coop_groups.cu:18:32: CP1003 [portable] CUDA device function `atomicAdd` works unchanged on HIP" in shown
    assert shown[-1] == (
        "Found 8 findings in 2 of 2 files for hip (5 portable, 3 mechanical, 0 manual, 0 blocker); 3 fixable with"
        " `cudaport fix`."
    )
    line = re.compile(r"^[^:]+:\d+:\d+: CP\d{4} \[(portable|mechanical|manual|blocker)\] .+$")
    assert all(line.match(text) for text in shown[:-1])
    colored = cli("check", ".", "--format", "concise", "--color", "always", cwd=workdir).out
    assert "\x1b[36mCP1001\x1b[0m \x1b[36m[mechanical]\x1b[0m" in colored
    nothing = cli("check", "prose_only.cpp", cwd=workdir).out
    assert nothing == (
        "Found 1 finding in 1 of 1 file for hip (1 portable, 0 mechanical, 0 manual, 0 blocker);"
        " 1 portable not shown (--show-portable).\n"
    )


def test_github_annotations_escape_data_and_properties(cli: Cli, workdir: Path) -> None:
    copy_fixtures(workdir, ["warp_reduce.cu"])
    (workdir / "warp_reduce.cu").rename(workdir / "odd,name:v2.cu")
    out = cli("check", "odd,name:v2.cu", "--format", "github", cwd=workdir).out.splitlines()
    assert out[0] == (
        "::notice file=odd%2Cname%3Av2.cu,line=2,col=11,endLine=2,endColumn=25,title=cudaport CP1001 (mechanical)"
        "::CUDA runtime header `cuda_runtime.h` → `hip/hip_runtime.h` on HIP"
    )
    modulo = next(text for text in out if "threadIdx.x" in text and "line=24," in text)
    assert modulo == (
        "::warning file=odd%2Cname%3Av2.cu,line=24,col=14,endLine=24,endColumn=30,title=cudaport CP2005 (manual)"
        "::`threadIdx.x %25 32` assumes 32-lane warps; HIP wavefronts have 64 lanes (use warpSize)"
    )
    assert all(text.startswith(("::notice ", "::warning ", "::error ")) for text in out)
    assert not any("[portable]" in text or "__syncthreads" in text for text in out)  # portable hidden
    copy_fixtures(workdir, ["tensorrt_engine.cpp"])
    errors = cli("check", "tensorrt_engine.cpp", "--format", "github", cwd=workdir).out.splitlines()
    assert errors[0].startswith("::error file=tensorrt_engine.cpp,line=2,col=11,")
    # a newline or a percent sign in a message must not break the annotation
    (workdir / "extra.toml").write_text(
        '[[rule]]\ncode = "CP9002"\nname = "odd"\nsubject = "Odd"\nsummary = "s"\n'
        'difficulty = { default = "manual" }\nunmapped = { default = "manual" }\n'
        '[rule.message]\nunmapped = "100% odd\\nsecond line\\r"\n'
        '[rule.docs]\nwhat = "w"\nwhy = "y"\nexample = "e"\nfix = "f"\n'
        '[[symbol]]\nname = "oddThing"\nkind = "function"\nrule = "CP9002"\n'
    )
    (workdir / "o.cu").write_text("void f() { oddThing(); }\n")
    [annotation] = cli(
        "check", "o.cu", "--format", "github", "--extra-rules", "extra.toml", "--select", "CP9", cwd=workdir
    ).out.splitlines()
    assert annotation.endswith("::100%25 odd%0Asecond line%0D")


def test_sarif_2_1_0_with_rule_docs(cli: Cli, workdir: Path) -> None:
    copy_fixtures(workdir, ["warp_reduce.cu", "tensorrt_engine.cpp"])
    sarif = cli("check", ".", "--format", "sarif", cwd=workdir).json()
    assert sarif["version"] == "2.1.0"
    assert sarif["$schema"] == "https://json.schemastore.org/sarif-2.1.0.json"
    [run] = sarif["runs"]
    driver = run["tool"]["driver"]
    assert driver["name"] == "cudaport"
    assert run["columnKind"] == "unicodeCodePoints"
    rules = driver["rules"]
    assert [r["id"] for r in rules] == ["CP1001", "CP1003", "CP1030", "CP2001", "CP2002", "CP2003",
                                        "CP2004", "CP2005", "CP2006", "CP5001"]  # fmt: skip
    for rule in rules:
        assert set(rule) >= {"id", "name", "shortDescription", "fullDescription", "help", "helpUri"}
        for section in ("What it does", "Why it matters", "Example", "Fix safety"):
            assert f"### {section}" in rule["help"]["markdown"]
            assert f"## {section}" in rule["help"]["text"]
        assert rule["helpUri"].endswith(f"/rules/RULES.md#{rule['id'].lower()}")
        assert rule["defaultConfiguration"]["level"] in ("note", "warning", "error")
    results = run["results"]
    json_report = cli("check", ".", "--format", "json", cwd=workdir).json()
    assert len(results) == len(json_report["diagnostics"])  # portable findings included
    for result, diagnostic in zip(results, json_report["diagnostics"], strict=True):
        assert rules[result["ruleIndex"]]["id"] == result["ruleId"] == diagnostic["rule"]
        assert result["message"]["text"] == diagnostic["message"]
        assert (
            result["level"]
            == {"portable": "note", "mechanical": "note", "manual": "warning", "blocker": "error"}[
                diagnostic["difficulty"]
            ]
        )
        location = result["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uri"] == diagnostic["path"]
        assert location["region"] == {
            "startLine": diagnostic["line"],
            "startColumn": diagnostic["column"],
            "endLine": diagnostic["end_line"],
            "endColumn": diagnostic["end_column"],
        }
        assert result["properties"]["difficulty"] == diagnostic["difficulty"]
    assert run["properties"]["summary"] == json_report["summary"]


def test_statistics_text_and_json(cli: Cli, workdir: Path) -> None:
    copy_fixtures(workdir, ["warp_reduce.cu", "runtime_check.cu"])
    text = cli("check", ".", "--statistics", cwd=workdir)
    assert text.code == 1
    assert text.out.splitlines() == [
        "35  CP1001  cuda-runtime-api  (35 mechanical)  [35 fixable]",
        " 8  CP2005  warp-size-arithmetic  (8 manual)",
        " 6  CP1003  cuda-device-function  (6 portable)",
        " 5  CP1030  cuda-kernel  (5 portable)",
        " 4  CP2001  warp-shuffle-sync  (4 manual)",
        " 2  CP2003  warp-mask-builtin  (2 manual)",
        " 2  CP2004  full-warp-mask  (2 manual)",
        " 2  CP2006  warp-sized-shared-array  (2 manual)",
        " 1  CP1031  kernel-launch  (1 portable)",
        " 1  CP2002  warp-vote  (1 manual)",
        "",
        "By difficulty: portable 12, mechanical 35, manual 19, blocker 0",
        "Files scanned: 2; findings: 66",
    ]
    data = cli("check", ".", "--statistics", "--format", "json", cwd=workdir).json()
    assert data["target"] == "hip" and data["files_scanned"] == 2
    assert data["rules"][0] == {
        "code": "CP1001",
        "name": "cuda-runtime-api",
        "count": 35,
        "fixable": 35,
        "difficulty": {"portable": 0, "mechanical": 35, "manual": 0, "blocker": 0},
    }
    assert [r["code"] for r in data["rules"]] == [
        "CP1001",
        "CP2005",
        "CP1003",
        "CP1030",
        "CP2001",
        "CP2003",
        "CP2004",
        "CP2006",
        "CP1031",
        "CP2002",
    ]
    assert data["summary"] == {"portable": 12, "mechanical": 35, "manual": 19, "blocker": 0}


def test_each_json_diagnostic_is_what_json_dumps_writes(cli: Cli, workdir: Path) -> None:
    """The diagnostics are written field by field (cli.formats._json_diagnostic): each line is exactly json.dumps of
    its fields, for every kind of value they hold (a notebook's cell fields first, nulls, quotes, backslashes and
    non-ASCII text in a path and in Chinese messages)."""
    copy_fixtures(workdir, ["runtime_check.cu", "warp_reduce.cu", "gbk_comments.cu"])
    shutil.copytree(REPO / "tests" / "fixtures" / "python", workdir / 'py "quoted" \\ 路径', ignore=_EXPECTED)
    shutil.copy(REPO / "tests" / "fixtures" / "inventory" / "explore.ipynb", workdir / "explore.ipynb")
    seen: set[str] = set()
    for language in ("en", "zh-CN"):
        done = cli("check", ".", "--format", "json", "--exit-zero", "--lang", language, "--target", "npu", cwd=workdir)
        lines = [line.strip().rstrip(",") for line in done.out.splitlines() if line.startswith('  {"')]
        assert len(lines) == len(done.json()["diagnostics"]) > 20
        for line in lines:
            fields = json.loads(line)
            assert json.dumps(fields, ensure_ascii=False) == line
            seen |= {key for key, value in fields.items() if value is None} | set(fields)
    assert {"cell", "cell_line", "symbol", "replacement"} <= seen
    assert any(d["replacement"] is None for d in done.json()["diagnostics"])
    assert any("路径" in d["path"] and '"' in d["path"] for d in done.json()["diagnostics"])
