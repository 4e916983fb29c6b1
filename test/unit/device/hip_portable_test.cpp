// SPDX-License-Identifier: MIT
// Tests include/rocmtpl/device/hip_portable.hpp: the embedded rocmtpl_hip_portable.h is written to
// a temporary folder and built (1) with g++ into a host program that checks the conversions
// against an independent oracle, (2) with hipcc for gfx90a+gfx940 and (3) with nvcc for sm_90 and
// sm_80, together with a kernel source that uses every facility, warnings as errors.

#include <rocmtpl/device/hip_portable.hpp>

// The pure layer's header pulls in nothing heavy and nothing of the runtime layer.
#if defined(FMT_VERSION) || defined(XXH_VERSION_NUMBER) || defined(_DLFCN_H) || defined(NLOHMANN_JSON_VERSION_MAJOR)
#error "rocmtpl/device/hip_portable.hpp must include only <string_view>"
#endif

#include <rocmtpl/detail/strings.hpp>

#include "support/process.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <map>
#include <optional>
#include <regex>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

namespace {

namespace fs = std::filesystem;
using rocmtpl::test::run_logged;
using rocmtpl::test::temp_dir;
using rocmtpl::test::write_file;

std::string join(const std::vector<std::string>& argv) { return rocmtpl::detail::join(argv, " "); }

bool is_executable(const fs::path& p) { return !p.empty() && ::access(p.c_str(), X_OK) == 0 && !fs::is_directory(p); }

// First of: the given candidates (env-derived first), then PATH.
std::optional<fs::path> find_program(const std::string& name, const std::vector<fs::path>& candidates) {
  for (const auto& c : candidates) {
    if (is_executable(c)) return c;
  }
  if (const char* path = std::getenv("PATH")) {
    std::stringstream dirs(path);
    std::string dir;
    while (std::getline(dirs, dir, ':')) {
      if (!dir.empty() && is_executable(fs::path(dir) / name)) return fs::path(dir) / name;
    }
  }
  return std::nullopt;
}

std::optional<fs::path> find_hipcc() {
  std::vector<fs::path> candidates;
  if (const char* rocm = std::getenv("ROCM_PATH")) candidates.push_back(fs::path(rocm) / "bin" / "hipcc");
  candidates.emplace_back("/usr/bin/hipcc");
  return find_program("hipcc", candidates);
}

std::optional<fs::path> find_nvcc() {
  std::vector<fs::path> candidates;
  if (const char* cuda = std::getenv("CUDA_PATH")) candidates.push_back(fs::path(cuda) / "bin" / "nvcc");
  candidates.emplace_back("/usr/local/cuda/bin/nvcc");
  return find_program("nvcc", candidates);
}

void write_header(const fs::path& dir) {
  write_file(dir / rocmtpl::device::portable_header_name, rocmtpl::device::portable_header_source);
}

// A kernel source as the template layer emits it, using every facility of the header.
constexpr std::string_view sample_kernel_source = R"src(#include "rocmtpl_hip_portable.h"
using bfloat16 = hip_bfloat16;

static_assert(sizeof(hip_bfloat16) == 2, "hip_bfloat16 is 16 bits");
static_assert(sizeof(__half) == 2, "__half is 16 bits");
static_assert(ROCMTPL_WARP_SIZE == rocmtpl_dev::warp_size, "one warp size");
#if defined(ROCMTPL_PLATFORM_AMD) == defined(ROCMTPL_PLATFORM_NVIDIA)
#error "exactly one platform macro must be defined under a GPU compiler"
#endif

__global__ void convert_kernel(const uint16_t* f16_in, const uint16_t* bf16_in, const float* f32_in,
                               float* f32_out, __half* f16_out, bfloat16* bf16_out, uint16_t* raw_out, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n) return;
  bfloat16 b;
  b.data = bf16_in[i];
  const float v = rocmtpl_dev::to_float(f16_in[i]) + rocmtpl_dev::bf16_bits_to_float(bf16_in[i]) +
                  rocmtpl_dev::to_float(b) + rocmtpl_dev::to_float(f32_in[i]) +
                  rocmtpl_dev::half_bits_to_float(f16_in[i]) + static_cast<float>(b);
  const __half h = rocmtpl_dev::from_float<__half>(v);
  f16_out[i] = h;
  bf16_out[i] = rocmtpl_dev::from_float<bfloat16>(rocmtpl_dev::to_float(h));
  raw_out[i] = static_cast<uint16_t>(rocmtpl_dev::float_to_half_bits(v) ^ rocmtpl_dev::float_to_bf16_bits(v) ^
                                     rocmtpl_dev::from_float<uint16_t>(v));
  f32_out[i] = rocmtpl_dev::from_float<float>(__half2float(h)) + static_cast<float>(bfloat16(v));
}

