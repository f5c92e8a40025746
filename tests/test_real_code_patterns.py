"""Patterns seen in real CUDA projects and PyTorch extensions, reproduced in our own words and checked through the
CLI: a project's own packages and headers are never a CUDA library, CUTLASS's integer helpers are no blocker, and
the CUDA Python DSLs and bindings are found."""

from __future__ import annotations

from pathlib import Path

from conftest import Cli

FIXTURES = Path(__file__).resolve().parent / "fixtures" / "c"


def _findings(cli: Cli, folder: Path, *args: str) -> list[tuple[str, int, str, str, str]]:
    report = cli("check", ".", "--format", "json", *args, cwd=folder).json()
    return [
        (Path(d["path"]).as_posix(), d["line"], d["rule"], d["symbol"], d["difficulty"]) for d in report["diagnostics"]
    ]


def test_a_library_checking_its_own_code_is_no_dependency_on_itself(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "setup.py").write_text("from setuptools import setup\nsetup(name='flash_attn')\n")
    package = tmp_path / "flash_attn"
    (package / "ops").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "ops" / "__init__.py").write_text("")
    (package / "ops" / "rotary.py").write_text("import flash_attn\nfrom flash_attn.ops import rotary\nimport apex\n")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_rotary.py").write_text("from flash_attn import flash_attn_func\n")
    rows = _findings(cli, tmp_path, "--show-portable")
    assert rows == [("flash_attn/ops/rotary.py", 3, "CP7050", "apex", "manual")]
    # the same imports in somebody else's project (beside it, with its own root) are the dependency they are
    other = tmp_path / "user"
    other.mkdir()
    (other / "pyproject.toml").write_text("[project]\nname = 'user'\n")
    (other / "train.py").write_text("import flash_attn\n")
    assert [r[2:4] for r in _findings(cli, other)] == [("CP7050", "flash_attn")]


def test_a_project_header_under_a_cuda_folder_is_not_libcuxx(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "csrc" / "cuda").mkdir(parents=True)
    (tmp_path / "csrc" / "cuda" / "scatter_cuda.h").write_text("#pragma once\nint scatter_sum(int n);\n")
    (tmp_path / "csrc" / "scatter.cpp").write_text('#include "cuda/scatter_cuda.h"\n#include <cuda/std/atomic>\n')
    rows = _findings(cli, tmp_path)
    assert rows == [("csrc/scatter.cpp", 2, "CP1001", "cuda/std/atomic", "manual")]


CUTLASS_USE = """#include <cutlass/numeric_types.h>

int tile_count(int rows, int tile) { return cutlass::ceil_div(rows, tile); }
int padded(int cols) { return cutlass::round_up(cols, 128); }
template <class Shape, class Tile>
auto tiles(Shape shape, Tile tile) { return cute::ceil_div(shape, tile); }
"""


def test_cutlass_integer_helpers_are_written_out_but_cute_stays_cute(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "tiles.cu").write_text(CUTLASS_USE)
    rows = _findings(cli, tmp_path)
    assert ("tiles.cu", 3, "CP5008", "cutlass::ceil_div", "mechanical") in rows
    assert ("tiles.cu", 4, "CP5008", "cutlass::round_up", "mechanical") in rows
    assert ("tiles.cu", 6, "CP5008", "cute", "blocker") in rows  # ceil_div of CuTe shapes is CuTe's own
    assert not [r for r in rows if r[1] in (3, 4) and r[3] == "cutlass"]  # no blocker for the namespace there
    cli("fix", "tiles.cu", cwd=tmp_path)
    fixed = (tmp_path / "tiles.cu").read_text()
    assert "return ((rows) + (tile) - 1) / (tile);" in fixed
    assert "return ((cols) + (128) - 1) / (128) * (128);" in fixed
    assert "cute::ceil_div(shape, tile)" in fixed


