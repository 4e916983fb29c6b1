// SPDX-License-Identifier: MIT
// Host harness for hopper_gemm.cuh: checks each configuration against cuBLAS (fp32 output,
// fp32 accumulate) on random inputs and times it next to cuBLAS (fp16/bf16 output) with CUDA
// events: warm-up, then the median of `reps` single-launch timings.
//
//   nvcc -gencode=arch=compute_90a,code=sm_90a -O3 -std=c++17 -o hopper_gemm hopper_gemm.cu -lcublas -lcuda
//   ./hopper_gemm                 # the whole table
//   ./hopper_gemm 4096 4096 4096  # one shape
#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "hopper_gemm.cuh"

#define CK(x)                                                                              \
  do {                                                                                     \
    cudaError_t e_ = (x);                                                                  \
    if (e_ != cudaSuccess) {                                                               \
      std::fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorString(e_), __FILE__, \
                   __LINE__, #x);                                                          \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)
#define CKB(x)                                                                    \
  do {                                                                            \
    cublasStatus_t s_ = (x);                                                      \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                            \
      std::fprintf(stderr, "cuBLAS error %d at %s:%d\n", int(s_), __FILE__, __LINE__); \
      std::exit(1);                                                               \
    }                                                                             \
  } while (0)

namespace {

using encode_fn = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*,
                               const cuuint64_t*, const cuuint64_t*, const cuuint32_t*,
                               const cuuint32_t*, CUtensorMapInterleave, CUtensorMapSwizzle,
                               CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

encode_fn get_encode() {
  static encode_fn fn = nullptr;
  if (fn == nullptr) {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q;
    CK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault,
                                        &q));
    if (q != cudaDriverEntryPointSuccess || p == nullptr) {
      std::fprintf(stderr, "cuTensorMapEncodeTiled not found\n");
      std::exit(1);
    }
    fn = reinterpret_cast<encode_fn>(p);
  }
  return fn;
}

/// 2-D tensor map of a row-major [rows, cols] 16-bit matrix, box [box_rows, 64 cols], 128B swizzle.
CUtensorMap make_map(const void* base, bool bf16, uint64_t rows, uint64_t cols, uint32_t box_rows) {
  CUtensorMap m;
  cuuint64_t dims[2] = {cols, rows};
  cuuint64_t strides[1] = {cols * 2};
  cuuint32_t box[2] = {64, box_rows};
  cuuint32_t estr[2] = {1, 1};
  CUresult r = get_encode()(&m, bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16,
                            2, const_cast<void*>(base), dims, strides, box, estr,
                            CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                            CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (r != CUDA_SUCCESS) {
    std::fprintf(stderr, "cuTensorMapEncodeTiled failed: %d\n", int(r));
    std::exit(1);
  }
  return m;
}

template <class T>
__global__ void fill_random(T* p, size_t n, uint32_t seed, float scale) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    uint32_t x = uint32_t(i) * 2654435761u ^ seed;
    x ^= x >> 16, x *= 0x7feb352du, x ^= x >> 15, x *= 0x846ca68bu, x ^= x >> 16;
    const float u = (x >> 8) * (1.0f / 16777216.0f) * 2.f - 1.f;
    p[i] = T(u * scale);
  }
}

template <class T>
__global__ void bias_relu_ref(float* y, const T* bias, size_t m, size_t n, int relu) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < m * n;
       i += size_t(gridDim.x) * blockDim.x) {
    float v = y[i] + (bias ? float(bias[i % n]) : 0.f);
    y[i] = relu ? fmaxf(v, 0.f) : v;
  }
}

