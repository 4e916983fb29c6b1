// Source of test/runtime/data/amd_resource_usage.log. Regenerate with:
//   HIP_PLATFORM=amd hipcc -O3 -x hip -std=c++17 --offload-arch=gfx940 --offload-arch=gfx90a -fno-gpu-rdc -fPIC \
//     -shared -fvisibility=hidden -Rpass-analysis=kernel-resource-usage amd_resource_usage.hip -o /tmp/x.so
#include <hip/hip_runtime.h>
// LDS differs per arch (90 floats on gfx90a, 940 on gfx940), so the log shows which block is which arch.
__global__ void per_arch_lds(float* y) {
#if defined(__gfx940__)
  __shared__ float t[940];
#else
  __shared__ float t[90];
#endif
  t[threadIdx.x] = threadIdx.x;
  __syncthreads();
  y[threadIdx.x] = t[threadIdx.x ^ 1];
}
// Few VGPRs allowed and many live values: the compiler spills.
__global__ void __attribute__((amdgpu_num_vgpr(24))) heavy_kernel(const float* __restrict__ x, float* __restrict__ y) {
  float acc[48];
#pragma unroll
  for (int j = 0; j < 48; ++j) acc[j] = x[threadIdx.x * 48 + j];
#pragma unroll
  for (int r = 0; r < 4; ++r)
#pragma unroll
    for (int j = 0; j < 48; ++j) acc[j] = acc[j] * acc[(j + r + 1) % 48] + 1.f;
  float s = 0;
#pragma unroll
  for (int j = 0; j < 48; ++j) s += acc[j] * (j + 1);
  y[threadIdx.x] = s;
}
namespace ns {
template <typename T>
__global__ void light(T* y) { y[threadIdx.x] = T(1); }
template __global__ void light<float>(float*);
}  // namespace ns