ROCMTPL_DEVICE ROCMTPL_FORCEINLINE float warp_sum(float v) {
  for (int offset = ROCMTPL_WARP_SIZE / 2; offset > 0; offset /= 2) v += __shfl_down(v, static_cast<unsigned>(offset));
  return v;
}

ROCMTPL_HOST_DEVICE ROCMTPL_FORCEINLINE int ceil_div(int a, int b) { return (a + b - 1) / b; }

__global__ void __launch_bounds__(256) reduce_kernel(const float* in, float* out, int n) {
  HIP_DYNAMIC_SHARED(float, partial);
  float v = 0.0f;
  for (int i = static_cast<int>(threadIdx.x); i < n; i += static_cast<int>(blockDim.x)) v += in[i];
  v = warp_sum(v);
  // Every lane holds the same total after the butterfly; __shfl reads lane 0 explicitly.
  for (int mask = 1; mask < ROCMTPL_WARP_SIZE; mask *= 2) v = fmaxf(v, __shfl_xor(v, mask));
  v = __shfl(v, 0);
  const int lane = static_cast<int>(threadIdx.x) % warpSize;
  const int warp = static_cast<int>(threadIdx.x) / warpSize;
  if (lane == 0) partial[warp] = v;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0.0f;
    for (int w = 0; w < ceil_div(static_cast<int>(blockDim.x), warpSize); ++w) total += partial[w];
    out[0] = total + __shfl_up(0.0f, 1u) * 0.0f;
  }
}

template <int Scale, class T>
__global__ void scale_kernel(T* data, int n) {
  HIP_DYNAMIC_SHARED(double, scratch);
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (threadIdx.x == 0) scratch[0] = static_cast<double>(Scale);
  __syncthreads();
  if (i < n) data[i] = static_cast<T>(static_cast<double>(data[i]) * scratch[0]);
}

#define PT_EXPORT __attribute__((__visibility__("default")))

extern "C" PT_EXPORT int rocmtpl_sample_entry(const float* X, float* Y, int64_t n, size_t* workspace_size,
                                              uint8_t* workspace, hipStream_t stream) {
  if (workspace_size != nullptr) {
    *workspace_size = 16;
    return 0;
  }
  if (X == nullptr || Y == nullptr || workspace == nullptr) return 1;
  int device = 0;
  if (hipGetDevice(&device) != hipSuccess) return 2;
  int compute_units = 0, optin = 0, per_block = 0;
  if (hipDeviceGetAttribute(&compute_units, hipDeviceAttributeMultiprocessorCount, device) != hipSuccess) return 3;
  if (hipDeviceGetAttribute(&optin, hipDeviceAttributeSharedMemPerBlockOptin, device) != hipSuccess) return 3;
  if (hipDeviceGetAttribute(&per_block, hipDeviceAttributeMaxSharedMemoryPerBlock, device) != hipSuccess) return 3;
  const size_t shared = (256 / ROCMTPL_WARP_SIZE) * sizeof(float);
  if (static_cast<size_t>(optin > per_block ? optin : per_block) < shared) return 4;
  if (hipFuncSetAttribute(reinterpret_cast<const void*>(&reduce_kernel), hipFuncAttributeMaxDynamicSharedMemorySize,
                          static_cast<int>(shared)) != hipSuccess) {
    return 5;
  }
  if (hipMemsetAsync(workspace, 0, 16, stream) != hipSuccess) return 6;
  const int count = static_cast<int>(n);
  hipLaunchKernelGGL(reduce_kernel, dim3(1), dim3(256), shared, stream, X, Y, count);
  reduce_kernel<<<dim3(1), dim3(256), shared, stream>>>(X, Y, count);
  hipLaunchKernelGGL(HIP_KERNEL_NAME(scale_kernel<2, float>), dim3(ceil_div(count, 256)), dim3(256), sizeof(double),
                     stream, Y, 1);
  if (hipMemcpyAsync(workspace, Y, sizeof(float), hipMemcpyDeviceToDevice, stream) != hipSuccess) return 7;
  const hipError_t launch = hipGetLastError();
  if (launch != hipSuccess) return hipGetErrorString(launch) != nullptr ? 8 : 9;
  if (hipPeekAtLastError() != hipSuccess) return 10;
  (void)compute_units;
  return 0;
}

