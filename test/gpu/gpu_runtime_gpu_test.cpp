// SPDX-License-Identifier: MIT
// Tests include/rocmtpl/runtime/gpu/gpu_runtime.hpp on a real GPU (skips without one): device
// properties, memory round trips, streams, events, typed errors. Also runs kernels that use the
// portable header (rocmtpl_hip_portable.h, from device_include_dir()) built with nvcc or hipcc,
// so that its conversions, warp shuffles, dynamic shared memory and activations (gelu, gelu_tanh,
// sigmoid, silu) are checked on the device.

#include <rocmtpl/runtime/build/compiler.hpp>
#include <rocmtpl/runtime/build/device_headers.hpp>
#include <rocmtpl/runtime/gpu/gpu_runtime.hpp>
#include <rocmtpl/runtime/sys/process.hpp>

#include "support/temp_dir.hpp"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <iostream>
#include <limits>
#include <numbers>
#include <numeric>
#include <optional>
#include <random>
#include <regex>
#include <string>
#include <vector>

namespace {

namespace fs = std::filesystem;
using rocmtpl::runtime::device_buffer;
using rocmtpl::runtime::gpu_error;
using rocmtpl::runtime::gpu_runtime;
using rocmtpl::runtime::no_gpu_error;
using rocmtpl::runtime::platform;

class GpuRuntimeGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!rt().available()) GTEST_SKIP() << "no GPU: " << rt().status();
  }
  static const gpu_runtime& rt() { return gpu_runtime::instance(); }
};

TEST_F(GpuRuntimeGpu, PropertiesAreSane) {
  std::cout << "runtime: " << rt().status() << '\n';
  for (int d = 0; d < rt().device_count(); ++d) {
    const auto p = rt().properties(d);
    std::cout << "device " << d << ": " << p.name << ", " << p.arch << ", " << p.compute_units << " CUs, L2 "
              << p.l2_cache_bytes << " B, shared " << p.shared_memory_per_block << "/"
              << p.shared_memory_per_block_optin << " B, memory " << p.total_memory << " B, warp " << p.warp_size
              << ", clock " << p.clock_khz << " kHz\n";
    EXPECT_EQ(p.ordinal, d);
    EXPECT_EQ(p.kind, *rt().kind());
    EXPECT_FALSE(p.name.empty());
    if (p.kind == platform::nvidia) {
      EXPECT_TRUE(std::regex_match(p.arch, std::regex("sm_[0-9]{2,3}"))) << p.arch;
      EXPECT_EQ(p.warp_size, 32);
      if (p.name.find("H100") != std::string::npos || p.name.find("H200") != std::string::npos) {
        EXPECT_EQ(p.arch, "sm_90");
        EXPECT_LE(p.compute_units, 132) << "at most 132 SMs (fewer on PCIe cards and MIG slices)";
        EXPECT_EQ(p.shared_memory_per_block_optin, 227u * 1024u) << "sm_90 opt-in limit";
        EXPECT_EQ(p.shared_memory_per_block, 48u * 1024u);
      }
    } else {
      EXPECT_TRUE(std::regex_match(p.arch, std::regex("gfx[0-9a-f]+"))) << p.arch;
      EXPECT_TRUE(p.warp_size == 32 || p.warp_size == 64) << p.warp_size;
    }
    EXPECT_GT(p.compute_units, 0);
    EXPECT_GT(p.l2_cache_bytes, 0u);
    EXPECT_GE(p.shared_memory_per_block, 16u * 1024u);
    EXPECT_GE(p.shared_memory_per_block_optin, p.shared_memory_per_block);
    EXPECT_GT(p.total_memory, std::size_t{1} << 30);
    EXPECT_GE(p.max_threads_per_block, 256);
    EXPECT_GE(p.clock_khz, 0);
  }
  EXPECT_THROW((void)rt().properties(rt().device_count() + 3), gpu_error);
}

