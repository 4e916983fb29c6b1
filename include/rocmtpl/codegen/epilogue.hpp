// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Epilogue chains: the pointwise operation an epilogue node carries (activations, add, sub
/// and mul with a tensor broadcast along rows, columns or full, a scalar scale, a dtype cast), the
/// epilogue a template fuses (fused_epilogue: the chain, its extra inputs and the output), and the
/// one device function every math path of a template calls per output element:
/// @code{.unparsed}
/// __device__ __forceinline__ float rocmtpl_epilogue(const rocmtpl_epilogue_args& ea, int64_t batch,
///                                                   int64_t row, int64_t col, float v);
/// @endcode
/// so that a new path gets the fusion by calling the same function (epilogue_device_code()).
///
/// @code{.cpp}
/// using namespace rocmtpl;
/// epilogue_chain c{{epilogue_op::add(0, epilogue_broadcast::row_vector), epilogue_op::activation(activation::gelu),
///                   epilogue_op::mul(1, epilogue_broadcast::full)}};
/// c.to_string();  // "add(in0 row_vector) -> gelu -> mul(in1 full)"
/// @endcode

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rocmtpl/codegen/activation.hpp>
#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/ir/buffer.hpp>
#include <rocmtpl/ir/dtype.hpp>
#include <rocmtpl/ir/sym_expr.hpp>

namespace rocmtpl {

/// @brief The former name of a chain's activations: the one activation set (codegen/activation.hpp)
/// that the templates' built-in epilogues use too.
using epilogue_activation = activation;

/// @brief How a tensor operand of an epilogue op covers the output [(batch,) M, N].
enum class epilogue_broadcast : std::uint8_t {
  row_vector,     ///< one value per column: [N] (or [1, N]), the same for every row
  column_vector,  ///< one value per row: [M] (or [M, 1]), the same for every column
  full,           ///< one value per element: [M, N] or [batch, M, N]
};

/// @brief The kinds of epilogue ops.
enum class epilogue_op_kind : std::uint8_t { activation, add, sub, mul, scale, cast };

/// @brief One pointwise op of an epilogue chain; build it with the named constructors.
struct epilogue_op {
  epilogue_op_kind kind = epilogue_op_kind::scale;          ///< which op; the fields below that it uses
  rocmtpl::activation act = rocmtpl::activation::relu;      ///< activation
  std::size_t input = 0;                                    ///< add/sub/mul: index of the tensor operand
  epilogue_broadcast broadcast = epilogue_broadcast::full;  ///< add/sub/mul: how the operand broadcasts
  float scalar = 1.0F;                                      ///< scale: the factor
  dtype type = dtype::f32;                                  ///< cast: the dtype the value is rounded to

  /// @brief `v = act(v)` (none: no statement).
  [[nodiscard]] static epilogue_op activation(rocmtpl::activation a);
  /// @brief `v = v + in[input]`.
  [[nodiscard]] static epilogue_op add(std::size_t input, epilogue_broadcast b) {
    return binary(epilogue_op_kind::add, input, b);
  }
  /// @brief `v = v - in[input]`.
  [[nodiscard]] static epilogue_op sub(std::size_t input, epilogue_broadcast b) {
    return binary(epilogue_op_kind::sub, input, b);
  }
  /// @brief `v = v * in[input]`.
  [[nodiscard]] static epilogue_op mul(std::size_t input, epilogue_broadcast b) {
    return binary(epilogue_op_kind::mul, input, b);
  }
  /// @brief `v = s * v`.
  /// @throws config_error when `s` is NaN or an infinity (it is rendered as a float literal).
  [[nodiscard]] static epilogue_op scale(float s);
  /// @brief `v = (float)(T)v`: rounds to dtype `t` (f32, f16 or bf16).
  [[nodiscard]] static epilogue_op cast(dtype t);

  /// @brief True for add, sub and mul (ops with a tensor operand).
  [[nodiscard]] bool has_input() const noexcept {
    return kind == epilogue_op_kind::add || kind == epilogue_op_kind::sub || kind == epilogue_op_kind::mul;
  }

