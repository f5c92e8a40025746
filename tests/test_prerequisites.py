"""tools/prerequisites.sh, which installs what the tests drive before any of them starts: after it ran (as CI runs
it, from .ci/run), its --check finds nothing missing and names each thing with why it is needed; and no test
installs anything itself."""

from __future__ import annotations

import re
import subprocess

from conftest import REPO

SCRIPT = REPO / "tools" / "prerequisites.sh"


def test_after_the_script_ran_nothing_is_missing() -> None:
    result = subprocess.run(["bash", str(SCRIPT), "--check"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    assert not [line for line in lines if "missing" in line]
    for package in ("hipcc", "g++", "neovim", "chromium", "fonts-noto-cjk", "nodejs", "npm"):
        assert f"prerequisites: present: {package}" in lines


def test_every_debian_package_says_why_it_is_needed() -> None:
    entries = re.findall(r'^  "([^"|]+)\|([^"|]+)\|([^"]*)"$', SCRIPT.read_text(encoding="utf-8"), re.M)
    assert len(entries) >= 10
    assert all(len(why.split()) >= 4 for _thing, _package, why in entries)


def test_ci_runs_the_script_before_the_tests() -> None:
    lines = (REPO / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    steps = [line for line in lines if line and line[0] != "#"]
    assert steps.index("tools/prerequisites.sh") < steps.index(".venv/bin/python -m pytest")


def test_no_test_installs_anything() -> None:
    # a command run to install: apt-get, npm install or ci, pip install (as the argument lists spell them)
    installing = re.compile(r'\["apt-get"|"npm", "(install|ci)"|_npm\("(install|ci)"|"pip", "install"')
    offenders = [
        path.relative_to(REPO).as_posix()
        for path in sorted((REPO / "tests").rglob("*.py"))
        if path.name not in ("tooling.py", "test_prerequisites.py")  # tooling: what the script runs
        and installing.search(path.read_text(encoding="utf-8"))
    ]
    assert offenders == []
