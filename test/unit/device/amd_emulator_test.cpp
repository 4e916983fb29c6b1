// SPDX-License-Identifier: MIT
// Tests include/rocmtpl/device/amd_emulator.hpp (issue 23): the embedded rocmtpl_amd_emu.h and the
// portability header are written to a folder and built with clang++ into a host program: the
// emulator's runtime in one translation unit (not instrumented), test kernels in another (every
// load and store hooked, as emulated kernel libraries are). Each test runs one mode of the program.
// The MFMA tests place the operands with the element-to-register maps of AMD's matrix instruction
// calculator (the opposite direction to the emulator's register-to-element maps) and compare with a
// plain matrix product; the lane-operation tests compare with HIP 5.2's definitions written out here.

#include <rocmtpl/device/amd_emulator.hpp>

// The pure layer's header pulls in nothing heavy and nothing of the runtime layer.
#if defined(FMT_VERSION) || defined(XXH_VERSION_NUMBER) || defined(_DLFCN_H) || defined(NLOHMANN_JSON_VERSION_MAJOR)
#error "rocmtpl/device/amd_emulator.hpp must include only <string_view>"
#endif

#include <rocmtpl/detail/strings.hpp>
#include <rocmtpl/device/hip_portable.hpp>

#include "support/process.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace fs = std::filesystem;
using rocmtpl::test::run_logged;
using rocmtpl::test::write_file;

bool is_executable(const fs::path& p) { return ::access(p.c_str(), X_OK) == 0 && !fs::is_directory(p); }

// ROCMTPL_AMD_EMU_CXX, else clang++-15 ... clang++-19 on PATH (the runtime's search, without clang 14).
std::optional<fs::path> find_clang() {
  if (const char* v = std::getenv("ROCMTPL_AMD_EMU_CXX"); v != nullptr && *v != '\0') return fs::path(v);
  const char* path = std::getenv("PATH");
  for (const char* name : {"clang++-15", "clang++-16", "clang++-17", "clang++-18", "clang++-19"}) {
    std::stringstream dirs(path != nullptr ? path : "/usr/bin");
    for (std::string dir; std::getline(dirs, dir, ':');) {
      if (!dir.empty() && is_executable(fs::path(dir) / name)) return fs::path(dir) / name;
    }
  }
  return std::nullopt;
}

constexpr std::string_view runtime_source = R"src(#define ROCMTPL_AMD_EMU_IMPLEMENTATION
#include "rocmtpl_amd_emu.h"
)src";

// The test kernels and a main() that runs one of them (argv[1]) and prints "key value" lines.
constexpr std::string_view kernels_source = R"src(#include "rocmtpl_hip_portable.h"
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

static_assert(ROCMTPL_WARP_SIZE == 64 && warpSize == 64, "wave64");
#if !defined(ROCMTPL_PLATFORM_AMD) || !defined(ROCMTPL_PLATFORM_AMD_EMU) || defined(ROCMTPL_PLATFORM_NVIDIA)
#error "the emulator compiles the AMD code"
#endif

typedef _Float16 half4_t __attribute__((ext_vector_type(4)));
typedef short short4_t __attribute__((ext_vector_type(4)));
typedef float float16_t __attribute__((ext_vector_type(16)));

