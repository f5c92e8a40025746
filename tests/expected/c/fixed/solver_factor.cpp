// Cholesky and LU factorisations with cuSOLVER's dense API; a sparse QR solve on the host side.
#include <hip/hip_runtime.h>
#include <hipsolver.h>
#include <hipsolver.h>
#include <vector>

int cholesky(hipsolverHandle_t dn, double* a, int n, int* info) {
  int work_size = 0;
  hipsolverStatus_t st = hipsolverDnDpotrf_bufferSize(dn, HIPBLAS_FILL_MODE_LOWER, n, a, n, &work_size);
  if (st != HIPSOLVER_STATUS_SUCCESS) return -1;
  double* work = nullptr;
  hipMalloc(&work, sizeof(double) * work_size);
  st = hipsolverDnDpotrf(dn, HIPBLAS_FILL_MODE_LOWER, n, a, n, work, work_size, info);
  hipFree(work);
  return st == HIPSOLVER_STATUS_SUCCESS ? 0 : -1;
}

int lu_solve(hipsolverHandle_t dn, float* a, float* b, int n, int* pivots, int* info) {
  int work_size = 0;
  hipsolverDnSgetrf_bufferSize(dn, n, n, a, n, &work_size);
  float* work = nullptr;
  hipMalloc(&work, sizeof(float) * work_size);
  hipsolverDnSgetrf(dn, n, n, a, n, work, pivots, info);
  hipsolverDnSgetrs(dn, HIPBLAS_OP_N, n, 1, a, n, pivots, b, n, info);
  hipFree(work);
  return 0;
}

int sparse_qr(int n, int nnz, const float* values, const int* row_ptr, const int* col_idx, const float* b, float* x) {
  hipsolverSpHandle_t sp;
  hipsolverSpCreate(&sp);
  hipsparseMatDescr_t descr;
  hipsparseCreateMatDescr(&descr);
  int singularity = 0;
  cusolverSpScsrlsvqrHost(sp, n, nnz, descr, values, row_ptr, col_idx, b, 1e-6f, 0, x, &singularity);
  hipsparseDestroyMatDescr(descr);
  return singularity;
}

int main() {
  hipsolverHandle_t dn;
  hipsolverDnCreate(&dn);
  hipStream_t stream;
  hipStreamCreate(&stream);
  hipsolverSetStream(dn, stream);
  hipsolverDnDestroy(dn);
  hipStreamDestroy(stream);
  return 0;
}