/// Per block: max |y - ref|, max |ref|, sum (y - ref)^2, sum ref^2, count of non-finite y.
template <class T>
__global__ void compare(const T* y, const float* ref, size_t n, double* out) {
  __shared__ double s[4][256];
  __shared__ unsigned long long bad;
  if (threadIdx.x == 0) bad = 0;
  __syncthreads();
  double mx = 0, mr = 0, se = 0, sr = 0;
  unsigned long long nb = 0;
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n;
       i += size_t(gridDim.x) * blockDim.x) {
    const float v = float(y[i]);
    const double r = ref[i];
    if (!isfinite(v)) {
      ++nb;
      continue;
    }
    const double e = std::fabs(double(v) - r);
    mx = fmax(mx, e), mr = fmax(mr, std::fabs(r)), se += e * e, sr += r * r;
  }
  s[0][threadIdx.x] = mx, s[1][threadIdx.x] = mr, s[2][threadIdx.x] = se, s[3][threadIdx.x] = sr;
  atomicAdd(&bad, nb);
  __syncthreads();
  for (int w = 128; w > 0; w /= 2) {
    if (threadIdx.x < w) {
      s[0][threadIdx.x] = fmax(s[0][threadIdx.x], s[0][threadIdx.x + w]);
      s[1][threadIdx.x] = fmax(s[1][threadIdx.x], s[1][threadIdx.x + w]);
      s[2][threadIdx.x] += s[2][threadIdx.x + w];
      s[3][threadIdx.x] += s[3][threadIdx.x + w];
    }
    __syncthreads();
  }
  if (threadIdx.x == 0) {
    for (int j = 0; j < 4; ++j) out[blockIdx.x * 5 + j] = s[j][0];
    out[blockIdx.x * 5 + 4] = double(bad);
  }
}

struct err_stats {
  double max_abs, max_ref, rel_norm, max_rel;
  long long nonfinite;
};

template <class T>
err_stats check(const T* y, const float* ref, size_t n, double* scratch) {
  const int blocks = 1024;
  compare<T><<<blocks, 256>>>(y, ref, n, scratch);
  CK(cudaGetLastError());
  std::vector<double> h(blocks * 5);
  CK(cudaMemcpy(h.data(), scratch, h.size() * sizeof(double), cudaMemcpyDeviceToHost));
  double mx = 0, mr = 0, se = 0, sr = 0, nb = 0;
  for (int b = 0; b < blocks; ++b) {
    mx = std::max(mx, h[b * 5]), mr = std::max(mr, h[b * 5 + 1]);
    se += h[b * 5 + 2], sr += h[b * 5 + 3], nb += h[b * 5 + 4];
  }
  return {mx, mr, std::sqrt(se / std::max(sr, 1e-300)), mx / std::max(mr, 1e-300),
          (long long)nb};
}

template <class F>
double median_ms(F&& launch, int warmup, int reps) {
  for (int i = 0; i < warmup; ++i) launch();
  CK(cudaDeviceSynchronize());
  std::vector<cudaEvent_t> ev(2 * reps);
  for (auto& e : ev) CK(cudaEventCreate(&e));
  for (int i = 0; i < reps; ++i) {
    CK(cudaEventRecord(ev[2 * i]));
    launch();
    CK(cudaEventRecord(ev[2 * i + 1]));
  }
  CK(cudaDeviceSynchronize());
  std::vector<float> t(reps);
  for (int i = 0; i < reps; ++i) CK(cudaEventElapsedTime(&t[i], ev[2 * i], ev[2 * i + 1]));
  for (auto& e : ev) CK(cudaEventDestroy(e));
  std::sort(t.begin(), t.end());
  return t[reps / 2];
}

template <class Cfg, class T>
struct runner {
  static const char* name() {
    static char buf[96];
    std::snprintf(buf, sizeof buf, "%dx%dx64 s%d c%d", Cfg::bm, Cfg::bn, Cfg::stages,
                  Cfg::cluster_m);
    return buf;
  }
  static int grid(int m, int n, int sms) {
    auto kern = hopper::gemm_kernel<Cfg, T>;
    const int tiles = ((m + Cfg::bm * Cfg::cluster_m - 1) / (Cfg::bm * Cfg::cluster_m)) *
                      ((n + Cfg::bn - 1) / Cfg::bn);
    int clusters = sms / Cfg::cluster_m;
    if (Cfg::cluster_m > 1) {
      cudaLaunchConfig_t lc = {};
      cudaLaunchAttribute at[1];
      at[0].id = cudaLaunchAttributeClusterDimension;
      at[0].val.clusterDim.x = Cfg::cluster_m, at[0].val.clusterDim.y = 1,
      at[0].val.clusterDim.z = 1;
      lc.gridDim = dim3(Cfg::cluster_m * clusters), lc.blockDim = dim3(Cfg::threads);
      lc.dynamicSmemBytes = Cfg::smem_bytes, lc.attrs = at, lc.numAttrs = 1;
      CK(cudaOccupancyMaxActiveClusters(&clusters, kern, &lc));
    }
    return std::min(tiles, clusters) * Cfg::cluster_m;
  }
  static void launch(const CUtensorMap& mx, const CUtensorMap& mw, const hopper::problem& p,
                     int grid_ctas) {
    cudaLaunchConfig_t lc = {};
    cudaLaunchAttribute at[1];
    at[0].id = cudaLaunchAttributeClusterDimension;
    at[0].val.clusterDim.x = Cfg::cluster_m, at[0].val.clusterDim.y = 1,
    at[0].val.clusterDim.z = 1;
    lc.gridDim = dim3(grid_ctas), lc.blockDim = dim3(Cfg::threads);
    lc.dynamicSmemBytes = Cfg::smem_bytes, lc.attrs = at, lc.numAttrs = Cfg::cluster_m > 1 ? 1 : 0;
    CK(cudaLaunchKernelEx(&lc, hopper::gemm_kernel<Cfg, T>, mx, mw, p, 8));
  }
  static void setup() {
    CK(cudaFuncSetAttribute(hopper::gemm_kernel<Cfg, T>,
                            cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::smem_bytes));
  }
};

