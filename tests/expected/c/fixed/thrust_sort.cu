// Sorting and reducing with Thrust containers and algorithms.
#include <thrust/device_vector.h>
#include <thrust/host_vector.h>
#include <thrust/sort.h>
#include <thrust/reduce.h>
#include <thrust/functional.h>
#include <thrust/execution_policy.h>
#include <hip/hip_runtime.h>

float sorted_median(const thrust::host_vector<float>& host, hipStream_t stream) {
  thrust::device_vector<float> values = host;
  thrust::sort(thrust::hip::par.on(stream), values.begin(), values.end());
  return values[values.size() / 2];
}

float total(const thrust::device_vector<float>& values) {
  return thrust::reduce(values.begin(), values.end(), 0.0f, thrust::plus<float>());
}
