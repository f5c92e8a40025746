"""`cudaport: ignore[...]` on a line and `cudaport: ignore-file[...]`, through `cudaport check`."""

from __future__ import annotations

from pathlib import Path

from conftest import Cli

SOURCE = """\
#include <cuda_runtime.h>  // cudaport: ignore[CP1001]
void f(float** p) {
  cudaMalloc(p, 4);  // cudaport: ignore[CP10]
  cudaFree(*p);  /* cudaport: ignore */
  cudaDeviceSynchronize();  // cudaport: ignore[CP2001]
  const char* s = "cudaport: ignore[CP1001]"; cudaDeviceReset();
  cudaGetLastError();  // cudaport:ignore[ CP2 ; CP1001 ]
  cudaPeekAtLastError(); // unrelated comment
}
#define ALLOC(p, n) cudaMalloc(p, n)  // cudaport: ignore[CP1001]
#define FREE(p) cudaFree(p)
#define NOTE "cudaport: ignore" cudaSetDevice(0)
"""


def _rows(cli: Cli, folder: Path, name: str) -> list[tuple[int, str, str]]:
    report = cli("check", name, "--format", "json", "--show-portable", cwd=folder).json()
    return [(d["line"], d["rule"], d["symbol"]) for d in report["diagnostics"]]


def test_line_suppressions_by_code_prefix_and_bare(cli: Cli, workdir: Path) -> None:
    (workdir / "a.cu").write_text(SOURCE)
    assert _rows(cli, workdir, "a.cu") == [
        (5, "CP1001", "cudaDeviceSynchronize"),  # ignore[CP2001] names another rule
        (6, "CP1001", "cudaDeviceReset"),  # the directive is inside a string
        (8, "CP1001", "cudaPeekAtLastError"),
        (11, "CP1001", "cudaFree"),
        (12, "CP1001", "cudaSetDevice"),  # a string in a macro body is not a comment either
    ]


def test_file_suppression(cli: Cli, workdir: Path) -> None:
    (workdir / "b.cu").write_text(
        "// cudaport: ignore-file[CP1001, CP2005]\n"
        "#include <cuda_runtime.h>\n"
        "__global__ void k(float* x) { x[threadIdx.x % 32] = __shfl_sync(0xffffffff, 1.0f, 0); }\n"
    )
    assert _rows(cli, workdir, "b.cu") == [(3, "CP1030", "k"), (3, "CP2001", "__shfl_sync")]
    (workdir / "c.cu").write_text(
        "#include <cuda_runtime.h>\n/* cudaport: ignore-file */\n__global__ void k() { __syncwarp(); }\n"
    )
    assert _rows(cli, workdir, "c.cu") == []
    (workdir / "d.cu").write_text('const char* s = "cudaport: ignore-file";\n#include <cuda_runtime.h>\n')
    assert _rows(cli, workdir, "d.cu") == [(2, "CP1001", "cuda_runtime.h")]


def test_suppressed_findings_are_not_fixed(cli: Cli, workdir: Path) -> None:
    (workdir / "a.cu").write_text(SOURCE)
    cli("fix", "a.cu", cwd=workdir)
    text = (workdir / "a.cu").read_text().splitlines()
    assert text[0] == "#include <cuda_runtime.h>  // cudaport: ignore[CP1001]"
    assert text[2] == "  cudaMalloc(p, 4);  // cudaport: ignore[CP10]"
    assert text[4] == "  hipDeviceSynchronize();  // cudaport: ignore[CP2001]"
    assert text[9] == "#define ALLOC(p, n) cudaMalloc(p, n)  // cudaport: ignore[CP1001]"
    assert text[10] == "#define FREE(p) hipFree(p)"
