"""The command line as a user meets it every day: findings shown in their source line, standard input for editors
and hooks, what a check would read and with which settings, counts per API, CI formats besides GitHub's, quiet
runs, and mistyped names answered with the name meant."""

from __future__ import annotations

import json
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

from conftest import Cli, _env, copy_fixtures, cudaport_executable


def _piped(text: str, *args: str, cwd: Path) -> subprocess.CompletedProcess[bytes]:
    """The console script with `text` on its standard input."""
    return subprocess.run(
        [cudaport_executable(), *args],
        cwd=cwd,
        input=text.encode("utf-8"),
        capture_output=True,
        timeout=120,
        env=_env(),
    )


def test_full_output_shows_the_line_and_carets_in_terminal_columns(cli: Cli, workdir: Path) -> None:
    # a tab and a wide character before the call: the carets stand under the call as a terminal shows the line
    (workdir / "wide.cu").write_text("// 注释\n\t/* 宽 */ cudaMalloc(&p, 4);\n", encoding="utf-8")
    out = cli("check", "wide.cu", "--color", "never", cwd=workdir).out.splitlines()
    assert out[0].startswith("wide.cu:2:10: CP1001 [mechanical] CUDA runtime function `cudaMalloc`")
    assert out[1:5] == [
        "  |",
        "2 |     /* 宽 */ cudaMalloc(&p, 4);",
        "  |              ^^^^^^^^^^",
        "  |",
    ]
    assert out[-1].startswith("Found 1 finding in 1 of 1 file for hip")


def test_concise_and_text_are_one_line_per_finding(cli: Cli, workdir: Path) -> None:
    copy_fixtures(workdir, ["runtime_check.cu"])
    concise = cli("check", ".", "--format", "concise", "--color", "never", cwd=workdir).out
    assert cli("check", ".", "--format", "text", "--color", "never", cwd=workdir).out == concise
    assert "  |" not in concise and concise.count("\n") > 2


def test_quiet_prints_the_findings_only(cli: Cli, workdir: Path) -> None:
    copy_fixtures(workdir, ["runtime_check.cu"])
    loud = cli("check", ".", "--format", "concise", "--color", "never", cwd=workdir)
    quiet = cli("check", ".", "--format", "concise", "--color", "never", "-q", cwd=workdir)
    assert quiet.code == loud.code == 1
    assert quiet.out.splitlines() == loud.out.splitlines()[:-1]
    assert not any(line.startswith("Found ") for line in quiet.out.splitlines())


def test_check_reads_standard_input_named_by_stdin_filename(workdir: Path) -> None:
    (workdir / "cudaport.toml").write_text('target = "npu"\n', encoding="utf-8")
    text = "import torch\nok = torch.cuda.is_available()\n"
    result = _piped(text, "check", "-", "--stdin-filename", "train.py", "--format", "json", cwd=workdir)
    assert result.returncode == 1, result.stderr
    document = json.loads(result.stdout)
    assert [(d["path"], d["line"], d["rule"]) for d in document["diagnostics"]] == [("train.py", 2, "CP7001")]
    assert document["target"] == "npu"  # the configuration beside the named file applies
    unnamed = _piped(text, "check", "-", cwd=workdir)
    assert unnamed.returncode == 2 and b"--stdin-filename" in unnamed.stderr
    unknown = _piped(text, "check", "-", "--stdin-filename", "notes.xyz", cwd=workdir)
    assert unknown.returncode == 2 and b"not a kind of file" in unknown.stderr


def test_fix_reads_standard_input_and_writes_the_fixed_text(workdir: Path) -> None:
    source = "#include <cuda_runtime.h>\nvoid f(void** p) { cudaMalloc(p, 4); __shfl_down_sync(~0u, 1, 1); }\n"
    result = _piped(source, "fix", "-", "--stdin-filename", "k.cu", cwd=workdir)
    fixed = result.stdout.decode("utf-8")
    assert "hipMalloc(p, 4)" in fixed and "hip/hip_runtime.h" in fixed
    assert "__shfl_down_sync" in fixed  # a warp-size assumption is a person's to change
    assert result.returncode == 1  # it is left, and said on standard error
    assert b"k.cu:2:" in result.stderr and b"[manual]" in result.stderr
    diff = _piped(source, "fix", "-", "--stdin-filename", "k.cu", "--diff", cwd=workdir).stdout.decode("utf-8")
    assert diff.startswith("--- a/k.cu\n+++ b/k.cu\n") and "+#include <hip/hip_runtime.h>" in diff
    assert not (workdir / "k.cu").exists()  # nothing is written to disk