def test_the_cuda_python_dsls_and_bindings_are_cuda_only_libraries(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "kernels.py").write_text(
        "import cutlass.cute as cute\nfrom cuda.bindings import runtime\nfrom cuda import cudart\nimport tilelang\n"
    )
    rated = {t: [(r[1], r[3], r[4]) for r in _findings(cli, tmp_path, "--target", t)] for t in ("hip", "npu", "mlu")}
    assert rated["hip"] == [
        (1, "cutlass.cute", "blocker"),
        (2, "cuda.bindings", "manual"),
        (3, "cuda.cudart", "manual"),
        (4, "tilelang", "manual"),
    ]
    assert {difficulty for _, _, difficulty in rated["npu"]} == {"blocker"} and len(rated["npu"]) == 4


def test_cudas_host_and_device_integer_helpers_count_in_host_code_of_a_cu_file(cli: Cli, tmp_path: Path) -> None:
    source = "int pick(unsigned a, unsigned b) { return umin(a, b) + ullmax(a, 3ull); }\n"
    (tmp_path / "pick.cu").write_text(source)
    (tmp_path / "pick.cpp").write_text(source)  # plain C++: a umin there is the project's own
    rows = _findings(cli, tmp_path)
    assert rows == [("pick.cu", 1, "CP1003", "umin", "manual"), ("pick.cu", 1, "CP1003", "ullmax", "manual")]


EXTENSION_MACROS = """#include <torch/extension.h>
#include <ATen/cuda/CUDAContext.h>

#define CHECK_CUDA(x) TORCH_CHECK(x.is_cuda(), #x " must be a CUDA tensor")
#define CHECK_INPUT(x) CHECK_CUDA(x); TORCH_CHECK(x.is_contiguous(), #x " must be contiguous")

void launch(const at::Tensor& x) {
  CHECK_INPUT(x);
  auto stream = at::cuda::getCurrentCUDAStream();
  at::cuda::CUDAGuard guard(x.device());
}
"""


def test_extension_checks_in_macro_bodies_and_at_cuda_names_are_flagged_per_target(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "ext.cpp").write_text(EXTENSION_MACROS)
    for target in ("npu", "mlu"):
        lines = {row[1] for row in _findings(cli, tmp_path, "--target", target)}
        assert {2, 4, 9, 10} <= lines, (target, lines)  # the header, `x.is_cuda()` in a macro body, both at::cuda uses
        assert 5 not in lines  # `is_contiguous` is no CUDA member
    hip = _findings(cli, tmp_path, "--target", "hip")
    assert [r for r in hip if r[4] != "portable"] == []  # PyTorch hipifies extensions itself


def test_the_name_of_a_namespace_alias_is_not_a_use_of_the_library(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "alias.cuh").write_text(
        "#ifdef USE_ROCM\n#include <hipcub/hipcub.hpp>\nnamespace cub = hipcub;\n"
        "#else\n#include <cub/cub.cuh>\n#endif\n"
    )
    rows = _findings(cli, tmp_path, "--target", "hip", "--show-portable")
    assert [r for r in rows if r[1] == 3] == []


def test_stream_capture_calls_follow_the_form_hip_has(cli: Cli, tmp_path: Path) -> None:
    """cuda-samples' graph samples call the six-argument cudaStreamGetCaptureInfo (HIP's _v2) and CUDA 12.3's
    forms with edge data, which HIP lacks: the first is rewritten, the others are left with HIP's signature."""
    source = (
        "#include <cuda_runtime.h>\n"
        "void record(cudaStream_t s, cudaGraph_t g, const cudaGraphNode_t* d, size_t n, cudaGraphNode_t node) {\n"
        "  cudaStreamCaptureStatus st;\n"
        "  cudaStreamGetCaptureInfo(s, &st, NULL, &g, &d, &n);\n"
        "  cudaStreamGetCaptureInfo(s, &st, NULL, &g, &d, NULL, &n);\n"
        "  cudaStreamUpdateCaptureDependencies(s, &node, NULL, 1, cudaStreamSetCaptureDependencies);\n"
        "}\n"
    )
    (tmp_path / "capture.cu").write_text(source, encoding="utf-8")
    report = cli("check", "capture.cu", "--target", "hip@5.2", "--format", "json", "--exit-zero", cwd=tmp_path).json()
    by_line = {(d["line"], d["symbol"]): d for d in report["diagnostics"]}
    assert by_line[4, "cudaStreamGetCaptureInfo"]["fixable"] is True
    for line, name in ((5, "cudaStreamGetCaptureInfo"), (6, "cudaStreamUpdateCaptureDependencies")):
        left = by_line[line, name]
        assert left["difficulty"] == "manual" and "edge data has no HIP counterpart" in left["message"]
    cli("fix", "capture.cu", "--target", "hip@5.2", "--fail-on", "never", cwd=tmp_path)
    fixed = (tmp_path / "capture.cu").read_text(encoding="utf-8").splitlines()
    assert fixed[3] == "  hipStreamGetCaptureInfo_v2(s, &st, NULL, &g, &d, &n);"
    assert "cudaStreamGetCaptureInfo(" in fixed[4] and "cudaStreamUpdateCaptureDependencies(" in fixed[5]