TEST_F(GpuRuntimeGpu, MemoryRoundTripThroughDeviceCopiesAndMemset) {
  constexpr std::size_t count = 1 << 20;
  std::vector<std::uint32_t> host(count);
  std::iota(host.begin(), host.end(), 0x1234u);
  device_buffer a(count * sizeof(std::uint32_t));
  device_buffer b(count * sizeof(std::uint32_t));
  ASSERT_TRUE(a);
  EXPECT_EQ(a.size(), count * sizeof(std::uint32_t));
  a.copy_from_host(host.data());
  rocmtpl::runtime::stream s;
  rt().memset(b.get(), 0xab, b.size(), s.get());
  rt().memcpy_device(b.get(), a.get(), a.size() / 2, s.get());  // first half copied over the fill
  s.synchronize();
  std::vector<std::uint32_t> back(count, 0);
  b.copy_to_host(back.data());
  for (std::size_t i = 0; i < count; ++i) {
    const std::uint32_t expected = i < count / 2 ? host[i] : 0xababababu;
    ASSERT_EQ(back[i], expected) << "element " << i;
  }
  // Moving transfers ownership; the moved-from buffer is empty.
  device_buffer c = std::move(a);
  EXPECT_FALSE(a);  // NOLINT(bugprone-use-after-move): checking the moved-from state is the point
  EXPECT_EQ(a.size(), 0u);
  EXPECT_EQ(c.size(), count * sizeof(std::uint32_t));
  std::vector<std::uint32_t> again(count);
  c.copy_to_host(again.data());
  EXPECT_EQ(again, host);
  EXPECT_THROW(c.copy_to_host(again.data(), c.size() + 1), rocmtpl::out_of_range_error);
}

TEST_F(GpuRuntimeGpu, EventsMeasureAPositiveTime) {
  rocmtpl::runtime::stream s;
  rocmtpl::runtime::event start;
  rocmtpl::runtime::event stop;
  device_buffer big(std::size_t{256} << 20);
  start.record(s.get());
  for (int i = 0; i < 8; ++i) rt().memset(big.get(), i, big.size(), s.get());
  stop.record(s.get());
  const float ms = stop.elapsed_ms_since(start);
  EXPECT_GT(ms, 0.0F);
  EXPECT_LT(ms, 10000.0F);
  // Same through the raw API.
  EXPECT_FLOAT_EQ(rt().elapsed_ms(start.get(), stop.get()), ms);
}

TEST_F(GpuRuntimeGpu, ErrorsAreTypedAndDoNotPoisonLaterCalls) {
  try {
    rt().set_device(rt().device_count() + 7);
    FAIL() << "set_device to a missing device must throw";
  } catch (const no_gpu_error& e) {
    FAIL() << "wrong type: " << e.what();
  } catch (const gpu_error& e) {
    EXPECT_NE(e.code(), 0);
    EXPECT_EQ(e.api(), *rt().kind() == platform::nvidia ? "cudaSetDevice" : "hipSetDevice");
    EXPECT_NE(std::string(e.what()).find(rt().last_error_text(e.code())), std::string::npos) << e.what();
  }
  try {
    (void)rt().malloc(std::size_t{1} << 60);
    FAIL() << "a 1 EiB allocation must throw";
  } catch (const gpu_error& e) {
    EXPECT_EQ(e.code(), 2) << "cudaErrorMemoryAllocation / hipErrorOutOfMemory: " << e.what();
    EXPECT_NE(std::string(e.what()).find("Malloc"), std::string::npos) << e.what();
  }
  // The failures above are cleared: later work succeeds.
  device_buffer ok(1024);
  rt().memset(ok.get(), 0, ok.size());
  EXPECT_NO_THROW(rt().device_synchronize());
  EXPECT_EQ(rt().current_device(), 0);
}

// --- kernels built against the portable header ---------------------------------------------------

constexpr std::string_view device_check_source = R"src(#include "rocmtpl_hip_portable.h"

