// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The runtime's own GPU helpers (seeded random fill, output comparison), compiled once per
/// arch through the same compiler and code cache as the templates: as a shared library called
/// through C entries, or (the autotuner's default) device-only, as a code object launched through
/// the module API from the helpers' launch descriptions (fill_launch(), compare_launch()), which
/// the C entries are rendered from too.

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rocmtpl/codegen/kernel_args.hpp>
#include <rocmtpl/codegen/launch.hpp>
#include <rocmtpl/core/config.hpp>
#include <rocmtpl/ir/dtype.hpp>
#include <rocmtpl/ir/sym_expr.hpp>
#include <rocmtpl/ir/tensor_meta.hpp>
#include <rocmtpl/runtime/build/code_cache.hpp>
#include <rocmtpl/runtime/build/compiler.hpp>
#include <rocmtpl/runtime/build/device_headers.hpp>
#include <rocmtpl/runtime/gpu/gpu_runtime.hpp>
#include <rocmtpl/runtime/launch/kernel_call.hpp>
#include <rocmtpl/runtime/launch/module_launcher.hpp>
#include <rocmtpl/runtime/sys/shared_library.hpp>

namespace rocmtpl::runtime {

/// @brief The arch to compile for on a device of arch `device_arch`: `sm_90` becomes `sm_90a` (the
/// arch-specific Hopper target: wgmma and setmaxnreg exist only there, and its code runs only on
/// compute capability 9.0, which that device is); every other arch is itself.
[[nodiscard]] std::string device_compile_arch(platform kind, const std::string& device_arch);

/// @brief Compile options for a device: its platform and arch (see device_compile_arch()), the
/// portability header's folder.
[[nodiscard]] compile_options compile_options_for(const device_properties& device);

/// @brief Compile options for AMD targets without a device (the CPU-only path).
[[nodiscard]] compile_options amd_compile_options(std::vector<std::string> archs = {"gfx90a", "gfx940"});

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

}  // namespace