  /// @brief Same kind and the same value of the fields that kind uses.
  friend bool operator==(const epilogue_op& a, const epilogue_op& b) noexcept;

 private:
  static epilogue_op binary(epilogue_op_kind k, std::size_t input, epilogue_broadcast b);
};

/// @brief Name of a broadcast ("row_vector", "column_vector", "full").
[[nodiscard]] constexpr std::string_view to_string(epilogue_broadcast b) noexcept {
  switch (b) {
    case epilogue_broadcast::row_vector: return "row_vector";
    case epilogue_broadcast::column_vector: return "column_vector";
    case epilogue_broadcast::full: return "full";
  }
  return "?";
}

namespace detail {
/// `<prefix><i>`, appended in steps (g++ 12 at -O3 reports a false -Werror=restrict on
/// `"lit" + std::to_string(i)`).
[[nodiscard]] std::string indexed_name(std::string_view prefix, std::size_t i);
}  // namespace detail

namespace detail::epilogue_impl {
// "%.9g" of v with ".0" when it reads as an integer; "nan" / "inf" for those (messages).
std::string float_text(float v);
// float_text() for generated code: throws invalid_argument_error for NaN and infinities, which no
// literal spells (the chain's validate() refuses them first; this is the backstop).
std::string float_literal_text(float v);
void check_float_dtype(dtype t, const std::string& what);
}  // namespace detail::epilogue_impl

/// @brief A chain of pointwise ops applied in order to one fp32 value per output element.
struct epilogue_chain {
  std::vector<epilogue_op> ops;  ///< in application order

  /// @brief `add(in0 row_vector) -> gelu -> mul(in1 full)`; `identity` for no op.
  [[nodiscard]] std::string to_string() const;

  /// @brief Number of tensor operands the chain reads: one past the largest input index.
  [[nodiscard]] std::size_t input_count() const noexcept;

  /// @brief This chain followed by `next`, whose input indices are shifted by `input_offset`.
  [[nodiscard]] epilogue_chain then(const epilogue_chain& next, std::size_t input_offset) const;

  /// @brief Checks the values the chain renders into source: every scale must be a finite number.
  /// The pointwise template checks its chain when it is made, the fusing templates when they render.
  /// @param owner what the chain belongs to, for the message (`pointwise`, `epilogue`)
  /// @throws config_error naming the op and the value (`scale(nan)`).
  void validate(std::string_view owner = "epilogue") const;

