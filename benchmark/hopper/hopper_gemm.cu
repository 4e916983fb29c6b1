// SPDX-License-Identifier: MIT
// Host harness for hopper_gemm.cuh: checks each configuration against cuBLAS (fp32 output,
// fp32 accumulate) on random inputs and times it next to cuBLAS (fp16/bf16 output) with CUDA
// events: warm-up, then the median of `reps` single-launch timings.
//
//   nvcc -gencode=arch=compute_90a,code=sm_90a -O3 -std=c++17 -o hopper_gemm hopper_gemm.cu -lcublas
//   ./hopper_gemm                 # the whole table
//   ./hopper_gemm 4096 4096 4096  # one shape
#include <cublas_v2.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <utility>
#include <vector>

#include "hopper_gemm.cuh"

#define CK(x)                                                                                               \
  do {                                                                                                      \
    cudaError_t e_ = (x);                                                                                   \
    if (e_ != cudaSuccess) {                                                                                \
      std::fprintf(stderr, "CUDA error %s at %s:%d: %s\n", cudaGetErrorString(e_), __FILE__, __LINE__, #x); \
      std::exit(1);                                                                                         \
    }                                                                                                       \
  } while (0)
#define CKB(x)                                                                         \
  do {                                                                                 \
    cublasStatus_t s_ = (x);                                                           \
    if (s_ != CUBLAS_STATUS_SUCCESS) {                                                 \
      std::fprintf(stderr, "cuBLAS error %d at %s:%d\n", int(s_), __FILE__, __LINE__); \
      std::exit(1);                                                                    \
    }                                                                                  \
  } while (0)

namespace {

template <class T>
__global__ void fill_random(T* p, size_t n, uint32_t seed, float scale) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
    uint32_t x = uint32_t(i) * 2654435761u ^ seed;
    x ^= x >> 16, x *= 0x7feb352du, x ^= x >> 15, x *= 0x846ca68bu, x ^= x >> 16;
    const float u = (x >> 8) * (1.0f / 16777216.0f) * 2.f - 1.f;
    p[i] = T(u * scale);
  }
}