extern "C" PT_EXPORT int rocmtpl_sample_convert(const uint16_t* f16_in, const uint16_t* bf16_in, const float* f32_in,
                                                float* f32_out, uint16_t* f16_out, uint16_t* bf16_out,
                                                uint16_t* raw_out, int n, hipStream_t stream) {
  hipLaunchKernelGGL(convert_kernel, dim3(ceil_div(n, 128)), dim3(128), 0, stream, f16_in, bf16_in, f32_in,
                     f32_out, reinterpret_cast<__half*>(f16_out), reinterpret_cast<bfloat16*>(bf16_out), raw_out, n);
  if (hipGetLastError() != hipSuccess) return 1;
  return hipDeviceSynchronize() == hipSuccess ? 0 : 2;
}
)src";

// Host program: checks the conversions against an oracle computed from first principles (ldexp
// and exact double comparisons), not from the header's own bit tricks, and prints key=value lines.
constexpr std::string_view host_check_source = R"src(#include "rocmtpl_hip_portable.h"
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>

static_assert(ROCMTPL_WARP_SIZE == 64, "host compilers see the gfx9 default");
#if defined(ROCMTPL_PLATFORM_AMD) || defined(ROCMTPL_PLATFORM_NVIDIA)
#error "a plain host compiler must not select a GPU platform"
#endif

namespace {
float bits_float(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
uint32_t float_bits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }

// Value of a finite binary16 pattern, from the IEEE definition.
double half_value(uint16_t h) {
  const int sign = (h >> 15) ? -1 : 1;
  const int exponent = (h >> 10) & 0x1f;
  const int mantissa = h & 0x3ff;
  if (exponent == 0) return sign * std::ldexp(static_cast<double>(mantissa), -24);
  return sign * std::ldexp(static_cast<double>(1024 + mantissa), exponent - 25);
}

// Nearest binary16 to x (finite, non-negative handled by symmetry), ties to even, >= 65520 -> inf.
uint16_t oracle_half(float f) {
  if (std::isnan(f)) return 0x7e00;
  const uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  const double x = std::fabs(static_cast<double>(f));
  if (x >= 65520.0) return static_cast<uint16_t>(sign | 0x7c00);
  uint16_t lo = 0, hi = 0x7bff;  // largest pattern with value <= x
  while (lo < hi) {
    const uint16_t mid = static_cast<uint16_t>((lo + hi + 1) / 2);
    if (half_value(mid) <= x) lo = mid; else hi = static_cast<uint16_t>(mid - 1);
  }
  uint16_t best = lo;
  if (lo < 0x7bff) {
    const double below = x - half_value(lo), above = half_value(static_cast<uint16_t>(lo + 1)) - x;
    if (above < below || (above == below && (lo & 1))) best = static_cast<uint16_t>(lo + 1);
  } else if (x > 65504.0) {
    best = 0x7bff;  // 65504 < x < 65520 rounds down
  }
  return static_cast<uint16_t>(sign | best);
}

uint16_t oracle_bf16(float f) {
  if (std::isnan(f)) return 0x7fc0;
  const uint32_t u = float_bits(f);
  const uint16_t truncated = static_cast<uint16_t>(u >> 16);
  if ((u & 0xffff) == 0) return truncated;
  const double x = static_cast<double>(f);
  const double lo = static_cast<double>(bits_float(static_cast<uint32_t>(truncated) << 16));
  // Next bf16 away from zero; from the largest finite magnitude that is infinity.
  const uint16_t next = static_cast<uint16_t>(truncated + 1);
  const double hi = (next & 0x7fff) == 0x7f80 ? std::copysign(std::ldexp(1.0, 128), x)
                                               : static_cast<double>(bits_float(static_cast<uint32_t>(next) << 16));
  const double d_lo = std::fabs(x - lo), d_hi = std::fabs(hi - x);
  if (d_hi < d_lo || (d_hi == d_lo && (truncated & 1))) return next;
  return truncated;
}

bool same_half(uint16_t a, uint16_t b) {
  const bool a_nan = (a & 0x7c00) == 0x7c00 && (a & 0x3ff);
  const bool b_nan = (b & 0x7c00) == 0x7c00 && (b & 0x3ff);
  return a_nan || b_nan ? (a_nan && b_nan) : a == b;
}
bool same_bf16(uint16_t a, uint16_t b) {
  const bool a_nan = (a & 0x7f80) == 0x7f80 && (a & 0x7f);
  const bool b_nan = (b & 0x7f80) == 0x7f80 && (b & 0x7f);
  return a_nan || b_nan ? (a_nan && b_nan) : a == b;
}
}  // namespace

