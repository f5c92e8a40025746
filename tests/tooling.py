"""Installing the external tools some tests need (a compiler, an editor, a browser) instead of skipping.

CI runs as root on Debian: a missing tool is installed with apt-get. Anywhere else a missing tool is a test
failure that says how to install it, never a skip."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

_LOCK = threading.Lock()


def ensure_apt(binary: str, *packages: str) -> str:
    """The path of `binary`, installing the Debian `packages` first when it is missing."""
    found = shutil.which(binary)
    if found:
        return found
    with _LOCK:
        found = shutil.which(binary)
        if found:
            return found
        _apt_install(binary, packages)
        found = shutil.which(binary)
        if not found:
            raise AssertionError(f"installed {' '.join(packages)} but {binary} is still not on PATH")
        return found


def ensure_apt_file(path: str, *packages: str) -> Path:
    """`path` (a header, a library), installing the Debian `packages` first when it is missing."""
    wanted = Path(path)
    if wanted.exists():
        return wanted
    with _LOCK:
        if not wanted.exists():
            _apt_install(path, packages)
        if not wanted.exists():
            raise AssertionError(f"installed {' '.join(packages)} but {path} is still missing")
        return wanted


def _apt_install(what: str, packages: tuple[str, ...]) -> None:
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        raise AssertionError(f"{what} is missing: install it with `apt-get install -y {' '.join(packages)}`")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    lock = ["-o", "DPkg::Lock::Timeout=900"]
    for command in (["apt-get", *lock, "update", "-qq"], ["apt-get", *lock, "install", "-y", "-qq", *packages]):
        subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL, timeout=1800)


# The CUDA 13.0 compiler as NVIDIA publishes it on PyPI (nvcc, its front end, the runtime headers, CCCL): what CI
# installs where a machine has no CUDA toolkit, beside the virtualenv (.ci/run does it ahead of the tests).
NVCC_WHEELS = (
    "nvidia-cuda-nvcc==13.0.88",
    "nvidia-cuda-crt==13.0.88",
    "nvidia-nvvm==13.0.88",
    "nvidia-cuda-runtime==13.0.96",
    "nvidia-cuda-cccl==13.0.85",
)
NVCC_HOME = Path(__file__).resolve().parents[1] / ".venv" / "cuda13"


def ensure_nvcc() -> str:
    """nvcc: on PATH, in /usr/local/cuda, or installed from NVIDIA's wheels into .venv/cuda13."""
    for candidate in (shutil.which("nvcc"), "/usr/local/cuda/bin/nvcc", str(NVCC_HOME / "nvidia/cu13/bin/nvcc")):
        if candidate and Path(candidate).is_file():
            return candidate
    with _LOCK:
        wanted = NVCC_HOME / "nvidia/cu13/bin/nvcc"
        if not wanted.is_file():
            command = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(NVCC_HOME)]
            subprocess.run([*command, *NVCC_WHEELS], check=True, timeout=1800)
        if not wanted.is_file():
            raise AssertionError(f"installed {' '.join(NVCC_WHEELS)} but {wanted} is missing")
        ensure_apt("g++", "g++")  # nvcc's host compiler
        return str(wanted)
