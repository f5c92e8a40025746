// Loop bounds and strides built from the built-in indices, clamped with min/max: HIP's indices are not plain
// unsigned ints, so these calls only resolve once each index carries CUDA's type.
#include <hip/hip_runtime.h>
#include <algorithm>

__global__ void clamp_rows(float *rows, unsigned int remaining, int signed_count) {
    unsigned int limit = min(remaining, static_cast<unsigned int>(blockDim.x));
    unsigned int stride = max(static_cast<unsigned int>(gridDim.x), static_cast<unsigned int>(blockDim.x));
    int signed_limit = min(signed_count, static_cast<unsigned int>(threadIdx.x));  // CUDA compares these as unsigned
    for (unsigned int i = threadIdx.x; i < limit; i += stride) {
        rows[i] *= 0.5f;
    }
    rows[0] += static_cast<float>(std::min(remaining, static_cast<unsigned int>(blockIdx.x)) + signed_limit);
}
