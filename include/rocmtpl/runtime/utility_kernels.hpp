// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The runtime's own GPU helpers (seeded random fill, output comparison), compiled once per
/// arch through the same compiler and code cache as the templates.

#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rocmtpl/codegen/kernel_args.hpp>
#include <rocmtpl/codegen/preamble.hpp>
#include <rocmtpl/codegen/rendered_source.hpp>
#include <rocmtpl/ir/dtype.hpp>
#include <rocmtpl/ir/tensor_meta.hpp>
#include <rocmtpl/runtime/code_cache.hpp>
#include <rocmtpl/runtime/compiler.hpp>
#include <rocmtpl/runtime/device_headers.hpp>
#include <rocmtpl/runtime/gpu_runtime.hpp>
#include <rocmtpl/runtime/kernel_call.hpp>
#include <rocmtpl/runtime/shared_library.hpp>

namespace rocmtpl::runtime {

/// @brief The arch to compile for on a device of arch `device_arch`: `sm_90` becomes `sm_90a` (the
/// arch-specific Hopper target: wgmma and setmaxnreg exist only there, and its code runs only on
/// compute capability 9.0, which that device is); every other arch is itself.
[[nodiscard]] inline std::string device_compile_arch(platform kind, const std::string& device_arch) {
  if (kind == platform::nvidia && device_arch == "sm_90") return "sm_90a";
  return device_arch;
}

/// @brief Compile options for a device: its platform and arch (see device_compile_arch()), the
/// portability header's folder.
[[nodiscard]] inline compile_options compile_options_for(const device_properties& device) {
  compile_options o;
  o.platform = device.kind;
  o.archs = {device_compile_arch(device.kind, device.arch)};
  o.include_dirs = {device_include_dir()};
  return o;
}

/// @brief Compile options for AMD targets without a device (the CPU-only path).
[[nodiscard]] inline compile_options amd_compile_options(std::vector<std::string> archs = {"gfx90a", "gfx940"}) {
  compile_options o;
  o.platform = platform::amd;
  o.archs = std::move(archs);
  o.include_dirs = {device_include_dir()};
  return o;
}

namespace detail {
// Fill and compare kernels. Their entries follow the generated entry points' C ABI (tensors, int64
// arguments, workspace_size, workspace, stream): each is declared from its signature below, with
// its packed twin and signature function (codegen/rendered_source.hpp), so kernel_entry checks and
// calls them as it does generated kernels. The dtype numbering is the host's (dtype_code(),
// ir/dtype.hpp): the source starts with dtype_code_defines() and names each dtype by its
// ROCMTPL_DTYPE_* macro.
inline constexpr std::string_view utility_source_head = R"rocmtpl(#include "rocmtpl_hip_portable.h"
#include <cstdint>
#include <cstddef>
)rocmtpl";

inline constexpr std::string_view utility_device_code = R"rocmtpl(
namespace {
enum : int64_t {
  f16 = ROCMTPL_DTYPE_FLOAT16, bf16 = ROCMTPL_DTYPE_BFLOAT16, f32 = ROCMTPL_DTYPE_FLOAT32, f64 = ROCMTPL_DTYPE_FLOAT64,
  i8 = ROCMTPL_DTYPE_INT8, u8 = ROCMTPL_DTYPE_UINT8, i32 = ROCMTPL_DTYPE_INT32, i64 = ROCMTPL_DTYPE_INT64,
  boolean = ROCMTPL_DTYPE_BOOL
};

__device__ inline uint64_t splitmix(uint64_t z) {
  z += 0x9e3779b97f4a7c15ULL;
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
  return z ^ (z >> 31);
}

// Uniform in [-1, 1): a counter-based generator, so the values depend only on (seed, index).
__device__ inline float uniform(uint64_t seed, uint64_t i) {
  const uint64_t r = splitmix(seed ^ splitmix(i));
  return static_cast<float>(r >> 40) * (2.0f / 16777216.0f) - 1.0f;
}

__device__ inline double load_as_double(const void* p, int64_t dtype, int64_t i) {
  switch (dtype) {
    case f16: return rocmtpl_dev::half_bits_to_float(static_cast<const uint16_t*>(p)[i]);
    case bf16: return rocmtpl_dev::bf16_bits_to_float(static_cast<const uint16_t*>(p)[i]);
    case f32: return static_cast<const float*>(p)[i];
    case f64: return static_cast<const double*>(p)[i];
    case i8: return static_cast<const int8_t*>(p)[i];
    case u8: return static_cast<const uint8_t*>(p)[i];
    case i32: return static_cast<const int32_t*>(p)[i];
    case i64: return static_cast<double>(static_cast<const int64_t*>(p)[i]);
    case boolean: return static_cast<const bool*>(p)[i] ? 1.0 : 0.0;
    default: return 0.0;
  }
}

__global__ void fill_kernel(void* data, int64_t dtype, int64_t n, uint64_t seed) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    const float v = uniform(seed, static_cast<uint64_t>(i));
    switch (dtype) {
      case f16: static_cast<uint16_t*>(data)[i] = rocmtpl_dev::float_to_half_bits(v); break;
      case bf16: static_cast<uint16_t*>(data)[i] = rocmtpl_dev::float_to_bf16_bits(v); break;
      case f32: static_cast<float*>(data)[i] = v; break;
      case f64: static_cast<double*>(data)[i] = v; break;
      case i8: static_cast<int8_t*>(data)[i] = static_cast<int8_t>(v * 8.0f); break;
      case u8: static_cast<uint8_t*>(data)[i] = static_cast<uint8_t>((v + 1.0f) * 8.0f); break;
      case i32: static_cast<int32_t*>(data)[i] = static_cast<int32_t>(v * 64.0f); break;
      case i64: static_cast<int64_t*>(data)[i] = static_cast<int64_t>(v * 64.0f); break;
      case boolean: static_cast<bool*>(data)[i] = v > 0.0f; break;
      default: static_cast<uint8_t*>(data)[i] = static_cast<uint8_t>(splitmix(seed ^ static_cast<uint64_t>(i)));
    }
  }
}

