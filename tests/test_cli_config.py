"""Exit codes, --fail-on, configuration files and their errors, rule selection, severities and excludes."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import Cli, copy_fixtures

RUNTIME_ONLY = "#include <cuda_runtime.h>\nvoid f(float** p) { cudaMalloc(p, 4); }\n"
MANUAL_ONLY = "__device__ unsigned lane() { return threadIdx.x % 32; }\n"


def _write(folder: Path, name: str, text: str) -> Path:
    path = folder / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


# ---- exit codes ----------------------------------------------------------------------------------------------
def test_exit_0_when_nothing_is_at_or_above_fail_on(cli: Cli, workdir: Path) -> None:
    _write(workdir, "clean.cpp", "int main() { return 0; }  // cudaMalloc in a comment\n")
    assert cli("check", "clean.cpp", cwd=workdir).code == 0


def test_exit_1_on_findings_and_fail_on_moves_the_threshold(cli: Cli, workdir: Path) -> None:
    _write(workdir, "a.cu", RUNTIME_ONLY)
    _write(workdir, "b.cuh", MANUAL_ONLY)
    assert cli("check", "a.cu", cwd=workdir).code == 1  # mechanical: default --fail-on
    assert cli("check", "a.cu", "--fail-on", "manual", cwd=workdir).code == 0
    assert cli("check", "b.cuh", "--fail-on", "manual", cwd=workdir).code == 1
    assert cli("check", "b.cuh", "--fail-on", "blocker", cwd=workdir).code == 0
    assert cli("check", "a.cu", "--fail-on", "portable", cwd=workdir).code == 1
    assert cli("check", ".", "--fail-on", "never", cwd=workdir).code == 0
    assert cli("check", ".", "--exit-zero", cwd=workdir).code == 0
    _write(workdir, "cudaport.toml", 'fail-on = "blocker"\n')
    assert cli("check", ".", cwd=workdir).code == 0
    assert cli("check", ".", "--fail-on", "manual", cwd=workdir).code == 1  # the command line wins


def test_exit_2_on_usage_errors(cli: Cli, workdir: Path) -> None:
    _write(workdir, "a.cu", RUNTIME_ONLY)
    bad_option = cli("check", "a.cu", "--no-such-option", cwd=workdir)
    assert bad_option.code == 2 and "unrecognized arguments: --no-such-option" in bad_option.err
    bad_choice = cli("check", "a.cu", "--format", "xml", cwd=workdir)
    assert bad_choice.code == 2 and "invalid choice: 'xml'" in bad_choice.err
    missing = cli("check", "a.cu", "no_such_dir", cwd=workdir)
    assert missing.code == 2
    assert "cudaport: error in no_such_dir: no such file or directory" in missing.err
    assert "a.cu:2:21: CP1001" in missing.out  # the other paths are still checked
    target = cli("check", "a.cu", "--target", "cuda", cwd=workdir)
    assert (
        target.code == 2
        and "cudaport: error: unknown target 'cuda' (known: hip, npu, mlu, maca, corex, musa, or an alias)"
        in target.err
    )
    no_command = cli(cwd=workdir)
    assert no_command.code == 2 and "usage: cudaport" in no_command.err
    config = cli("check", "a.cu", "--config", "missing.toml", cwd=workdir)
    assert config.code == 2 and "missing.toml: configuration file not found" in config.err


# ---- configuration errors name the file and the key -----------------------------------------------------------
@pytest.mark.parametrize(
    ("file", "text", "message"),
    [
        (
            "pyproject.toml",
            '[tool.cudaport\ntarget = "hip"\n',
            "pyproject.toml: invalid TOML: Expected ']' at the end of a table declaration (at line 1, column 15)",
        ),
        ("pyproject.toml", '[tool.cudaport]\ntargte = "hip"\n', "pyproject.toml: unknown key 'tool.cudaport.targte'"),
        ("cudaport.toml", 'targte = "hip"\n', "cudaport.toml: unknown key 'targte'"),
        (
            "pyproject.toml",
            '[tool.cudaport]\ntarget = "cuda"\n',
            "pyproject.toml: 'tool.cudaport.target': unknown target 'cuda' (known: hip, npu, mlu, maca, corex, musa, "
            "or an alias)",
        ),
        (
            "pyproject.toml",
            '[tool.cudaport.severity]\nCP2001 = "fatal"\n',
            "pyproject.toml: 'tool.cudaport.severity.CP2001': unknown severity 'fatal'",
        ),
        (
            "cudaport.toml",
            '[severity]\nCP9999 = "error"\n',
            "cudaport.toml: 'severity': 'CP9999' matches no rule",
        ),
        ("cudaport.toml", 'select = ["XX1"]\n', "cudaport.toml: 'select': 'XX1' is not a rule code or prefix"),
        ("cudaport.toml", 'ignore = ["CP2007"]\n', "cudaport.toml: 'ignore': 'CP2007' matches no rule"),
        ("cudaport.toml", "select = 3\n", "cudaport.toml: 'select' must be a list of strings"),
        ("cudaport.toml", 'fail-on = "hard"\n', "cudaport.toml: 'fail-on': unknown difficulty 'hard'"),
        ("cudaport.toml", "max-file-size = -1\n", "cudaport.toml: 'max-file-size' must be a positive number"),
        ("cudaport.toml", 'extra-rules = ["nope.toml"]\n', "nope.toml: cannot read rule file"),
        ("cudaport.toml", b"target = '\xff'\n", "cudaport.toml: not valid UTF-8"),
        # the report's effort weights (rules/effort.toml) are checked like every other key
        ("cudaport.toml", "effort = 5\n", "cudaport.toml: 'effort': must be a table"),
        (
            "cudaport.toml",
            "[effort]\nhours-per-day = 0\n",
            "cudaport.toml: 'effort.hours-per-day': must be more than 0 and at most 24",
        ),
        (
            "pyproject.toml",
            "[tool.cudaport.effort]\nhours_per_day = 7\n",
            "pyproject.toml: 'tool.cudaport.effort.hours_per_day': unknown key (known: difficulty, file, "
            "hours-per-day, kind, scale)",
        ),
        (
            "cudaport.toml",
            "[effort.kind.kernal]\nblocker = { first = [1, 2] }\n",
            "cudaport.toml: 'effort.kind.kernal': unknown kind (known: kernel, kernel launch,",
        ),
        (
            "cudaport.toml",
            '[effort.kind.kernel]\nrules = ["CP1"]\n',
            "cudaport.toml: 'effort.kind.kernel.rules': unknown key (a kind's weights: mechanical, manual, blocker)",
        ),
        (
            "pyproject.toml",
            "[tool.cudaport.effort.difficulty.manual]\nfirst = [3, 1]\n",
            "pyproject.toml: 'tool.cudaport.effort.difficulty.manual.first': must be [low, high] hours with "
            "0 <= low <= high, not [3, 1]",
        ),
        (
            "cudaport.toml",
            '[effort.kind.kernel]\nblocker = { per = "sample" }\n',
            "cudaport.toml: 'effort.kind.kernel.blocker.per': must be one of name, file, use, not 'sample'",
        ),
        (
            "cudaport.toml",
            "[effort.scale]\nminor = 5\nmoderate = 2\n",
            "cudaport.toml: 'effort.scale': needs 0 < minor <= moderate",
        ),
    ],
)
def test_bad_configuration_is_a_clear_error(
    cli: Cli, workdir: Path, file: str, text: str | bytes, message: str
) -> None:
    _write(workdir, "src/a.cu", RUNTIME_ONLY)
    config = workdir / file
    if isinstance(text, bytes):
        config.write_bytes(text)
    else:
        config.write_text(text)
    for command in ("check", "fix", "report"):
        result = cli(command, "src", cwd=workdir)
        assert result.code == 2, result
        assert result.err.startswith("cudaport: error: ")
        assert message in result.err
        assert str(workdir) in result.err  # the file is named by its path
        assert "Traceback" not in result.err
    assert (workdir / "src/a.cu").read_text() == RUNTIME_ONLY  # nothing written


def test_nearest_configuration_wins_and_cudaport_toml_beats_pyproject(cli: Cli, workdir: Path) -> None:
    _write(workdir, "pyproject.toml", '[tool.cudaport]\nselect = ["CP2"]\n')
    _write(workdir, "pkg/cudaport.toml", 'select = ["CP1"]\n')
    _write(workdir, "pkg/pyproject.toml", '[tool.cudaport]\nselect = ["CP20"]\n')
    _write(workdir, "pkg/k.cu", RUNTIME_ONLY + MANUAL_ONLY)
    rules = {d["rule"] for d in cli("check", "pkg", "--format", "json", cwd=workdir).json()["diagnostics"]}
    assert rules == {"CP1001"}
    (workdir / "pkg" / "cudaport.toml").unlink()
    rules = {d["rule"] for d in cli("check", "pkg", "--format", "json", cwd=workdir).json()["diagnostics"]}
    assert rules == {"CP2005"}
    # a pyproject.toml without [tool.cudaport] is not a configuration
    (workdir / "pkg" / "pyproject.toml").write_text('[project]\nname = "x"\n')
    rules = {d["rule"] for d in cli("check", "pkg", "--format", "json", cwd=workdir).json()["diagnostics"]}
    assert rules == {"CP2005"}  # the parent's select = ["CP2"]


# ---- rule selection --------------------------------------------------------------------------------------------
def _rules(cli: Cli, folder: Path, *args: str) -> list[str]:
    report = cli("check", ".", "--format", "json", *args, cwd=folder).json()
    return sorted({d["rule"] for d in report["diagnostics"]})


def test_select_ignore_and_extend_select_by_prefix(cli: Cli, workdir: Path) -> None:
    copy_fixtures(workdir, ["warp_reduce.cu", "inline_ptx.cu"])
    everything = _rules(cli, workdir)
    assert everything == ["CP1001", "CP1003", "CP1030", "CP2001", "CP2002", "CP2003", "CP2004", "CP2005", "CP2006",
                          "CP3001"]  # fmt: skip
    assert _rules(cli, workdir, "--select", "CP20") == ["CP2001", "CP2002", "CP2003", "CP2004", "CP2005", "CP2006"]
    assert _rules(cli, workdir, "--select", "CP2001,CP3") == ["CP2001", "CP3001"]
    assert _rules(cli, workdir, "--ignore", "CP2") == ["CP1001", "CP1003", "CP1030", "CP3001"]
    # the most specific prefix wins: CP2005 stays although CP20 is ignored
    assert _rules(cli, workdir, "--select", "CP2005", "--ignore", "CP20") == ["CP2005"]
    _write(workdir, "cudaport.toml", 'select = ["CP1"]\nignore = ["CP1003"]\n')
    assert _rules(cli, workdir) == ["CP1001", "CP1030"]
    assert _rules(cli, workdir, "--extend-select", "CP3001") == ["CP1001", "CP1030", "CP3001"]
    assert _rules(cli, workdir, "--select", "ALL") == ["CP1001", "CP1030", "CP2001", "CP2002", "CP2003", "CP2004",
                                                      "CP2005", "CP2006", "CP3001"]  # fmt: skip


def test_severity_per_rule_and_per_prefix(cli: Cli, workdir: Path) -> None:
    copy_fixtures(workdir, ["warp_reduce.cu"])
    _write(workdir, "pyproject.toml", '[tool.cudaport.severity]\nCP20 = "hint"\nCP2001 = "error"\nCP1001 = "warn"\n')
    report = cli("check", "warp_reduce.cu", "--format", "json", cwd=workdir).json()
    severities = {(d["rule"], d["severity"]) for d in report["diagnostics"]}
    assert ("CP2001", "error") in severities
    assert ("CP2005", "hint") in severities
    assert ("CP1001", "warning") in severities
    assert ("CP1003", "hint") in severities  # untouched: portable → hint
    # difficulty, and so the exit code, does not change with severity
    assert all(d["difficulty"] == "manual" for d in report["diagnostics"] if d["rule"] == "CP2005")
    sarif = cli("check", "warp_reduce.cu", "--format", "sarif", cwd=workdir).json()
    levels = {r["ruleId"]: r["level"] for r in sarif["runs"][0]["results"]}
    assert levels["CP2001"] == "warning"  # SARIF levels follow difficulty


def test_exclude_and_extend_exclude_globs(cli: Cli, workdir: Path) -> None:
    for name in ["src/a.cu", "third_party/cutlass/b.cu", "build/gen.cu", "src/gen/c.cu", "src/d_test.cu"]:
        _write(workdir, name, RUNTIME_ONLY)

    def scanned(*args: str) -> list[str]:
        report = cli("check", ".", "--format", "json", *args, cwd=workdir).json()
        return sorted({d["path"] for d in report["diagnostics"]})

    # build/ is a default exclude (a build tree), as in ruff; a configuration's `exclude` replaces the defaults
    assert scanned() == ["src/a.cu", "src/d_test.cu", "src/gen/c.cu", "third_party/cutlass/b.cu"]
    _write(workdir, "cudaport.toml", 'exclude = ["third_party", "*_test.cu"]\nextend-exclude = ["src/gen"]\n')
    assert scanned() == ["build/gen.cu", "src/a.cu"]
    assert scanned("--extend-exclude", "build") == ["src/a.cu"]
    assert scanned("--exclude", "src/*") == ["build/gen.cu", "third_party/cutlass/b.cu"]
    # the default excludes (.git, virtualenvs, ...) apply without configuration
    (workdir / "cudaport.toml").unlink()
    _write(workdir, ".venv/lib/x.cu", RUNTIME_ONLY)
    _write(workdir, "node_modules/y.cu", RUNTIME_ONLY)
    assert ".venv/lib/x.cu" not in scanned() and "node_modules/y.cu" not in scanned()
    # a file named on the command line is taken even if a pattern excludes it
    _write(workdir, "cudaport.toml", 'exclude = ["*_test.cu"]\n')
    report = cli("check", "src/d_test.cu", "--format", "json", cwd=workdir).json()
    assert report["files_scanned"] == 1


def test_target_from_configuration(cli: Cli, workdir: Path) -> None:
    _write(workdir, "a.cu", RUNTIME_ONLY)
    _write(workdir, "cudaport.toml", 'target = "hip"\n')
    assert cli("check", "a.cu", "--format", "json", cwd=workdir).json()["target"] == "hip"


def test_extra_rule_file_adds_a_rule_and_symbols(cli: Cli, workdir: Path) -> None:
    _write(
        workdir,
        "house-rules.toml",
        """
