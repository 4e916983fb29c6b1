// Source of test/runtime/data/nvidia_resource_usage.log. Regenerate with:
//   nvcc -O3 -std=c++17 -shared -Xcompiler -fPIC,-fvisibility=hidden -cudart shared \
//     -gencode arch=compute_90,code=sm_90 -gencode arch=compute_80,code=sm_80 -Xptxas -v -maxrregcount=24 \
//     -x cu nvidia_resource_usage.cu -o /tmp/x.so
__global__ void heavy_kernel(const float* __restrict__ x, float* __restrict__ y) {
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
template <int N>
__global__ void tiled(const float* x, float* y) {
  __shared__ float tile[N];
  tile[threadIdx.x] = x[threadIdx.x];
  __syncthreads();
  y[threadIdx.x] = tile[N - 1 - threadIdx.x];
}
template __global__ void tiled<256>(const float*, float*);
// A device function with its own stack frame: its "Function properties" must not be charged to the caller's entry.
__device__ __noinline__ float helper(float* p, int k) {
  float a[16];
  for (int i = 0; i < 16; ++i) a[i] = p[i * k];
  return a[k & 15];
}
__global__ void uses_helper(float* p, int k) { p[0] = helper(p, k); }
