"""The external tools and data some tests need (a compiler, an editor, a browser, a font, nvcc, real code).

Nothing is installed while the tests run: tools/prerequisites.sh installs it all before (CI calls it from .ci/run),
and a test that finds something missing fails, naming that script, never skips.

    python tests/tooling.py --install   # what pip and PyPI bring: nvcc's wheels, the real-code corpus
    python tests/tooling.py --check     # say what of that is missing
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
_HOW = "run tools/prerequisites.sh, which installs what the tests need"


def require_tool(binary: str, package: str) -> str:
    """The path of `binary` (from the Debian `package`)."""
    found = shutil.which(binary)
    if not found:
        raise AssertionError(f"{binary} is missing (Debian package {package}): {_HOW}")
    return found


def require_file(path: str, package: str) -> Path:
    """`path` (a header, a font), from the Debian `package`."""
    wanted = Path(path)
    if not wanted.exists():
        raise AssertionError(f"{path} is missing (Debian package {package}): {_HOW}")
    return wanted


# The CUDA 13.0 compiler as NVIDIA publishes it on PyPI (nvcc, its front end, the runtime headers, CCCL), for
# machines without a CUDA toolkit, beside the virtualenv.
NVCC_WHEELS = (
    "nvidia-cuda-nvcc==13.0.88",
    "nvidia-cuda-crt==13.0.88",
    "nvidia-nvvm==13.0.88",
    "nvidia-cuda-runtime==13.0.96",
    "nvidia-cuda-cccl==13.0.85",
)
NVCC_HOME = ROOT / ".venv" / "cuda13"
_WHEEL_NVCC = NVCC_HOME / "nvidia/cu13/bin/nvcc"

# The PyPI source distributions tests/test_fix_real_code.py samples (into bench/.corpus/, never committed).
REAL_CODE = {"accelerate": "1.15.0", "mmengine": "0.10.7", "torch-scatter": "2.1.2", "mamba-ssm": "2.3.2.post1"}


def _nvcc() -> str | None:
    for candidate in (shutil.which("nvcc"), "/usr/local/cuda/bin/nvcc", str(_WHEEL_NVCC)):
        if candidate and Path(candidate).is_file():
            return candidate
    return None


def require_nvcc() -> str:
    """nvcc: on PATH, in /usr/local/cuda, or from NVIDIA's wheels in .venv/cuda13; and g++, its host compiler."""
    found = _nvcc()
    if found is None:
        raise AssertionError(f"nvcc is missing (NVIDIA's wheels {', '.join(NVCC_WHEELS)}): {_HOW}")
    require_tool("g++", "g++")
    return found


def _corpus() -> object:
    sys.path.insert(0, str(ROOT / "bench"))
    import corpus

    return corpus


def real_code(name: str) -> Path:
    """The unpacked sdist of `name` (one of REAL_CODE)."""
    folder = _corpus().CORPUS / f"{name}-{REAL_CODE[name]}"  # type: ignore[attr-defined]
    if not (folder.is_dir() and any(folder.iterdir())):
        raise AssertionError(f"{folder} is missing (the sdist of {name} {REAL_CODE[name]} from PyPI): {_HOW}")
    return Path(folder)


def _install() -> None:
    if _nvcc() is None:
        print(f"prerequisites: installing nvcc from NVIDIA's wheels into {NVCC_HOME} (the dual-stack compile check)")
        command = [sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", str(NVCC_HOME)]
        subprocess.run([*command, *NVCC_WHEELS], check=True, timeout=1800)
    else:
        print(f"prerequisites: present: nvcc ({_nvcc()})")
    corpus = _corpus()
    for name, version in REAL_CODE.items():
        folder = corpus.CORPUS / f"{name}-{version}"  # type: ignore[attr-defined]
        if folder.is_dir() and any(folder.iterdir()):
            print(f"prerequisites: present: {name} {version} (real code the fix test samples)")
        else:
            print(f"prerequisites: downloading {name} {version}'s sdist from PyPI (real code the fix test samples)")
            corpus.pypi_sdist(name, version)  # type: ignore[attr-defined]


def _check() -> int:
    missing = 0
    if _nvcc() is None:
        print("prerequisites: missing: nvcc (NVIDIA's wheels into .venv/cuda13)")
        missing = 1
    for name in REAL_CODE:
        try:
            real_code(name)
        except AssertionError:
            print(f"prerequisites: missing: {name} {REAL_CODE[name]}'s sdist in bench/.corpus/")
            missing = 1
    return missing


if __name__ == "__main__":
    if sys.argv[1:] == ["--install"]:
        _install()
    elif sys.argv[1:] == ["--check"]:
        sys.exit(_check())
    else:
        sys.exit(__doc__)