// 32x32x8 operands from the element-to-register maps (AMD's matrix instruction calculator, CDNA2
// and CDNA3, no modifiers): A[i][k] in lane 32 * (k / 4) + i, element k % 4; B[k][j] in lane
// 32 * (k / 4) + j, element k % 4; C and D [i][j] in lane (32 * (i / 4)) % 64 + j, register
// 4 * (i / 8) + i % 4. Wave w of the block multiplies matrices w (a: [32][8], b: [8][32], c, d: [32][32]).
extern "C" __global__ void mfma_kernel(const uint16_t* a, const uint16_t* b, const float* c, float* d, int bf16) {
  const int lane = static_cast<int>(threadIdx.x) % 64;
  const int w = static_cast<int>(threadIdx.x) / 64;
  a += w * 256;
  b += w * 256;
  c += w * 1024;
  d += w * 1024;
  short4_t av = 0, bv = 0;
  for (int i = 0; i < 32; ++i)
    for (int k = 0; k < 8; ++k)
      if (32 * (k / 4) + i == lane) av[k % 4] = static_cast<short>(a[i * 8 + k]);
  for (int k = 0; k < 8; ++k)
    for (int j = 0; j < 32; ++j)
      if (32 * (k / 4) + j == lane) bv[k % 4] = static_cast<short>(b[k * 32 + j]);
  float16_t cv = 0.0f;
  for (int i = 0; i < 32; ++i)
    for (int j = 0; j < 32; ++j)
      if ((32 * (i / 4)) % 64 + j == lane) cv[4 * (i / 8) + i % 4] = c[i * 32 + j];
  const float16_t dv = bf16 ? __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(av, bv, cv, 0, 0, 0)
                            : __builtin_amdgcn_mfma_f32_32x32x8f16(__builtin_bit_cast(half4_t, av),
                                                                   __builtin_bit_cast(half4_t, bv), cv, 0, 0, 0);
  for (int i = 0; i < 32; ++i)
    for (int j = 0; j < 32; ++j)
      if ((32 * (i / 4)) % 64 + j == lane) d[i * 32 + j] = dv[4 * (i / 8) + i % 4];
}

// Lane operations: for each (op, operand, width) case, every thread writes its result.
struct shfl_case {
  int op, operand, width;
};
__device__ const shfl_case shfl_cases[] = {{0, 5, 64},  {0, 63, 64}, {0, 70, 64}, {0, 3, 16}, {0, 9, 8},  {0, -1, 64},
                                           {1, 1, 64},  {1, 32, 64}, {1, 7, 8},   {1, 16, 16}, {1, 33, 32}, {2, 1, 64},
                                           {2, 5, 16},  {2, 40, 64}, {3, 1, 64},  {3, 3, 8},  {3, 63, 64}, {3, 17, 32}};
constexpr int shfl_case_count = sizeof(shfl_cases) / sizeof(shfl_cases[0]);
extern "C" __global__ void shfl_kernel(int* out, double* out64, unsigned long long* ballots, float4* out4) {
  const int t = static_cast<int>(threadIdx.x);
  const int value = 1000 * static_cast<int>(blockIdx.x) + t;
  for (int c = 0; c < shfl_case_count; ++c) {
    const shfl_case s = shfl_cases[c];
    int r = 0;
    switch (s.op) {
      case 0: r = __shfl(value, s.operand, s.width); break;
      case 1: r = __shfl_xor(value, s.operand, s.width); break;
      case 2: r = __shfl_up(value, static_cast<unsigned>(s.operand), s.width); break;
      default: r = __shfl_down(value, static_cast<unsigned>(s.operand), s.width); break;
    }
    out[(static_cast<int>(blockIdx.x) * shfl_case_count + c) * blockDim.x + t] = r;
  }
  out64[blockIdx.x * blockDim.x + t] = __shfl_down(static_cast<double>(value) + 0.25, 1u);
  // A 16-byte aligned value moves whole.
  const float f = static_cast<float>(value);
  out4[blockIdx.x * blockDim.x + t] = __shfl_xor(make_float4(f, f + 0.5f, -f, 2.0f * f), 1);
  ballots[blockIdx.x * blockDim.x + t] = __ballot(t % 3 == 0);
}

// A 3-D block: every thread writes its linear index into static and dynamic shared memory, waits,
// and reads the slot of the thread mirrored through the block; threads past `live` leave first.
extern "C" __global__ void barrier_kernel(int* out, int live) {
  __shared__ int slots[1024];
  HIP_DYNAMIC_SHARED(int, more);
  const int t = static_cast<int>(threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z));
  const int n = static_cast<int>(blockDim.x * blockDim.y * blockDim.z);
  const int block = static_cast<int>(blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z));
  if (t >= live) return;
  slots[t] = 100000 * block + t;
  more[t] = -t;
  __syncthreads();
  const int mirror = live - 1 - t;
  __syncthreads();
  out[block * n + t] = slots[mirror] + more[mirror];
}