  /// @brief Member-wise equality.
  friend bool operator==(const epilogue_chain&, const epilogue_chain&) = default;
};

/// @brief An epilogue a template fuses: the chain (input indices into `inputs`), the chain's tensor
/// operands and the buffer the fused kernel writes instead of the template's own output.
///
/// The scheduler (rocm_cpp_scheduling) builds it from the epilogue nodes: buffers are named
/// `rocmtpl_epilogue_in<i>` and `rocmtpl_epilogue_out` (call_kernel maps them back to the graph's
/// names), and the chain starts with a cast to the template's output dtype and has a cast to each
/// intermediate node's dtype, so that the fused kernel rounds where the unfused nodes store.
struct fused_epilogue {
  epilogue_chain chain;                                                      ///< the ops, in order
  std::vector<buffer> inputs;                                                ///< the tensor operands, by index
  buffer output{"rocmtpl_epilogue_out", layout::row_major(dtype::f32, {})};  ///< what the fused kernel writes
  std::vector<std::string> nodes;  ///< graph names of the fused nodes (for comments)
};

/// @brief A tensor operand of a chain as (batch, rows, cols) of the output: strides (0 where it
/// broadcasts) and offset, in elements.
struct epilogue_operand {
  const buffer* node = nullptr;  ///< the operand's buffer
  sym_expr stride_b{0};          ///< stride along the batch (0: broadcast)
  sym_expr stride_r{0};          ///< stride along the rows, M (0: broadcast)
  sym_expr stride_c{0};          ///< stride along the columns, N (0: broadcast)
  sym_expr offset{0};            ///< offset of its first element
};

/// @brief Checks a chain against its operands and an output [(batch,) M, N] and returns each
/// operand's view; the message says what does not fit (the scheduler's refusal reason).
/// @throws invalid_argument_error for an op whose input is missing, an operand used with two
/// broadcasts, an operand whose shape does not fit its broadcast, or an unsupported dtype.
[[nodiscard]] std::vector<epilogue_operand> epilogue_operands(const fused_epilogue& e, const sym_expr& batch,
                                                              const sym_expr& m, const sym_expr& n);

namespace detail::epilogue_impl {
std::string load(dtype t, const std::string& e);
std::string round_to(dtype t, const std::string& v);

// The conversions load() and round_to() call, with the opening parenthesis; empty: none (f32:
// load() is `static_cast<float>(e)`, round_to() the value itself). Constants, so that the
// constant-evaluation renderer (templates/static_source.hpp) spells them from here too.
[[nodiscard]] constexpr std::string_view load_open(dtype t) noexcept {
  return t == dtype::f16 ? "rocmtpl_epi_f16(" : t == dtype::bf16 ? "rocmtpl_epi_bf16(" : "static_cast<float>(";
}
[[nodiscard]] constexpr std::string_view round_open(dtype t) noexcept {
  return t == dtype::f16 ? "rocmtpl_epi_round_f16(" : t == dtype::bf16 ? "rocmtpl_epi_round_bf16(" : "";
}

// Exact 16-bit -> float and round-to-nearest-even float -> 16-bit conversions (NVIDIA: the
// hardware's cvt instructions; AMD: _Float16 for fp16, bit operations for bf16), two values of a
// 32-bit word at once, and the 16-byte read-only load of the vector form.
inline constexpr std::string_view conversions_text =
    R"epi(__device__ __forceinline__ float rocmtpl_epi_f16(uint16_t b) {
#if defined(ROCMTPL_PLATFORM_NVIDIA)
    return __half2float(__ushort_as_half(b));
#else
    _Float16 h;
    __builtin_memcpy(&h, &b, sizeof h);
    return static_cast<float>(h);
#endif
}
__device__ __forceinline__ float rocmtpl_epi_bf16(uint16_t b) { return rocmtpl_dev::bf16_bits_to_float(b); }
__device__ __forceinline__ float rocmtpl_epi_round_f16(float v) {
#if defined(ROCMTPL_PLATFORM_NVIDIA)
    return __half2float(__float2half_rn(v));
#else
    return static_cast<float>(static_cast<_Float16>(v));
#endif
}
__device__ __forceinline__ float rocmtpl_epi_round_bf16(float v) {
#if defined(ROCMTPL_PLATFORM_NVIDIA)
    return __bfloat162float(__float2bfloat16_rn(v));
#else
    return rocmtpl_dev::bf16_bits_to_float(rocmtpl_dev::float_to_bf16_bits(v));
#endif
}
// The two 16-bit values of a word (low half first) as floats.
__device__ __forceinline__ void rocmtpl_epi_f16x2(uint32_t w, float& lo, float& hi) {
#if defined(ROCMTPL_PLATFORM_NVIDIA)
    __half2 h;
    __builtin_memcpy(&h, &w, sizeof h);
    const float2 f = __half22float2(h);
    lo = f.x, hi = f.y;
#else
    lo = rocmtpl_epi_f16(static_cast<uint16_t>(w & 0xFFFFu)), hi = rocmtpl_epi_f16(static_cast<uint16_t>(w >> 16));
#endif
}
__device__ __forceinline__ void rocmtpl_epi_bf16x2(uint32_t w, float& lo, float& hi) {
    lo = rocmtpl_dev::bits_as_float(w << 16), hi = rocmtpl_dev::bits_as_float(w & 0xFFFF0000u);
}
// Brings the line of p into L2 (NVIDIA; nothing elsewhere).
__device__ __forceinline__ void rocmtpl_epi_prefetch(const void* p) {
#if defined(ROCMTPL_PLATFORM_NVIDIA)
    asm volatile("prefetch.L2 [%0];" ::"l"(p));
#else
    (void)p;
#endif
}
)epi";