struct strided {
  int64_t rank;
  int64_t sizes[6];
  int64_t out_strides[6];
  int64_t ref_strides[6];
  int64_t out_offset;
  int64_t ref_offset;
};

// Accumulates sum((out-ref)^2), sum(ref^2), max|out-ref| and the count of elements that are not
// finite in out while finite in ref (unwritten outputs were poisoned with NaN before the run).
__global__ void compare_kernel(const void* out, const void* ref, double* sums, unsigned long long* counts,
                               int64_t out_dtype, int64_t ref_dtype, int64_t n, strided s) {
  double diff2 = 0.0, ref2 = 0.0, max_abs = 0.0;
  unsigned long long bad = 0;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    int64_t rest = i, oi = s.out_offset, ri = s.ref_offset;
    for (int64_t d = s.rank - 1; d >= 0; --d) {
      const int64_t c = rest % s.sizes[d];
      rest /= s.sizes[d];
      oi += c * s.out_strides[d];
      ri += c * s.ref_strides[d];
    }
    const double o = load_as_double(out, out_dtype, oi);
    const double r = load_as_double(ref, ref_dtype, ri);
    const bool r_finite = r == r && r - r == 0.0;
    const bool o_finite = o == o && o - o == 0.0;
    if (r_finite && !o_finite) { ++bad; continue; }
    if (!r_finite) continue;
    const double d = o - r;
    diff2 += d * d;
    ref2 += r * r;
    const double a = d < 0 ? -d : d;
    if (a > max_abs) max_abs = a;
  }
  atomicAdd(&sums[0], diff2);
  atomicAdd(&sums[1], ref2);
  atomicAdd(&counts[0], bad);
  // max of non-negative doubles through their bit patterns (monotonic for non-negative values).
  atomicMax(&counts[1], static_cast<unsigned long long>(__double_as_longlong(max_abs)));
}
}  // namespace
)rocmtpl";

