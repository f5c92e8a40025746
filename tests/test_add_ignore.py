"""`cudaport fix --add-ignore`: after the fixes, a `cudaport: ignore[CODE]` for each finding left that would fail the
run, in each kind's comment syntax, where it cannot change what the file means; merged into a directive already on
the line; encodings and line endings kept; idempotent; what cannot take one is said and left. The files are written
for these tests."""

from __future__ import annotations

import json
import re
from pathlib import Path

from conftest import Cli

FILES: dict[str, str] = {
    "ops.cu": (
        "#include <cuda_runtime.h>\n"
        "#define SYNC_ALL() \\\n"
        "  cudaDeviceSynchronize(); \\\n"
        "  cudaGetLastError()\n"
        "__global__ void twice(float* x) { x[threadIdx.x] *= 2.0f; }\n"
        "int run(float* p) {\n"
        "  cudaMallocManaged(&p, 64);  // managed memory stays\n"
        "  twice<<<1, 32>>>(p); // cudaport: ignore[CP1030]\n"
        '  const char* raw = R"(first\n'
        'second)"; cudaMallocManaged(&p, 8);\n'
        "  SYNC_ALL();\n"
        "  return 0;\n"
        "}\n"
    ),
    "graphs.py": (
        "import torch\n"
        "from numba import cuda\n"
        'DOC = """graph capture\n'
        'below"""; g = torch.cuda.CUDAGraph()\n'
        "h = torch.cuda.CUDAGraph() + \\\n"
        "    torch.cuda.CUDAGraph()\n"
        's = f"""{torch.cuda.CUDAGraph()}\n'
        '"""\n'
        "if torch.cuda.CUDAGraph:  # a note of ours\n"
        "    pass\n"
    ),
    "CMakeLists.txt": (
        'cmake_minimum_required(VERSION 3.24)\nproject(p LANGUAGES CUDA)\nset(FLAGS "--use_fast_math")\n'
    ),
    "Makefile": "CUDA_PATH ?= /usr/local/cuda\nall:\n\tnvcc -arch=sm_80 -o app app.cu\n",
    "run.sh": "#!/bin/bash\nexport CUDA_VISIBLE_DEVICES=0\nnvcc --version\n",
    "build.yaml": (
        "jobs:\n  build:\n    image: nvidia/cuda:12.4.0-devel-ubuntu22.04\n    resources:\n      nvidia.com/gpu: 1\n"
    ),
    "pyproject.toml": '[project]\ndependencies = [\n  "cupy-cuda12x",\n  "numpy",\n]\n',
    "requirements.txt": "numpy\ncupy-cuda12x==13.0  # the GPU arrays\n",
    "Dockerfile": (
        "ARG BASE=nvidia/cuda:12.2.0-runtime-ubuntu22.04\nFROM ${BASE}\nRUN pip install cupy-cuda12x \\\n"
        "    && nvidia-smi\nENV NVIDIA_DRIVER_CAPABILITIES=compute\n"
    ),
    "setup.cfg": "[options]\ninstall_requires =\n    torch\n    cupy-cuda11x\n",
    "ds_config.json": '{"train_batch_size": 8, "aio": {"block_size": 1048576}}\n',
}

