// Windows line endings throughout.
#include <hip/hip_runtime.h>
#include <cstdio>

#define CHECK(call)                                              \
  do {                                                           \
    hipError_t e = (call);                                      \
    if (e != hipSuccess) std::printf("%s\n", hipGetErrorString(e)); \
  } while (0)

int main() {
  int* d = nullptr;
  CHECK(hipMalloc(&d, 256 * sizeof(int)));
  CHECK(hipMemset(d, 0, 256 * sizeof(int)));
  CHECK(hipFree(d));
  return 0;
}