/// Reference epilogue on the fp32 cuBLAS product: y = act(alpha * y + beta * bias) + residual.
template <class T, hopper::act A>
__global__ void epilogue_ref(float* y, const T* bias, int bias_along_m, const T* residual, float alpha, float beta,
                             size_t m, size_t n) {
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < m * n; i += size_t(gridDim.x) * blockDim.x) {
    float v = alpha * y[i];
    if (bias) v += beta * float(bias[bias_along_m ? i / n : i % n]);
    v = hopper::activate<A>(v);
    if (residual) v += float(residual[i]);
    y[i] = v;
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
  for (size_t i = blockIdx.x * size_t(blockDim.x) + threadIdx.x; i < n; i += size_t(gridDim.x) * blockDim.x) {
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
  return {mx, mr, std::sqrt(se / std::max(sr, 1e-300)), mx / std::max(mr, 1e-300), (long long)nb};
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

/// Alternates single launches of `a` and `b` (each timed with its own event pair) so that both
/// medians see the same clocks and temperature; returns {median a, median b}.
template <class A, class B>
std::pair<double, double> median_ms_paired(A&& a, B&& b, int warmup, int reps) {
  for (int i = 0; i < warmup; ++i) a(), b();
  CK(cudaDeviceSynchronize());
  std::vector<cudaEvent_t> ev(4 * reps);
  for (auto& e : ev) CK(cudaEventCreate(&e));
  for (int i = 0; i < reps; ++i) {
    CK(cudaEventRecord(ev[4 * i]));
    a();
    CK(cudaEventRecord(ev[4 * i + 1]));
    b();
    CK(cudaEventRecord(ev[4 * i + 2]));
  }
  CK(cudaDeviceSynchronize());
  std::vector<float> ta(reps), tb(reps);
  for (int i = 0; i < reps; ++i) {
    CK(cudaEventElapsedTime(&ta[i], ev[4 * i], ev[4 * i + 1]));
    CK(cudaEventElapsedTime(&tb[i], ev[4 * i + 1], ev[4 * i + 2]));
  }
  for (auto& e : ev) CK(cudaEventDestroy(e));
  std::sort(ta.begin(), ta.end());
  std::sort(tb.begin(), tb.end());
  return {ta[reps / 2], tb[reps / 2]};
}

/// Group-M rasterization width in tiles (HOPPER_GROUP_M, default 8).
int group_m() {
  static const int g = std::getenv("HOPPER_GROUP_M") ? std::atoi(std::getenv("HOPPER_GROUP_M")) : 8;
  return g > 0 ? g : 8;
}

// The epilogues exercised: bias along N + relu (checked and timed), and the rest in one go.
using epi_bias_relu = hopper::epilogue<hopper::act::relu, hopper::bias_kind::n, false>;
using epi_all = hopper::epilogue<hopper::act::gelu, hopper::bias_kind::m, true>;

template <class Cfg, class T>
struct runner {
  static const char* name() {
    static char buf[96];
    std::snprintf(buf, sizeof buf, "%dx%dx64 s%d c%d%s", Cfg::bm, Cfg::bn, Cfg::stages, Cfg::cluster_m,
                  Cfg::pingpong ? " pp" : "");
    return buf;
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
  double ms, tflops, cublas_ms, cublas_tflops, rel_norm, max_rel, rel_norm_epi, rel_norm_all;
  long long nonfinite;
  double ms_epi;  ///< with bias + relu fused
};
std::vector<row> g_rows;

/// Poisons Y with NaN, runs once, compares with the reference.
template <class Plan, class T>
err_stats run_check(const Plan& plan, T* y, const float* ref, size_t mn, double* scratch) {
  CK(cudaMemset(y, 0xFF, mn * sizeof(T)));
  CK(plan.launch());
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
  return check(y, ref, mn, scratch);
}

template <class T, class Cfg, class Cublas>
void run_cfg(const shape& s, T* x, T* w, T* bias, T* bias_m, T* residual, T* y, float* ref, float* ref_epi,
             float* ref_x, double* scratch, const Cublas& cublas, int reps) {
  using R = runner<Cfg, T>;
  // HOPPER_ONLY / HOPPER_SKIP: run only / skip the configurations whose name contains the text.
  const char* only = std::getenv("HOPPER_ONLY");
  const char* skip = std::getenv("HOPPER_SKIP");
  if ((only && !std::strstr(R::name(), only)) || (skip && *skip && std::strstr(R::name(), skip))) {
    return;
  }
  if (s.k % 8 != 0 || s.n % 8 != 0) {
    // TMA needs 16-byte row pitches, the epilogue 8-element column groups.
    std::printf("%-5s %5dx%5dx%5d %-18s unsupported: K and N must be multiples of 8\n", dtype_info<T>::name, s.m, s.n,
                s.k, R::name());
    return;
  }
  const size_t mn = size_t(s.m) * s.n;
  // Plain product: poison, run, check against cuBLAS fp32.
  hopper::problem p{};
  p.m = s.m, p.n = s.n, p.k = s.k, p.y = y;
  hopper::plan<Cfg, T> plain;
  CK(plain.init(x, w, p, group_m()));
  const int grid = plain.grid;
  err_stats e = run_check(plain, y, ref, mn, scratch);
  // Fused bias along N + relu (the README's main job): checked and timed.
  hopper::problem pe = p;
  pe.bias = bias;
  hopper::plan<Cfg, T, epi_bias_relu> fused;
  CK(fused.init(x, w, pe, group_m()));
  err_stats ee = run_check(fused, y, ref_epi, mn, scratch);
  // Every other epilogue piece once: alpha, beta, bias along M, gelu, residual (checked only).
  hopper::problem px = p;
  px.bias = bias_m, px.residual = residual, px.alpha = 0.5f, px.beta = 2.f;
  hopper::plan<Cfg, T, epi_all> all;
  CK(all.init(x, w, px, group_m()));
  err_stats ex = run_check(all, y, ref_x, mn, scratch);
  // Ours and cuBLAS alternate launch by launch: the ratio is taken under the same clocks.
  const auto [ms, cublas_ms] = median_ms_paired([&] { CK(plain.launch()); }, cublas, 5, reps);
  const double ms_epi = median_ms([&] { CK(fused.launch()); }, 5, reps);
  CK(cudaGetLastError());
  const double fl = 2.0 * s.m * s.n * double(s.k);
  row r{dtype_info<T>::name,
        R::name(),
        s,
        ms,
        fl / ms * 1e-9,
        cublas_ms,
        fl / cublas_ms * 1e-9,
        e.rel_norm,
        e.max_rel,
        ee.rel_norm,
        ex.rel_norm,
        e.nonfinite + ee.nonfinite + ex.nonfinite,
        ms_epi};
  std::printf(
      "%-5s %5dx%5dx%5d %-18s grid %3d  %.4f ms (bias+relu %.4f) %6.1f TF/s | cuBLAS %.4f ms %6.1f TF/s"
      " | %.3fx | err rel_norm %.2e max_rel %.2e bias+relu %.2e all-epilogue %.2e nonfinite %lld\n",
      r.dtype.c_str(), s.m, s.n, s.k, r.cfg.c_str(), grid, ms, ms_epi, r.tflops, cublas_ms, r.cublas_tflops,
      r.tflops / r.cublas_tflops, e.rel_norm, e.max_rel, ee.rel_norm, ex.rel_norm, r.nonfinite);
  std::fflush(stdout);
  g_rows.push_back(r);
}

template <class T, class... Cfgs>
void run_shape(cublasHandle_t h, const shape& s, int reps, uint32_t seed) {
  const size_t mk = size_t(s.m) * s.k, kn = size_t(s.k) * s.n, mn = size_t(s.m) * s.n;
  T *x, *w, *bias, *bias_m, *residual, *y;
  float *ref, *ref_epi, *ref_x;
  double* scratch;
  CK(cudaMalloc(&x, mk * sizeof(T)));
  CK(cudaMalloc(&w, kn * sizeof(T)));
  CK(cudaMalloc(&bias, s.n * sizeof(T)));
  CK(cudaMalloc(&bias_m, s.m * sizeof(T)));
  CK(cudaMalloc(&residual, mn * sizeof(T)));
  CK(cudaMalloc(&y, mn * sizeof(T)));
  CK(cudaMalloc(&ref, mn * sizeof(float)));
  CK(cudaMalloc(&ref_epi, mn * sizeof(float)));
  CK(cudaMalloc(&ref_x, mn * sizeof(float)));
  CK(cudaMalloc(&scratch, 1024 * 5 * sizeof(double)));
  fill_random<T><<<1024, 256>>>(x, mk, seed, 1.f);
  fill_random<T><<<1024, 256>>>(w, kn, seed * 7 + 1, 1.f);
  fill_random<T><<<64, 256>>>(bias, s.n, seed * 13 + 5, 4.f);
  fill_random<T><<<64, 256>>>(bias_m, s.m, seed * 17 + 3, 4.f);
  fill_random<T><<<1024, 256>>>(residual, mn, seed * 19 + 7, 8.f);
  CK(cudaGetLastError());
  // Row-major Y = X W  <=>  column-major Y^T = W^T X^T: cuBLAS m=N, n=M, A=W (ld N), B=X (ld K).
  const float one = 1.f, zero = 0.f;
  CKB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, s.n, s.m, s.k, &one, w, dtype_info<T>::cuda, s.n, x,
                   dtype_info<T>::cuda, s.k, &zero, ref, CUDA_R_32F, s.n, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT));
  CK(cudaMemcpy(ref_epi, ref, mn * sizeof(float), cudaMemcpyDeviceToDevice));
  CK(cudaMemcpy(ref_x, ref, mn * sizeof(float), cudaMemcpyDeviceToDevice));
  epilogue_ref<T, hopper::act::relu><<<1024, 256>>>(ref_epi, bias, 0, (const T*)nullptr, 1.f, 1.f, s.m, s.n);
  epilogue_ref<T, hopper::act::gelu><<<1024, 256>>>(ref_x, bias_m, 1, residual, 0.5f, 2.f, s.m, s.n);
  CK(cudaGetLastError());
  // cuBLAS writes its own buffer so that it never overwrites ours between check and timing.
  T* yc;
  CK(cudaMalloc(&yc, mn * sizeof(T)));
  auto cublas = [&] {
    CKB(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, s.n, s.m, s.k, &one, w, dtype_info<T>::cuda, s.n, x,
                     dtype_info<T>::cuda, s.k, &zero, yc, dtype_info<T>::cuda, s.n, CUBLAS_COMPUTE_32F,
                     CUBLAS_GEMM_DEFAULT));
  };
  (run_cfg<T, Cfgs>(s, x, w, bias, bias_m, residual, y, ref, ref_epi, ref_x, scratch, cublas, reps), ...);
  CK(cudaFree(yc));
  CK(cudaFree(x));
  CK(cudaFree(w));
  CK(cudaFree(bias));
  CK(cudaFree(y));
  CK(cudaFree(ref));
  CK(cudaFree(ref_epi));
  CK(cudaFree(ref_x));
  CK(cudaFree(bias_m));
  CK(cudaFree(residual));
  CK(cudaFree(scratch));
}

