// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief launch_description: how a rendered kernel is launched, in C++ (issue 9 part 4).
///
/// A policy describes, for one configuration, every kernel launch of its entry point: the
/// `extern "C" __global__` symbol, grid, block, dynamic shared memory and the kernel's parameter
/// list, each a function of the size symbols and runtime arguments, plus the workspace bytes and
/// the run-time choice between instantiations (alternatives guarded by requirements on sizes and
/// pointer alignment). Two consumers read the same description, so they cannot disagree:
/// - the renderer writes the generated `extern "C"` entry's launch lines from it
///   (write_workspace_query(), write_launches());
/// - the runtime launches code objects through the GPU driver's module API from it
///   (runtime/launch/module_launcher.hpp): bind() evaluates it for concrete sizes and runtime arguments
///   into a bound_launch, which holds plain integers only (it travels to the benchmark worker as
///   JSON), and select_variant() picks the instantiation for concrete pointers.
///
/// Rules shared by both: variants are tried in order and the first whose requirements hold is
/// launched (none: the arguments are unsupported); a launch with a zero grid dimension is skipped;
/// grid x must fit int32 and grid y, z 65535; the shared-memory opt-in is made above 48 KiB. The
/// rendered lines compute in checked arithmetic and refuse what overflows
/// (ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT); bind() throws evaluation_error there instead.

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <rocmtpl/codegen/indented_buffer.hpp>
#include <rocmtpl/codegen/kernel_args.hpp>
#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/ir/dtype.hpp>
#include <rocmtpl/ir/sym_expr.hpp>