// Shared memory holds garbage at block start (0xff bytes here: NaN).
extern "C" __global__ void fresh_shared_kernel(float* out) {
  __shared__ float s[64];
  const int t = static_cast<int>(threadIdx.x);
  out[blockIdx.x * 64 + t] = s[t];
  __syncthreads();
  s[t] = 1.0f;
}

extern "C" __global__ void oob_store_kernel(float* y, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i <= n) y[i] = 1.0f;  // one element past the end
}

extern "C" __global__ void oob_shared_kernel(float* y) {
  HIP_DYNAMIC_SHARED(float, s);
  const int t = static_cast<int>(threadIdx.x);
  s[t] = 1.0f;
  __syncthreads();
  y[t] = s[t + 1];  // the last thread reads past the block's dynamic shared memory
}

extern "C" __global__ void host_memory_kernel(const float* host, float* y) { y[threadIdx.x] = host[threadIdx.x]; }

extern "C" __global__ void divergent_kernel(int* out) {
  const int t = static_cast<int>(threadIdx.x);
  out[t] = t < 32 ? __shfl_xor(t, 1) : static_cast<int>(__ballot(1));
}

extern "C" __global__ void deadlock_kernel(int* out) {
  const int t = static_cast<int>(threadIdx.x);
  if (t < 32) {
    out[t] = __shfl(t, 0);
  } else {
    __syncthreads();
    out[t] = t;
  }
}

extern "C" __global__ void trap_kernel(int* out) {
  if (threadIdx.x == 5) __trap();
  out[threadIdx.x] = 1;
}

template <class T>
T* device(size_t n) {
  void* p = nullptr;
  if (hipMalloc(&p, n * sizeof(T)) != hipSuccess) std::abort();
  return static_cast<T*>(p);
}

uint16_t to_f16(float f) {
  const _Float16 h = static_cast<_Float16>(f);
  uint16_t u;
  memcpy(&u, &h, 2);
  return u;
}
float from_f16(uint16_t u) {
  _Float16 h;
  memcpy(&h, &u, 2);
  return static_cast<float>(h);
}
uint16_t to_bf16(float f) {
  uint32_t u;
  memcpy(&u, &f, 4);
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}
float from_bf16(uint16_t b) {
  const uint32_t u = static_cast<uint32_t>(b) << 16;
  float f;
  memcpy(&f, &u, 4);
  return f;
}

void report_launch(const char* name, int rc) {
  printf("%s_rc %d\n", name, rc);
  printf("%s_message %s\n", name, rocmtpl_emu_last_message());
}

// Four waves, four independent products D = C + A B; `integers`: small integer values (every sum exact).
int run_mfma(bool bf16, bool integers) {
  const int waves = 4;
  uint16_t* a = device<uint16_t>(waves * 256);
  uint16_t* b = device<uint16_t>(waves * 256);
  float* c = device<float>(waves * 1024);
  float* d = device<float>(waves * 1024);
  std::mt19937 rng(bf16 ? 7 : 3);
  std::uniform_real_distribution<float> real(-2.0f, 2.0f);
  std::uniform_int_distribution<int> small(-8, 8);
  std::vector<float> af(waves * 256), bf(waves * 256);
  const auto draw = [&] { return integers ? static_cast<float>(small(rng)) : real(rng); };
  for (int i = 0; i < waves * 256; ++i) {
    a[i] = bf16 ? to_bf16(draw()) : to_f16(draw());
    af[i] = bf16 ? from_bf16(a[i]) : from_f16(a[i]);
    b[i] = bf16 ? to_bf16(draw()) : to_f16(draw());
    bf[i] = bf16 ? from_bf16(b[i]) : from_f16(b[i]);
  }
  for (int i = 0; i < waves * 1024; ++i) c[i] = draw();
  hipLaunchKernelGGL(mfma_kernel, dim3(1), dim3(64 * waves), 0, 0, a, b, c, d, bf16 ? 1 : 0);
  report_launch("mfma", hipGetLastError());
  double worst = 0;
  int wrong = 0;
  for (int w = 0; w < waves; ++w) {
    for (int i = 0; i < 32; ++i) {
      for (int j = 0; j < 32; ++j) {
        double expect = c[w * 1024 + i * 32 + j], scale = std::fabs(expect);
        for (int k = 0; k < 8; ++k) {
          const double p = static_cast<double>(af[w * 256 + i * 8 + k]) * bf[w * 256 + k * 32 + j];
          expect += p;
          scale += std::fabs(p);
        }
        const double error = std::fabs(d[w * 1024 + i * 32 + j] - expect) / (scale > 0 ? scale : 1);
        worst = std::fmax(worst, error);
        if (integers ? d[w * 1024 + i * 32 + j] != expect : error > 4e-7) ++wrong;
      }
    }
  }
  printf("mfma_wrong %d\nmfma_worst_relative %.3g\n", wrong, worst);
  return 0;
}