int main() {
  using namespace rocmtpl_dev;
  long checked = 0, bad_h2f = 0, bad_f2h = 0, bad_bf2f = 0, bad_f2bf = 0;
  for (uint32_t h = 0; h <= 0xffff; ++h) {
    const uint16_t bits = static_cast<uint16_t>(h);
    const float f = half_bits_to_float(bits);
    const bool is_nan = (bits & 0x7c00) == 0x7c00 && (bits & 0x3ff);
    const bool is_inf = (bits & 0x7fff) == 0x7c00;
    bool ok;
    if (is_nan) ok = std::isnan(f);
    else if (is_inf) ok = std::isinf(f) && (std::signbit(f) == static_cast<bool>(bits & 0x8000));
    else ok = static_cast<double>(f) == half_value(bits) && std::signbit(f) == static_cast<bool>(bits & 0x8000);
    if (!ok) ++bad_h2f;
    if (to_float(bits) != f && !is_nan) ++bad_h2f;
    // Round trip: every half survives float and back.
    if (!same_half(float_to_half_bits(f), bits)) ++bad_f2h;
    const float b = bf16_bits_to_float(bits);
    if (float_bits(b) != (static_cast<uint32_t>(bits) << 16)) ++bad_bf2f;
    if (!same_bf16(float_to_bf16_bits(b), bits)) ++bad_f2bf;
  }
  // Floats at every rounding boundary of binary16: each exponent from below the subnormal range to
  // beyond the largest half, every kept mantissa prefix, the dropped bits around the halfway point.
  for (uint32_t exponent = 95; exponent <= 145; ++exponent) {
    const uint32_t dropped = exponent >= 113 ? 13u : (126u - exponent > 23u ? 23u : 126u - exponent);
    const uint32_t halfway = 1u << (dropped - 1u);
    const uint32_t tails[] = {0u, 1u, halfway - 1u, halfway, halfway + 1u, 2u * halfway - 1u};
    for (uint32_t prefix = 0; prefix < (1u << (23u - dropped)); ++prefix) {
      for (uint32_t tail : tails) {
        for (uint32_t sign = 0; sign < 2; ++sign) {
          const float f = bits_float((sign << 31) | (exponent << 23) | (prefix << dropped) | tail);
          if (!same_half(float_to_half_bits(f), oracle_half(f))) ++bad_f2h;
          if (from_float<uint16_t>(f) != float_to_half_bits(f)) ++bad_f2h;
          ++checked;
        }
      }
    }
  }
  // The same for bfloat16 (16 dropped bits), over every exponent including inf/NaN.
  for (uint32_t exponent = 0; exponent <= 255; ++exponent) {
    const uint32_t tails[] = {0x0u, 0x1u, 0x7fffu, 0x8000u, 0x8001u, 0xffffu};
    for (uint32_t prefix = 0; prefix < 128; ++prefix) {
      for (uint32_t tail : tails) {
        for (uint32_t sign = 0; sign < 2; ++sign) {
          const float f = bits_float((sign << 31) | (exponent << 23) | (prefix << 16) | tail);
          if (!same_bf16(float_to_bf16_bits(f), oracle_bf16(f))) ++bad_f2bf;
          ++checked;
        }
      }
    }
  }
  std::mt19937 rng(12345);
  for (int i = 0; i < 2000000; ++i) {
    const float f = bits_float(static_cast<uint32_t>(rng()));
    if (!same_half(float_to_half_bits(f), oracle_half(f))) ++bad_f2h;
    if (!same_bf16(float_to_bf16_bits(f), oracle_bf16(f))) ++bad_f2bf;
    ++checked;
  }
  std::printf("checked=%ld\n", checked);
  std::printf("bad_half_to_float=%ld\nbad_float_to_half=%ld\nbad_bf16_to_float=%ld\nbad_float_to_bf16=%ld\n", bad_h2f,
              bad_f2h, bad_bf2f, bad_f2bf);
  struct named {
    const char* name;
    float value;
  };
  const named samples[] = {{"one", 1.0f},
                           {"minus_two", -2.0f},
                           {"zero", 0.0f},
                           {"minus_zero", -0.0f},
                           {"max_half", 65504.0f},
                           {"below_half_overflow_tie", 65519.0f},
                           {"half_overflow_tie", 65520.0f},
                           {"half_tie_down", 1.0f + std::ldexp(1.0f, -11)},
                           {"half_tie_up", 1.0f + 3.0f * std::ldexp(1.0f, -11)},
                           {"smallest_subnormal", std::ldexp(1.0f, -24)},
                           {"subnormal_tie_down", std::ldexp(1.0f, -25)},
                           {"above_subnormal_tie", 1.5f * std::ldexp(1.0f, -25)},
                           {"subnormal_tie_up", 3.0f * std::ldexp(1.0f, -25)},
                           {"bf16_tie_down", 1.0f + std::ldexp(1.0f, -8)},
                           {"bf16_tie_up", 1.0f + 3.0f * std::ldexp(1.0f, -8)},
                           {"bf16_max", bits_float(0x7f7f0000u)},
                           {"bf16_overflow_tie", bits_float(0x7f7f8000u)},
                           {"inf", INFINITY},
                           {"minus_inf", -INFINITY},
                           {"nan", NAN}};
  for (const named& s : samples) {
    std::printf("f2h_%s %04x\n", s.name, float_to_half_bits(s.value));
    std::printf("f2bf_%s %04x\n", s.name, float_to_bf16_bits(s.value));
  }
  std::printf("to_float_double %a\n", static_cast<double>(to_float(0.1)));
  std::printf("from_float_double %a\n", from_float<double>(0.5f));
  std::printf("warp_size %d\n", warp_size);
  return 0;
}
)src";

