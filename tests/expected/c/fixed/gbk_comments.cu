// 矩阵加法示例：使用 CUDA 运行时接口（注释为中文，文件以 GBK 编码保存）
#include <hip/hip_runtime.h>
#include <cstdio>

// 每个线程计算一个元素
__global__ void matrix_add(const float* a, const float* b, float* c, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) c[i] = a[i] + b[i];  // 逐元素相加
}

int main() {
  const int n = 1024;
  float *a, *b, *c;
  /* 分配显存 */ hipMalloc(&a, n * sizeof(float));
  hipMalloc(&b, n * sizeof(float));
  hipMalloc(&c, n * sizeof(float));
  matrix_add<<<n / 256, 256>>>(a, b, c, n);
  hipError_t err = hipDeviceSynchronize();
  if (err != hipSuccess) std::printf("错误：%s\n", hipGetErrorString(err));
  hipFree(a);  // 释放
  hipFree(b);
  hipFree(c);
  return 0;
}