namespace rocmtpl {

/// @brief The integer type of a size or runtime-argument kernel parameter.
enum class launch_scalar : std::uint8_t { i32, i64 };

/// @brief One launch quantity: `sizes` (over the size symbols), times a runtime argument when
/// `times_runtime_arg` is set, zero unless that argument is above one when
/// `only_when_runtime_arg_above_one` is set, capped at `at_most` (0: no cap) and, for persistent
/// grids, at the device's multiprocessor count.
struct launch_value {
  sym_expr sizes{1};                                             ///< the value over the size symbols
  std::optional<std::size_t> times_runtime_arg{};                ///< index of a runtime argument to multiply by
  std::optional<std::size_t> only_when_runtime_arg_above_one{};  ///< index of a runtime argument: 0 unless it is > 1
  std::int64_t at_most = 0;                                      ///< upper bound; 0: none
  bool at_most_sm_count = false;  ///< also capped at the multiprocessor count (at launch time)
  /// @brief Member-wise equality.
  friend bool operator==(const launch_value&, const launch_value&) = default;
};

/// @brief A Hopper TMA tensor map of a row-major 16-bit matrix (tensor `tensor` from element
/// `offset` on): [rows, cols] with unit column stride and row pitch `pitch` elements, boxes of
/// box_rows x box_cols, 128-byte swizzle, 256-byte L2 promotion, out-of-bounds reads as zero. A map
/// of an empty matrix (rows or cols 0) is left zeroed: nothing is loaded through it.
struct tensor_map_spec {
  std::size_t tensor = 0;      ///< C ABI tensor index (inputs, then the output)
  dtype element = dtype::f16;  ///< element type (16-bit)
  sym_expr offset{0};          ///< first element, in elements from the tensor's pointer
  sym_expr rows{0};            ///< rows of the matrix
  sym_expr cols{0};            ///< columns (unit stride)
  sym_expr pitch{0};           ///< elements between rows
  std::int64_t box_rows = 0;   ///< rows of one box (one TMA copy)
  std::int64_t box_cols = 0;   ///< columns of one box
  /// Boxes of at most `rows` rounded up to 8 rows: a matrix shorter than a box is copied without
  /// the out-of-bounds fill (the kernel's expected byte count uses the same rule).
  bool fit_box_rows = false;
  /// The pitch used when `rows` <= 1 (a pitch that is never stepped only has to be valid).
  std::optional<sym_expr> pitch_if_one_row{};
  /// @brief The box's rows for a matrix of `rows` rows: box_rows, or with fit_box_rows at most
  /// `rows` rounded up to 8 (an empty matrix keeps box_rows: nothing is loaded through it).
  [[nodiscard]] constexpr std::int64_t box_rows_for(std::int64_t rows) const noexcept {
    return fit_box_rows && rows > 0 && (rows + 7) / 8 * 8 < box_rows ? (rows + 7) / 8 * 8 : box_rows;
  }
  /// @brief Member-wise equality.
  friend bool operator==(const tensor_map_spec&, const tensor_map_spec&) = default;
};

/// @brief What a kernel parameter is.
enum class launch_param_kind : std::uint8_t {
  tensor,       ///< pointer to tensor `index` of the C ABI (inputs, then the output)
  workspace,    ///< the workspace pointer plus `byte_offset` (null when the caller passes none)
  size,         ///< size symbol `index` (entry order), as `scalar`
  runtime_arg,  ///< runtime argument `index`, as `scalar`
  tensor_map,   ///< a CUtensorMap (128 bytes, by value) built from `map`
};

/// @brief One kernel parameter; `name` is the argument as the generated entry spells it.
struct launch_param {
  launch_param_kind kind = launch_param_kind::tensor;  ///< what the parameter is
  std::size_t index = 0;                               ///< tensor, size or runtime argument index (see kind)
  std::string name{};                                  ///< the argument as the generated entry spells it
  launch_scalar scalar = launch_scalar::i64;           ///< integer type of a size or runtime argument
  std::int64_t byte_offset = 0;                        ///< workspace: bytes from the workspace pointer
  std::string cpp_type{};                              ///< workspace: the pointer type the kernel takes ("float*")
  std::optional<tensor_map_spec> map{};                ///< tensor_map: the map to build
  /// @brief Member-wise equality.
  friend bool operator==(const launch_param&, const launch_param&) = default;
};

/// @brief One `extern "C" __global__` kernel launch. The kernel's symbol is
/// `<launch_description::kernel_name>_<suffix>` (device_symbol()); generated code spells it
/// device_symbol_ref(suffix), so that naming a kernel sets a field and never edits its text.
struct kernel_launch {
  std::string suffix{};                        ///< the symbol after the entry's name and '_', e.g. `v8_8`
  std::array<launch_value, 3> grid{};          ///< blocks along x, y, z
  std::array<std::int64_t, 3> block{1, 1, 1};  ///< threads per block along x, y, z
  std::int64_t shared_bytes = 0;               ///< dynamic shared memory in bytes
  std::vector<launch_param> params{};          ///< the kernel's parameters, in order
  /// AMD values where they differ (source with per-platform constants): block {0, 0, 0} and
  /// shared bytes -1 mean "as above".
  std::array<std::int64_t, 3> amd_block{0, 0, 0};
  std::int64_t amd_shared_bytes = -1;  ///< AMD dynamic shared memory; -1: shared_bytes
  /// @brief Member-wise equality.
  friend bool operator==(const kernel_launch&, const kernel_launch&) = default;
};

/// @brief A condition a variant needs.
enum class launch_requirement_kind : std::uint8_t {
  aligned_pointer,  ///< tensor `tensor` plus `expr` elements is `value`-byte aligned
  multiple_of,      ///< `expr` % `value` == 0 (skipped when `unless_at_most_one` <= 1)
  at_most,          ///< `expr` <= `value`
  equals,           ///< `expr` == `value`
};

/// @brief One requirement of a variant (see launch_requirement_kind).
struct launch_requirement {
  launch_requirement_kind kind = launch_requirement_kind::multiple_of;  ///< the condition
  std::size_t tensor = 0;                                               ///< aligned_pointer: C ABI tensor index
  sym_expr expr{0};                              ///< the expression tested (aligned_pointer: an element offset)
  std::int64_t value = 1;                        ///< the bound, divisor or alignment in bytes
  std::optional<sym_expr> unless_at_most_one{};  ///< multiple_of: skipped when this is at most 1
  /// @brief Member-wise equality.
  friend bool operator==(const launch_requirement&, const launch_requirement&) = default;
};

/// @brief The launches of one instantiation and what they need.
struct launch_variant {
  std::vector<launch_requirement> requirements{};  ///< all must hold for the variant to launch
  std::vector<kernel_launch> launches{};           ///< launched in order
  /// @brief Member-wise equality.
  friend bool operator==(const launch_variant&, const launch_variant&) = default;
};

/// @brief Everything the entry point launches, for one configuration.
struct launch_description {
  std::string kernel_name{};                  ///< the entry's name: every device symbol starts with it
  std::vector<std::string> size_symbols{};    ///< symbol names in entry order (their values' order)
  std::vector<std::string> runtime_args{};    ///< runtime argument names in entry order
  std::vector<dtype> tensor_types{};          ///< C ABI tensors (inputs, then the output)
  launch_value workspace_bytes{sym_expr(0)};  ///< what the workspace query answers
  std::vector<launch_variant> variants{};     ///< tried in order; the first whose requirements hold launches
  /// @brief Member-wise equality.
  friend bool operator==(const launch_description&, const launch_description&) = default;
};

/// @brief The symbol of device kernel `suffix` of kernel (entry) `kernel_name`: `<kernel_name>_<suffix>`.
[[nodiscard]] std::string device_symbol(std::string_view kernel_name, std::string_view suffix);

/// @brief The symbol of one of the description's launches: device_symbol(d.kernel_name, l.suffix).
[[nodiscard]] inline std::string device_symbol(const launch_description& d, const kernel_launch& l) {
  return device_symbol(d.kernel_name, l.suffix);
}

/// @brief The macro through which generated code names its kernel's device symbols. Whoever
/// assembles a kernel's code defines it from the entry's name around that code
/// (rendered_source::kernel_text()), so the text of a kernel never holds its own name: renaming a
/// kernel, and deduplicating kernels by their text, never edit or search generated code.
inline constexpr std::string_view device_symbol_macro = "ROCMTPL_KERNEL_SYMBOL";

/// @brief How generated code spells device symbol `suffix`: `ROCMTPL_KERNEL_SYMBOL(suffix)`.
/// @throws invalid_argument_error when `suffix` is empty or not made of letters, digits and '_'.
[[nodiscard]] std::string device_symbol_ref(std::string_view suffix);

/// @brief A description's head for an entry: its name (the device symbols' prefix), the size
/// symbols, runtime arguments and tensor dtypes in entry order; no variants yet.
[[nodiscard]] launch_description launch_description_for(std::string_view kernel_name, const kernel_args& args);

/// @brief C ABI position (inputs, then outputs) of the tensor bound as `arg_name`.
/// @throws invalid_argument_error when no tensor is bound under that name.
[[nodiscard]] std::size_t abi_tensor_index(const kernel_args& args, std::string_view arg_name);

/// @brief The entry's tensor parameter names in C ABI order (inputs, then outputs).
[[nodiscard]] std::vector<std::string> abi_tensor_names(const kernel_args& args);

// ---- bound: evaluated for concrete sizes and runtime arguments ---------------------------------

/// @brief A tensor map with concrete numbers.
struct bound_tensor_map {
  std::size_t tensor = 0;      ///< C ABI tensor index
  dtype element = dtype::f16;  ///< element type
  /// @brief tensor_map_spec's offset, rows, cols, pitch (pitch_if_one_row applied) and box, evaluated.
  /// @{
  std::int64_t offset = 0, rows = 0, cols = 0, pitch = 0, box_rows = 0, box_cols = 0;
  /// @}
  /// @brief Member-wise equality.
  friend bool operator==(const bound_tensor_map&, const bound_tensor_map&) = default;
};

/// @brief A parameter with concrete numbers: `value` is the integer (size, runtime argument) or the
/// workspace byte offset.
struct bound_param {
  launch_param_kind kind = launch_param_kind::tensor;  ///< what the parameter is
  std::size_t index = 0;                               ///< launch_param::index
  launch_scalar scalar = launch_scalar::i64;           ///< integer type of a size or runtime argument
  std::int64_t value = 0;                              ///< the integer, or the workspace byte offset
  std::optional<bound_tensor_map> map{};               ///< tensor_map: the map's numbers
  /// @brief Member-wise equality.
  friend bool operator==(const bound_param&, const bound_param&) = default;
};

/// @brief A launch with concrete numbers; grid x is still capped at the SM count when asked.
struct bound_kernel_launch {
  std::string symbol{};                        ///< the device symbol (device_symbol()), as the code object names it
  std::array<std::int64_t, 3> grid{1, 1, 1};   ///< blocks along x, y, z (before the SM-count cap)
  bool grid_x_at_most_sm_count = false;        ///< cap grid x at the multiprocessor count (launch_grid())
  std::array<std::int64_t, 3> block{1, 1, 1};  ///< threads per block (the platform's values)
  std::int64_t shared_bytes = 0;               ///< dynamic shared memory in bytes (the platform's value)
  std::vector<bound_param> params{};           ///< the kernel's parameters, in order
  /// @brief Member-wise equality.
  friend bool operator==(const bound_kernel_launch&, const bound_kernel_launch&) = default;
};

/// @brief A pointer requirement left for launch time: (tensor + byte_offset) % alignment == 0.
struct bound_alignment {
  std::size_t tensor = 0;        ///< C ABI tensor index
  std::int64_t byte_offset = 0;  ///< bytes added to the tensor's address
  std::int64_t alignment = 1;    ///< required alignment in bytes
  /// @brief Member-wise equality.
  friend bool operator==(const bound_alignment&, const bound_alignment&) = default;
};

/// @brief A variant whose size requirements held.
struct bound_variant {
  std::size_t index = 0;                        ///< position in launch_description::variants
  std::vector<bound_alignment> alignments{};    ///< pointer requirements checked at launch (select_variant())
  std::vector<bound_kernel_launch> launches{};  ///< launched in order
  /// @brief Member-wise equality.
  friend bool operator==(const bound_variant&, const bound_variant&) = default;
};

/// @brief A description evaluated for concrete sizes and runtime arguments.
struct bound_launch {
  std::int64_t workspace_bytes = 0;       ///< the workspace the launch needs
  std::vector<bound_variant> variants{};  ///< the variants whose size requirements held, in order
  /// @brief Member-wise equality.
  friend bool operator==(const bound_launch&, const bound_launch&) = default;
};

/// @brief The arguments do not fit the description (no variant, a grid too large, overflow).
class launch_unsupported_error : public invalid_argument_error {
 public:
  using invalid_argument_error::invalid_argument_error;
};

namespace detail::launch_impl {

size_hints symbol_values(const launch_description& d, const std::vector<std::int64_t>& sizes,
                         const std::vector<std::int64_t>& runtime_args);

std::int64_t runtime_arg(const std::vector<std::int64_t>& args, std::size_t i);

std::int64_t evaluate(const launch_value& v, const size_hints& h, const std::vector<std::int64_t>& args);

bool holds(const launch_requirement& r, const size_hints& h);

bound_param bind_param(const launch_param& p, const size_hints& h, const std::vector<std::int64_t>& sizes,
                       const std::vector<std::int64_t>& args);

}  // namespace detail::launch_impl

/// @brief Evaluates a description for concrete sizes (size_symbols order) and runtime arguments:
/// drops the variants whose size requirements fail, computes every grid, the workspace bytes and
/// the tensor maps' numbers; `amd` picks the AMD block and shared bytes. Pure arithmetic: no GPU.
/// @throws evaluation_error when an expression overflows; invalid_argument_error when the counts
/// do not match.
[[nodiscard]] bound_launch bind(const launch_description& d, const std::vector<std::int64_t>& sizes,
                                const std::vector<std::int64_t>& runtime_args, bool amd = false);

/// @brief The first variant whose alignments hold for these tensor addresses (C ABI order).
/// @throws launch_unsupported_error when none does.
[[nodiscard]] const bound_variant& select_variant(const bound_launch& b, const std::vector<std::uintptr_t>& tensors);

/// @brief The grid actually launched: the SM-count cap applied; checks the launch limits.
/// @return the grid, or all zeros when the launch is skipped (a zero dimension)
/// @throws launch_unsupported_error when grid x exceeds int32 or y, z exceed 65535
[[nodiscard]] std::array<std::int64_t, 3> launch_grid(const bound_kernel_launch& l, std::int64_t sm_count);

// ---- rendering the entry's launch lines --------------------------------------------------------

namespace detail::launch_impl {

std::string value_cpp(const launch_value& v, const launch_description& d, const std::string& ok,
                      const std::string& sm_count);

std::string requirement_cpp(const launch_requirement& r, const std::vector<std::string>& tensor_names);

std::string param_cpp(const launch_param& p, std::size_t launch_index);

}  // namespace detail::launch_impl

/// @brief Host helpers the rendered launch lines use (`rocmtpl_launch_min`); paste once per
/// source (or per namespace: a module wraps each kernel's source in a namespace of its own), after
/// sym_expr_cpp_helpers. Host code, so left out of device-only compiles (ROCMTPL_DEVICE_ONLY).
inline constexpr std::string_view launch_cpp_helpers =
    R"hip(#if !defined(ROCMTPL_DEVICE_ONLY)
[[maybe_unused]] static inline int64_t rocmtpl_launch_min(int64_t a, int64_t b) { return a < b ? a : b; }
#if defined(ROCMTPL_PLATFORM_NVIDIA)
// Raises a kernel's dynamic shared-memory limit (an attribute of the kernel on each device) once
// per device: `raised` holds a bit per device (an atomic the launch lines keep), set after the
// attribute is. Threads that find the bit clear at the same time all set the attribute (the same
// value: harmless); devices past 63 set it on every launch.
template <class Bits>
static inline bool rocmtpl_raise_shared_limit(const void* kernel, int bytes, Bits& raised) {
    int device = 0;
    if (hipGetDevice(&device) != hipSuccess) return false;
    const uint64_t bit = device >= 0 && device < 64 ? uint64_t{1} << device : uint64_t{0};
    if (bit != 0 && (raised.load() & bit) != 0) return true;
    if (hipFuncSetAttribute(kernel, hipFuncAttributeMaxDynamicSharedMemorySize, bytes) != hipSuccess) return false;
    raised.fetch_or(bit);
    return true;
}
#endif
#endif
)hip";