[[rule]]
code = "CP9001"
name = "house-allocator"
subject = "House allocator"
summary = "The team's CUDA allocator wrapper"
difficulty = { hip = "mechanical", default = "manual" }
unmapped = { hip = "manual", default = "blocker" }
[rule.docs]
what = "Finds gpuAllocTracked."
why = "It wraps cudaMalloc."
example = "gpuAllocTracked(&p, n);"
fix = "Safe rename."

[[symbol]]
name = "gpuAllocTracked"
kind = "function"
rule = "CP9001"
hip = "hipAllocTracked"
""",
    )
    _write(workdir, "cudaport.toml", 'extra-rules = ["house-rules.toml"]\nselect = ["CP9"]\n')
    _write(workdir, "a.cu", "void f(void** p) { gpuAllocTracked(p, 4); }\n")
    [finding] = cli("check", "a.cu", "--format", "json", cwd=workdir).json()["diagnostics"]
    assert (finding["rule"], finding["replacement"], finding["fixable"]) == ("CP9001", "hipAllocTracked", True)
    assert finding["message"] == "House allocator function `gpuAllocTracked` → `hipAllocTracked` on HIP"


def test_targets_are_named_case_insensitively_and_by_alias(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "m.cu").write_text("#include <cuda_runtime.h>\nvoid f(float* p) { cudaFree(p); }\n")
    for given, expected in (("ROCm", "hip"), ("dtk", "hip"), ("Ascend", "npu"), ("cambricon", "mlu"), ("NPU", "npu")):
        result = cli("check", "m.cu", "--format", "json", "--target", given, cwd=tmp_path)
        assert result.json()["target"] == expected, given
    (tmp_path / "cudaport.toml").write_text('target = "ascend"\n')
    assert cli("check", "m.cu", "--format", "json", cwd=tmp_path).json()["target"] == "npu"
    report = cli("report", ".", "--target", "rocm,Ascend", "--format", "json", cwd=tmp_path).json()
    assert [t["name"] for t in report["targets"]] == ["hip", "npu"]
    bad = cli("check", "m.cu", "--target", "tpu", cwd=tmp_path)
    assert bad.code == 2 and "tpu" in bad.err and "alias" in bad.err


# ---- habits users bring from ruff and hipify -------------------------------------------------------------------
def test_option_mistakes_point_to_what_was_meant(cli: Cli, workdir: Path) -> None:
    _write(workdir, "a.cu", RUNTIME_ONLY)
    fix = cli("check", "a.cu", "--fix", cwd=workdir)
    assert fix.code == 2 and fix.out == ""
    assert "--fix is not a `check` option: `cudaport fix` applies the safe fixes" in fix.err
    typo = cli("check", "a.cu", "--targt", "npu", cwd=workdir)
    assert typo.code == 2 and "did you mean --target?" in typo.err
    command = cli("chek", "a.cu", cwd=workdir)
    assert command.code == 2 and "did you mean check?" in command.err
    rule = cli("rule", "CP101", cwd=workdir)
    assert rule.code == 2 and "did you mean 'CP1010'" in rule.err
    by_name = cli("rule", "cublas", cwd=workdir)
    assert by_name.code == 0 and by_name.out.startswith("CP1010 (cublas)")


def test_missing_paths_are_one_usage_error_without_a_summary(cli: Cli, workdir: Path) -> None:
    for command in ("check", "fix", "report"):
        result = cli(command, "no_such_dir", "no_such_file.cu", cwd=workdir)
        assert result.code == 2, command
        assert "no_such_dir, no_such_file.cu: no such file or directory" in result.err
        assert "Found" not in result.out + result.err and "Fixed" not in result.out + result.err


@pytest.mark.parametrize("spelling", ["NPU", "Ascend", "ascend", "npu"])
def test_target_names_are_case_insensitive_with_vendor_aliases(cli: Cli, workdir: Path, spelling: str) -> None:
    _write(workdir, "a.cu", RUNTIME_ONLY)
    result = cli("check", "a.cu", "--target", spelling, "--format", "json", cwd=workdir)
    assert result.json()["target"] == "npu"


def test_check_rates_for_several_targets_at_once(cli: Cli, workdir: Path) -> None:
    _write(workdir, "a.cu", RUNTIME_ONLY)
    _write(workdir, "b.cuh", MANUAL_ONLY)
    text = cli("check", ".", "--target", "hip,npu", cwd=workdir)
    assert text.code == 1
    blocks = text.out.split("\n== ")
    assert text.out.startswith("== HIP ==\n") and blocks[1].startswith("Ascend NPU ==\n")
    assert "for hip (" in blocks[0] and "for npu (" in blocks[1]
    single = {t: cli("check", ".", "--target", t, "--format", "json", cwd=workdir).json() for t in ("hip", "npu")}
    both = cli("check", ".", "--target", "hip,npu", "--format", "json", cwd=workdir).json()
    assert both["targets"] == ["hip", "npu"] and both["runs"] == [single["hip"], single["npu"]]
    sarif = cli("check", ".", "--target", "rocm,ascend", "--format", "sarif", cwd=workdir).json()
    assert [run["properties"]["target"] for run in sarif["runs"]] == ["hip", "npu"]
    # the exit code is the worst of the targets' (b.cuh: manual on hip, a blocker on npu)
    assert cli("check", "b.cuh", "--target", "hip", "--fail-on", "blocker", cwd=workdir).code == 0
    assert cli("check", "b.cuh", "--target", "npu", "--fail-on", "blocker", cwd=workdir).code == 1
    assert cli("check", "b.cuh", "--target", "hip,npu", "--fail-on", "blocker", cwd=workdir).code == 1
    assert cli("check", "b.cuh", "--target", "hip,npu", "--exit-zero", cwd=workdir).code == 0


def test_check_and_fix_draw_progress_only_on_a_terminal(cli: Cli, workdir: Path) -> None:
    from test_report_cli import run_with_terminal_stderr

    for index in range(60):
        _write(workdir, f"part{index // 20}/f{index}.cu", RUNTIME_ONLY)
    code, drawn = run_with_terminal_stderr(["check", ".", "--exit-zero"], workdir)
    assert code == 0 and "Checking [" in drawn and "60/60 files 100%" in drawn and "\x1b[2K" in drawn
    code, drawn = run_with_terminal_stderr(["fix", ".", "--diff"], workdir)
    assert code == 0 and "Fixing [" in drawn and "Would fix 120 findings in 60 files." in drawn
    code, drawn = run_with_terminal_stderr(["check", ".", "--exit-zero", "--no-progress"], workdir)
    assert code == 0 and "Checking" not in drawn
    piped = cli("check", ".", "--exit-zero", cwd=workdir)  # captured stderr: not a terminal
    assert "Checking" not in piped.err and "\r" not in piped.err