__global__ void convert_kernel(const uint16_t* bits, const float* floats, float* half_soft, float* half_native,
                               __half* half_back, uint16_t* half_back_soft, float* bf16_soft, float* bf16_native,
                               uint16_t* bf16_back_soft, hip_bfloat16* bf16_back_native, __half* f2h_native,
                               uint16_t* f2h_soft, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i >= n) return;
  const uint16_t b = bits[i];
  half_soft[i] = rocmtpl_dev::half_bits_to_float(b);
  half_native[i] = rocmtpl_dev::to_float(reinterpret_cast<const __half*>(bits)[i]);
  half_back[i] = rocmtpl_dev::from_float<__half>(half_soft[i]);
  half_back_soft[i] = rocmtpl_dev::float_to_half_bits(half_native[i]);
  hip_bfloat16 x;
  x.data = b;
  bf16_soft[i] = rocmtpl_dev::bf16_bits_to_float(b);
  bf16_native[i] = rocmtpl_dev::to_float(x);
  bf16_back_soft[i] = rocmtpl_dev::float_to_bf16_bits(floats[i]);
  bf16_back_native[i] = rocmtpl_dev::from_float<hip_bfloat16>(floats[i]);
  f2h_native[i] = rocmtpl_dev::from_float<__half>(floats[i]);
  f2h_soft[i] = rocmtpl_dev::float_to_half_bits(floats[i]);
}

__global__ void gelu_kernel(const float* in, float* out, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) out[i] = rocmtpl_dev::gelu(in[i]);
}

__global__ void gelu_tanh_kernel(const float* in, float* out, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) out[i] = rocmtpl_dev::gelu_tanh(in[i]);
}

__global__ void sigmoid_silu_kernel(const float* in, float* out, int n) {
  const int i = static_cast<int>(blockIdx.x * blockDim.x + threadIdx.x);
  if (i < n) out[2 * i] = rocmtpl_dev::sigmoid(in[i]), out[2 * i + 1] = rocmtpl_dev::silu(in[i]);
}

__global__ void reduce_kernel(const float* in, float* out, float* lanes, int n) {
  HIP_DYNAMIC_SHARED(float, partial);
  const int lane = static_cast<int>(threadIdx.x) % warpSize;
  const int warp = static_cast<int>(threadIdx.x) / warpSize;
  float v = 0.0f;
  for (int i = static_cast<int>(threadIdx.x); i < n; i += static_cast<int>(blockDim.x)) v += in[i];
  for (int offset = ROCMTPL_WARP_SIZE / 2; offset > 0; offset /= 2) v += __shfl_down(v, static_cast<unsigned>(offset));
  const float warp_total = __shfl(v, 0);
  float same = static_cast<float>(lane);
  for (int mask = 1; mask < ROCMTPL_WARP_SIZE; mask *= 2) same = fmaxf(same, __shfl_xor(same, mask));
  const float up = __shfl_up(static_cast<float>(lane), 1u);
  if (warp == 0) {
    lanes[lane] = up;
    lanes[ROCMTPL_WARP_SIZE + lane] = same;
  }
  if (lane == 0) partial[warp] = warp_total;
  __syncthreads();
  if (threadIdx.x == 0) {
    float total = 0.0f;
    for (int w = 0; w < static_cast<int>(blockDim.x) / warpSize; ++w) total += partial[w];
    out[0] = total;
    out[1] = static_cast<float>(warpSize);
  }
}

extern "C" __attribute__((visibility("default"))) int rocmtpl_check_convert(
    const uint16_t* bits, const float* floats, float* half_soft, float* half_native, uint16_t* half_back,
    uint16_t* half_back_soft, float* bf16_soft, float* bf16_native, uint16_t* bf16_back_soft,
    uint16_t* bf16_back_native, uint16_t* f2h_native, uint16_t* f2h_soft, int n, hipStream_t stream) {
  hipLaunchKernelGGL(convert_kernel, dim3((n + 255) / 256), dim3(256), 0, stream, bits, floats, half_soft, half_native,
                     reinterpret_cast<__half*>(half_back), half_back_soft, bf16_soft, bf16_native, bf16_back_soft,
                     reinterpret_cast<hip_bfloat16*>(bf16_back_native), reinterpret_cast<__half*>(f2h_native),
                     f2h_soft, n);
  return hipGetLastError() == hipSuccess ? 0 : 1;
}

extern "C" __attribute__((visibility("default"))) int rocmtpl_check_gelu(const float* in, float* out, int n,
                                                                         hipStream_t stream) {
  hipLaunchKernelGGL(gelu_kernel, dim3((n + 255) / 256), dim3(256), 0, stream, in, out, n);
  return hipGetLastError() == hipSuccess ? 0 : 1;
}

