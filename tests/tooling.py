"""Installing the external tools some tests need (a compiler, an editor, a browser) instead of skipping.

CI runs as root on Debian: a missing tool is installed with apt-get. Anywhere else a missing tool is a test
failure that says how to install it, never a skip."""

from __future__ import annotations

import os
import shutil
import subprocess
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