// HIP 5.2 (amd_warp_functions.h) over ds_bpermute, whose index is taken modulo 64; missing lanes read 0.
int expected_shfl(int op, int self, int operand, int width, int lanes) {
  int index = self;
  if (op == 0) {
    index = operand + (self & ~(width - 1));
  } else if (op == 1) {
    index = self ^ operand;
    if (index >= ((self + width) & ~(width - 1))) index = self;
  } else if (op == 2) {
    index = self - operand;
    if (index < (self & ~(width - 1))) index = self;
  } else {
    index = self + operand;
    if ((self & (width - 1)) + operand >= width) index = self;
  }
  index &= 63;
  return index < lanes ? index : -1;
}

int run_shfl() {
  const int blocks = 2, threads = 96;  // wave 1 of each block has 32 lanes
  int* out = device<int>(blocks * shfl_case_count * threads);
  double* out64 = device<double>(blocks * threads);
  unsigned long long* ballots = device<unsigned long long>(blocks * threads);
  float4* out4 = device<float4>(blocks * threads);
  hipLaunchKernelGGL(shfl_kernel, dim3(blocks), dim3(threads), 0, 0, out, out64, ballots, out4);
  report_launch("shfl", hipGetLastError());
  int wrong = 0, checked = 0;
  for (int blk = 0; blk < blocks; ++blk) {
    for (int t = 0; t < threads; ++t) {
      const int wave = t / 64, lane = t % 64, lanes = wave == 0 ? 64 : threads - 64;
      for (int c = 0; c < shfl_case_count; ++c) {
        const shfl_case s = shfl_cases[c];
        const int src = expected_shfl(s.op, lane, s.operand, s.width, lanes);
        const int expect = src < 0 ? 0 : 1000 * blk + wave * 64 + src;
        ++checked;
        if (out[(blk * shfl_case_count + c) * threads + t] != expect) {
          if (wrong++ < 5) printf("shfl_mismatch block %d thread %d case %d: %d, expected %d\n", blk, t, c,
                                  out[(blk * shfl_case_count + c) * threads + t], expect);
        }
      }
      const int down = expected_shfl(3, lane, 1, 64, lanes);
      const double expect64 = down < 0 ? 0.0 : 1000.0 * blk + wave * 64 + down + 0.25;
      ++checked;
      if (out64[blk * threads + t] != expect64) ++wrong;
      const int xor1 = expected_shfl(1, lane, 1, 64, lanes);
      const float f = xor1 < 0 ? 0.0f : static_cast<float>(1000 * blk + wave * 64 + xor1);
      const float4 v = out4[blk * threads + t];
      ++checked;
      if (xor1 < 0 ? (v.x != 0 || v.y != 0 || v.z != 0 || v.w != 0)
                   : (v.x != f || v.y != f + 0.5f || v.z != -f || v.w != 2.0f * f))
        ++wrong;
      unsigned long long mask = 0;
      for (int l = 0; l < lanes; ++l)
        if ((wave * 64 + l) % 3 == 0) mask |= 1ull << l;
      ++checked;
      if (ballots[blk * threads + t] != mask) ++wrong;
    }
  }
  printf("shfl_checked %d\nshfl_wrong %d\n", checked, wrong);
  return 0;
}