extern "C" __attribute__((visibility("default"))) int rocmtpl_check_gelu_tanh(const float* in, float* out, int n,
                                                                              hipStream_t stream) {
  hipLaunchKernelGGL(gelu_tanh_kernel, dim3((n + 255) / 256), dim3(256), 0, stream, in, out, n);
  return hipGetLastError() == hipSuccess ? 0 : 1;
}

extern "C" __attribute__((visibility("default"))) int rocmtpl_check_sigmoid_silu(const float* in, float* out, int n,
                                                                                 hipStream_t stream) {
  hipLaunchKernelGGL(sigmoid_silu_kernel, dim3((n + 255) / 256), dim3(256), 0, stream, in, out, n);
  return hipGetLastError() == hipSuccess ? 0 : 1;
}

extern "C" __attribute__((visibility("default"))) int rocmtpl_check_reduce(const float* in, float* out, float* lanes,
                                                                           int n, hipStream_t stream) {
  const int threads = 256;
  const size_t shared = static_cast<size_t>(threads / ROCMTPL_WARP_SIZE) * sizeof(float);
  if (hipFuncSetAttribute(reinterpret_cast<const void*>(&reduce_kernel), hipFuncAttributeMaxDynamicSharedMemorySize,
                          static_cast<int>(shared)) != hipSuccess) {
    return 2;
  }
  hipLaunchKernelGGL(reduce_kernel, dim3(1), dim3(threads), shared, stream, in, out, lanes, n);
  return hipGetLastError() == hipSuccess ? 0 : 1;
}
)src";

class library_handle {
 public:
  explicit library_handle(const fs::path& file) : handle_(::dlopen(file.c_str(), RTLD_NOW | RTLD_LOCAL)) {}
  library_handle(const library_handle&) = delete;
  library_handle& operator=(const library_handle&) = delete;
  ~library_handle() {
    if (handle_ != nullptr) ::dlclose(handle_);
  }
  explicit operator bool() const { return handle_ != nullptr; }
  template <class Function>
  Function* symbol(const char* name) const {
    return reinterpret_cast<Function*>(::dlsym(handle_, name));
  }

 private:
  void* handle_;
};

bool is_nan_half(std::uint16_t h) { return (h & 0x7c00u) == 0x7c00u && (h & 0x3ffu) != 0; }
bool is_nan_bf16(std::uint16_t h) { return (h & 0x7f80u) == 0x7f80u && (h & 0x7fu) != 0; }
std::uint32_t bits_of(float f) {
  std::uint32_t u = 0;
  std::memcpy(&u, &f, sizeof(u));
  return u;
}

// Builds device_check_source into `dir`/libcheck.so with the library's compiler search and process
// runner and this test's own flags; an empty message when it built, else why not (`skip`: no compiler).
std::string build_check_library(const rocmtpl::runtime::device_properties& props, const fs::path& dir, bool& skip) {
  std::optional<rocmtpl::runtime::compiler> cc;
  try {
    cc = rocmtpl::runtime::compiler::find(props.kind);
  } catch (const rocmtpl::runtime::compiler_not_found_error& e) {
    skip = true;
    return e.what();
  }
  std::vector<std::string> argv{cc->path().string()};
  if (props.kind == platform::nvidia) {
    argv.insert(argv.end(), {"-arch=" + props.arch, "-O2", "-shared", "-Xcompiler", "-fPIC", "-x", "cu"});
  } else {
    argv.insert(argv.end(), {"--offload-arch=" + props.arch, "-O2", "-shared", "-fPIC", "-x", "hip"});
  }
  rocmtpl::test::write_file(dir / "check.src", device_check_source);
  argv.insert(argv.end(), {"-I", rocmtpl::runtime::device_include_dir().string(), (dir / "check.src").string(), "-o",
                           (dir / "libcheck.so").string()});
  rocmtpl::runtime::process_options po;
  po.env = cc->environment();
  const auto built = rocmtpl::runtime::run_process(argv, po);
  return built.ok() ? std::string() : built.output;
}