// The configurations measured; add or remove here.
using cfg_a = hopper::config<128, 256, 4, 1>;
using cfg_b = hopper::config<128, 256, 4, 2>;
using cfg_c = hopper::config<128, 128, 6, 1, true>;
using cfg_f = hopper::config<128, 64, 8, 1>;
using cfg_g = hopper::config<256, 128, 4, 1>;
// Measured and dropped from the default table (slower everywhere, see NOTES.md):
//   hopper::config<128, 128, 6, 2, true>, hopper::config<64, 256, 5, 2, true>.

template <class T>
void run_all(cublasHandle_t h, const std::vector<shape>& shapes, int reps) {
  uint32_t seed = 12345;
  for (const shape& s : shapes) run_shape<T, cfg_a, cfg_b, cfg_g, cfg_f, cfg_c>(h, s, reps, seed += 101);
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<shape> shapes;
  const int reps = std::getenv("HOPPER_REPS") ? std::max(1, std::atoi(std::getenv("HOPPER_REPS"))) : 40;
  if (argc >= 4) {
    shapes.push_back({std::atoi(argv[1]), std::atoi(argv[2]), std::atoi(argv[3])});
  } else {
    // The seven shapes of issue 10, then partial tiles in M, N and K (1000x3000x712) and a
    // skinny one (64x8192x8192) that this kernel is not meant for.
    shapes = {{4096, 4096, 4096},  {8192, 8192, 8192}, {8192, 1024, 8192}, {1024, 1024, 1024}, {2048, 2048, 2048},
              {4096, 11008, 4096}, {1000, 3000, 700},  {1000, 3000, 712},  {64, 8192, 8192}};
  }
  const char* only = std::getenv("HOPPER_DTYPE");
  cudaDeviceProp prop;
  CK(cudaGetDeviceProperties(&prop, 0));
  std::printf("device %s, %d SMs, L2 %d MB, smem/block optin %zu\n", prop.name, prop.multiProcessorCount,
              prop.l2CacheSize >> 20, prop.sharedMemPerBlockOptin);
  cublasHandle_t h;
  CKB(cublasCreate(&h));
  if (!only || std::strcmp(only, "fp16") == 0) run_all<__half>(h, shapes, reps);
  if (!only || std::strcmp(only, "bf16") == 0) run_all<__nv_bfloat16>(h, shapes, reps);
  std::printf("\n%-5s %-16s %-18s %7s %7s %6s %8s %8s %8s %8s %8s %8s\n", "dtype", "shape", "config", "TF/s", "cuBLAS",
              "ratio", "ms", "ms_epi", "rel_norm", "max_rel", "err_epi", "err_all");
  for (const row& r : g_rows) {
    char sh[32];
    std::snprintf(sh, sizeof sh, "%dx%dx%d", r.s.m, r.s.n, r.s.k);
    std::printf("%-5s %-16s %-18s %7.1f %7.1f %6.3f %8.4f %8.4f %8.2e %8.2e %8.2e %8.2e%s\n", r.dtype.c_str(), sh,
                r.cfg.c_str(), r.tflops, r.cublas_tflops, r.tflops / r.cublas_tflops, r.ms, r.ms_epi, r.rel_norm,
                r.max_rel, r.rel_norm_epi, r.rel_norm_all, r.nonfinite ? " NONFINITE" : "");
  }
  CKB(cublasDestroy(h));
  return 0;
}
