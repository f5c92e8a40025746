// Gradient all-reduce across the GPUs of one node with NCCL.
#include <rccl/rccl.h>
#include <hip/hip_runtime.h>
#include <cstdio>
#include <vector>

#define NCCL_CHECK(expr)                                                               \
  do {                                                                                 \
    ncclResult_t r_ = (expr);                                                          \
    if (r_ != ncclSuccess) std::printf("NCCL error: %s\n", ncclGetErrorString(r_)); \
  } while (0)

void allreduce_grads(std::vector<float*>& grads, size_t count) {
  const int ndev = static_cast<int>(grads.size());
  std::vector<ncclComm_t> comms(ndev);
  std::vector<hipStream_t> streams(ndev);
  NCCL_CHECK(ncclCommInitAll(comms.data(), ndev, nullptr));
  for (int d = 0; d < ndev; ++d) {
    hipSetDevice(d);
    hipStreamCreate(&streams[d]);
  }
  NCCL_CHECK(ncclGroupStart());
  for (int d = 0; d < ndev; ++d)
    NCCL_CHECK(ncclAllReduce(grads[d], grads[d], count, ncclFloat, ncclSum, comms[d], streams[d]));
  NCCL_CHECK(ncclGroupEnd());
  for (int d = 0; d < ndev; ++d) {
    hipSetDevice(d);
    hipStreamSynchronize(streams[d]);
    ncclCommDestroy(comms[d]);
  }
}

ncclUniqueId make_id() {
  ncclUniqueId id;
  ncclGetUniqueId(&id);
  return id;
}