TEST_F(GpuRuntimeGpu, PortableHeaderKernelsRunCorrectly) {
  const auto props = rt().properties(0);
  const rocmtpl::test::temp_dir tmp("rocmtpl-gpu-kernels");
  const fs::path dir = tmp.path();
  bool skip = false;
  const auto why = build_check_library(props, dir, skip);
  if (skip) GTEST_SKIP() << why;
  ASSERT_TRUE(why.empty()) << why;
  library_handle lib(dir / "libcheck.so");
  ASSERT_TRUE(lib) << ::dlerror();
  using convert_fn =
      int(const void*, const void*, void*, void*, void*, void*, void*, void*, void*, void*, void*, void*, int, void*);
  using reduce_fn = int(const void*, void*, void*, int, void*);
  auto* convert = lib.symbol<convert_fn>("rocmtpl_check_convert");
  auto* reduce = lib.symbol<reduce_fn>("rocmtpl_check_reduce");
  ASSERT_NE(convert, nullptr);
  ASSERT_NE(reduce, nullptr);

  // Conversions: every 16-bit pattern, and floats at rounding ties plus random ones.
  constexpr int n = 1 << 16;
  std::vector<std::uint16_t> bits(n);
  std::iota(bits.begin(), bits.end(), std::uint16_t{0});
  std::vector<float> floats(n);
  std::mt19937 rng(7);
  for (int i = 0; i < n; ++i) {
    std::uint32_t u = static_cast<std::uint32_t>(rng());
    if (i % 4 == 0) u = (u & 0xffffe000u) | 0x1000u;                                             // fp16 halfway
    if (i % 4 == 1) u = (u & 0xffff0000u) | 0x8000u;                                             // bf16 halfway
    if (i % 4 == 2) u = (u & 0x807fffffu) | (static_cast<std::uint32_t>(100 + (i % 45)) << 23);  // fp16 range
    std::memcpy(&floats[static_cast<std::size_t>(i)], &u, sizeof(u));
  }
  const std::size_t h16 = n * sizeof(std::uint16_t), f32 = n * sizeof(float);
  device_buffer d_bits(h16), d_floats(f32), half_soft(f32), half_native(f32), half_back(h16), half_back_soft(h16),
      bf16_soft(f32), bf16_native(f32), bf16_back_soft(h16), bf16_back_native(h16), f2h_native(h16), f2h_soft(h16);
  d_bits.copy_from_host(bits.data());
  d_floats.copy_from_host(floats.data());
  rocmtpl::runtime::stream s;
  ASSERT_EQ(convert(d_bits.get(), d_floats.get(), half_soft.get(), half_native.get(), half_back.get(),
                    half_back_soft.get(), bf16_soft.get(), bf16_native.get(), bf16_back_soft.get(),
                    bf16_back_native.get(), f2h_native.get(), f2h_soft.get(), n, s.get()),
            0);
  s.synchronize();
  auto fetch_f = [](const device_buffer& b) {
    std::vector<float> v(b.size() / sizeof(float));
    b.copy_to_host(v.data());
    return v;
  };
  auto fetch_u = [](const device_buffer& b) {
    std::vector<std::uint16_t> v(b.size() / sizeof(std::uint16_t));
    b.copy_to_host(v.data());
    return v;
  };
  const auto hs = fetch_f(half_soft), hn = fetch_f(half_native), bs = fetch_f(bf16_soft), bn = fetch_f(bf16_native);
  const auto hb = fetch_u(half_back), hbs = fetch_u(half_back_soft), bbs = fetch_u(bf16_back_soft),
             bbn = fetch_u(bf16_back_native), fhn = fetch_u(f2h_native), fhs = fetch_u(f2h_soft);
  int mismatches = 0;
  for (int i = 0; i < n && mismatches < 20; ++i) {
    const auto k = static_cast<std::size_t>(i);
    const std::uint16_t b = bits[k];
    auto fail = [&](const char* what) {
      ++mismatches;
      ADD_FAILURE() << what << " at pattern 0x" << std::hex << b << " / float bits 0x" << bits_of(floats[k]);
    };
    // Software fp16 decode equals the hardware one (NaN payloads aside); both round trip.
    if (is_nan_half(b)) {
      if (!std::isnan(hs[k]) || !std::isnan(hn[k])) fail("fp16 NaN decode");
    } else {
      if (bits_of(hs[k]) != bits_of(hn[k])) fail("fp16 decode soft != native");
      if (hb[k] != b) fail("fp16 round trip through from_float<__half>");
      if (hbs[k] != b) fail("fp16 round trip through float_to_half_bits");
    }
    if (bits_of(bs[k]) != (static_cast<std::uint32_t>(b) << 16)) fail("bf16 decode (bits)");
    if (bits_of(bn[k]) != bits_of(bs[k]) && !is_nan_bf16(b)) fail("bf16 decode soft != hip_bfloat16");
    // Rounding: the software conversions agree with the hardware / platform type on the device.
    if (is_nan_half(fhs[k]) != is_nan_half(fhn[k]) || (!is_nan_half(fhs[k]) && fhs[k] != fhn[k])) {
      fail("float->fp16 soft != __float2half");
    }
    if (is_nan_bf16(bbs[k]) != is_nan_bf16(bbn[k]) || (!is_nan_bf16(bbs[k]) && bbs[k] != bbn[k])) {
      fail("float->bf16 soft != hip_bfloat16(float)");
    }
  }
  EXPECT_EQ(mismatches, 0);

  // Warp shuffles and dynamic shared memory.
  constexpr int count = 10000;
  std::vector<float> values(count);
  double expected_sum = 0;
  for (int i = 0; i < count; ++i) {
    values[static_cast<std::size_t>(i)] = static_cast<float>(i % 13);
    expected_sum += i % 13;
  }
  device_buffer in(count * sizeof(float)), out(2 * sizeof(float)), lanes(128 * sizeof(float));
  in.copy_from_host(values.data());
  rt().memset(lanes.get(), 0, lanes.size());
  ASSERT_EQ(reduce(in.get(), out.get(), lanes.get(), count, nullptr), 0);
  rt().device_synchronize();
  std::vector<float> result(2), lane_values(128);
  out.copy_to_host(result.data());
  lanes.copy_to_host(lane_values.data());
  EXPECT_EQ(result[0], static_cast<float>(expected_sum));
  EXPECT_EQ(static_cast<int>(result[1]), props.warp_size);
  const int w = props.warp_size;
  for (int lane = 0; lane < w; ++lane) {
    // __shfl_up by 1: lane 0 keeps its own value.
    EXPECT_EQ(lane_values[static_cast<std::size_t>(lane)], static_cast<float>(lane == 0 ? 0 : lane - 1)) << lane;
    // Butterfly max over __shfl_xor: every lane holds the largest lane index.
    EXPECT_EQ(lane_values[static_cast<std::size_t>(w + lane)], static_cast<float>(w - 1)) << lane;
  }
}

