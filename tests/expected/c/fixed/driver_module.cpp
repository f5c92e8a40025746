// Loads a precompiled PTX module with the CUDA driver API and launches a kernel from it.
#include <hip/hip_runtime.h>
#include <cstdio>
#include <vector>

#define CU_CHECK(expr)                                                   \
  do {                                                                   \
    hipError_t status_ = (expr);                                           \
    if (status_ != hipSuccess) {                                       \
      const char* text_ = nullptr;                                       \
      hipDrvGetErrorString(status_, &text_);                                 \
      std::fprintf(stderr, "%s failed: %s\n", #expr, text_);             \
      return 1;                                                          \
    }                                                                    \
  } while (0)

int main(int argc, char** argv) {
  const char* module_path = argc > 1 ? argv[1] : "saxpy.ptx";
  CU_CHECK(hipInit(0));

  int devices = 0;
  CU_CHECK(hipGetDeviceCount(&devices));
  hipDevice_t device;
  CU_CHECK(hipDeviceGet(&device, 0));
  char name[128];
  CU_CHECK(hipDeviceGetName(name, sizeof(name), device));
  int sms = 0;
  CU_CHECK(hipDeviceGetAttribute(&sms, hipDeviceAttributeMultiprocessorCount, device));
  std::printf("%s: %d SMs\n", name, sms);

  hipCtx_t context;
  CU_CHECK(hipCtxCreate(&context, 0, device));

  hipModule_t module;
  CU_CHECK(cuModuleLoad(&module, module_path));
  hipFunction_t saxpy;
  CU_CHECK(hipModuleGetFunction(&saxpy, module, "saxpy"));

  const int n = 4096;
  std::vector<float> x(n, 1.0f), y(n, 2.0f);
  hipDeviceptr_t d_x, d_y;
  CU_CHECK(hipMalloc(&d_x, n * sizeof(float)));
  CU_CHECK(hipMalloc(&d_y, n * sizeof(float)));
  CU_CHECK(hipMemcpyHtoD(d_x, x.data(), n * sizeof(float)));
  CU_CHECK(hipMemcpyHtoD(d_y, y.data(), n * sizeof(float)));

  hipStream_t stream;
  CU_CHECK(hipStreamCreateWithFlags(&stream, hipStreamNonBlocking));
  float alpha = 3.0f;
  int count = n;
  void* args[] = {&alpha, &d_x, &d_y, &count};
  CU_CHECK(hipModuleLaunchKernel(saxpy, n / 256, 1, 1, 256, 1, 1, 0, stream, args, nullptr));
  CU_CHECK(hipCtxSynchronize());
  CU_CHECK(hipMemcpyDtoH(y.data(), d_y, n * sizeof(float)));

  CU_CHECK(hipFree(d_x));
  CU_CHECK(hipFree(d_y));
  CU_CHECK(hipModuleUnload(module));
  CU_CHECK(hipCtxDestroy(context));
  return 0;
}