struct shape {
  int m, n, k;
};

template <class T>
struct dtype_info;
template <>
struct dtype_info<__half> {
  static constexpr const char* name = "fp16";
  static constexpr cudaDataType_t cuda = CUDA_R_16F;
};
template <>
struct dtype_info<__nv_bfloat16> {
  static constexpr const char* name = "bf16";
  static constexpr cudaDataType_t cuda = CUDA_R_16BF;
};

struct row {
  std::string dtype, cfg;
  shape s;
  double ms, tflops, cublas_ms, cublas_tflops, rel_norm, max_rel, rel_norm_epi;
  long long nonfinite;
};
std::vector<row> g_rows;

template <class T, class Cfg>
void run_cfg(cublasHandle_t h, const shape& s, T* x, T* w, T* bias, T* y, float* ref,
             float* ref_epi, double* scratch, double cublas_ms, int sms, int reps) {
  using R = runner<Cfg, T>;
  R::setup();
  const bool bf = std::is_same_v<T, __nv_bfloat16>;
  const CUtensorMap mx = make_map(x, bf, s.m, s.k, Cfg::bm);
  const CUtensorMap mw = make_map(w, bf, s.k, s.n, 64);
  const int grid = R::grid(s.m, s.n, sms);
  const size_t mn = size_t(s.m) * s.n;
  // Plain product: poison, run, check against cuBLAS fp32.
  hopper::problem p{s.m, s.n, s.k, nullptr, 0, y};
  CK(cudaMemset(y, 0xFF, mn * sizeof(T)));
  R::launch(mx, mw, p, grid);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  err_stats e = check(y, ref, mn, scratch);
  // Fused bias + relu.
  hopper::problem pe{s.m, s.n, s.k, bias, 1, y};
  CK(cudaMemset(y, 0xFF, mn * sizeof(T)));
  R::launch(mx, mw, pe, grid);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  err_stats ee = check(y, ref_epi, mn, scratch);
  const double ms = median_ms([&] { R::launch(mx, mw, p, grid); }, 5, reps);
  CK(cudaGetLastError());
  const double fl = 2.0 * s.m * s.n * double(s.k);
  row r{dtype_info<T>::name, R::name(), s, ms, fl / ms * 1e-9, cublas_ms, fl / cublas_ms * 1e-9,
        e.rel_norm, e.max_rel, ee.rel_norm, e.nonfinite + ee.nonfinite};
  std::printf("%-5s %5dx%5dx%5d %-18s grid %3d  %.4f ms %6.1f TF/s | cuBLAS %.4f ms %6.1f TF/s"
              " | %.3fx | err rel_norm %.2e max_rel %.2e epi %.2e nonfinite %lld\n",
              r.dtype.c_str(), s.m, s.n, s.k, r.cfg.c_str(), grid, ms, r.tflops, cublas_ms,
              r.cublas_tflops, r.tflops / r.cublas_tflops, e.rel_norm, e.max_rel, ee.rel_norm,
              r.nonfinite);
  std::fflush(stdout);
  g_rows.push_back(r);
}