def test_show_files_lists_what_a_check_reads_and_why_the_rest_is_left_out(cli: Cli, workdir: Path) -> None:
    (workdir / "a.cu").write_text("int x;\n", encoding="utf-8")
    (workdir / "train.py").write_text("import torch\n", encoding="utf-8")
    (workdir / "build").mkdir()
    (workdir / "build" / "gen.cu").write_text("int y;\n", encoding="utf-8")
    (workdir / "blob.cu").write_bytes(b"\x00\x01\x02")
    result = cli("check", ".", "--show-files", cwd=workdir)
    lines = result.out.splitlines()
    assert result.code == 0
    assert "a.cu\tc" in lines and "train.py\tpython" in lines
    assert not any(line.startswith("build/gen.cu\tc") for line in lines)
    explicit = cli("check", "build/gen.cu", "--show-files", cwd=workdir).out
    assert "build/gen.cu\tc" in explicit  # a file named on the command line is read, as ruff does


def test_show_settings_names_the_configuration_and_resolved_values(cli: Cli, workdir: Path) -> None:
    (workdir / "cudaport.toml").write_text('target = "ascend"\nignore = ["CP2001"]\n', encoding="utf-8")
    out = cli("check", ".", "--show-settings", cwd=workdir).out
    assert f"configuration file = {workdir / 'cudaport.toml'}" in out
    assert "target = npu" in out and 'ignore = ["CP2001"]' in out
    overridden = cli("check", ".", "--show-settings", "--target", "mlu", cwd=workdir).out
    assert "target = mlu" in overridden


def test_statistics_per_api_counts_each_name_and_what_it_becomes(cli: Cli, workdir: Path) -> None:
    calls = "\n".join(["  cudaMalloc(&p, 4);"] * 3 + ["  cudaFree(p);"])
    (workdir / "a.cu").write_text(f"void f() {{ void* p;\n{calls}\n}}\n", encoding="utf-8")
    (workdir / "b.cu").write_text("void g(void* q) { cudaFree(q); }\n", encoding="utf-8")
    out = cli("check", ".", "--statistics=api", "--color", "never", cwd=workdir).out
    # as hipify-perl's --print-stats: per file, then for all files
    assert out.splitlines() == [
        "a.cu:",
        "  cudaMalloc → hipMalloc: 3",
        "  cudaFree → hipFree: 1",
        "b.cu:",
        "  cudaFree → hipFree: 1",
        "All files:",
        "  cudaMalloc → hipMalloc: 3",
        "  cudaFree → hipFree: 2",
    ]


def test_gitlab_code_quality_report(cli: Cli, workdir: Path) -> None:
    copy_fixtures(workdir, ["runtime_check.cu", "warp_reduce.cu"])
    issues = cli("check", ".", "--format", "gitlab", cwd=workdir).json()
    assert issues and all(i["location"]["path"].endswith(".cu") for i in issues)
    assert {i["severity"] for i in issues} <= {"info", "minor", "major", "critical", "blocker"}
    assert len({i["fingerprint"] for i in issues}) == len(issues)
    again = cli("check", ".", "--format", "gitlab", cwd=workdir).json()
    assert [i["fingerprint"] for i in again] == [i["fingerprint"] for i in issues]  # stable between runs
    both = cli("check", ".", "--format", "gitlab", "--target", "hip,npu", cwd=workdir).json()
    assert len(both) > len(issues)  # one document for several targets


def test_junit_report_is_xml_with_a_failure_per_finding(cli: Cli, workdir: Path) -> None:
    copy_fixtures(workdir, ["runtime_check.cu", "prose_only.cpp"])
    everything = cli("check", ".", "--format", "json", cwd=workdir).json()["diagnostics"]
    findings = [d for d in everything if d["difficulty"] != "portable"]  # shown as text shows them
    root = ET.fromstring(cli("check", ".", "--format", "junit", cwd=workdir).out)
    failures = root.findall(".//testcase/failure")
    assert root.tag == "testsuites"
    assert len(failures) == len(findings)
    assert all(f.get("message") for f in failures)


