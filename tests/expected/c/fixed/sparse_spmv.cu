// y = A x for a CSR matrix with the cuSPARSE generic API, plus the legacy csrmv for old toolkits.
#include <hip/hip_runtime.h>
#include <hipsparse.h>
#include <cstdio>

#define CUSPARSE_CHECK(expr)                                                  \
  do {                                                                        \
    hipsparseStatus_t s_ = (expr);                                             \
    if (s_ != HIPSPARSE_STATUS_SUCCESS) std::printf("cusparse: %d\n", (int)s_); \
  } while (0)

void spmv(hipsparseHandle_t handle, int rows, int cols, int nnz, int* row_ptr, int* col_idx, float* values,
          float* x, float* y, hipStream_t stream) {
  CUSPARSE_CHECK(hipsparseSetStream(handle, stream));
  hipsparseSpMatDescr_t a;
  hipsparseDnVecDescr_t vx, vy;
  CUSPARSE_CHECK(hipsparseCreateCsr(&a, rows, cols, nnz, row_ptr, col_idx, values, HIPSPARSE_INDEX_32I,
                                   HIPSPARSE_INDEX_32I, HIPSPARSE_INDEX_BASE_ZERO, HIP_R_32F));
  CUSPARSE_CHECK(hipsparseCreateDnVec(&vx, cols, x, HIP_R_32F));
  CUSPARSE_CHECK(hipsparseCreateDnVec(&vy, rows, y, HIP_R_32F));

  const float alpha = 1.0f, beta = 0.0f;
  size_t buffer_bytes = 0;
  CUSPARSE_CHECK(hipsparseSpMV_bufferSize(handle, HIPSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a, vx, &beta, vy,
                                         HIP_R_32F, HIPSPARSE_SPMV_ALG_DEFAULT, &buffer_bytes));
  void* buffer = nullptr;
  hipMalloc(&buffer, buffer_bytes);
  CUSPARSE_CHECK(hipsparseSpMV(handle, HIPSPARSE_OPERATION_NON_TRANSPOSE, &alpha, a, vx, &beta, vy, HIP_R_32F,
                              HIPSPARSE_SPMV_ALG_DEFAULT, buffer));
  hipFree(buffer);
  hipsparseDestroyDnVec(vx);
  hipsparseDestroyDnVec(vy);
  hipsparseDestroySpMat(a);
}

void legacy_spmv(hipsparseHandle_t handle, int rows, int cols, int nnz, const int* row_ptr, const int* col_idx,
                 const float* values, const float* x, float* y) {
  hipsparseMatDescr_t descr;
  hipsparseCreateMatDescr(&descr);
  hipsparseSetMatType(descr, HIPSPARSE_MATRIX_TYPE_GENERAL);
  hipsparseSetMatIndexBase(descr, HIPSPARSE_INDEX_BASE_ZERO);
  const float alpha = 1.0f, beta = 0.0f;
  hipsparseScsrmv(handle, HIPSPARSE_OPERATION_NON_TRANSPOSE, rows, cols, nnz, &alpha, descr, values, row_ptr, col_idx,
                 x, &beta, y);
  hipsparseDestroyMatDescr(descr);
}

int main() {
  hipsparseHandle_t handle;
  CUSPARSE_CHECK(hipsparseCreate(&handle));
  CUSPARSE_CHECK(hipsparseDestroy(handle));
  return 0;
}