// rocmtpl_fill_uniform(void* data, int64_t dtype, int64_t n, int64_t seed, ...): the body.
inline constexpr std::string_view fill_body = R"rocmtpl(  if (workspace_size) { *workspace_size = 0; return 0; }
  (void)workspace;
  if (n <= 0) return 0;
  const int64_t blocks = (n + 255) / 256 < 65536 ? (n + 255) / 256 : 65536;
  fill_kernel<<<dim3(static_cast<unsigned>(blocks)), dim3(256), 0, stream>>>(data, dtype, n, static_cast<uint64_t>(seed));
  return hipGetLastError() == hipSuccess ? 0 : 1;
)rocmtpl";

// rocmtpl_compare(const void* out, const void* ref, void* sums, void* counts, int64_t out_dtype,
// int64_t ref_dtype, int64_t rank, sizes s0..s5, out strides o0..o5, ref strides r0..r5,
// int64_t out_offset, int64_t ref_offset, ...): the body.
inline constexpr std::string_view compare_body = R"rocmtpl(  if (workspace_size) { *workspace_size = 0; return 0; }
  (void)workspace;
  strided s{rank, {s0, s1, s2, s3, s4, s5}, {o0, o1, o2, o3, o4, o5}, {r0, r1, r2, r3, r4, r5}, out_offset, ref_offset};
  int64_t n = 1;
  for (int64_t d = 0; d < rank; ++d) n *= s.sizes[d];
  if (n <= 0) return 0;
  const int64_t blocks = (n + 255) / 256 < 4096 ? (n + 255) / 256 : 4096;
  compare_kernel<<<dim3(static_cast<unsigned>(blocks)), dim3(256), 0, stream>>>(
      out, ref, static_cast<double*>(sums), static_cast<unsigned long long*>(counts), out_dtype, ref_dtype, n, s);
  return hipGetLastError() == hipSuccess ? 0 : 1;
)rocmtpl";

// An int64_t runtime argument of a helper.
inline entry_param int64_arg(std::string name) { return {std::move(name), param_kind::runtime_arg, "int64_t"}; }

/// The fill helper's signature: the tensor, then dtype code, element count and seed.
[[nodiscard]] inline entry_signature fill_signature() {
  return {{{"data", param_kind::tensor_out, "void*"}, int64_arg("dtype"), int64_arg("n"), int64_arg("seed")}};
}

/// The compare helper's signature: output and reference, the two accumulators, dtype codes, rank,
/// six sizes, six output strides, six reference strides and the two offsets.
[[nodiscard]] inline entry_signature compare_signature() {
  entry_signature sig{{{"out", param_kind::tensor_in, "const void*"},
                       {"ref", param_kind::tensor_in, "const void*"},
                       {"sums", param_kind::tensor_out, "void*"},
                       {"counts", param_kind::tensor_out, "void*"},
                       int64_arg("out_dtype"),
                       int64_arg("ref_dtype"),
                       int64_arg("rank")}};
  for (const char* prefix : {"s", "o", "r"}) {
    for (int d = 0; d < 6; ++d) {
      std::string name(prefix);  // appended in steps: g++ 12 -O3 reports a false -Wrestrict on "lit" + string
      name += std::to_string(d);
      sig.params.push_back(int64_arg(std::move(name)));
    }
  }
  sig.params.push_back(int64_arg("out_offset"));
  sig.params.push_back(int64_arg("ref_offset"));
  return sig;
}

// One helper entry as parts of its own: declared from its signature, with its exported twins.
inline std::string utility_entry(std::string_view name, entry_signature signature, std::string_view body) {
  rendered_source entry;
  entry.entry_name = std::string(name);
  entry.signature = std::move(signature);
  entry.entry_body = std::string(body);
  return entry.entry();
}

// The helpers' full source: the shared dtype numbering, the includes, PT_EXPORT, the kernels, then
// the two entries.
[[nodiscard]] inline std::string make_utility_source() {
  std::string out = dtype_code_defines();
  out += utility_source_head;
  out += pt_export_block;
  out += utility_device_code;
  out += '\n';
  out += utility_entry("rocmtpl_fill_uniform", fill_signature(), fill_body);
  out += '\n';
  out += utility_entry("rocmtpl_compare", compare_signature(), compare_body);
  return out;
}

