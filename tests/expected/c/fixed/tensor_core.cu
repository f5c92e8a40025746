// Tensor-core GEMM tiles: the WMMA API and hand-written PTX mma / wgmma.
#include <hip/hip_runtime.h>
#include <mma.h>
#include <hip/hip_fp16.h>
#include <cstdint>

using namespace nvcuda;

__global__ void wmma_tile(const half* a, const half* b, float* c, int lda, int ldb, int ldc) {
  wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a_frag;
  wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::col_major> b_frag;
  wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
  wmma::fill_fragment(acc, 0.0f);
  wmma::load_matrix_sync(a_frag, a, lda);
  wmma::load_matrix_sync(b_frag, b, ldb);
  wmma::mma_sync(acc, a_frag, b_frag, acc);
  wmma::store_matrix_sync(c, acc, ldc, wmma::mem_row_major);
}

__global__ void qualified_tile(const half* a, float* c) {
  nvcuda::wmma::fragment<nvcuda::wmma::matrix_a, 16, 16, 16, half, nvcuda::wmma::row_major> frag;
  nvcuda::wmma::load_matrix_sync(frag, a, 16);
  (void)c;
}

__device__ void mma_m16n8k16(float* d, const uint32_t* a, const uint32_t* b, const float* c) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 "
      "{%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, {%10,%11,%12,%13};\n"
      : "=f"(d[0]), "=f"(d[1]), "=f"(d[2]), "=f"(d[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]), "f"(c[0]), "f"(c[1]), "f"(c[2]),
        "f"(c[3]));
}

__device__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;\n" ::: "memory"); }

__device__ void load_fragments(uint32_t* regs, uint32_t smem_addr) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
               : "=r"(regs[0]), "=r"(regs[1]), "=r"(regs[2]), "=r"(regs[3])
               : "r"(smem_addr));
}
