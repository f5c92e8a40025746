"""Real CUDA/C++/Python code written by others, fetched from PyPI source distributions into bench/.corpus/ (ignored).

python bench/corpus.py            # fetch everything the benchmarks use
"""

from __future__ import annotations

import subprocess
import sys
import tarfile
from pathlib import Path

CORPUS = Path(__file__).resolve().parent / ".corpus"
SDISTS = {
    "deepspeed": "deepspeed==0.19.8",  # csrc/: ~90 .cu/.cuh plus C++ and the Python package
    "llama-cpp-python": "llama-cpp-python==0.3.36",  # vendor/llama.cpp/ggml/src/ggml-cuda: ~280 .cu/.cuh, dual-stack
}
C_SUFFIXES = {".cu", ".cuh", ".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx", ".inl"}


def fetch(name: str) -> Path:
    """The unpacked sdist folder for `name`, downloading it on first use."""
    target = CORPUS / name
    if target.is_dir() and any(target.iterdir()):
        return target
    CORPUS.mkdir(parents=True, exist_ok=True)
    download = CORPUS / "downloads"
    download.mkdir(exist_ok=True)
    spec = SDISTS[name]
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "-q", spec, "-d", str(download)],
        check=True,
    )
    archive = next(p for p in download.iterdir() if p.name.lower().startswith(name.replace("-", "_")) or
                   p.name.lower().startswith(name))  # fmt: skip
    target.mkdir(parents=True, exist_ok=True)
    with tarfile.open(archive) as tar:
        tar.extractall(target, filter="data")
    return target


def c_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.suffix.lower() in C_SUFFIXES and p.is_file())


def py_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.py") if p.is_file())


if __name__ == "__main__":
    for corpus in SDISTS:
        folder = fetch(corpus)
        print(f"{corpus}: {len(c_files(folder))} C-family files, {len(py_files(folder))} Python files in {folder}")