int run_barrier() {
  const dim3 block(16, 8, 4), grid(3, 2, 1);
  const int n = 16 * 8 * 4, blocks = 6, live = 500;
  int* out = device<int>(blocks * n);
  hipLaunchKernelGGL(barrier_kernel, grid, block, n * sizeof(int), 0, out, live);
  report_launch("barrier", hipGetLastError());
  int wrong = 0;
  for (int b = 0; b < blocks; ++b) {
    for (int t = 0; t < live; ++t) {
      const int mirror = live - 1 - t;
      if (out[b * n + t] != 100000 * b + mirror - mirror) ++wrong;
    }
  }
  printf("barrier_wrong %d\n", wrong);
  float* fresh = device<float>(2 * 64);
  hipLaunchKernelGGL(fresh_shared_kernel, dim3(2), dim3(64), 0, 0, fresh);
  report_launch("fresh", hipGetLastError());
  int nan = 0;
  for (int i = 0; i < 128; ++i) nan += std::isnan(fresh[i]) ? 1 : 0;
  printf("fresh_nan %d\n", nan);
  return 0;
}

int run_faults() {
  float* y = device<float>(100);
  hipLaunchKernelGGL(oob_store_kernel, dim3(2), dim3(64), 0, 0, y, 100);
  report_launch("oob_store", hipGetLastError());
  printf("oob_store_address 0x%llx\n", static_cast<unsigned long long>(reinterpret_cast<uintptr_t>(y + 100)));
  hipLaunchKernelGGL(oob_shared_kernel, dim3(1), dim3(128), 128 * sizeof(float), 0, y);
  report_launch("oob_shared", hipGetLastError());
  std::vector<float> host(64, 1.0f);
  hipLaunchKernelGGL(host_memory_kernel, dim3(1), dim3(64), 0, 0, host.data(), y);
  report_launch("host_memory", hipGetLastError());
  int* out = device<int>(128);
  hipLaunchKernelGGL(divergent_kernel, dim3(1), dim3(64), 0, 0, out);
  report_launch("divergent", hipGetLastError());
  hipLaunchKernelGGL(deadlock_kernel, dim3(1), dim3(64), 0, 0, out);
  report_launch("deadlock", hipGetLastError());
  hipLaunchKernelGGL(trap_kernel, dim3(1), dim3(64), 0, 0, out);
  report_launch("trap", hipGetLastError());
  // A launch after the failures runs normally.
  hipLaunchKernelGGL(oob_store_kernel, dim3(1), dim3(64), 0, 0, y, 50);
  report_launch("after", hipGetLastError());
  printf("after_value %g\n", static_cast<double>(y[50]));
  return 0;
}

int main(int argc, char** argv) {
  const std::string mode = argc > 1 ? argv[1] : "";
  if (mode == "mfma_f16") return run_mfma(false, false);
  if (mode == "mfma_f16_integers") return run_mfma(false, true);
  if (mode == "mfma_bf16") return run_mfma(true, false);
  if (mode == "mfma_bf16_integers") return run_mfma(true, true);
  if (mode == "shfl") return run_shfl();
  if (mode == "barrier") return run_barrier();
  if (mode == "faults") return run_faults();
  fprintf(stderr, "unknown mode %s\n", mode.c_str());
  return 2;
}
)src";