/// @brief Above this many bytes of dynamic shared memory a launch opts in first (on NVIDIA).
inline constexpr std::int64_t launch_shared_opt_in_bytes = 48 * 1024;

/// @brief The include blocks the launch lines of `d` need besides the portability header: `<atomic>`
/// on NVIDIA when a launch opts into more than 48 KiB of shared memory (its once-per-device flag).
/// A template adds them to its parts' includes (rendered_source::includes).
[[nodiscard]] std::vector<std::string> launch_includes(const launch_description& d);

namespace detail::launch_impl {
// The fixed lines write_workspace_query() and write_launches() write (each at the entry body's
// indentation), shared with the constant-evaluation renderer (templates/static_source.hpp).
inline constexpr std::string_view workspace_flag_line = "bool rocmtpl_ws_ok = true;";
inline constexpr std::array<std::string_view, 5> workspace_answer_lines{
    "if (!rocmtpl_ws_ok || rocmtpl_workspace_bytes < 0) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;",
    "if (workspace_size) {", "    *workspace_size = static_cast<size_t>(rocmtpl_workspace_bytes);",
    "    return ROCMTPL_STATUS_OK;", "}"};
inline constexpr std::string_view workspace_missing_line =
    "if (rocmtpl_workspace_bytes > 0 && workspace == nullptr) return ROCMTPL_STATUS_WORKSPACE_TOO_SMALL;";
}  // namespace detail::launch_impl

