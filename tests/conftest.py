"""Shared helpers: where the fixtures and expectations live, and running the real `cudaport` command."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from cudaport.cli.main import main
from cudaport.model.findings import Finding

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures" / "c"
EXPECTED = REPO / "tests" / "expected" / "c"
SHARED_REFERENCE = REPO.parent / "shared" / "reference"


# The tests that drive a tool from outside Python (a compiler, an editor, a browser, npm, pre-commit) or real code
# from PyPI, which tools/prerequisites.sh installs: marked `tools`, so that `pytest -m "not tools"` is the fast run
# of everyday work. A module is all such tests, or a test asks for one of these fixtures.
_TOOL_MODULES = frozenset(
    {
        "test_compile_hip.py",
        "test_report_browser.py",
        "test_vscode_extension.py",
        "test_neovim.py",
        "test_ci_integrations.py",
        "test_fix_real_code.py",
    }
)
_TOOL_FIXTURES = frozenset({"hipcc", "nvcc", "gxx", "browser", "chinese_page"})


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if item.path.name in _TOOL_MODULES or _TOOL_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.tools)


def require_shared_reference() -> Path:
    """../shared/reference, the data the rule tables were built from, sits beside this repository where it is
    developed and in CI; a user's clone has none. There the tests that compare the rules with it skip, saying
    why; in CI its absence is a failure."""
    if (SHARED_REFERENCE / "cuda-hip-api-map.csv").is_file():
        return SHARED_REFERENCE
    why = f"the reference data the rules were built from is not beside this clone ({SHARED_REFERENCE})"
    if os.environ.get("CI"):
        pytest.fail(why)
    pytest.skip(why + ": these tests compare the rules with it where it is (CI)")


@pytest.fixture(autouse=True, scope="session")
def _english_by_default() -> Iterator[None]:
    """The run speaks English whatever the machine's locale (a developer's LANG=zh_CN.UTF-8 would turn every
    expected output Chinese); the tests of the language choice set or clear CUDAPORT_LANG themselves."""
    saved = os.environ.get("CUDAPORT_LANG")
    os.environ["CUDAPORT_LANG"] = "en"
    yield
    if saved is None:
        os.environ.pop("CUDAPORT_LANG", None)
    else:
        os.environ["CUDAPORT_LANG"] = saved


@pytest.fixture(autouse=True, scope="session")
def _rule_cache(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """The compiled rule cache and the results cache of the test run (in-process and in the processes tests start)
    in folders of their own, never the user's ~/.cache/cudaport or the trees under test."""
    names = {"CUDAPORT_CACHE_DIR": "rule-cache", "CUDAPORT_RESULTS_CACHE_DIR": "results-cache"}
    saved = {name: os.environ.get(name) for name in names}
    # The results cache too: out of the trees tests compare file by file (tests/test_results_cache.py puts it
    # back where a user's run keeps it).
    for name, folder in names.items():
        os.environ[name] = str(tmp_path_factory.mktemp(folder))
    yield
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


@dataclass
class CliResult:
    code: int
    out: str
    err: str

    def json(self) -> Any:
        return json.loads(self.out)


Cli = Callable[..., CliResult]


@pytest.fixture
def cli(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Cli:
    """`cli("check", "a.cu", cwd=folder)` runs `cudaport.cli.main` in-process, as the console script does."""

    def run(*args: str, cwd: Path | None = None) -> CliResult:
        if cwd is not None:
            monkeypatch.chdir(cwd)
        capsys.readouterr()
        try:
            code = main(list(args))
        except SystemExit as exc:  # argparse usage errors and --help
            code = int(exc.code or 0)
        captured = capsys.readouterr()
        return CliResult(code, captured.out, captured.err)

    return run


def cudaport_executable() -> str:
    """The console script installed next to the interpreter running the tests (the venv's `cudaport`)."""
    candidate = Path(sys.executable).with_name("cudaport")
    if candidate.exists():
        return str(candidate)
    found = shutil.which("cudaport")
    assert found, "the cudaport console script is not installed: pip install -e '.[dev]'"
    return found


def run_subprocess(*args: str, cwd: Path) -> CliResult:
    proc = subprocess.run(
        [cudaport_executable(), *args], cwd=cwd, capture_output=True, text=True, timeout=120, env=_env()
    )
    return CliResult(proc.returncode, proc.stdout, proc.stderr)


def cudaport_module(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """`python -m cudaport ...` in a process of its own, as a user runs it."""
    command = [sys.executable, "-m", "cudaport", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=cwd, timeout=120)


def target_finding_lines(document: dict[str, Any]) -> list[str]:
    """The JSON report's diagnostics in the notation of the per-target expectation files (accelerators, Python):
    file:line:col-end_line:end_col RULE difficulty symbol [-> replacement] [(fixable)]."""
    lines = []
    for d in document["diagnostics"]:
        replacement = f" -> {d['replacement']}" if d["replacement"] else ""
        fixable = " (fixable)" if d["fixable"] else ""
        position = f"{Path(d['path']).name}:{d['line']}:{d['column']}-{d['end_line']}:{d['end_column']}"
        lines.append(f"{position} {d['rule']} {d['difficulty']} {d['symbol']}{replacement}{fixable}")
    return lines


def finding_key(finding: Finding) -> tuple[object, ...]:
    """Everything a finding says, to compare findings of two analyses."""
    return (
        finding.rule,
        finding.start,
        finding.end,
        finding.difficulty,
        finding.message,
        finding.symbol,
        finding.severity,
        finding.fix,
        finding.replacement,
        tuple(sorted(finding.data.items())),
    )


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env.pop("NO_COLOR", None)
    return env


def fixture_files() -> list[str]:
    """Every fixture source, relative to FIXTURES (the binary one is not a source anyone analyses)."""
    return sorted(
        p.relative_to(FIXTURES).as_posix() for p in FIXTURES.rglob("*") if p.is_file() and p.name != "binary_blob.cu"
    )


# Fixtures that include project headers of their own, and the folders those headers are in.
FIXTURE_HEADERS = {"uses_compat.cu": "vendors", "guarded_helpers.cu": "helpers", "helpers_first.cu": "helpers"}


def copy_fixtures(target: Path, names: list[str] | None = None) -> Path:
    """Copy fixtures into `target`, keeping permissions, with the header folders they include (FIXTURE_HEADERS)."""
    target.mkdir(parents=True, exist_ok=True)
    chosen = names if names is not None else fixture_files()
    for name in chosen:
        if name in FIXTURE_HEADERS:
            folder = FIXTURE_HEADERS[name]
            shutil.copytree(FIXTURES / folder, target / folder, dirs_exist_ok=True)
    for name in chosen:
        destination = target / name
        destination.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(FIXTURES / name, destination)
    return target


def read_expected_findings(name: str) -> list[str]:
    path = EXPECTED / "findings" / f"{name}.txt"
    assert path.exists(), f"no expectation written for {name}: {path}"
    return [line for line in path.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]


def finding_line(diagnostic: dict[str, Any]) -> str:
    """One diagnostic of the JSON report in the expectation files' notation."""
    replacement = diagnostic["replacement"] if diagnostic["replacement"] is not None else "-"
    return (
        f"{diagnostic['line']}:{diagnostic['column']}-{diagnostic['end_line']}:{diagnostic['end_column']}"
        f" | {diagnostic['rule']} | {diagnostic['difficulty']} | {diagnostic['symbol']} | {replacement}"
        f" | {'fixable' if diagnostic['fixable'] else '-'}"
    )


@pytest.fixture
def workdir(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "work"
    folder.mkdir()
    yield folder