// The kernels, extern "C" with unmangled names: a code object's kernels are looked up by name.
extern "C" __global__ void __launch_bounds__(256) rocmtpl_fill_kernel(void* data, int64_t dtype, int64_t n,
                                                                      int64_t seed_bits) {
  const uint64_t seed = static_cast<uint64_t>(seed_bits);
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

// Accumulates sum((out-ref)^2), sum(ref^2), max|out-ref| and the count of elements that are not
// finite in out while finite in ref (unwritten outputs were poisoned with NaN before the run).
// Sizes and strides come padded to rank 6 (sizes with 1, strides with 0).
extern "C" __global__ void __launch_bounds__(256) rocmtpl_compare_kernel(
    const void* out, const void* ref, void* sums_out, void* counts_out, int64_t out_dtype, int64_t ref_dtype,
    int64_t rank, int64_t s0, int64_t s1, int64_t s2, int64_t s3, int64_t s4, int64_t s5, int64_t o0, int64_t o1,
    int64_t o2, int64_t o3, int64_t o4, int64_t o5, int64_t r0, int64_t r1, int64_t r2, int64_t r3, int64_t r4,
    int64_t r5, int64_t out_offset, int64_t ref_offset) {
  const int64_t sizes[6] = {s0, s1, s2, s3, s4, s5};
  const int64_t out_strides[6] = {o0, o1, o2, o3, o4, o5};
  const int64_t ref_strides[6] = {r0, r1, r2, r3, r4, r5};
  const int64_t n = s0 * s1 * s2 * s3 * s4 * s5;
  double diff2 = 0.0, ref2 = 0.0, max_abs = 0.0;
  unsigned long long bad = 0;
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  for (int64_t i = static_cast<int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; i < n; i += stride) {
    int64_t rest = i, oi = out_offset, ri = ref_offset;
    for (int64_t d = rank - 1; d >= 0; --d) {
      const int64_t c = rest % sizes[d];
      rest /= sizes[d];
      oi += c * out_strides[d];
      ri += c * ref_strides[d];
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
  double* sums = static_cast<double*>(sums_out);
  unsigned long long* counts = static_cast<unsigned long long*>(counts_out);
  atomicAdd(&sums[0], diff2);
  atomicAdd(&sums[1], ref2);
  atomicAdd(&counts[0], bad);
  // max of non-negative doubles through their bit patterns (monotonic for non-negative values).
  atomicMax(&counts[1], static_cast<unsigned long long>(__double_as_longlong(max_abs)));
}
)rocmtpl";

const std::vector<std::string>& fill_ints();
const std::vector<std::string>& compare_ints();

entry_signature helper_signature(std::vector<entry_param> pointers, const std::vector<std::string>& ints);

/// The fill helper's signature: the tensor, then dtype code, element count and seed.
[[nodiscard]] entry_signature fill_signature();

/// The compare helper's signature: output and reference, the two accumulators, dtype codes, rank,
/// six sizes, six output strides, six reference strides and the two offsets.
[[nodiscard]] entry_signature compare_signature();

launch_description helper_launch(std::string suffix, const std::vector<std::string>& tensors,
                                 const std::vector<std::string>& ints, const sym_expr& elements,
                                 std::int64_t max_blocks);

/// The fill helper's launch: at most 65536 blocks over `n` elements.
[[nodiscard]] const launch_description& fill_launch();

/// The compare helper's launch: at most 4096 blocks over the product of the six (padded) sizes.
[[nodiscard]] const launch_description& compare_launch();

std::string utility_entry(std::string_view name, entry_signature signature, const launch_description& d);

[[nodiscard]] std::string make_utility_source();

// What a compiled file of the helpers must define (compile_options::required_symbols): their
// kernels (a code object) or their two C entries (a shared library).
[[nodiscard]] symbol_sets helper_symbols(bool code_object);

inline const std::string utility_source = make_utility_source();
}  // namespace detail

/// @brief How far an output is from a reference.
struct comparison {
  double relative_l2 = 0;       ///< ||out - ref|| / ||ref|| (0 when both are zero)
  double max_abs = 0;           ///< max |out - ref| over finite pairs
  std::uint64_t nonfinite = 0;  ///< elements not finite in out but finite in ref (unwritten, NaN, inf)
};

/// @brief A compiled binary of the runtime's own kernels (the helpers, a template's reference): a
/// shared library called through its C entry, or a device-only code object launched through the
/// module API (runtime/launch/module_launcher.hpp).
struct compiled_binary {
  std::filesystem::path path{};  ///< the shared library or the code object
  bool code_object = false;      ///< true for a device-only code object
};

/// @brief The compiled helper kernels for one device.
class utility_kernels {
 public:
  /// @brief Compiles (or finds in the cache) the helpers' library for `options`' arch; with
  /// `options.output` compile_output::code_object, their device-only code object.
  [[nodiscard]] static std::filesystem::path build(code_cache& cache, const compiler& cc,
                                                   const compile_options& options) {
    auto checked = options;
    checked.required_symbols = detail::helper_symbols(options.output == compile_output::code_object);
    return cache.get_or_compile(cc, detail::utility_source, checked).library;
  }

  /// @brief Loads the helpers from a library made by build().
  explicit utility_kernels(const std::filesystem::path& library) : utility_kernels(compiled_binary{library, false}) {}

  /// @brief Loads the helpers from a shared library or a device-only code object made by build().
  /// @throws no_gpu_error, gpu_error (code object); shared_library_error (library)
  explicit utility_kernels(const compiled_binary& binary);

  /// @brief Fills a tensor's whole storage with uniform values in [-1, 1) from (seed, index).
  void fill(void* data, const tensor_meta& meta, std::uint64_t seed, void* stream) const;

  /// @brief Compares `out` (layout `out_meta`) with `ref` (layout `ref_meta`, same sizes) on the GPU.
  /// @throws invalid_argument_error for different sizes or rank above 6.
  [[nodiscard]] comparison compare(const void* out, const tensor_meta& out_meta, const void* ref,
                                   const tensor_meta& ref_meta, void* stream) const;

  /// @brief The compare helper's integers for two layouts of equal sizes (rank <= 6): dtype codes,
  /// rank, sizes padded with 1, strides padded with 0, offsets.
  [[nodiscard]] static std::vector<std::int64_t> compare_arguments(const tensor_meta& out_meta,
                                                                   const tensor_meta& ref_meta);

  /// @brief True when the helpers run from a device-only code object (the module API).
  [[nodiscard]] bool uses_code_object() const noexcept { return module_ != nullptr; }

 private:
  void launch(const kernel_entry* entry, const launch_description& d, const std::vector<const void*>& tensors,
              const std::vector<std::int64_t>& extra, void* stream) const;

  std::shared_ptr<shared_library> library_;
  std::unique_ptr<kernel_entry> fill_;
  std::unique_ptr<kernel_entry> compare_;
  std::shared_ptr<const code_object> module_;
  bool amd_ = false;
};

}  // namespace rocmtpl::runtime

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/runtime/bench/utility_kernels-inl.hpp>
#endif
