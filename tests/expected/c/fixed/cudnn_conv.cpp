// A 3x3 convolution forward pass with cuDNN.
#include <cudnn.h>
#include <hip/hip_runtime.h>
#include <cstdio>

#define CUDNN_CHECK(expr)                                                          \
  do {                                                                             \
    cudnnStatus_t s_ = (expr);                                                     \
    if (s_ != CUDNN_STATUS_SUCCESS) std::printf("%s\n", cudnnGetErrorString(s_)); \
  } while (0)

void conv_forward(cudnnHandle_t handle, const float* x, const float* w, float* y, int n, int c, int h, int wd, int k) {
  cudnnTensorDescriptor_t x_desc, y_desc;
  cudnnFilterDescriptor_t w_desc;
  cudnnConvolutionDescriptor_t conv;
  CUDNN_CHECK(cudnnCreateTensorDescriptor(&x_desc));
  CUDNN_CHECK(cudnnCreateTensorDescriptor(&y_desc));
  CUDNN_CHECK(cudnnCreateFilterDescriptor(&w_desc));
  CUDNN_CHECK(cudnnCreateConvolutionDescriptor(&conv));
  CUDNN_CHECK(cudnnSetTensor4dDescriptor(x_desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, c, h, wd));
  CUDNN_CHECK(cudnnSetFilter4dDescriptor(w_desc, CUDNN_DATA_FLOAT, CUDNN_TENSOR_NCHW, k, c, 3, 3));
  CUDNN_CHECK(cudnnSetConvolution2dDescriptor(conv, 1, 1, 1, 1, 1, 1, CUDNN_CROSS_CORRELATION, CUDNN_DATA_FLOAT));
  CUDNN_CHECK(cudnnSetTensor4dDescriptor(y_desc, CUDNN_TENSOR_NCHW, CUDNN_DATA_FLOAT, n, k, h, wd));

  cudnnConvolutionFwdAlgo_t algo = CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM;
  size_t ws_bytes = 0;
  CUDNN_CHECK(cudnnGetConvolutionForwardWorkspaceSize(handle, x_desc, w_desc, conv, y_desc, algo, &ws_bytes));
  void* ws = nullptr;
  hipMalloc(&ws, ws_bytes);
  const float alpha = 1.0f, beta = 0.0f;
  CUDNN_CHECK(cudnnConvolutionForward(handle, &alpha, x_desc, x, w_desc, w, conv, algo, ws, ws_bytes, &beta, y_desc, y));
  hipFree(ws);
}

int main() {
  cudnnHandle_t handle;
  CUDNN_CHECK(cudnnCreate(&handle));
  CUDNN_CHECK(cudnnDestroy(handle));
  return 0;
}