// The activation checks' inputs: [-16, 16] in steps of 2^-12, then `extra` (tiny and large values);
// the special values 0, +inf, -inf and NaN follow from index `regular`.
struct activation_inputs {
  std::vector<float> in;
  std::size_t regular = 0;
};

activation_inputs activation_check_inputs(std::initializer_list<float> extra) {
  activation_inputs a;
  for (int i = -16 * 4096; i <= 16 * 4096; ++i) a.in.push_back(static_cast<float>(i) / 4096.0F);
  a.in.insert(a.in.end(), extra);
  a.regular = a.in.size();
  const float inf = std::numeric_limits<float>::infinity();
  a.in.insert(a.in.end(), {0.0F, inf, -inf, std::numeric_limits<float>::quiet_NaN()});
  return a;
}

// The gelu checks' tiny and large values (the erf and tanh forms saturate alike).
constexpr std::initializer_list<float> gelu_extremes = {1e-30F, -1e-30F, 1e-7F, -1e-7F,  40.0F,
                                                        -40.0F, 1e4F,    -1e4F, 3.0e38F, -3.0e38F};

// Builds the check library and runs its `symbol(in, out, n, stream)` on `in` (`per_input` results a
// value) into `out`. Skips the test without a compiler; the caller returns on IsSkipped() or
// HasFatalFailure().
void run_activation_check(const gpu_runtime& rt, const char* symbol, const std::vector<float>& in,
                          std::size_t per_input, std::vector<float>& out) {
  const rocmtpl::test::temp_dir tmp("rocmtpl-gpu-activation");
  bool skip = false;
  const auto why = build_check_library(rt.properties(0), tmp.path(), skip);
  if (skip) GTEST_SKIP() << why;
  ASSERT_TRUE(why.empty()) << why;
  library_handle lib(tmp.path() / "libcheck.so");
  ASSERT_TRUE(lib) << ::dlerror();
  using check_fn = int(const void*, void*, int, void*);
  auto* check = lib.symbol<check_fn>(symbol);
  ASSERT_NE(check, nullptr) << symbol;
  device_buffer d_in(in.size() * sizeof(float)), d_out(per_input * in.size() * sizeof(float));
  d_in.copy_from_host(in.data());
  ASSERT_EQ(check(d_in.get(), d_out.get(), static_cast<int>(in.size()), nullptr), 0) << symbol;
  rt.device_synchronize();
  out.resize(per_input * in.size());
  d_out.copy_to_host(out.data());
}

