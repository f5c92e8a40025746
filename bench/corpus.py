"""Real CUDA/C++/Python code written by others, fetched from PyPI source distributions into bench/.corpus/ (ignored).

python bench/corpus.py            # fetch everything the benchmarks use
"""

from __future__ import annotations

import json
import subprocess
import sys
import tarfile
import tempfile
import urllib.parse
import urllib.request
from pathlib import Path

CORPUS = Path(__file__).resolve().parent / ".corpus"
SDISTS = {
    "deepspeed": "deepspeed==0.19.8",  # csrc/: ~90 .cu/.cuh plus C++ and the Python package
    "llama-cpp-python": "llama-cpp-python==0.3.36",  # vendor/llama.cpp/ggml/src/ggml-cuda: ~280 .cu/.cuh, dual-stack
}
C_SUFFIXES = {".cu", ".cuh", ".c", ".cc", ".cpp", ".cxx", ".h", ".hh", ".hpp", ".hxx", ".inl"}


def check_command(path: str, target: str) -> list[str]:
    """`cudaport check PATH --target TARGET` as the benchmarks run it: JSON on stdout, exit 0 whatever it finds,
    and without the results cache (each run analyses; none writes a cache folder into the corpus)."""
    return [sys.executable, "-m", "cudaport", "check", path, "--target", target, "--format", "json", "--exit-zero",
            "--no-cache"]  # fmt: skip


def sdist(spec: str) -> Path:
    """The unpacked source distribution `name==version`, downloaded once with pip into bench/.corpus/<name>-<version>/
    (the folder holds the package's files directly)."""
    folder = CORPUS / spec.replace("==", "-")
    if folder.is_dir() and any(folder.iterdir()):
        return folder
    CORPUS.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=CORPUS) as tmp:
        download = Path(tmp) / "download"
        subprocess.run(
            [
                sys.executable,
                "-m",
                "pip",
                "download",
                "-q",
                "--no-deps",
                "--no-binary",
                ":all:",
                spec,
                "-d",
                str(download),
            ],
            check=True,
        )
        [archive] = list(download.iterdir())
        unpacked = Path(tmp) / "unpacked"
        with tarfile.open(archive) as tar:
            tar.extractall(unpacked, filter="data")  # no absolute paths, links out of the folder or device files
        entries = list(unpacked.iterdir())
        (entries[0] if len(entries) == 1 and entries[0].is_dir() else unpacked).rename(folder)
    return folder


def pypi_sdist(name: str, version: str) -> Path:
    """The unpacked source distribution of `name` `version`, downloaded from PyPI's JSON API into bench/.corpus/.
    Unlike `pip download`, this builds nothing: CUDA extensions' sdists refuse to build metadata without torch."""
    folder = CORPUS / f"{name}-{version}"
    if folder.is_dir() and any(folder.iterdir()):
        return folder
    CORPUS.mkdir(parents=True, exist_ok=True)
    index = f"https://pypi.org/pypi/{name}/json"
    with urllib.request.urlopen(index, timeout=120) as response:
        project = json.load(response)
    # a mirror may give the files' addresses relative to the JSON document
    [url] = [urllib.parse.urljoin(index, u["url"]) for u in project["releases"][version] if u["packagetype"] == "sdist"]
    with tempfile.TemporaryDirectory(dir=CORPUS) as tmp:
        archive = Path(tmp) / "sdist.tar.gz"
        with urllib.request.urlopen(url, timeout=600) as response:
            archive.write_bytes(response.read())
        unpacked = Path(tmp) / "unpacked"
        with tarfile.open(archive) as tar:
            tar.extractall(unpacked, filter="data")
        entries = list(unpacked.iterdir())
        (entries[0] if len(entries) == 1 and entries[0].is_dir() else unpacked).rename(folder)
    return folder


def fetch(name: str) -> Path:
    """One of the C/C++/CUDA corpora in SDISTS."""
    return sdist(SDISTS[name])


def c_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.suffix.lower() in C_SUFFIXES and p.is_file())


def py_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*.py") if p.is_file())


if __name__ == "__main__":
    for corpus in SDISTS:
        folder = fetch(corpus)
        print(f"{corpus}: {len(c_files(folder))} C-family files, {len(py_files(folder))} Python files in {folder}")
