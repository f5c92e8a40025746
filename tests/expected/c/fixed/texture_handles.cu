// A lookup table of texture handles kept in uint2 slots: CUDA's texture and surface objects are 64-bit integers,
// so the code packs them into two 32-bit halves. HIP's are pointers to opaque structs.
#include <hip/hip_runtime.h>

struct layer {
    hipTextureObject_t texels;
    int mip_count;
};

__host__ __device__ inline uint2 to_slot(hipTextureObject_t handle) {
    return make_uint2((unsigned int)(handle & 0xFFFFFFFFull), (unsigned int)(handle >> 32));
}

__host__ __device__ inline hipTextureObject_t from_slot(uint2 slot) {
    return ((hipTextureObject_t)slot.x) | (((hipTextureObject_t)slot.y) << 32);
}

__global__ void read_layers(const uint2 *slots, const layer *layers, float *out, int count) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= count) {
        return;
    }
    hipTextureObject_t handle = from_slot(slots[i]);
    bool same = handle == layers[i].texels;  // comparing handles means the same on both
    out[i] = same ? tex1Dfetch<float>(handle, i) : 0.0f;
}

void fill_slots(uint2 *slots, const layer *layers, int count) {
    for (int i = 0; i < count; ++i) {
        slots[i] = to_slot(layers[i].texels);
    }
}

hipSurfaceObject_t next_surface(hipSurfaceObject_t first, int offset) {
    return first + offset;  // surfaces numbered in sequence: an integer sum in CUDA only
}