// Builds the program once per text and compiler (ctest runs each test in its own process).
fs::path build_program(const fs::path& clang) {
  const std::string key =
      std::to_string(std::hash<std::string_view>{}(rocmtpl::device::amd_emulator_header_source) ^
                     std::hash<std::string_view>{}(rocmtpl::device::portable_header_source) ^
                     std::hash<std::string_view>{}(kernels_source) ^ std::hash<std::string>{}(clang.string()));
  const fs::path dir = fs::path(ROCMTPL_TEST_BINARY_DIR) / "amd_emulator_test" / key;
  const fs::path exe = dir / "emulator_check";
  if (fs::exists(exe)) return exe;
  fs::create_directories(dir);
  write_file(dir / rocmtpl::device::portable_header_name, rocmtpl::device::portable_header_source);
  write_file(dir / rocmtpl::device::amd_emulator_header_name, rocmtpl::device::amd_emulator_header_source);
  write_file(dir / "runtime.cpp", runtime_source);
  write_file(dir / "kernels.cpp", kernels_source);
  const std::string pid = std::to_string(::getpid());
  const std::vector<std::string> common{clang.string(), "-std=c++17", "-O1",        "-Wall",
                                        "-Wextra",      "-Werror",    "-Wno-psabi", "-I" + dir.string()};
  auto runtime = common;
  runtime.insert(runtime.end(), {"-c", (dir / "runtime.cpp").string(), "-o", (dir / ("runtime.o." + pid)).string()});
  auto kernels = common;
  kernels.insert(kernels.end(),
                 {"-DROCMTPL_AMD_EMULATOR=1", "-fsanitize-coverage=func,inline-bool-flag,trace-loads,trace-stores",
                  "-c", (dir / "kernels.cpp").string(), "-o", (dir / ("kernels.o." + pid)).string()});
  const std::vector<std::string> link{clang.string(),
                                      "-pthread",
                                      (dir / ("runtime.o." + pid)).string(),
                                      (dir / ("kernels.o." + pid)).string(),
                                      "-o",
                                      (dir / ("emulator_check." + pid)).string()};
  for (const auto& argv : {runtime, kernels, link}) {
    const auto r = run_logged(argv, dir / ("build.log." + pid));
    if (r.exit_code != 0) {
      ADD_FAILURE() << rocmtpl::detail::join(argv, " ") << "\n" << r.output;
      return {};
    }
  }
  fs::rename(dir / ("emulator_check." + pid), exe);
  return exe;
}

std::map<std::string, std::string> run_mode(const std::string& mode) {
  const auto clang = find_clang();
  if (!clang) return {{"skip", "no clang++-15 or later on PATH (apt-get install clang-15)"}};
  const fs::path exe = build_program(*clang);
  if (exe.empty()) return {{"error", "build failed"}};
  const auto r =
      run_logged({exe.string(), mode}, exe.parent_path() / ("run." + mode + "." + std::to_string(::getpid())));
  std::map<std::string, std::string> values{{"exit", std::to_string(r.exit_code)}, {"output", r.output}};
  std::istringstream in(r.output);
  for (std::string line; std::getline(in, line);) {
    const auto sp = line.find(' ');
    if (sp != std::string::npos) values.emplace(line.substr(0, sp), line.substr(sp + 1));
  }
  return values;
}

#define ROCMTPL_RUN_MODE(var, mode)                         \
  const auto var = run_mode(mode);                          \
  if (var.contains("skip")) GTEST_SKIP() << var.at("skip"); \
  ASSERT_FALSE(var.contains("error"));                      \
  ASSERT_EQ(var.at("exit"), "0") << var.at("output")

TEST(AmdEmulator, EmbeddedTextIsAGuardedHeaderSelectedByThePortabilityHeader) {
  const std::string_view text = rocmtpl::device::amd_emulator_header_source;
  EXPECT_EQ(rocmtpl::device::amd_emulator_header_name, "rocmtpl_amd_emu.h");
  EXPECT_TRUE(text.starts_with("// SPDX-License-Identifier: MIT\n"));
  EXPECT_NE(text.find("#ifndef ROCMTPL_AMD_EMU_H\n#define ROCMTPL_AMD_EMU_H\n"), std::string_view::npos);
  EXPECT_TRUE(text.ends_with("#endif  // ROCMTPL_AMD_EMU_H\n"));
  const std::string_view portable = rocmtpl::device::portable_header_source;
  const auto emu = portable.find("#if defined(ROCMTPL_AMD_EMULATOR)");
  ASSERT_NE(emu, std::string_view::npos);
  EXPECT_LT(emu, portable.find("#include <hip/hip_runtime.h>")) << "the emulator branch comes before hipcc's";
  EXPECT_NE(portable.find("#include \"rocmtpl_amd_emu.h\""), std::string_view::npos);
}

TEST(AmdEmulator, MfmaF32_32x32x8F16MatchesAPlainMatrixProduct) {
  ROCMTPL_RUN_MODE(v, "mfma_f16");
  EXPECT_EQ(v.at("mfma_rc"), "0") << v.at("output");
  EXPECT_EQ(v.at("mfma_wrong"), "0") << v.at("output");
  ROCMTPL_RUN_MODE(exact, "mfma_f16_integers");
  EXPECT_EQ(exact.at("mfma_wrong"), "0") << exact.at("output");
}

