// cuBLAS GEMM plus an inline-PTX lane id: library calls port mechanically, the PTX does not.
#include <cublas_v2.h>
#include <cuda_runtime.h>

__device__ unsigned lane_id() {
  unsigned lane;
  asm volatile("mov.u32 %0, %%laneid;" : "=r"(lane));
  return lane;
}

void gemm(cublasHandle_t handle, int m, int n, int k, const float* a, const float* b, float* c) {
  const float alpha = 1.0f, beta = 0.0f;
  cublasSgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, a, m, b, k, &beta, c, m);
}

int main() {
  cublasHandle_t handle;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return 1;
  cublasDestroy(handle);
  return 0;
}
