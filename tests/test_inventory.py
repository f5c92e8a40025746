"""The project inventory beyond sources, through the CLI: build files, manifests, containers, scripts, configs,
notebooks, Cython and shipped binaries (tests/fixtures/inventory, written for these tests)."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import REPO, Cli
from cudaport.knowledge.ruleset import load_ruleset

INVENTORY = REPO / "tests" / "fixtures" / "inventory"
BAD = REPO / "tests" / "fixtures" / "inventory-bad"


def findings(cli: Cli, target: str, *paths: str, cwd: Path = INVENTORY) -> dict[tuple[str, int], set[tuple[str, str]]]:
    """(file, line) -> {(rule, difficulty)} of every finding, portable ones included."""
    result = cli("check", "--target", target, "--format", "json", "--show-portable", *paths, cwd=cwd)
    assert result.code in (0, 1), result.err
    out: dict[tuple[str, int], set[tuple[str, str]]] = {}
    for item in result.json()["diagnostics"]:
        out.setdefault((Path(item["path"]).name, item["line"]), set()).add((item["rule"], item["difficulty"]))
    return out


# (file, line, rule, difficulty on hip, difficulty on npu)
EXPECTED = [
    ("CMakeLists.txt", 3, "CP8001", "manual", "manual"),  # project(... CUDA)
    ("CMakeLists.txt", 4, "CP8002", "manual", "manual"),  # find_package(CUDAToolkit)
    ("CMakeLists.txt", 5, "CP8003", "manual", "manual"),  # CMAKE_CUDA_ARCHITECTURES
    ("CMakeLists.txt", 7, "CP8002", "manual", "manual"),  # CUDA::cudart
    ("CMakeLists.txt", 8, "CP8004", "manual", "manual"),  # --use_fast_math inside a generator expression
    ("CMakeLists.txt", 9, "CP8004", "manual", "manual"),  # CUDA_SEPARABLE_COMPILATION
    ("Makefile", 1, "CP7041", "manual", "manual"),  # CUDA_HOME ?= ...
    ("Makefile", 2, "CP7060", "manual", "manual"),  # $(CUDA_HOME)/bin/nvcc
    ("Makefile", 3, "CP8003", "manual", "manual"),  # -arch=sm_80
    ("Makefile", 4, "CP8005", "mechanical", "manual"),  # -lcudart -lcublas
    ("Makefile", 8, "CP7060", "manual", "manual"),  # @nvidia-smi in a recipe
    ("train.slurm", 3, "CP8204", "portable", "manual"),  # #SBATCH --gres=gpu:4
    ("train.slurm", 5, "CP7030", "portable", "mechanical"),  # export CUDA_VISIBLE_DEVICES
    ("train.slurm", 7, "CP7060", "manual", "manual"),  # nvidia-smi
    ("train.slurm", 8, "CP7010", "portable", "manual"),  # --device cuda (only an unsafe edit)
    ("Dockerfile", 2, "CP8201", "manual", "manual"),  # FROM nvidia/cuda
    ("Dockerfile", 3, "CP8202", "manual", "manual"),  # NVIDIA_VISIBLE_DEVICES
    ("Dockerfile", 5, "CP8203", "manual", "manual"),  # apt-get install libcudnn8
    ("Dockerfile", 6, "CP8101", "mechanical", "manual"),  # pip install torch==...+cu121 --extra-index-url
    ("Dockerfile", 7, "CP7060", "manual", "manual"),  # HEALTHCHECK CMD nvidia-smi
    ("requirements.txt", 2, "CP8101", "mechanical", "manual"),  # the cu121 index, torch pinned below
    ("requirements.txt", 3, "CP8101", "mechanical", "manual"),  # +cu121
    ("requirements.txt", 5, "CP8101", "manual", "manual"),  # cupy-cuda12x
    ("requirements.txt", 7, "CP8102", "manual", "blocker"),  # flash-attn: recent releases build for ROCm too
    ("pyproject.toml", 4, "CP8101", "manual", "manual"),  # cupy-cuda12x in [project] dependencies
    ("pyproject.toml", 7, "CP8102", "blocker", "blocker"),  # xformers in optional-dependencies
    ("pyproject.toml", 10, "CP7010", "portable", "manual"),  # [tool.saxpy] device = "cuda"
    ("setup.cfg", 7, "CP8102", "manual", "blocker"),  # pycuda (hip-python on HIP)
    ("setup.cfg", 8, "CP8102", "blocker", "blocker"),  # tensorrt
    ("environment.yml", 5, "CP8101", "manual", "manual"),  # pytorch-cuda=12.1
    ("environment.yml", 8, "CP8101", "manual", "manual"),  # pip: cupy-cuda11x
    ("deploy.yaml", 7, "CP8202", "manual", "manual"),  # runtimeClassName: nvidia
    ("deploy.yaml", 10, "CP8201", "manual", "manual"),  # image: nvcr.io/nvidia/pytorch
    ("deploy.yaml", 12, "CP7030", "portable", "mechanical"),  # env name CUDA_VISIBLE_DEVICES
    ("deploy.yaml", 16, "CP8204", "manual", "manual"),  # nvidia.com/gpu
    ("compose.yaml", 5, "CP8202", "manual", "manual"),  # NVIDIA_DRIVER_CAPABILITIES=...
    ("compose.yaml", 10, "CP8202", "manual", "manual"),  # driver: nvidia
    ("ds_config.json", 3, "CP8301", "manual", "manual"),  # bf16
    ("ds_config.json", 4, "CP8301", "portable", "manual"),  # offload to nvme
    ("ds_config.json", 5, "CP8301", "portable", "manual"),  # aio
    ("ds_config.json", 6, "CP8301", "manual", "manual"),  # autotuning
    ("accelerate.yaml", 2, "CP8301", "portable", "manual"),  # distributed_type: MULTI_GPU
    ("accelerate.yaml", 5, "CP8301", "portable", "manual"),  # accelerator: gpu
    ("accelerate.yaml", 6, "CP7010", "portable", "manual"),  # device: cuda:0
    ("accelerate.yaml", 7, "CP7020", "portable", "manual"),  # dist_backend: nccl
    ("setup.py", 5, "CP8003", "manual", "manual"),  # "-gencode" in a list the nvcc flags name
    ("setup.py", 6, "CP8004", "manual", "manual"),  # --use_fast_math appended to that list
    ("setup.py", 11, "CP8004", "portable", "manual"),  # an nvcc flag on the CUDA side of `if ON_ROCM:`
    ("setup.py", 17, "CP7040", "portable", "blocker"),  # CUDAExtension
    ("setup.py", 20, "CP8004", "manual", "manual"),  # -lineinfo in extra_compile_args["nvcc"]
    ("setup.py", 21, "CP8005", "mechanical", "manual"),  # -lcurand in extra_link_args
    ("setup.py", 24, "CP8101", "mechanical", "manual"),  # +cu121 in install_requires
    ("setup.py", 24, "CP8102", "manual", "blocker"),  # pycuda in install_requires
    ("jit_build.py", 4, "CP8004", "manual", "manual"),  # `+=` to the list extra_cuda_cflags names
    ("jit_build.py", 5, "CP8005", "mechanical", "manual"),  # a dict entry extra_ldflags reads by key
    ("jit_build.py", 6, "CP7040", "portable", "blocker"),  # load() with a .cu source
    ("kernels.pyx", 3, "CP1001", "mechanical", "manual"),  # cdef extern from "cuda_runtime.h"
    ("kernels.pyx", 10, "CP1001", "mechanical", "manual"),  # cudaFree(...)
]


@pytest.mark.parametrize("target", ["hip", "npu"])
def test_each_kind_and_pattern_is_found_and_rated(cli: Cli, target: str) -> None:
    found = findings(cli, target, ".")
    for name, line, rule, hip, npu in EXPECTED:
        expected = hip if target == "hip" else npu
        assert (rule, expected) in found.get((name, line), set()), (name, line, found.get((name, line)))


def test_comments_strings_and_unrelated_values_are_not_findings(cli: Cli) -> None:
    found = findings(cli, "npu", ".")
    quiet = [
        ("CMakeLists.txt", 1),  # a comment naming CUDA
        ("CMakeLists.txt", 10),  # message(STATUS "building for cuda")
        ("train.slurm", 4),  # a comment naming nvidia-smi
        ("train.slurm", 9),  # echo "cuda is only text here"
        ("requirements.txt", 1),  # a comment
        ("requirements.txt", 4),  # numpy
        ("ds_config.json", 7),  # "cuda" in a value of an unrelated key
        ("kernels.pyx", 2),  # a comment naming cudaMalloc
        ("kernels.pyx", 9),  # a string naming cudaFree
        ("setup.py", 12),  # a flag spelled in a string no build keyword reads
        ("jit_build.py", 3),  # -O3: a flag every compiler takes
    ]
    for key in quiet:
        assert key not in found, key
    # `# tuned for A100` after the flags is a comment: the two flags are the line's only findings
    assert {rule for rule, _ in found[("Makefile", 3)]} == {"CP8003", "CP8004"}


def test_every_target_rates_every_inventory_finding(cli: Cli) -> None:
    """The same files on every target: each finding has a difficulty, none is lost, none crashes the run."""
    counts = {}
    for target in load_ruleset().targets:
        result = cli("check", "--target", target, "--format", "json", "--show-portable", ".", cwd=INVENTORY)
        document = result.json()
        assert {item["difficulty"] for item in document["diagnostics"]} <= {
            "portable",
            "mechanical",
            "manual",
            "blocker",
        }
        counts[target] = len(document["diagnostics"])
        # nvcr images need the target's own; nothing there runs unchanged
        images = [i for i in document["diagnostics"] if i["rule"] == "CP8201"]
        assert images and all(i["difficulty"] == "manual" for i in images)
    assert min(counts.values()) > 40, counts


def test_fix_rewrites_only_the_safe_words_and_is_idempotent(cli: Cli, tmp_path: Path) -> None:
    tree = tmp_path / "project"
    shutil.copytree(INVENTORY, tree)
    result = cli("fix", "--target", "hip", ".", cwd=tree)
    assert result.code in (0, 1), result.err
    requirements = (tree / "requirements.txt").read_text()
    assert "--extra-index-url https://download.pytorch.org/whl/rocm6.2\n" in requirements
    assert "torch==2.5.1+rocm6.2\n" in requirements
    assert "cupy-cuda12x>=12.0" in requirements  # the ROCm wheel depends on the ROCm release: a person picks it
    setup_py = (tree / "setup.py").read_text()
    assert 'extra_link_args=["-lhiprand"]' in setup_py
    assert '"torch==2.5.1+rocm6.2", "pycuda"' in setup_py
    assert '"-gencode", "arch=compute_90,code=sm_90"' in setup_py
    makefile = (tree / "Makefile").read_text()
    assert "LDLIBS = -lamdhip64 -lhipblas -lm\n" in makefile
    assert "-arch=sm_80" in makefile  # architectures are a person's choice
    dockerfile = (tree / "Dockerfile").read_text()
    assert "torch==2.5.1+rocm6.2 --extra-index-url https://download.pytorch.org/whl/rocm6.2" in dockerfile
    assert dockerfile.startswith("# syntax=docker/dockerfile:1\nFROM nvidia/cuda:")  # the image is manual
    before = {p.name: p.read_bytes() for p in tree.iterdir()}
    again = cli("fix", "--target", "hip", ".", cwd=tree)
    assert again.code in (0, 1)
    assert {p.name: p.read_bytes() for p in tree.iterdir()} == before


def test_fix_renames_environment_variables_for_the_npu(cli: Cli, tmp_path: Path) -> None:
    tree = tmp_path / "project"
    shutil.copytree(INVENTORY, tree)
    cli("fix", "--target", "npu", "train.slurm", "deploy.yaml", cwd=tree)
    assert "export ASCEND_RT_VISIBLE_DEVICES=0,1,2,3\n" in (tree / "train.slurm").read_text()
    assert "- name: ASCEND_RT_VISIBLE_DEVICES\n" in (tree / "deploy.yaml").read_text()
    assert "nvidia.com/gpu: 2" in (tree / "deploy.yaml").read_text()  # unsafe: only with --unsafe-fixes
    cli("fix", "--target", "npu", "--unsafe-fixes", "deploy.yaml", cwd=tree)
    assert "huawei.com/Ascend910: 2" in (tree / "deploy.yaml").read_text()


def test_notebook_findings_name_the_cell_and_fixes_keep_the_notebook(cli: Cli, tmp_path: Path) -> None:
    result = cli("check", "--target", "npu", "--format", "json", "explore.ipynb", cwd=INVENTORY)
    items = result.json()["diagnostics"]
    places = {(i["rule"], i["cell"], i["cell_line"]) for i in items}
    assert ("CP7010", 2, 2) in places  # device="cuda"
    assert ("CP7001", 2, 3) in places  # torch.cuda.synchronize()
    assert ("CP7060", 3, 1) in places  # !nvidia-smi
    assert ("CP8101", 3, 2) in places  # %pip install cupy-cuda12x
    assert all(i["cell"] != 1 for i in items)  # the markdown cell says "cuda" in text
    assert all(not (i["cell"] == 3 and i["cell_line"] == 3) for i in items)  # a string in print()
    text = cli("check", "--target", "npu", "explore.ipynb", cwd=INVENTORY).out
    assert "[cell 2, line 3]" in text

    copy = tmp_path / "explore.ipynb"
    shutil.copy(INVENTORY / "explore.ipynb", copy)
    original = json.loads(copy.read_text(encoding="utf-8"))
    cli("fix", "--target", "npu", str(copy))
    fixed = json.loads(copy.read_text(encoding="utf-8"))
    assert "".join(fixed["cells"][1]["source"]) == (
        'import torch\nimport torch_npu\nx = torch.ones(4, device="npu")\ntorch.npu.synchronize()\n'
    )
    for key in ("metadata", "nbformat", "nbformat_minor"):
        assert fixed[key] == original[key]
    assert fixed["cells"][1]["outputs"] == original["cells"][1]["outputs"]
    assert fixed["cells"][2] == original["cells"][2]  # shell lines and the café string untouched
    assert copy.read_text(encoding="utf-8").count("\n") == (INVENTORY / "explore.ipynb").read_text().count("\n")


def test_suppressions_in_each_comment_syntax(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "CMakeLists.txt").write_text("project(x LANGUAGES CUDA) # cudaport: ignore[CP8001]\n")
    (tmp_path / "Makefile").write_text("FLAGS = -arch=sm_80  # cudaport: ignore[CP8003]\nLIBS = -lcudart\n")
    (tmp_path / "Dockerfile").write_text("# cudaport: ignore-file[CP8201]\nFROM nvidia/cuda:12.1.0-base-ubuntu22.04\n")
    (tmp_path / "k8s.yaml").write_text("limits:\n  nvidia.com/gpu: 1  # cudaport: ignore\n")
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None}
    notebook = {"cells": [dict(cell, source=["torch.cuda.synchronize()  # cudaport: ignore[CP7001]\n"])]}
    notebook.update(metadata={}, nbformat=4, nbformat_minor=5)
    (tmp_path / "n.ipynb").write_text(json.dumps(notebook))
    found = findings(cli, "hip", ".", cwd=tmp_path)
    assert set(found) == {("Makefile", 2)}, found


def test_bad_input_is_a_message_for_that_file_only(cli: Cli, tmp_path: Path) -> None:
    shutil.copy(BAD / "broken.ipynb", tmp_path)
    shutil.copy(BAD / "broken.yaml", tmp_path)
    shutil.copy(INVENTORY / "requirements.txt", tmp_path)
    (tmp_path / "libtruncated.so").write_bytes(b"\x7fELF\x02\x01\x01" + b"\x00" * 40)
    (tmp_path / "Dockerfile").write_bytes(b"FROM nvidia/cuda:12.1.0-base\nRUN echo '\xff\xfe'\n")  # not UTF-8
    result = cli("check", "--target", "hip", ".", cwd=tmp_path)
    assert result.code == 2  # a file that could not be read fails the run, as a broken source does
    assert "broken.ipynb: not a notebook: the file is not valid JSON" in result.err
    assert "broken.yaml: not valid YAML: a syntax error at line" in result.err
    assert "libtruncated.so: not a readable ELF file" in result.err
    assert "internal error" not in result.err
    assert "requirements.txt:3:13: CP8101" in result.out
    assert "Dockerfile:1:6: CP8201" in result.out


def _compile(tmp_path: Path, name: str, source: str, *flags: str) -> Path:
    c_file = tmp_path / f"{name}.c"
    c_file.write_text(source)
    output = tmp_path / name
    subprocess.run(["gcc", *flags, "-o", str(output), str(c_file)], check=True, cwd=tmp_path)
    c_file.unlink()
    return output


def test_shipped_binaries(cli: Cli, tmp_path: Path) -> None:
    """ELF files built here from C: a stub libcudart (only its DT_NEEDED entry matters), a library with an
    .nv_fatbin section whose source sits beside it, an executable without a suffix, and an archive."""
    lib = tmp_path / "lib"
    lib.mkdir()
    _compile(
        lib,
        "libcudart.so.12",
        "int cudaFree(void *p) { return 0; }\n",
        "-shared",
        "-fPIC",
        "-Wl,-soname,libcudart.so.12",
    )
    link = ["-Wl,--no-as-needed", f"-L{lib}", "-l:libcudart.so.12"]
    fatbin = 'const char blob[8] __attribute__((section(".nv_fatbin"), used)) = "fatbin";\nint f(void) { return 1; }\n'
    _compile(tmp_path, "libscale.so", fatbin, "-shared", "-fPIC", *link)
    (tmp_path / "scale.cu").write_text("__global__ void scale(float *x) {}\n")
    program = _compile(tmp_path, "server", "int main(void) { return 0; }\n", *link)
    program.chmod(0o755)
    subprocess.run(["gcc", "-c", "-x", "c", "-", "-o", str(tmp_path / "k.o")], input=fatbin, text=True, check=True)
    subprocess.run(["ar", "rcs", str(tmp_path / "libvendor.a"), str(tmp_path / "k.o")], check=True)
    (tmp_path / "k.o").unlink()
    result = cli("check", "--target", "hip", "--format", "json", ".", "--exclude", "lib", cwd=tmp_path)
    items = {(Path(i["path"]).name, i["rule"]): i for i in result.json()["diagnostics"]}
    scale = items[("libscale.so", "CP9001")]
    assert scale["difficulty"] == "manual" and "scale.cu" in scale["message"] and "libamdhip64.so" in scale["message"]
    assert items[("libscale.so", "CP9002")]["difficulty"] == "manual"
    assert items[("server", "CP9001")]["difficulty"] == "blocker"  # no source of its own in the tree
    assert items[("libvendor.a", "CP9002")]["difficulty"] == "blocker"
    assert ("libvendor.a", "CP9001") not in items  # an archive's objects need nothing
    assert items[("server", "CP9001")]["line"] == 1
    fixed = cli("fix", "--target", "hip", ".", "--exclude", "lib", cwd=tmp_path)
    assert fixed.code in (0, 1)
    assert (tmp_path / "libscale.so").read_bytes()[:4] == b"\x7fELF"  # binaries are never rewritten
    # the report puts them in the guides' last area, after the build and environment of the .cu beside them
    report = cli("report", "--target", "hip", "--format", "json", ".", "--exclude", "lib", cwd=tmp_path)
    areas = {a["name"]: a for a in report.json()["areas"]}
    assert list(areas)[-1] == "binaries"
    assert areas["binaries"]["files"] == 3 and areas["binaries"]["rules"] == ["CP9001", "CP9002"]


def test_rule_docs_for_the_inventory(cli: Cli) -> None:
    result = cli("rule", "CP8101")
    assert result.code == 0
    for heading in ("What it does", "Why it matters", "Example", "Fix safety"):
        assert heading in result.out


def test_a_binary_of_a_python_package_takes_the_packages_rating(cli: Cli, tmp_path: Path) -> None:
    """One thing, one rating: the CUDA builds a package ships are rated as the package's imports are (a ROCm build
    of bitsandbytes exists: manual, install it), and portable when the package ships its target build beside them."""
    lib = tmp_path / "stubs"
    lib.mkdir()
    _compile(
        lib,
        "libcudart.so.12",
        "int cudaFree(void *p) { return 0; }\n",
        "-shared",
        "-fPIC",
        "-Wl,-soname,libcudart.so.12",
    )
    link = ["-Wl,--no-as-needed", f"-L{lib}", "-l:libcudart.so.12"]
    package = tmp_path / "site" / "bitsandbytes"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    _compile(package, "libbitsandbytes_cuda12.so", "int scale(void) { return 1; }\n", "-shared", "-fPIC", *link)
    other = tmp_path / "site" / "ourpkg"
    other.mkdir()
    (other / "__init__.py").write_text("")
    _compile(other, "_kernels.so", "int go(void) { return 1; }\n", "-shared", "-fPIC", *link)

    def rated(target: str) -> dict[str, dict[str, str]]:
        report = cli("check", "site", "--target", target, "--format", "json", "--exit-zero", cwd=tmp_path).json()
        return {Path(d["path"]).name: d for d in report["diagnostics"] if d["rule"] == "CP9001"}

    hip = rated("hip")
    assert hip["libbitsandbytes_cuda12.so"]["difficulty"] == "manual"
    assert "install bitsandbytes's HIP build" in hip["libbitsandbytes_cuda12.so"]["message"]
    assert hip["_kernels.so"]["difficulty"] == "blocker"  # a package the rule data does not know: ask its vendor
    assert rated("npu")["libbitsandbytes_cuda12.so"]["difficulty"] == "blocker"  # no Ascend build of it
    _compile(package, "libbitsandbytes_rocm6.so", "int scale(void) { return 1; }\n", "-shared", "-fPIC")
    beside = rated("hip")["libbitsandbytes_cuda12.so"]
    assert (
        beside["difficulty"] == "portable"
        and "ships its HIP build beside it (libbitsandbytes_rocm6.so)" in beside["message"]
    )