def test_device_property_fields_hip_added_in_6_0_need_a_person_on_older_releases(cli: Cli, tmp_path: Path) -> None:
    """cuda-samples read cudaDeviceProp fields (persistingL2CacheMaxSize, uuid, ...) that hipDeviceProp_t has only
    from ROCm 6.0; a field of the same name in the user's own struct, away from any device-property struct, is
    theirs."""
    (tmp_path / "props.cu").write_text(
        "#include <cuda_runtime.h>\n"
        "int cache_bytes(int device) {\n"
        "  cudaDeviceProp prop;\n"
        "  cudaGetDeviceProperties(&prop, device);\n"
        "  return prop.persistingL2CacheMaxSize + prop.sparseCudaArraySupported;\n"
        "}\n",
        encoding="utf-8",
    )
    (tmp_path / "records.cpp").write_text(
        "struct Record;\nint engines(const Record *r);\nint count(const Record *r) { return r->asyncEngineCount; }\n",
        encoding="utf-8",
    )
    old = {(f[0], f[3]): f[4] for f in _findings(cli, tmp_path, "--target", "hip@5.2")}
    assert old["props.cu", "persistingL2CacheMaxSize"] == "manual"
    assert old["props.cu", "sparseCudaArraySupported"] == "manual"
    assert not [key for key in old if key[0] == "records.cpp"]
    new = {(f[0], f[3]): f[4] for f in _findings(cli, tmp_path, "--target", "hip", "--show-portable")}
    assert new["props.cu", "persistingL2CacheMaxSize"] == "portable"
    assert new["props.cu", "sparseCudaArraySupported"] == "mechanical"
    cli("fix", ".", "--target", "hip", "--fail-on", "never", cwd=tmp_path)
    assert "prop.sparseHipArraySupported" in (tmp_path / "props.cu").read_text(encoding="utf-8")


def test_sobol64_states_are_not_in_hiprand_5_2(cli: Cli, tmp_path: Path) -> None:
    """Debian's hiprand 5.2 declares 64-bit Sobol states only in its NVIDIA backend header; AMD's arrived later."""
    (tmp_path / "qrng.cu").write_text(
        "#include <curand_kernel.h>\n__global__ void k(curandStateSobol64_t *s, curandStateSobol32_t *t) {}\n",
        encoding="utf-8",
    )
    found = {f[3]: f[4] for f in _findings(cli, tmp_path, "--target", "hip@5.2")}
    assert found["curandStateSobol64_t"] == "manual"
    assert found.get("curandStateSobol32_t", "mechanical") == "mechanical"