# What each file holds after `fix --add-ignore --target npu` (the fixes npu's data makes, then the suppressions).
EXPECTED: dict[str, str] = {
    "ops.cu": (
        "#include <acl/acl.h>\n"
        "#define SYNC_ALL() \\\n"
        "  aclrtSynchronizeDevice(); /* cudaport: ignore[CP1032] */ \\\n"  # before the continuation, not after it
        "  cudaGetLastError()  // cudaport: ignore[CP1001]\n"
        "__global__ void twice(float* x) { x[threadIdx.x] *= 2.0f; }  // cudaport: ignore[CP1030]\n"
        "int run(float* p) {\n"
        "  cudaMallocManaged(&p, 64);  // cudaport: ignore[CP1001] // managed memory stays\n"
        "  twice<<<1, 32>>>(p); // cudaport: ignore[CP1030, CP1031]\n"  # merged into the line's directive
        '  const char* raw = R"(first\n'
        'second)"; cudaMallocManaged(&p, 8);  // cudaport: ignore[CP1001]\n'
        "  SYNC_ALL();\n"
        "  return 0;\n"
        "}\n"
    ),
    "graphs.py": (
        "import torch\n"
        "from numba import cuda  # cudaport: ignore[CP7050]\n"
        'DOC = """graph capture\n'
        'below"""; g = torch.cuda.CUDAGraph()  # cudaport: ignore[CP7003]\n'
        "h = torch.cuda.CUDAGraph() + \\\n"  # a comment would end the continued line: left, and said
        "    torch.cuda.CUDAGraph()  # cudaport: ignore[CP7003]\n"
        's = f"""{torch.cuda.CUDAGraph()}\n'  # inside a string that goes on: left, and said
        '"""\n'
        "if torch.cuda.CUDAGraph:  # cudaport: ignore[CP7003] # a note of ours\n"
        "    pass\n"
    ),
    "CMakeLists.txt": (
        "cmake_minimum_required(VERSION 3.24)\n"
        "project(p LANGUAGES CUDA)  # cudaport: ignore[CP8001]\n"
        'set(FLAGS "--use_fast_math")  # cudaport: ignore[CP8004]\n'
    ),
    # after `VAR = value` the spaces before `#` would join the value; a recipe's comment would go to the shell
    "Makefile": (
        "# cudaport: ignore[CP7041]\nCUDA_PATH ?= /usr/local/cuda\nall:\n"
        "# cudaport: ignore[CP7060, CP8003]\n\tnvcc -arch=sm_80 -o app app.cu\n"
    ),
    "run.sh": "#!/bin/bash\nexport ASCEND_RT_VISIBLE_DEVICES=0\nnvcc --version  # cudaport: ignore[CP7060]\n",
    "build.yaml": (
        "jobs:\n  build:\n    image: nvidia/cuda:12.4.0-devel-ubuntu22.04  # cudaport: ignore[CP8201]\n"
        "    resources:\n      nvidia.com/gpu: 1  # cudaport: ignore[CP8204]\n"
    ),
    "pyproject.toml": '[project]\ndependencies = [\n  "cupy-cuda12x",  # cudaport: ignore[CP8101]\n  "numpy",\n]\n',
    "requirements.txt": "numpy\ncupy-cuda12x==13.0  # cudaport: ignore[CP8101] # the GPU arrays\n",
    # `#` after an instruction is an argument: the directive goes on a comment line above (inside a continued
    # RUN too, where Docker drops comment lines)
    "Dockerfile": (
        "# cudaport: ignore[CP8201]\nARG BASE=nvidia/cuda:12.2.0-runtime-ubuntu22.04\nFROM ${BASE}\n"
        "# cudaport: ignore[CP8101]\nRUN pip install cupy-cuda12x \\\n    # cudaport: ignore[CP7060]\n"
        "    && nvidia-smi\n# cudaport: ignore[CP8202]\nENV NVIDIA_DRIVER_CAPABILITIES=compute\n"
    ),
    "setup.cfg": "[options]\ninstall_requires =\n    torch\n    # cudaport: ignore[CP8101]\n    cupy-cuda11x\n",
    "ds_config.json": '{"train_batch_size": 8, "aio": {"block_size": 1048576}}\n',  # JSON has no comments
}

REFUSED = [
    "cudaport: no suppression added for CP8301 at ds_config.json:1: json has no comments (exclude the file, or "
    "ignore the rule in the configuration)",
    "cudaport: no suppression added for CP7003 at graphs.py:5: the line continues on the next one (a comment here "
    "would end it)",
    "cudaport: no suppression added for CP7003 at graphs.py:7: the line ends inside a string that goes on past it",
]


def _write(folder: Path, files: dict[str, str], newline: str = "\n") -> None:
    for name, text in files.items():
        (folder / name).write_bytes(text.replace("\n", newline).encode("utf-8"))


def test_each_comment_syntax_gets_its_directive_where_it_changes_nothing(cli: Cli, workdir: Path) -> None:
    _write(workdir, FILES)
    result = cli("fix", ".", "--add-ignore", "--target", "npu", cwd=workdir)
    for name, text in EXPECTED.items():
        assert (workdir / name).read_text(encoding="utf-8") == text, name
    assert sorted(line for line in result.err.splitlines() if "no suppression" in line) == sorted(REFUSED)
    added = "Added 24 suppressions (`cudaport: ignore[...]`) for 26 findings in 10 files; 3 findings left without one"
    assert added in result.out
    assert result.code == 1  # what was left without one still fails the run

    left = cli("check", ".", "--target", "npu", "--format", "json", cwd=workdir).json()["diagnostics"]
    assert sorted((d["path"], d["line"]) for d in left if d["difficulty"] != "portable") == [
        ("ds_config.json", 1),
        ("graphs.py", 5),
        ("graphs.py", 7),
    ]


