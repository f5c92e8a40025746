"""The VS Code extension: its own unit tests (node's test runner) and the end-to-end test in a real VS Code
(code-server in headless Chromium, driven by playwright-core), both through the npm scripts at the repository root."""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

from tooling import require_tool

ROOT = Path(__file__).resolve().parents[1]
EXTENSION = ROOT / "vscode-extension"


def _npm(*args: str, timeout: int = 900, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    npm = shutil.which("npm")
    assert npm, "npm is missing: install Node.js 20 and npm"
    return subprocess.run([npm, *args], cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False)


def _installed() -> None:
    """The extension's toolchain, which tools/prerequisites.sh installs with npm (nothing is installed here)."""
    assert (ROOT / "node_modules" / "typescript").is_dir(), "node_modules is missing: run tools/prerequisites.sh"


def test_extension_unit_tests_pass() -> None:
    _installed()
    result = _npm("test")
    assert result.returncode == 0, result.stdout[-4000:] + result.stderr[-2000:]
    assert "# fail 0" in result.stdout


@contextlib.contextmanager
def _packaging() -> Iterator[None]:
    """One `npm run package` at a time across test workers (pytest -n): two at once moved folders under each other."""
    with open(Path(tempfile.gettempdir()) / "cudaport-vsix-package.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def test_vsix_in_code_server_end_to_end(tmp_path: Path) -> None:
    require_tool("chromium", "chromium")
    require_tool("rg", "ripgrep")
    require_tool("krb5-config", "libkrb5-dev")  # code-server's kerberos module builds against gssapi.h
    _installed()
    with _packaging():
        packaged = _npm("run", "package")
        assert packaged.returncode == 0, packaged.stdout[-4000:] + packaged.stderr[-2000:]
        vsix = EXTENSION / "cudaport-linux-x64.vsix"
        assert vsix.is_file()
        staged = tmp_path / vsix.name
        shutil.copy2(vsix, staged)  # the end-to-end run reads a copy: another test may package again meanwhile
    vsix = staged
    env = {**os.environ, "CUDAPORT_E2E_PYTHON": shutil.which("python3") or "python3"}
    result = subprocess.run(
        ["node", str(EXTENSION / "e2e" / "run.mjs"), "--vsix", str(vsix)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=900,
        env=env,
        check=False,
    )
    assert result.returncode == 0, result.stdout[-6000:] + result.stderr[-6000:]
    assert "e2e: all" in result.stdout


def _pythons() -> dict[str, str]:
    """Every working Python 3.10+ on this machine (python3 at least), by version tag (`311`)."""
    candidates = [shutil.which("python3"), *(shutil.which(f"python3.{minor}") for minor in range(10, 15))]
    candidates += sorted(str(p) for p in Path.home().glob(".pyenv/versions/3.1*/bin/python3"))
    found: dict[str, str] = {}
    for candidate in filter(None, candidates):
        probe = subprocess.run(
            [candidate, "-c", "import sys; print('%d%d' % sys.version_info[:2])"],
            capture_output=True,
            text=True,
            check=False,
        )
        tag = probe.stdout.strip()
        if probe.returncode == 0 and tag.isdigit() and int(tag) >= 310:  # a pyenv shim without its version is no Python
            found.setdefault(tag, candidate)
    assert found, "no Python 3.10 or newer on this machine"
    return found


def test_the_bundled_server_runs_on_every_python_here() -> None:
    """The VSIX's libraries (tree-sitter's binding per Python version) serve any Python from 3.10 on."""
    _installed()
    bundle = EXTENSION / "bundled"
    with _packaging():  # held while the bundle is read: no other test re-packages it meanwhile
        if not (bundle / "libs" / "cudaport").is_dir():
            built = _npm("run", "package")
            assert built.returncode == 0, built.stdout[-4000:] + built.stderr[-2000:]
        _check_with_every_python(bundle)


def _check_with_every_python(bundle: Path) -> None:
    for version, python in _pythons().items():
        env = {
            "PATH": os.environ.get("PATH", ""),
            "HOME": os.environ.get("HOME", "/tmp"),
            "PYTHONPATH": f"{bundle / 'native' / f'cp{version}'}{os.pathsep}{bundle / 'libs'}",
            "PYTHONNOUSERSITE": "1",
        }
        result = subprocess.run(
            [python, "-s", "-m", "cudaport", "check", str(ROOT / "examples"), "--target", "npu", "--format", "json"],
            capture_output=True,
            text=True,
            env=env,
            cwd=ROOT,
            timeout=300,
            check=False,
        )
        assert result.returncode == 1, (python, result.stderr[-2000:])
        assert '"target": "npu"' in result.stdout, python