def test_mistyped_names_get_the_name_meant(cli: Cli, workdir: Path) -> None:
    (workdir / "a.cu").write_text("int x;\n", encoding="utf-8")
    (workdir / "cudaport.toml").write_text('selec = ["CP1"]\n', encoding="utf-8")
    key = cli("check", "a.cu", cwd=workdir)
    assert key.code == 2 and "unknown key 'selec'; did you mean 'select'?" in key.err
    (workdir / "cudaport.toml").write_text('select = ["CP10011"]\n', encoding="utf-8")
    code = cli("check", "a.cu", cwd=workdir)
    assert code.code == 2 and "'CP10011' matches no rule; did you mean 'CP1011'?" in code.err
    rule = cli("rule", "CP10011", cwd=workdir)
    assert rule.code == 2 and "unknown rule 'CP10011'; did you mean 'CP1011'" in rule.err
    abbreviated = cli("check", "a.cu", "--statistic", cwd=workdir)
    assert abbreviated.code == 2 and "did you mean --statistics?" in abbreviated.err


def test_an_import_added_beside_a_compound_line_comes_before_the_use(cli: Cli, workdir: Path) -> None:
    (workdir / "one.py").write_text("import torch; n = torch.cuda.device_count()\nprint(n)\n", encoding="utf-8")
    assert cli("fix", "one.py", "--target", "npu", cwd=workdir).code == 0
    fixed = (workdir / "one.py").read_text(encoding="utf-8")
    assert fixed.splitlines()[0] == "import torch; import torch_npu; n = torch.npu.device_count()"
    compile(fixed, "one.py", "exec")


def test_force_exclude_applies_the_projects_excludes_to_named_files(cli: Cli, workdir: Path) -> None:
    subprocess.run(["git", "init", "-q"], cwd=workdir, check=True)
    (workdir / ".gitignore").write_text("vendored/\n", encoding="utf-8")
    for place in ("src/a.cu", "build/gen.cu", "vendored/v.cu"):
        (workdir / place).parent.mkdir(parents=True, exist_ok=True)
        (workdir / place).write_text("void f() { cudaFree(0); }\n", encoding="utf-8")
    named = ["src/a.cu", "build/gen.cu", "vendored/v.cu"]
    plain = cli("check", *named, "--format", "concise", "-q", cwd=workdir).out
    assert sorted(line.split(":")[0] for line in plain.splitlines()) == sorted(named)  # named files are read
    forced = cli("check", *named, "--format", "concise", "-q", "--force-exclude", cwd=workdir)
    assert [line.split(":")[0] for line in forced.out.splitlines()] == ["src/a.cu"]
    assert forced.err == ""  # left out silently, as a hook passing every changed file needs
    (workdir / "cudaport.toml").write_text("force-exclude = true\n", encoding="utf-8")
    configured = cli("check", "../build/gen.cu", "a.cu", "--format", "concise", "-q", cwd=workdir / "src").out
    assert [line.split(":")[0] for line in configured.splitlines()] == ["a.cu"]


def test_fix_output_dir_says_where_the_files_went(cli: Cli, workdir: Path) -> None:
    copy_fixtures(workdir / "src", ["runtime_check.cu", "half_math.cu"])
    out = cli("fix", "src", "--output-dir", "ported", cwd=workdir).out
    assert "The fixed tree is under ported; the original is unchanged." in out
    written = next(line for line in out.splitlines() if line.startswith("Written: "))
    for name in ("half_math.cu", "runtime_check.cu"):
        place = Path("ported") / "src" / name
        assert str(place) in written and (workdir / place).is_file()


def test_target_help_names_all_six_targets(cli: Cli) -> None:
    for command in ("check", "fix", "report"):
        shown = " ".join(cli(command, "--help").out.split())
        for name in ("hip (AMD ROCm, Hygon DCU)", "npu (Huawei Ascend", "mlu (Cambricon", "maca (MetaX)"):
            assert name in shown
        assert "corex (Iluvatar CoreX)" in shown and "musa (Moore Threads)" in shown
