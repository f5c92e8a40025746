// Status helpers a project shares between its programs, written once for CUDA: each block is switched on by the
// include guard of the CUDA header whose status type it prints, so a program only gets what it includes.
#ifndef PROJECT_STATUS_CHECKS_H
#define PROJECT_STATUS_CHECKS_H

#include <cstdio>
#include <cstdlib>

#ifdef HIP_INCLUDE_HIP_DRIVER_TYPES_H
static const char* status_name(hipError_t status) { return hipGetErrorName(status); }
#endif

#if defined(HIPRAND_H_)
static const char* status_name(hiprandStatus_t status) {
  switch (status) {
    case HIPRAND_STATUS_SUCCESS:
      return "success";
    case HIPRAND_STATUS_NOT_INITIALIZED:
      return "generator not created";
    case HIPRAND_STATUS_ALLOCATION_FAILED:
      return "out of memory";
    default:
      return "other generator error";
  }
}
#endif

#ifdef hipsparseVersionMajor
static const char* status_name(hipsparseStatus_t status) { return status ? "sparse error" : "success"; }
#endif

#ifdef HIP_INCLUDE_HIP_HIP_RUNTIME_H
template <typename Status>
void stop_on_error(Status status, const char* call, const char* file, int line) {
  if (status) {
    std::fprintf(stderr, "%s:%d: %s failed: %s\n", file, line, call, status_name(status));
    std::exit(EXIT_FAILURE);
  }
}
#define CHECK_STATUS(call) stop_on_error((call), #call, __FILE__, __LINE__)

inline int pick_device_with_most_memory() {
  int count = 0;
  CHECK_STATUS(hipGetDeviceCount(&count));
  int chosen = 0;
  size_t most = 0;
  for (int device = 0; device < count; ++device) {
    hipDeviceProp_t properties;
    CHECK_STATUS(hipGetDeviceProperties(&properties, device));
    if (properties.totalGlobalMem > most) {
      most = properties.totalGlobalMem;
      chosen = device;
    }
  }
  CHECK_STATUS(hipSetDevice(chosen));
  return chosen;
}
#endif

#endif  // PROJECT_STATUS_CHECKS_H