def test_adding_again_changes_nothing(cli: Cli, workdir: Path) -> None:
    _write(workdir, FILES)
    cli("fix", ".", "--add-ignore", "--target", "npu", cwd=workdir)
    before = {p.name: p.read_bytes() for p in workdir.iterdir()}
    again = cli("fix", ".", "--add-ignore", "--target", "npu", cwd=workdir)
    assert {p.name: p.read_bytes() for p in workdir.iterdir()} == before
    assert "Added 0 suppressions" in again.out
    assert cli("fix", ".", "--add-ignore", "--target", "npu", "--diff", cwd=workdir).out == ""


def test_diff_shows_the_directives_and_writes_nothing(cli: Cli, workdir: Path) -> None:
    _write(workdir, {"run.sh": FILES["run.sh"]})
    result = cli("fix", "run.sh", "--add-ignore", "--target", "npu", "--diff", cwd=workdir)
    assert "+nvcc --version  # cudaport: ignore[CP7060]" in result.out
    assert "Would add 1 suppression (`cudaport: ignore[...]`) for 1 finding in 1 file." in result.err
    assert (workdir / "run.sh").read_text(encoding="utf-8") == FILES["run.sh"]


def test_crlf_and_gbk_files_keep_their_bytes(cli: Cli, workdir: Path) -> None:
    crlf = ("ops.cu", "Makefile", "setup.cfg")  # a line of its own above takes the file's line break too
    _write(workdir, {name: FILES[name] for name in crlf}, newline="\r\n")
    comment = "// 申请统一内存，供主机与设备共用\n"  # a Chinese comment, saved as GBK
    gbk = comment + "int f(float* p) {\n  cudaMallocManaged(&p, 64);  // 托管内存\n  return 0;\n}\n"
    (workdir / "legacy.cu").write_bytes(gbk.encode("gbk"))
    cli("fix", ".", "--add-ignore", "--target", "npu", cwd=workdir)
    for name in crlf:
        written = (workdir / name).read_bytes()
        assert written == EXPECTED[name].replace("\n", "\r\n").encode("utf-8"), name
    legacy = (workdir / "legacy.cu").read_bytes()
    assert legacy == (
        comment + "int f(float* p) {\n  cudaMallocManaged(&p, 64);  // cudaport: ignore[CP1001] // 托管内存\n"
        "  return 0;\n}\n"
    ).encode("gbk")


def test_notebook_cells_get_the_directive_inside_their_json_strings(cli: Cli, workdir: Path) -> None:
    cell = {"cell_type": "code", "metadata": {}, "execution_count": None, "outputs": []}
    notebook = {
        "cells": [
            dict(cell, source=["!nvidia-smi\n", "from numba import cuda\n", 'print("done")']),
            {"cell_type": "markdown", "metadata": {}, "source": ["numba.cuda in prose\n"]},
            dict(cell, source="g = torch.cuda.CUDAGraph()"),
        ],
        "metadata": {},
        "nbformat": 4,
        "nbformat_minor": 5,
    }
    text = json.dumps(notebook, indent=1, ensure_ascii=False) + "\n"
    (workdir / "explore.ipynb").write_text(text, encoding="utf-8")
    result = cli("fix", "explore.ipynb", "--add-ignore", "--target", "npu", cwd=workdir)
    assert "Added 3 suppressions" in result.out
    written = json.loads((workdir / "explore.ipynb").read_text(encoding="utf-8"))
    assert written["cells"][0]["source"] == [
        "!nvidia-smi  # cudaport: ignore[CP7060]\n",
        "from numba import cuda  # cudaport: ignore[CP7050]\n",
        'print("done")',
    ]
    assert written["cells"][1] == notebook["cells"][1]
    assert written["cells"][2]["source"] == "g = torch.cuda.CUDAGraph()  # cudaport: ignore[CP7003]"
    layout = re.sub(r"  # cudaport: ignore\[CP\d+\]", "", (workdir / "explore.ipynb").read_text(encoding="utf-8"))
    assert layout == text  # the notebook's own layout, untouched around the directives
    assert cli("check", "explore.ipynb", "--target", "npu", cwd=workdir).code == 0


def test_fail_on_decides_which_findings_are_suppressed(cli: Cli, workdir: Path) -> None:
    _write(workdir, {"run.sh": FILES["run.sh"], "prose.py": "import torch\nx = torch.ones(2).cuda()\n"})
    cli("fix", ".", "--add-ignore", "--fail-on", "blocker", "--target", "npu", cwd=workdir)
    assert "cudaport:" not in (workdir / "run.sh").read_text(encoding="utf-8")  # CP7060 is manual: not at blocker
    portable = cli("fix", ".", "--add-ignore", "--fail-on", "portable", "--target", "hip", cwd=workdir)
    assert "Added" in portable.out
    assert cli("check", ".", "--target", "hip", "--fail-on", "portable", cwd=workdir).code == 0