// rocmtpl_dev::gelu(), the one gelu of generated code, against the erf form in double precision:
// within |v| * 4e-7 (Abramowitz and Stegun 7.1.26 is within 1.5e-7 of erf; the rest is float
// rounding) over [-16, 16] in steps of 2^-12, at tiny and large values, and the erf form's special
// values (gelu(0) = 0, +inf stays +inf, -inf and NaN give NaN as 0.5 v (1 + erf(v / sqrt 2)) does).
TEST_F(GpuRuntimeGpu, PortableGeluMatchesTheErfForm) {
  const auto [in, regular] = activation_check_inputs(gelu_extremes);
  std::vector<float> out;
  run_activation_check(rt(), "rocmtpl_check_gelu", in, 1, out);
  if (IsSkipped() || HasFatalFailure()) return;
  const float inf = std::numeric_limits<float>::infinity();
  double worst = 0;
  float worst_at = 0;
  for (std::size_t i = 0; i < regular; ++i) {
    const double v = in[i];
    const double exact = 0.5 * v * (1.0 + std::erf(v / std::sqrt(2.0)));
    const double err = std::abs(static_cast<double>(out[i]) - exact);
    const double bound = 4e-7 * std::abs(v) + 1e-37;
    if (err / bound > worst) worst = err / bound, worst_at = in[i];
    ASSERT_TRUE(std::isfinite(out[i])) << "gelu(" << in[i] << ") = " << out[i];
  }
  EXPECT_LE(worst, 1.0) << "worst error " << worst << " x the bound, at v = " << worst_at;
  EXPECT_EQ(out[regular], 0.0F);
  EXPECT_EQ(out[regular + 1], inf);
  EXPECT_TRUE(std::isnan(out[regular + 2]));
  EXPECT_TRUE(std::isnan(out[regular + 3]));
}

// rocmtpl_dev::gelu_tanh(), PyTorch's gelu(approximate='tanh'), against 0.5 v (1 + tanh(u)),
// u = sqrt(2 / pi) (v + 0.044715 v^3), in double precision. NVIDIA computes tanh(u) with
// tanh.approx.f32, whose relative error is about 2^-11 (at most 2^-10.987 in the PTX ISA); the
// result 0.5 v (1 + t) then errs by up to 0.5 |v| |tanh(u)| 2^-10.987, an absolute error: below
// v = -2 or so 1 + tanh(u) is smaller than that error, so no bound relative to the result holds
// (a bound like 1e-3 |gelu| + 1e-6 fails at v = -3, where gelu is -0.0036 and the error may reach
// 7e-4). The float rounding of u and of the product adds a few ulps: 0.5 |v| 1e-6 covers them (the
// error of u moves tanh by (1 - t^2) du, at most 0.45 |u| ulps). AMD's exponential form is well
// inside the same bound. Over [-16, 16] in steps of 2^-12, tiny and large values, and the special
// values the formula gives (0 at 0, +inf at +inf, NaN at -inf and NaN).
TEST_F(GpuRuntimeGpu, PortableGeluTanhMatchesTheTanhForm) {
  const auto [in, regular] = activation_check_inputs(gelu_extremes);
  std::vector<float> out;
  run_activation_check(rt(), "rocmtpl_check_gelu_tanh", in, 1, out);
  if (IsSkipped() || HasFatalFailure()) return;
  const float inf = std::numeric_limits<float>::infinity();
  const double tanh_error = 4.97e-4;  // 2^-10.987, with a little room
  double worst = 0;
  float worst_at = 0;
  for (std::size_t i = 0; i < regular; ++i) {
    const double v = in[i];
    const double t = std::tanh(std::sqrt(2.0 / std::numbers::pi) * (v + 0.044715 * v * v * v));
    const double exact = 0.5 * v * (1.0 + t);
    const double err = std::abs(static_cast<double>(out[i]) - exact);
    const double bound = 0.5 * std::abs(v) * (tanh_error * std::abs(t) + 1e-6) + 1e-37;
    if (err / bound > worst) worst = err / bound, worst_at = in[i];
    ASSERT_TRUE(std::isfinite(out[i])) << "gelu_tanh(" << in[i] << ") = " << out[i];
  }
  EXPECT_LE(worst, 1.0) << "worst error " << worst << " x the bound, at v = " << worst_at;
  EXPECT_EQ(out[regular], 0.0F);
  EXPECT_EQ(out[regular + 1], inf);
  EXPECT_TRUE(std::isnan(out[regular + 2]));
  EXPECT_TRUE(std::isnan(out[regular + 3]));
}

