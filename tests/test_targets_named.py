"""A target named wrong gets the nearest one, worded the same in check, fix, report and the configuration (the
editor's: tests/lsp/test_configuration.py); a release past the rule data's is rated as its newest, with a
warning."""

from __future__ import annotations

from pathlib import Path

import pytest

from conftest import Cli

SUGGESTION = (
    "unknown target 'ascnd'; did you mean 'npu' (ascend)? (known: hip, npu, mlu, maca, corex, musa, or an alias)"
)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    (tmp_path / "a.cu").write_text("#include <cuda_runtime.h>\nvoid f(void **p) { cudaMalloc(p, 4); }\n")
    return tmp_path


@pytest.mark.parametrize("command", ["check", "fix", "report"])
def test_a_misspelt_target_gets_the_nearest_one(cli: Cli, project: Path, command: str) -> None:
    result = cli(command, "a.cu", "--target", "ascnd", cwd=project)
    assert result.code == 2 and SUGGESTION in result.err, result.err
    several = cli(command, "a.cu", "--target", "hip,ascnd", cwd=project) if command != "fix" else result
    assert several.code == 2 and SUGGESTION in several.err


def test_the_configuration_words_it_the_same(cli: Cli, project: Path) -> None:
    (project / "cudaport.toml").write_text('target = "ascnd"\n')
    result = cli("check", "a.cu", cwd=project)
    assert result.code == 2 and f"cudaport.toml: 'target': {SUGGESTION}" in result.err
    (project / "cudaport.toml").write_text('target = "rocmm@6.2"\n')
    assert "did you mean 'hip' (rocm)?" in cli("check", "a.cu", cwd=project).err
    (project / "cudaport.toml").write_text('target = "zzz"\n')
    assert "unknown target 'zzz' (known: hip," in cli("check", "a.cu", cwd=project).err


def test_a_release_past_the_data_is_rated_as_the_newest_with_a_warning(cli: Cli, project: Path) -> None:
    result = cli("check", "a.cu", "--target", "hip@9.9", "--format", "json", "--exit-zero", cwd=project)
    assert result.err.count("the rule data knows ROCm releases up to 6.4; rating for 6.4") == 1, result.err
    assert result.json()["target"] == "hip"
    newest = cli("check", "a.cu", "--target", "hip@6.4", "--format", "json", "--exit-zero", cwd=project)
    assert newest.err == "" and newest.json()["diagnostics"] == result.json()["diagnostics"]
    report = cli("report", "a.cu", "--target", "hip@9.9,npu", "--format", "json", cwd=project)
    assert "rating for 6.4" in report.err and report.code == 0
    (project / "cudaport.toml").write_text('target = "hip@10"\n')
    configured = cli("check", "a.cu", "--exit-zero", cwd=project)
    assert "cudaport.toml: 'target': 'hip@10': the rule data knows ROCm releases up to 6.4" in configured.err