std::map<std::string, std::string> parse_lines(const std::string& output) {
  std::map<std::string, std::string> values;
  std::istringstream in(output);
  std::string line;
  while (std::getline(in, line)) {
    if (const auto eq = line.find('='); eq != std::string::npos) {
      values[line.substr(0, eq)] = line.substr(eq + 1);
    } else if (const auto sp = line.rfind(' '); sp != std::string::npos) {
      values[line.substr(0, sp)] = line.substr(sp + 1);
    }
  }
  return values;
}

TEST(HipPortable, EmbeddedTextIsAGuardedHeader) {
  const std::string_view text = rocmtpl::device::portable_header_source;
  EXPECT_EQ(rocmtpl::device::portable_header_name, "rocmtpl_hip_portable.h");
  EXPECT_TRUE(text.starts_with("// SPDX-License-Identifier: MIT\n"));
  EXPECT_NE(text.find("#ifndef ROCMTPL_HIP_PORTABLE_H\n#define ROCMTPL_HIP_PORTABLE_H\n"), std::string_view::npos);
  EXPECT_TRUE(text.ends_with("#endif  // ROCMTPL_HIP_PORTABLE_H\n"));
  // The templates emit `using bfloat16 = hip_bfloat16;` themselves (reference globals()).
  EXPECT_FALSE(std::regex_search(std::string(text), std::regex(R"(using\s+bfloat16\b)")));
  // Never the HIP nvidia_detail path that does not build under CUDA 13.
  EXPECT_EQ(text.find("nvidia_detail"), std::string_view::npos);
}