// rocmtpl_dev::sigmoid() and silu() (__expf and __frcp_rn) against 1 / (1 + exp(-v)) and
// v / (1 + exp(-v)) in double precision. ex2.approx and the rounded reciprocal are within a few
// ulps; exp(-v)'s argument is rounded once (v log2(e) in float), which moves the result by up to
// |v| 2^-24 ln 2 relatively: the bound is (1e-6 + 1e-7 |v|) of the exact value, plus the smallest
// normal float (results below 2^-126 flush to zero). Over [-16, 16] in steps of 2^-12, values out to
// the float range, and the special values (sigmoid: 0.5 at 0, 1 at +inf, 0 at -inf; silu: 0, +inf,
// NaN as -inf / inf is; NaN stays NaN).
TEST_F(GpuRuntimeGpu, PortableSigmoidAndSiluMatchTheExpForm) {
  const auto [in, regular] = activation_check_inputs(
      {1e-30F, -1e-30F, 1e-7F, -1e-7F, 40.0F, -40.0F, 80.0F, -80.0F, 1e4F, -1e4F, 3.0e38F, -3.0e38F});
  std::vector<float> out;
  run_activation_check(rt(), "rocmtpl_check_sigmoid_silu", in, 2, out);
  if (IsSkipped() || HasFatalFailure()) return;
  const float inf = std::numeric_limits<float>::infinity();
  double worst[2] = {0, 0};
  float worst_at[2] = {0, 0};
  for (std::size_t i = 0; i < regular; ++i) {
    const double v = in[i];
    const double sigmoid = 1.0 / (1.0 + std::exp(-v));
    const double exact[2] = {sigmoid, v * sigmoid};
    for (int f = 0; f < 2; ++f) {
      const double got = out[2 * i + static_cast<std::size_t>(f)];
      ASSERT_TRUE(std::isfinite(got)) << (f == 0 ? "sigmoid(" : "silu(") << in[i] << ") = " << got;
      const double bound = (1e-6 + 1e-7 * std::abs(v)) * std::abs(exact[f]) + 1.1754944e-38;
      const double err = std::abs(got - exact[f]) / bound;
      if (err > worst[f]) worst[f] = err, worst_at[f] = in[i];
    }
  }
  EXPECT_LE(worst[0], 1.0) << "sigmoid: worst error " << worst[0] << " x the bound, at v = " << worst_at[0];
  EXPECT_LE(worst[1], 1.0) << "silu: worst error " << worst[1] << " x the bound, at v = " << worst_at[1];
  EXPECT_EQ(out[2 * regular], 0.5F);
  EXPECT_EQ(out[2 * regular + 1], 0.0F);
  EXPECT_EQ(out[2 * (regular + 1)], 1.0F);
  EXPECT_EQ(out[2 * (regular + 1) + 1], inf);
  EXPECT_EQ(out[2 * (regular + 2)], 0.0F);
  EXPECT_TRUE(std::isnan(out[2 * (regular + 2) + 1]));
  EXPECT_TRUE(std::isnan(out[2 * (regular + 3)]));
  EXPECT_TRUE(std::isnan(out[2 * (regular + 3) + 1]));
}

}  // namespace
