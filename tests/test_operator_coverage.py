"""Operator coverage (CP7100): the PyTorch calls whose operators a target's device plugin has no kernel for, found
through the CLI in every way a program spells a call (tests/fixtures/operators/coverage.py, written for these
tests), with the plugin release and what the call does there; nothing on receivers not known to be tensors, a hint
on tensors provably on the CPU, and nothing where PyTorch itself is built for the target."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from conftest import REPO, Cli

FIXTURE = REPO / "tests" / "fixtures" / "operators" / "coverage.py"

# (line, symbol, difficulty) the fixture must give on npu and mlu
EXPECTED = [
    (15, "torch.nn.HuberLoss", "manual"),
    (18, "torch.nn.functional.huber_loss", "manual"),
    (22, "torch.lgamma", "manual"),
    (23, "torch.special.erfcx", "manual"),
    (24, "torch.linalg.lu_factor_ex", "manual"),
    (26, "torch.special.modified_bessel_i0", "manual"),
    (27, "Tensor.digamma", "manual"),
    (28, "Tensor.lgamma", "manual"),
    (30, "Tensor.lgamma", "manual"),
    (32, "Tensor.lgamma", "portable"),
    (33, "Tensor.lgamma", "portable"),
]


def _findings(cli: Cli, folder: Path, target: str) -> list[dict[str, object]]:
    result = cli("check", ".", "--target", target, "--format", "json", "--exit-zero", "--select", "CP7100", cwd=folder)
    assert result.code == 0, result.err
    return list(result.json()["diagnostics"])


@pytest.fixture
def project(workdir: Path) -> Path:
    shutil.copy(FIXTURE, workdir / "coverage.py")
    return workdir


@pytest.mark.parametrize("target", ["npu", "mlu"])
def test_every_kind_of_call_is_found_and_nothing_else(cli: Cli, project: Path, target: str) -> None:
    found = _findings(cli, project, target)
    assert [(d["line"], d["symbol"], d["difficulty"]) for d in found] == EXPECTED


def test_the_message_names_the_plugin_release_and_what_happens(cli: Cli, project: Path) -> None:
    npu = {d["line"]: str(d["message"]) for d in _findings(cli, project, "npu")}
    assert npu[22] == (
        "`torch.lgamma`: no Ascend NPU kernel in torch_npu 2.14.0 (aten::lgamma); it falls back to the CPU, slowly "
        "and with a warning (TORCH_NPU_FALLBACK_CPU_DISABLE=1 makes it fail)"
    )
    assert npu[32].startswith("`Tensor.lgamma` runs on the CPU here (its tensor is on the CPU)")
    older = {d["line"]: str(d["message"]) for d in _findings(cli, project, "npu@2.13")}
    assert "in torch_npu 2.13.0 (aten::lgamma)" in older[22]
    mlu = {d["line"]: str(d["message"]) for d in _findings(cli, project, "mlu@1.25")}
    assert "torch_mlu 1.25.0" in mlu[22] and "ENABLE_FALLBACK_TO_CPU=0 makes it fail" in mlu[22]
    assert "torch_mlu's API support list marks it unsupported too" in mlu[22]


def test_a_plugin_without_a_fallback_fails_the_call(cli: Cli, project: Path) -> None:
    musa = _findings(cli, project, "musa")
    assert [(d["line"], d["symbol"]) for d in musa] == [(26, "torch.special.modified_bessel_i0")]
    assert str(musa[0]["message"]).endswith("; the call fails (NotImplementedError)")


@pytest.mark.parametrize("target", ["hip", "maca", "corex"])
def test_nothing_where_pytorch_is_built_for_the_target(cli: Cli, project: Path, target: str) -> None:
    assert _findings(cli, project, target) == []


def test_a_release_the_data_lacks_is_rated_as_the_nearest_with_a_warning(cli: Cli, project: Path) -> None:
    result = cli("check", ".", "--target", "npu@2.1", "--select", "CP7100", "--exit-zero", cwd=project)
    assert "the rule data knows torch_npu releases 2.13.0, 2.14.0; rating for 2.13.0" in result.err
    assert "torch_npu 2.13.0" in result.out


def test_fix_leaves_them_to_a_person(cli: Cli, project: Path) -> None:
    before = (project / "coverage.py").read_bytes()
    fixed = cli("fix", ".", "--target", "npu", cwd=project)
    assert fixed.code == 1 and "left for a person: 0 mechanical, 9 manual" in fixed.out
    assert (project / "coverage.py").read_bytes() == before
    assert [(d["line"], d["symbol"], d["difficulty"]) for d in _findings(cli, project, "npu")] == EXPECTED