TEST(AmdEmulator, MfmaF32_32x32x8Bf16_1kMatchesAPlainMatrixProduct) {
  ROCMTPL_RUN_MODE(v, "mfma_bf16");
  EXPECT_EQ(v.at("mfma_rc"), "0") << v.at("output");
  EXPECT_EQ(v.at("mfma_wrong"), "0") << v.at("output");
  ROCMTPL_RUN_MODE(exact, "mfma_bf16_integers");
  EXPECT_EQ(exact.at("mfma_wrong"), "0") << exact.at("output");
}

TEST(AmdEmulator, ShufflesAndBallotsActOnWave64AsHipDefinesThem) {
  ROCMTPL_RUN_MODE(v, "shfl");
  EXPECT_EQ(v.at("shfl_rc"), "0") << v.at("output");
  EXPECT_GT(std::stoi(v.at("shfl_checked")), 3000);
  EXPECT_EQ(v.at("shfl_wrong"), "0") << v.at("output");
}

TEST(AmdEmulator, BarriersSharedMemoryAndThreeDimensionalIndices) {
  ROCMTPL_RUN_MODE(v, "barrier");
  EXPECT_EQ(v.at("barrier_rc"), "0") << v.at("output");
  EXPECT_EQ(v.at("barrier_wrong"), "0") << v.at("output");
  EXPECT_EQ(v.at("fresh_rc"), "0") << v.at("output");
  EXPECT_EQ(v.at("fresh_nan"), "128") << "shared memory starts as 0xff bytes (NaN) in every block";
}

TEST(AmdEmulator, FaultsStopTheLaunchAndNameKernelBlockLaneAndAddress) {
  ROCMTPL_RUN_MODE(v, "faults");
  const std::string launch_failure = "719";  // hipErrorLaunchFailure
  EXPECT_EQ(v.at("oob_store_rc"), launch_failure);
  const std::string& store = v.at("oob_store_message");
  // Element 100 is thread 36 of block 1 (64 threads a block): wave 0, lane 36.
  EXPECT_NE(store.find("kernel oob_store_kernel, block (1, 0, 0), thread (36, 0, 0) (wave 0, lane 36)"),
            std::string::npos)
      << store;
  EXPECT_NE(store.find("out-of-bounds 4-byte store at address " + v.at("oob_store_address")), std::string::npos)
      << store;
  EXPECT_NE(store.find("byte offset 400 of the 400-byte device allocation"), std::string::npos) << store;
  EXPECT_EQ(v.at("oob_shared_rc"), launch_failure);
  EXPECT_NE(v.at("oob_shared_message").find("thread (127, 0, 0) (wave 1, lane 63): out-of-bounds 4-byte load"),
            std::string::npos)
      << v.at("oob_shared_message");
  EXPECT_NE(v.at("oob_shared_message").find("512 bytes of dynamic shared memory"), std::string::npos);
  EXPECT_EQ(v.at("host_memory_rc"), launch_failure);
  EXPECT_NE(v.at("host_memory_message").find("thread (0, 0, 0) (wave 0, lane 0): out-of-bounds 4-byte load"),
            std::string::npos)
      << v.at("host_memory_message");
  EXPECT_EQ(v.at("divergent_rc"), launch_failure);
  EXPECT_NE(v.at("divergent_message").find("divergent lane operations"), std::string::npos)
      << v.at("divergent_message");
  EXPECT_EQ(v.at("deadlock_rc"), launch_failure);
  EXPECT_NE(v.at("deadlock_message").find("deadlock"), std::string::npos) << v.at("deadlock_message");
  EXPECT_EQ(v.at("trap_rc"), launch_failure);
  EXPECT_NE(v.at("trap_message").find("thread (5, 0, 0) (wave 0, lane 5): __trap()"), std::string::npos)
      << v.at("trap_message");
  EXPECT_EQ(v.at("after_rc"), "0");
  EXPECT_EQ(v.at("after_message"), "");
  EXPECT_EQ(v.at("after_value"), "1");
}

}  // namespace