template <class T, class... Cfgs>
void run_shape(cublasHandle_t h, const shape& s, int sms, int reps, uint32_t seed) {
  const size_t mk = size_t(s.m) * s.k, kn = size_t(s.k) * s.n, mn = size_t(s.m) * s.n;
  T *x, *w, *bias, *y;
  float *ref, *ref_epi;
  double* scratch;
  CK(cudaMalloc(&x, mk * sizeof(T)));
  CK(cudaMalloc(&w, kn * sizeof(T)));
  CK(cudaMalloc(&bias, s.n * sizeof(T)));
  CK(cudaMalloc(&y, mn * sizeof(T)));
  CK(cudaMalloc(&ref, mn * sizeof(float)));
  CK(cudaMalloc(&ref_epi, mn * sizeof(float)));
  CK(cudaMalloc(&scratch, 1024 * 5 * sizeof(double)));
  fill_random<T><<<1024, 256>>>(x, mk, seed, 1.f);
  fill_random<T><<<1024, 256>>>(w, kn, seed * 7 + 1, 1.f);
  fill_random<T><<<64, 256>>>(bias, s.n, seed * 13 + 5, 4.f);
  CK(cudaGetLastError());
  // Row-major Y = X W  <=>  column-major Y^T = W^T X^T: cuBLAS m=N, n=M, A=W (ld N), B=X (ld K).
  const float one = 1.f, zero = 0.f;
  CKB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, s.n, s.m, s.k, &one, w, dtype_info<T>::cuda, s.n,
                   x, dtype_info<T>::cuda, s.k, &zero, ref, CUDA_R_32F, s.n, CUBLAS_COMPUTE_32F,
                   CUBLAS_GEMM_DEFAULT));
  CK(cudaMemcpy(ref_epi, ref, mn * sizeof(float), cudaMemcpyDeviceToDevice));
  bias_relu_ref<T><<<1024, 256>>>(ref_epi, bias, s.m, s.n, 1);
  CK(cudaGetLastError());
  const double cublas_ms = median_ms(
      [&] {
        CKB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, s.n, s.m, s.k, &one, w,
                         dtype_info<T>::cuda, s.n, x, dtype_info<T>::cuda, s.k, &zero, y,
                         dtype_info<T>::cuda, s.n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
      },
      5, reps);
  (run_cfg<T, Cfgs>(h, s, x, w, bias, y, ref, ref_epi, scratch, cublas_ms, sms, reps), ...);
  CK(cudaFree(x));
  CK(cudaFree(w));
  CK(cudaFree(bias));
  CK(cudaFree(y));
  CK(cudaFree(ref));
  CK(cudaFree(ref_epi));
  CK(cudaFree(scratch));
}

// The configurations measured; add or remove here.
using cfg_a = hopper::config<128, 256, 4, 1>;
using cfg_b = hopper::config<128, 256, 4, 2>;
using cfg_c = hopper::config<256, 128, 4, 2>;

template <class T>
void run_all(cublasHandle_t h, const std::vector<shape>& shapes, int sms, int reps) {
  uint32_t seed = 12345;
  for (const shape& s : shapes) run_shape<T, cfg_a, cfg_b, cfg_c>(h, s, sms, reps, seed += 101);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<shape> shapes;
  int reps = 30;
  if (argc >= 4) {
    shapes.push_back({std::atoi(argv[1]), std::atoi(argv[2]), std::atoi(argv[3])});
  } else {
    shapes = {{4096, 4096, 4096}, {8192, 8192, 8192}, {8192, 1024, 8192}};
  }
  const char* only = std::getenv("HOPPER_DTYPE");
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device %s, %d SMs, L2 %d MB, smem/block optin %zu\n", prop.name,
              prop.multiProcessorCount, prop.l2CacheSize >> 20, prop.sharedMemPerBlockOptin);
  cublasHandle_t h;
  CKB(cublasCreate(&h));
  if (!only || std::strcmp(only, "fp16") == 0) run_all<__half>(h, shapes, prop.multiProcessorCount, reps);
  if (!only || std::strcmp(only, "bf16") == 0)
    run_all<__nv_bfloat16>(h, shapes, prop.multiProcessorCount, reps);
  std::printf("\n%-5s %-16s %-18s %9s %9s %7s %9s %9s\n", "dtype", "shape", "config", "TF/s",
              "cuBLAS", "ratio", "rel_norm", "max_rel");
  for (const row& r : g_rows) {
    char sh[32];
    std::snprintf(sh, sizeof sh, "%dx%dx%d", r.s.m, r.s.n, r.s.k);
    std::printf("%-5s %-16s %-18s %9.1f %9.1f %7.3f %9.2e %9.2e%s\n", r.dtype.c_str(), sh,
                r.cfg.c_str(), r.tflops, r.cublas_tflops, r.tflops / r.cublas_tflops, r.rel_norm,
                r.max_rel, r.nonfinite ? " NONFINITE" : "");
  }
  CKB(cublasDestroy(h));
  return 0;
}