// The fixed text of the device code (epilogue_device_code()), shared with the constant-evaluation
// renderer (templates/static_source.hpp).
inline constexpr std::string_view scalar_head =
    "__device__ __forceinline__ float rocmtpl_epilogue(const rocmtpl_epilogue_args& ea, int64_t batch, int64_t "
    "row,\n"
    "                                                  int64_t col, float v) {\n"
    "    (void)ea, (void)batch, (void)row, (void)col;\n";
inline constexpr std::string_view scalar_tail = "    return v;\n}\n";
inline constexpr std::string_view vector_form_comment =
    "// Vector form: the chain on 8 consecutive columns of one row (codegen/epilogue.hpp).\n";
inline constexpr std::string_view row_at_head =
    "__device__ __forceinline__ rocmtpl_epilogue_row rocmtpl_epilogue_row_at(const rocmtpl_epilogue_args& ea, "
    "int64_t batch,\n                                                             int64_t row) {\n"
    "    rocmtpl_epilogue_row r{};\n    (void)ea, (void)batch, (void)row;\n";
inline constexpr std::string_view row_at_tail = "    return r;\n}\n";
inline constexpr std::string_view cols_at_head =
    "__device__ __forceinline__ rocmtpl_epilogue_cols rocmtpl_epilogue_cols_at(const rocmtpl_epilogue_args& ea, "
    "int col) {\n    rocmtpl_epilogue_cols c;\n    (void)ea, (void)col;\n";
inline constexpr std::string_view cols_at_tail = "    return c;\n}\n";
inline constexpr std::string_view seg_at_head =
    "__device__ __forceinline__ rocmtpl_epilogue_seg rocmtpl_epilogue_seg_at(const rocmtpl_epilogue_args& ea,\n"
    "                                                             const rocmtpl_epilogue_row& r, int col) {\n"
    "    rocmtpl_epilogue_seg s;\n    (void)ea, (void)r, (void)col;\n";
inline constexpr std::string_view seg_at_tail = "    return s;\n}\n";
inline constexpr std::string_view prefetch_head =
    "__device__ __forceinline__ void rocmtpl_epilogue_prefetch(const rocmtpl_epilogue_args& ea, const "
    "rocmtpl_epilogue_row& r,\n                                                          int col) {\n"
    "    (void)ea, (void)r, (void)col;\n";
inline constexpr std::string_view prefetch_tail = "}\n";
inline constexpr std::string_view apply8_head =
    "__device__ __forceinline__ void rocmtpl_epilogue8(const rocmtpl_epilogue_row& er, const rocmtpl_epilogue_cols& "
    "ec,\n                                                  const rocmtpl_epilogue_seg& es, float (&vs)[8]) {\n"
    "    (void)er, (void)ec, (void)es;\n";
inline constexpr std::string_view apply8_loop =
    "#pragma unroll\n    for (int e = 0; e < 8; ++e) {\n        float v = vs[e];\n";
inline constexpr std::string_view apply8_tail = "        vs[e] = v;\n    }\n}\n";

// The statements of the chain on `float v`; `operand(i)` is the float value of tensor operand i.
// An activation is `v = <its expression>;` (codegen/activation.hpp, the text the templates' own
// epilogue applies too: one function per activation); none writes nothing.
template <class Operand>
std::string chain_statements(const epilogue_chain& chain, const std::string& indent, Operand&& operand) {
  std::string s;
  for (const auto& o : chain.ops) {
    switch (o.kind) {
      case epilogue_op_kind::activation:
        if (o.act == rocmtpl::activation::none) break;
        s += indent;
        s += "v = ";
        s += activation_expression(o.act);
        s += ";\n";
        break;
      case epilogue_op_kind::scale: s += indent + "v = " + float_literal_text(o.scalar) + "f * v;\n"; break;
      case epilogue_op_kind::cast: s += indent + "v = " + round_to(o.type, "v") + ";\n"; break;
      default: {
        const char* op = o.kind == epilogue_op_kind::add ? " + " : (o.kind == epilogue_op_kind::sub ? " - " : " * ");
        s += indent + "v = v" + std::string(op) + operand(o.input) + ";\n";
      }
    }
  }
  return s;
}