TEST(HipPortable, HostConversionsMatchIeeeOracle) {
  const auto cxx = find_program("g++", {});
  if (!cxx) GTEST_SKIP() << "g++ not found on PATH; cannot build the host conversion check";
  temp_dir dir("rocmtpl-hip-portable");
  write_header(dir.path());
  write_file(dir.path() / "host_check.cpp", host_check_source);
  const fs::path exe = dir.path() / "host_check";
  const std::vector<std::string> build = {
      cxx->string(),  "-std=c++14", "-O2",     "-Wall", "-Wextra",           "-Wpedantic",
      "-Wconversion", "-Wshadow",   "-Werror", "-I",    dir.path().string(), (dir.path() / "host_check.cpp").string(),
      "-o",           exe.string()};
  const auto built = run_logged(build, dir.path() / "build.log");
  ASSERT_EQ(built.exit_code, 0) << join(build) << "\n" << built.output;
  const auto ran = run_logged({exe.string()}, dir.path() / "run.log");
  ASSERT_EQ(ran.exit_code, 0) << ran.output;
  const auto values = parse_lines(ran.output);
  ASSERT_TRUE(values.contains("checked")) << ran.output;
  EXPECT_GT(std::stol(values.at("checked")), 2000000);
  EXPECT_EQ(values.at("bad_half_to_float"), "0");
  EXPECT_EQ(values.at("bad_float_to_half"), "0");
  EXPECT_EQ(values.at("bad_bf16_to_float"), "0");
  EXPECT_EQ(values.at("bad_float_to_bf16"), "0");
  // Known IEEE encodings (binary16: 1.0 = 0x3c00, max 65504 = 0x7bff; bfloat16: 1.0 = 0x3f80).
  const std::map<std::string, std::string> expected = {
      {"f2h_one", "3c00"},
      {"f2bf_one", "3f80"},
      {"f2h_minus_two", "c000"},
      {"f2bf_minus_two", "c000"},
      {"f2h_zero", "0000"},
      {"f2h_minus_zero", "8000"},
      {"f2bf_minus_zero", "8000"},
      {"f2h_max_half", "7bff"},
      {"f2h_below_half_overflow_tie", "7bff"},
      {"f2h_half_overflow_tie", "7c00"},  // 65520: halfway to 65536, even side is inf
      {"f2h_half_tie_down", "3c00"},      // 1 + 2^-11: halfway, even neighbour is 1.0
      {"f2h_half_tie_up", "3c02"},        // 1 + 3*2^-11: halfway, even neighbour is above
      {"f2h_smallest_subnormal", "0001"},
      {"f2h_subnormal_tie_down", "0000"},  // 2^-25: halfway between 0 and 2^-24
      {"f2h_above_subnormal_tie", "0001"},
      {"f2h_subnormal_tie_up", "0002"},  // 3*2^-25: halfway between 1 and 2 subnormal steps
      {"f2bf_bf16_tie_down", "3f80"},    // 1 + 2^-8
      {"f2bf_bf16_tie_up", "3f82"},      // 1 + 3*2^-8
      {"f2bf_bf16_max", "7f7f"},
      {"f2bf_bf16_overflow_tie", "7f80"},
      {"f2h_inf", "7c00"},
      {"f2h_minus_inf", "fc00"},
      {"f2bf_inf", "7f80"},
      {"f2bf_minus_inf", "ff80"},
  };
  for (const auto& [key, bits] : expected) {
    ASSERT_TRUE(values.contains(key)) << key << "\n" << ran.output;
    EXPECT_EQ(values.at(key), bits) << key;
  }
  // NaN stays NaN (exponent all ones, mantissa non-zero).
  const auto nan_half = std::stoul(values.at("f2h_nan"), nullptr, 16);
  EXPECT_EQ(nan_half & 0x7c00u, 0x7c00u);
  EXPECT_NE(nan_half & 0x3ffu, 0u);
  const auto nan_bf16 = std::stoul(values.at("f2bf_nan"), nullptr, 16);
  EXPECT_EQ(nan_bf16 & 0x7f80u, 0x7f80u);
  EXPECT_NE(nan_bf16 & 0x7fu, 0u);
  EXPECT_EQ(values.at("from_float_double"), "0x1p-1");
  EXPECT_EQ(values.at("to_float_double"), "0x1.99999ap-4");  // 0.1 rounded to float
}