def test_what_clang_rejects_is_flagged_where_the_cause_is(cli: Cli, tmp_path: Path) -> None:
    """cuda-samples' integral-image scan shuffles uint4 members of a struct through a tile, and a Tegra sample
    initialises an array sized by a parameter: each is a manual finding on the line hipcc fails on, on the
    clang-based targets only."""
    source = (FIXTURES / "clang_rejects.cu").read_text(encoding="utf-8")
    (tmp_path / "clang_rejects.cu").write_text(source, encoding="utf-8")
    hip = {(f[1], f[2]): f[4] for f in _findings(cli, tmp_path, "--target", "hip", "--exit-zero")}
    assert hip[17, "CP1023"] == "manual" and (16, "CP1023") not in hip
    assert hip[22, "CP1022"] == "manual"
    musa = {(f[1], f[2]) for f in _findings(cli, tmp_path, "--target", "musa", "--exit-zero")}
    assert (22, "CP1022") in musa and (17, "CP1023") not in musa
    npu = {f[2] for f in _findings(cli, tmp_path, "--target", "npu", "--exit-zero")}
    assert not npu & {"CP1022", "CP1023"}


def test_builtin_indices_in_min_max_get_cudas_type(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "b.cu").write_text(
        "__global__ void k(unsigned *o, unsigned r, int s) {\n"
        "  o[0] = min(r, blockDim.x) + std::max(threadIdx.x, r) + min(s, 4);\n"
        "}\n",
        encoding="utf-8",
    )
    found = [f for f in _findings(cli, tmp_path, "--target", "hip", "--exit-zero") if f[2] == "CP1021"]
    assert [f[3] for f in found] == ["min(…, blockDim.x)", "std::max(threadIdx.x, …)"]
    assert not [f for f in _findings(cli, tmp_path, "--target", "corex", "--exit-zero") if f[2] == "CP1021"]
    cli("fix", "b.cu", "--target", "hip", "--fail-on", "never", cwd=tmp_path)
    fixed = (tmp_path / "b.cu").read_text(encoding="utf-8")
    assert (
        "min(r, static_cast<unsigned int>(blockDim.x)) + std::max(static_cast<unsigned int>(threadIdx.x), r)" in fixed
    )
    assert "min(s, 4)" in fixed
    cli("fix", "b.cu", "--target", "hip", "--fail-on", "never", cwd=tmp_path)
    assert (tmp_path / "b.cu").read_text(encoding="utf-8") == fixed  # idempotent


def test_texture_handles_used_as_integers_are_left_for_a_person(cli: Cli, tmp_path: Path) -> None:
    """cuda-samples' bindless-texture sample packs texture objects into uint2 halves with `&`, `>>` and `<<`: CUDA's
    texture and surface objects are 64-bit integers, HIP's are pointers, and hipcc rejects each operator. Each is a
    manual finding, before and after the rename; comparing or passing a handle is no finding."""
    source = (FIXTURES / "texture_handles.cu").read_text(encoding="utf-8")
    (tmp_path / "texture_handles.cu").write_text(source, encoding="utf-8")
    manual = [(f[1], f[3]) for f in _findings(cli, tmp_path, "--target", "hip", "--exit-zero") if f[2] == "CP1035"]
    assert manual == [
        (11, "handle"),
        (11, "handle"),
        (15, "(cudaTextureObject_t)slot.x"),
        (15, "(cudaTextureObject_t)slot.y"),
        (35, "first"),
    ]
    cli("fix", ".", "--target", "hip@5.2", "--fail-on", "never", cwd=tmp_path)
    left = _findings(cli, tmp_path, "--target", "hip@5.2", "--exit-zero")
    assert [(f[1], f[4]) for f in left if f[2] == "CP1035"] == [(11, "manual")] * 2 + [(15, "manual")] * 2 + [
        (35, "manual")
    ]
    # the NVIDIA-only targets keep CUDA's integer handles
    assert not [f for f in _findings(cli, tmp_path, "--target", "corex", "--exit-zero") if f[2] == "CP1035"]