inline const std::string utility_source = make_utility_source();
}  // namespace detail

/// @brief How far an output is from a reference.
struct comparison {
  double relative_l2 = 0;       ///< ||out - ref|| / ||ref|| (0 when both are zero)
  double max_abs = 0;           ///< max |out - ref| over finite pairs
  std::uint64_t nonfinite = 0;  ///< elements not finite in out but finite in ref (unwritten, NaN, inf)
};

/// @brief The compiled helper kernels for one device.
class utility_kernels {
 public:
  /// @brief Compiles (or finds in the cache) the helpers' library for `options`' arch.
  [[nodiscard]] static std::filesystem::path build(code_cache& cache, const compiler& cc,
                                                   const compile_options& options) {
    return cache.get_or_compile(cc, detail::utility_source, options).library;
  }

  /// @brief Loads the helpers from a library made by build().
  explicit utility_kernels(const std::filesystem::path& library)
      : library_(std::make_shared<shared_library>(library)),
        fill_(std::make_unique<kernel_entry>(library_, "rocmtpl_fill_uniform", detail::fill_signature())),
        compare_(std::make_unique<kernel_entry>(library_, "rocmtpl_compare", detail::compare_signature())) {}

  /// @brief Fills a tensor's whole storage with uniform values in [-1, 1) from (seed, index).
  void fill(void* data, const tensor_meta& meta, std::uint64_t seed, void* stream) const {
    fill_->launch({data}, {dtype_code(meta.type), meta.storage_elements(), static_cast<std::int64_t>(seed)}, nullptr,
                  stream);
  }

  /// @brief Compares `out` (layout `out_meta`) with `ref` (layout `ref_meta`, same sizes) on the GPU.
  /// @throws invalid_argument_error for different sizes or rank above 6.
  [[nodiscard]] comparison compare(const void* out, const tensor_meta& out_meta, const void* ref,
                                   const tensor_meta& ref_meta, void* stream) const {
    if (out_meta.sizes != ref_meta.sizes || out_meta.sizes.size() > 6) {
      throw invalid_argument_error("rocmtpl: compare: outputs must have equal sizes and rank <= 6");
    }
    const auto& rt = gpu_runtime::instance();
    device_buffer sums(2 * sizeof(double));
    device_buffer counts(2 * sizeof(std::uint64_t));
    rt.memset(sums.get(), 0, sums.size(), stream);
    rt.memset(counts.get(), 0, counts.size(), stream);
    std::vector<std::int64_t> extra{dtype_code(out_meta.type), dtype_code(ref_meta.type),
                                    static_cast<std::int64_t>(out_meta.sizes.size())};
    auto pad = [&](const std::vector<std::int64_t>& v, std::int64_t fill) {
      for (std::size_t i = 0; i < 6; ++i) extra.push_back(i < v.size() ? v[i] : fill);
    };
    pad(out_meta.sizes, 1);
    pad(out_meta.strides, 0);
    pad(ref_meta.strides, 0);
    extra.push_back(out_meta.offset);
    extra.push_back(ref_meta.offset);
    compare_->launch({out, ref, sums.get(), counts.get()}, extra, nullptr, stream);
    rt.synchronize(stream);
    double s[2];
    std::uint64_t c[2];
    sums.copy_to_host(s);
    counts.copy_to_host(c);
    comparison r;
    r.relative_l2 = s[1] > 0 ? std::sqrt(s[0] / s[1]) : std::sqrt(s[0]);
    std::memcpy(&r.max_abs, &c[1], sizeof(double));
    r.nonfinite = c[0];
    return r;
  }

 private:
  std::shared_ptr<shared_library> library_;
  std::unique_ptr<kernel_entry> fill_;
  std::unique_ptr<kernel_entry> compare_;
};

}  // namespace rocmtpl::runtime