std::vector<const epilogue_broadcast*> operand_uses(const epilogue_chain& chain, std::size_t count);

std::string field(std::size_t i, const std::string& name, const sym_expr& e);

// Words of 8 raw values of a dtype (16-bit: 4, f32: 8).
inline std::string words8(dtype t) { return t == dtype::f32 ? "8" : "4"; }

std::string unpack8(std::size_t i, dtype t, const std::string& src);
}  // namespace detail::epilogue_impl

/// @brief The parameter list `, const T* __restrict__ <prefix>0, ...` of a chain's tensor operands
/// (empty for none), for kernels and entry points that take them after the template's own inputs.
[[nodiscard]] std::string epilogue_params(const std::vector<epilogue_operand>& ops, std::string_view prefix,
                                          bool restrict);

namespace detail::epilogue_impl {
std::string args_text(const std::vector<epilogue_operand>& ops, const std::vector<std::string>& symbols);

std::string scalar_text(const epilogue_chain& chain, const std::vector<epilogue_operand>& ops);

std::string vector_structs_text(const std::vector<epilogue_operand>& ops,
                                const std::vector<const epilogue_broadcast*>& uses);

std::string vector_loads_text(const std::vector<epilogue_operand>& ops,
                              const std::vector<const epilogue_broadcast*>& uses);

std::string vector_apply_text(const epilogue_chain& chain, const std::vector<epilogue_operand>& ops,
                              const std::vector<const epilogue_broadcast*>& uses, std::optional<dtype> staged);
}  // namespace detail::epilogue_impl

/// @brief The device code of a chain (inside the template's anonymous namespace).
///
/// - `rocmtpl_epilogue_args` (each operand's pointer, offset and strides) and its maker
///   `rocmtpl_epilogue_make(<operand pointers>..., <size symbols>...)`;
/// - the scalar form `rocmtpl_epilogue(args, batch, row, col, v)`: the chain on one fp32 value;
/// - the vector form, the chain on 8 consecutive columns `col .. col + 7` (all inside the output)
///   of one row: `rocmtpl_epilogue_row_at(args, batch, row)` (once per row, a row inside the
///   output: the full operands' 64-bit row starts, the column operands' values),
///   `rocmtpl_epilogue_cols_at(args, col)` (once per column segment: the row operands' 8 values),
///   `rocmtpl_epilogue_seg_at(args, row, col)` (the full operands' 8 values: one 16-byte load where
///   they are contiguous and aligned), `rocmtpl_epilogue8(row, cols, seg, float (&v)[8])`, and
///   `rocmtpl_epilogue_prefetch(args, row, col)` (the segment's full operands into L2 on NVIDIA).
///
/// Both forms apply the same statements (so they give the same bits); conversions use the
/// hardware's instructions where the platform has them. The caller stores the result in the
/// output's type. Where the vector form's values already have a 16-bit type (`staged`: the Hopper
/// path stages its rows in the output's type), a leading cast of the chain to that type is left out
/// of the vector form: on such values it changes nothing, and it cost two conversions a value.
/// @param chain the ops
/// @param ops the operands (epilogue_operands())
/// @param symbols the kernel's size symbols (the operands' strides and offsets use them)
/// @param staged the type the vector form's values arrive in, if they are rounded to one
[[nodiscard]] std::string epilogue_device_code(const epilogue_chain& chain, const std::vector<epilogue_operand>& ops,
                                               const std::vector<std::string>& symbols,
                                               std::optional<dtype> staged = std::nullopt);

/// @brief `rocmtpl_epilogue_make(<prefix>0, ..., <size symbols>)`: the maker's call with the
/// operands named `<prefix><i>` and the size symbols as in scope.
[[nodiscard]] std::string epilogue_make_call(std::size_t operands, std::string_view prefix,
                                             const std::vector<std::string>& symbols);

}  // namespace rocmtpl

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/codegen/epilogue-inl.hpp>
#endif
