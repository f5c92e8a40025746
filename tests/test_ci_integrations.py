"""cudaport where CI and hooks run it: the pre-commit hooks the repository defines (.pre-commit-hooks.yaml), run by
pre-commit itself from this checkout, and the GitHub Action (action.yml), its steps run as a runner runs them."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import venv
from pathlib import Path

import yaml

from conftest import REPO

KERNEL = "#include <cuda_runtime.h>\nvoid f(void* p) { cudaFree(p); }\n"


def _git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", "-c", "user.email=ci@example.com", "-c", "user.name=ci", *args], cwd=cwd, check=True)


def _project(root: Path) -> Path:
    """A small checkout: a kernel of its own, one in a build tree and one .gitignore leaves out."""
    for place in ("src/a.cu", "build/generated.cu", "vendored/v.cu"):
        (root / place).parent.mkdir(parents=True, exist_ok=True)
        (root / place).write_text(KERNEL, encoding="utf-8")
    (root / "README.md").write_text("notes\n", encoding="utf-8")
    (root / ".gitignore").write_text("vendored/\n", encoding="utf-8")
    _git("init", "-q", cwd=root)
    _git("add", "-A", "-f", cwd=root)  # vendored/ too: pre-commit passes what git tracks
    _git("commit", "-qm", "init", cwd=root)
    return root


def _pre_commit(hook: str, project: Path, home: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "pre_commit", "try-repo", str(REPO), hook, "--all-files", "--verbose"]
    env = {**os.environ, "PRE_COMMIT_HOME": str(home), "NO_COLOR": "1"}
    return subprocess.run(command, cwd=project, capture_output=True, text=True, timeout=900, env=env)


def test_the_pre_commit_hooks_check_and_fix_the_projects_own_changed_files(tmp_path: Path) -> None:
    project = _project(tmp_path / "project")
    home = tmp_path / "pre-commit-home"
    checked = _pre_commit("cudaport", project, home)
    assert checked.returncode == 1, checked.stdout + checked.stderr
    assert re.search(r"^src/a.cu:2:\d+: CP1001 \[mechanical\] .*`cudaFree` → `hipFree`", checked.stdout, re.M)
    # the build tree and the ignored folder are not the project's, though pre-commit hands them over
    assert "generated.cu" not in checked.stdout and "v.cu" not in checked.stdout
    assert "README.md" not in checked.stdout  # not a kind of file cudaport reads: not passed at all
    fixed = _pre_commit("cudaport-fix", project, home)
    assert "files were modified by this hook" in fixed.stdout, fixed.stdout + fixed.stderr
    assert "hipFree(p)" in (project / "src" / "a.cu").read_text(encoding="utf-8")
    assert "cudaFree(p)" in (project / "build" / "generated.cu").read_text(encoding="utf-8")


def _action_steps() -> list[dict[str, object]]:
    action = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))
    assert action["runs"]["using"] == "composite"
    return list(action["runs"]["steps"])


def _expand(value: str, inputs: dict[str, str]) -> str:
    """GitHub's `${{ inputs.name }}` substitution."""
    return re.sub(r"\$\{\{\s*inputs\.([\w-]+)\s*\}\}", lambda m: inputs[m.group(1)], value)


def test_the_github_action_installs_its_own_copy_and_annotates(tmp_path: Path) -> None:
    declared = yaml.safe_load((REPO / "action.yml").read_text(encoding="utf-8"))["inputs"]
    inputs = {name: str(spec.get("default", "")) for name, spec in declared.items()}
    inputs["target"] = "hip,npu"
    project = _project(tmp_path / "project")
    runner = tmp_path / "runner"
    venv.create(runner, with_pip=True)  # the runner's python3, without cudaport
    env = {
        **os.environ,
        "PATH": f"{runner / 'bin'}{os.pathsep}{os.environ['PATH']}",
        "GITHUB_ACTION_PATH": str(REPO),
        "VIRTUAL_ENV": str(runner),
    }
    outputs = []
    for step in _action_steps():
        assert step["shell"] == "bash"
        step_env = {k: _expand(str(v), inputs) for k, v in dict(step.get("env", {})).items()}  # type: ignore[call-overload]
        result = subprocess.run(
            ["bash", "-e", "-c", _expand(str(step["run"]), inputs)],
            cwd=project,
            env={**env, **step_env},
            capture_output=True,
            text=True,
            timeout=900,
        )
        outputs.append(result)
    install, check = outputs
    assert install.returncode == 0, install.stderr
    assert check.returncode == 1, check.stderr  # findings at or above --fail-on fail the job
    annotations = [line for line in check.stdout.splitlines() if line.startswith("::")]
    assert any(line.startswith("::notice file=src/a.cu,line=2") and "hipFree" in line for line in annotations)
    assert any("aclrtFree" in line for line in annotations)  # both targets
    assert not any("generated.cu" in line or "v.cu" in line for line in annotations)
