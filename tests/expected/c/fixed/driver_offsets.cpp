// One driver-API allocation split into aligned sub-buffers by address arithmetic, as pool allocators do.
#include <cstddef>
#include <hip/hip_runtime.h>

struct Slice {
  hipDeviceptr_t start;
  size_t bytes;
};

static size_t round_up(size_t value, size_t alignment) { return (value + alignment - 1) / alignment * alignment; }

int main() {
  hipInit(0);
  hipDevice_t device;
  hipDeviceGet(&device, 0);
  hipCtx_t context;
  hipCtxCreate(&context, 0, device);
  const size_t total = 1 << 20;
  hipDeviceptr_t base = 0;
  hipMalloc(&base, total);
  Slice first = {base, round_up(1000, 256)};
  Slice second = {first.start + first.bytes, 4096};
  size_t misalignment = second.start % 256;
  hipMemsetD8(second.start, 0, second.bytes);
  hipFree(base);
  hipCtxDestroy(context);
  return misalignment == 0 ? 0 : 1;
}
