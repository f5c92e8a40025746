// Prefix sums and reductions with CUB: a block-wide scan in a kernel and device-wide algorithms on the host.
#include <hipcub/hipcub.hpp>
#include <hipcub/hipcub.hpp>
#include <hip/hip_runtime.h>

template <int BLOCK>
__global__ void block_prefix(const int* in, int* out) {
  using BlockScan = hipcub::BlockScan<int, BLOCK>;
  __shared__ typename BlockScan::TempStorage temp;
  int value = in[blockIdx.x * BLOCK + threadIdx.x];
  BlockScan(temp).ExclusiveSum(value, value);
  out[blockIdx.x * BLOCK + threadIdx.x] = value;
}

void device_sum(const float* d_in, float* d_out, int n, hipStream_t stream) {
  void* temp = nullptr;
  size_t temp_bytes = 0;
  HipcubDebug(hipcub::DeviceReduce::Sum(temp, temp_bytes, d_in, d_out, n, stream));
  hipMalloc(&temp, temp_bytes);
  hipcub::DeviceReduce::Sum(temp, temp_bytes, d_in, d_out, n, stream);
  hipFree(temp);
}

void sort_pairs(const unsigned* keys_in, unsigned* keys_out, const int* vals_in, int* vals_out, int n) {
  void* temp = nullptr;
  size_t temp_bytes = 0;
  hipcub::DeviceRadixSort::SortPairs(temp, temp_bytes, keys_in, keys_out, vals_in, vals_out, n);
  hipMalloc(&temp, temp_bytes);
  hipcub::DeviceRadixSort::SortPairs(temp, temp_bytes, keys_in, keys_out, vals_in, vals_out, n);
  hipFree(temp);
}

template __global__ void block_prefix<256>(const int*, int*);