void expect_kernel_builds(const std::vector<std::string>& argv_without_io, const std::string& extension,
                          const char* what) {
  temp_dir dir("rocmtpl-hip-portable");
  write_header(dir.path());
  const fs::path source = dir.path() / ("sample" + extension);
  write_file(source, sample_kernel_source);
  const fs::path library = dir.path() / "libsample.so";
  std::vector<std::string> argv = argv_without_io;
  argv.insert(argv.end(), {"-I", dir.path().string(), source.string(), "-o", library.string()});
  const auto built = run_logged(argv, dir.path() / "build.log");
  ASSERT_EQ(built.exit_code, 0) << what << ": " << join(argv) << "\n" << built.output;
  EXPECT_EQ(built.output.find("warning"), std::string::npos) << built.output;
  ASSERT_TRUE(fs::is_regular_file(library));
  EXPECT_GT(fs::file_size(library), 0u);
  if (const auto nm = find_program("nm", {})) {
    const auto symbols = run_logged({nm->string(), "-D", "--defined-only", library.string()}, dir.path() / "nm.log");
    ASSERT_EQ(symbols.exit_code, 0) << symbols.output;
    EXPECT_NE(symbols.output.find(" T rocmtpl_sample_entry"), std::string::npos) << symbols.output;
    EXPECT_NE(symbols.output.find(" T rocmtpl_sample_convert"), std::string::npos) << symbols.output;
  }
}

TEST(HipPortable, SampleKernelBuildsWithHipccForGfx90aAndGfx940) {
  const auto hipcc = find_hipcc();
  if (!hipcc) GTEST_SKIP() << "hipcc not found (ROCM_PATH/bin, /usr/bin, PATH); install the Debian hipcc package";
  // No -std: hipcc (clang 15) defaults to C++14, which the header must accept.
  expect_kernel_builds({hipcc->string(), "-O2", "-fPIC", "-shared", "--offload-arch=gfx90a", "--offload-arch=gfx940",
                        "-Wall", "-Wextra", "-Werror"},
                       ".hip", "hipcc");
}

TEST(HipPortable, SampleKernelBuildsWithNvccForSm90) {
  const auto nvcc = find_nvcc();
  if (!nvcc) GTEST_SKIP() << "nvcc not found (CUDA_PATH/bin, /usr/local/cuda/bin, PATH); install the CUDA toolkit";
  expect_kernel_builds({nvcc->string(), "-arch=sm_90", "-O2", "-shared", "-Xcompiler", "-fPIC", "-Xcompiler",
                        "-Wall,-Wextra", "-Werror", "all-warnings", "-x", "cu"},
                       ".cu", "nvcc sm_90");
}

TEST(HipPortable, SampleKernelBuildsWithNvccForSm80InCxx14) {
  const auto nvcc = find_nvcc();
  if (!nvcc) GTEST_SKIP() << "nvcc not found (CUDA_PATH/bin, /usr/local/cuda/bin, PATH); install the CUDA toolkit";
  expect_kernel_builds({nvcc->string(), "-arch=sm_80", "-std=c++14", "-O2", "-shared", "-Xcompiler", "-fPIC",
                        "-Xcompiler", "-Wall,-Wextra", "-Werror", "all-warnings", "-x", "cu"},
                       ".cu", "nvcc sm_80");
}

}  // namespace