def test_tile_meta_groups_need_rocm_5_7(cli: Cli, tmp_path: Path) -> None:
    """A tile's meta_group_rank/meta_group_size arrived in HIP with ROCm 5.7: manual for an older release, portable
    after; the same field name outside cooperative-groups code is somebody else's."""
    source = (FIXTURES / "tile_meta_groups.cu").read_text(encoding="utf-8")
    (tmp_path / "tile_meta_groups.cu").write_text(source, encoding="utf-8")
    (tmp_path / "rows.cpp").write_text(
        "struct page { int meta_group_rank; };\nint rank(page p) { return p.meta_group_rank; }\n"
    )
    old = [(f[0], f[1], f[3], f[4]) for f in _findings(cli, tmp_path, "--target", "hip@5.2", "--exit-zero")]
    assert [row for row in old if "meta_group" in row[2]] == [
        ("tile_meta_groups.cu", 18, "meta_group_rank", "manual"),
        ("tile_meta_groups.cu", 21, "meta_group_rank", "manual"),
        ("tile_meta_groups.cu", 22, "meta_group_size", "manual"),
    ]
    new = _findings(cli, tmp_path, "--target", "hip@5.7", "--show-portable")
    assert {f[4] for f in new if "meta_group" in f[3]} == {"portable"}
    assert not [f for f in new if f[0] == "rows.cpp"]


def test_thread_block_group_dim_needs_rocm_5_7(cli: Cli, tmp_path: Path) -> None:
    """DeepSpeed's kernels read a block's extents from `block.group_dim()`, which HIP's thread_block gained with
    ROCm 5.7: hipcc 5.2 rejects the file, so on an older release it is a manual finding (it went unflagged); from
    5.7 it runs as it is. A `group_dim` of the project's own outside cooperative-groups code is not one."""
    (tmp_path / "extents.cu").write_text(
        "#include <cooperative_groups.h>\n"
        "namespace cg = cooperative_groups;\n"
        "__global__ void widths(int *out) {\n"
        "  cg::thread_block block = cg::this_thread_block();\n"
        "  out[0] = block.group_dim().x * block.group_dim().y;\n"
        "}\n",
        encoding="utf-8",
    )
    (tmp_path / "layout.cpp").write_text("struct grid { int group_dim; };\nint w(grid g) { return g.group_dim; }\n")
    old = [(f[0], f[1], f[3], f[4]) for f in _findings(cli, tmp_path, "--target", "hip@5.2", "--exit-zero")]
    assert [row for row in old if row[2] == "group_dim"] == [
        ("extents.cu", 5, "group_dim", "manual"),
        ("extents.cu", 5, "group_dim", "manual"),
    ]
    new = _findings(cli, tmp_path, "--target", "hip@5.7", "--show-portable")
    assert {f[4] for f in new if f[3] == "group_dim"} == {"portable"}
    assert not [f for f in new if f[0] == "layout.cpp"]


def test_cuda_home_imported_by_name_is_judged_where_it_is_used(cli: Cli, tmp_path: Path) -> None:
    """torch-scatter's and torch-cluster's setup.py import CUDA_HOME by name and build the extension when
    `CUDA_HOME is not None or torch.version.hip`: that use already provides for ROCm. The finding belongs to each
    use, where the dual-stack test is seen, not to the import."""
    (tmp_path / "setup.py").write_text(
        "import torch\n"
        "from torch.utils.cpp_extension import CUDA_HOME, CppExtension\n"
        "\n"
        "GPU_BUILD = CUDA_HOME is not None or torch.version.hip\n"
        "if GPU_BUILD:\n"
        "    print('toolkit at', CUDA_HOME)\n",
        encoding="utf-8",
    )
    hip = [(f[1], f[4]) for f in _findings(cli, tmp_path, "--target", "hip", "--show-portable") if f[2] == "CP7041"]
    assert hip == [(4, "portable"), (6, "manual")]
    npu = [(f[1], f[4]) for f in _findings(cli, tmp_path, "--target", "npu", "--exit-zero") if f[2] == "CP7041"]
    assert npu == [(4, "manual"), (6, "manual")]
    before = (tmp_path / "setup.py").read_bytes()
    cli("fix", ".", "--target", "hip", "--fail-on", "never", cwd=tmp_path)
    assert (tmp_path / "setup.py").read_bytes() == before