/// @brief Writes the entry's workspace computation and query answer: `rocmtpl_workspace_bytes`
/// (checked), then `if (workspace_size) { *workspace_size = ...; return ROCMTPL_STATUS_OK; }`.
void write_workspace_query(indented_buffer& src, const launch_description& d);

namespace detail::launch_impl {

void write_one_launch(indented_buffer& src, const launch_description& d, const kernel_launch& l, std::size_t li,
                      const std::vector<std::string>& tensor_names);

}  // namespace detail::launch_impl

/// @brief Writes the entry's launches: the variant choice (first whose requirements hold), then
/// per launch the grid (checked; a zero dimension skips it), tensor maps, the shared-memory opt-in
/// above 48 KiB (once per device) and the launch (`hipLaunchKernelGGL(kernel, grid, block, shared bytes,
/// stream, arguments...)`). Needs `rocmtpl_workspace_bytes`
/// (write_workspace_query), launch_cpp_helpers and launch_includes(d) in the source and, for tensor
/// maps or SM-count caps, `rocmtpl_make_tensor_map()` and `rocmtpl_sm_count()`. `tensor_names`
/// are the entry's tensor parameters in C ABI order.
void write_launches(indented_buffer& src, const launch_description& d, const std::vector<std::string>& tensor_names);

}  // namespace rocmtpl

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/codegen/launch-inl.hpp>
#endif
