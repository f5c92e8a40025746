// Kernel with a UTF-8 byte order mark; non-ASCII text before findings checks code-point columns: äöü → ✓
#include <hip/hip_runtime.h>

__global__ void relu(float* x, int n) {
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = fmaxf(x[i], 0.0f);
}

void launch(float* x, int n) {
  /* größe */ hipStream_t s; hipStreamCreate(&s);
  relu<<<(n + 255) / 256, 256, 0, s>>>(x, n);
  /* 😀 emoji takes two UTF-16 units, one code point */ hipStreamSynchronize(s);
  hipStreamDestroy(s);
}
