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
/// epilogue_chain c{{epilogue_op::add(0, epilogue_broadcast::row_vector), epilogue_op::act(epilogue_activation::gelu),
///                   epilogue_op::mul(1, epilogue_broadcast::full)}};
/// c.to_string();  // "add(in0 row_vector) -> gelu -> mul(in1 full)"
/// @endcode

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rocmtpl/core/error.hpp>
#include <rocmtpl/ir/buffer.hpp>
#include <rocmtpl/ir/dtype.hpp>
#include <rocmtpl/ir/sym_expr.hpp>

namespace rocmtpl {

/// @brief Activations of an epilogue chain.
enum class epilogue_activation : std::uint8_t { relu, gelu, silu, sigmoid, tanh };

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
  epilogue_activation act = epilogue_activation::relu;      ///< activation
  std::size_t input = 0;                                    ///< add/sub/mul: index of the tensor operand
  epilogue_broadcast broadcast = epilogue_broadcast::full;  ///< add/sub/mul: how the operand broadcasts
  float scalar = 1.0F;                                      ///< scale: the factor
  dtype type = dtype::f32;                                  ///< cast: the dtype the value is rounded to

  /// @brief `v = act(v)`.
  [[nodiscard]] static epilogue_op activation(epilogue_activation a) {
    epilogue_op o;
    o.kind = epilogue_op_kind::activation;
    o.act = a;
    return o;
  }
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
  [[nodiscard]] static epilogue_op scale(float s) {
    epilogue_op o;
    o.kind = epilogue_op_kind::scale;
    o.scalar = s;
    return o;
  }
  /// @brief `v = (float)(T)v`: rounds to dtype `t` (f32, f16 or bf16).
  [[nodiscard]] static epilogue_op cast(dtype t) {
    epilogue_op o;
    o.kind = epilogue_op_kind::cast;
    o.type = t;
    return o;
  }

  /// @brief True for add, sub and mul (ops with a tensor operand).
  [[nodiscard]] bool has_input() const noexcept {
    return kind == epilogue_op_kind::add || kind == epilogue_op_kind::sub || kind == epilogue_op_kind::mul;
  }

  /// @brief Same kind and the same value of the fields that kind uses.
  friend bool operator==(const epilogue_op& a, const epilogue_op& b) noexcept {
    if (a.kind != b.kind) return false;
    switch (a.kind) {
      case epilogue_op_kind::activation: return a.act == b.act;
      case epilogue_op_kind::scale: return a.scalar == b.scalar;
      case epilogue_op_kind::cast: return a.type == b.type;
      default: return a.input == b.input && a.broadcast == b.broadcast;
    }
  }

 private:
  static epilogue_op binary(epilogue_op_kind k, std::size_t input, epilogue_broadcast b) {
    epilogue_op o;
    o.kind = k;
    o.input = input;
    o.broadcast = b;
    return o;
  }
};

/// @brief Name of an activation ("relu", "gelu", ...).
[[nodiscard]] constexpr std::string_view to_string(epilogue_activation a) noexcept {
  switch (a) {
    case epilogue_activation::relu: return "relu";
    case epilogue_activation::gelu: return "gelu";
    case epilogue_activation::silu: return "silu";
    case epilogue_activation::sigmoid: return "sigmoid";
    case epilogue_activation::tanh: return "tanh";
  }
  return "?";
}

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
[[nodiscard]] inline std::string indexed_name(std::string_view prefix, std::size_t i) {
  std::string s(prefix);
  s += std::to_string(i);
  return s;
}
}  // namespace detail

namespace detail::epilogue_impl {
inline std::string float_text(float v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.9g", static_cast<double>(v));
  std::string s = buf;
  if (s.find_first_of(".eEn") == std::string::npos) s += ".0";
  return s;
}
inline void check_float_dtype(dtype t, const std::string& what) {
  if (t != dtype::f32 && t != dtype::f16 && t != dtype::bf16) {
    throw invalid_argument_error("rocmtpl: epilogue: " + what + " has dtype " + std::string(name(t)) +
                                 "; supported: float32, float16, bfloat16");
  }
}
}  // namespace detail::epilogue_impl

/// @brief A chain of pointwise ops applied in order to one fp32 value per output element.
struct epilogue_chain {
  std::vector<epilogue_op> ops;  ///< in application order

  /// @brief `add(in0 row_vector) -> gelu -> mul(in1 full)`; `identity` for no op.
  [[nodiscard]] std::string to_string() const {
    std::string out;
    for (const auto& o : ops) {
      if (!out.empty()) out += " -> ";
      switch (o.kind) {
        case epilogue_op_kind::activation: out += rocmtpl::to_string(o.act); break;
        case epilogue_op_kind::scale: out += "scale(" + detail::epilogue_impl::float_text(o.scalar) + ")"; break;
        case epilogue_op_kind::cast: out += "cast(" + std::string(name(o.type)) + ")"; break;
        default: {
          const char* k = o.kind == epilogue_op_kind::add ? "add" : (o.kind == epilogue_op_kind::sub ? "sub" : "mul");
          out += std::string(k) + "(" + detail::indexed_name("in", o.input) + " " +
                 std::string(rocmtpl::to_string(o.broadcast)) + ")";
        }
      }
    }
    return out.empty() ? "identity" : out;
  }

  /// @brief Number of tensor operands the chain reads: one past the largest input index.
  [[nodiscard]] std::size_t input_count() const noexcept {
    std::size_t n = 0;
    for (const auto& o : ops) {
      if (o.has_input() && o.input + 1 > n) n = o.input + 1;
    }
    return n;
  }

  /// @brief This chain followed by `next`, whose input indices are shifted by `input_offset`.
  [[nodiscard]] epilogue_chain then(const epilogue_chain& next, std::size_t input_offset) const {
    epilogue_chain out = *this;
    for (auto o : next.ops) {
      if (o.has_input()) o.input += input_offset;
      out.ops.push_back(o);
    }
    return out;
  }

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
[[nodiscard]] inline std::vector<epilogue_operand> epilogue_operands(const fused_epilogue& e, const sym_expr& batch,
                                                                     const sym_expr& m, const sym_expr& n) {
  using detail::epilogue_impl::check_float_dtype;
  detail::epilogue_impl::check_float_dtype(e.output.type(), "output " + e.output.name());
  std::vector<epilogue_operand> out(e.inputs.size());
  std::vector<int> seen(e.inputs.size(), -1);
  for (const auto& o : e.chain.ops) {
    if (o.kind == epilogue_op_kind::cast) check_float_dtype(o.type, "cast");
    if (!o.has_input()) continue;
    if (o.input >= e.inputs.size()) {
      throw invalid_argument_error("rocmtpl: epilogue: op reads input " + detail::indexed_name("", o.input) + " but " +
                                   std::to_string(e.inputs.size()) + " inputs were given");
    }
    const int b = static_cast<int>(o.broadcast);
    if (seen[o.input] >= 0 && seen[o.input] != b) {
      throw invalid_argument_error("rocmtpl: epilogue: input " + detail::indexed_name("", o.input) +
                                   " is used with two broadcasts; give it once per broadcast");
    }
    seen[o.input] = b;
  }
  for (std::size_t i = 0; i < e.inputs.size(); ++i) {
    const buffer& t = e.inputs[i];
    check_float_dtype(t.type(), "input " + t.name());
    auto& op = out[i];
    op.node = &t;
    op.offset = t.get_layout().offset();
    const auto& s = t.sizes();
    const auto& st = t.strides();
    const auto r = s.size();
    auto fail = [&](const std::string& want) {
      throw invalid_argument_error("rocmtpl: epilogue: input " + t.name() + " " + t.get_layout().to_string() +
                                   " is not " + want + " of the output [" + m.to_string() + ", " + n.to_string() + "]");
    };
    auto pick = [&](std::size_t d, const sym_expr& want) {
      if (s[d] == want) return st[d];
      if (s[d] == sym_expr(1)) return sym_expr(0);
      return sym_expr(-1);
    };
    const auto bc = seen[i] < 0 ? epilogue_broadcast::full : static_cast<epilogue_broadcast>(seen[i]);
    if (bc == epilogue_broadcast::row_vector || bc == epilogue_broadcast::column_vector) {
      const bool rows = bc == epilogue_broadcast::column_vector;
      const sym_expr& len = rows ? m : n;
      sym_expr stride(-1);
      if (r == 1) stride = pick(0, len);
      if (r == 2 && (rows ? s[1] : s[0]) == sym_expr(1)) stride = pick(rows ? 0 : 1, len);
      if (stride == sym_expr(-1)) fail(rows ? "[M] (a column vector)" : "[N] (a row vector)");
      (rows ? op.stride_r : op.stride_c) = stride;
      continue;
    }
    if (r < 2 || r > 3) fail("[M, N] or [batch, M, N]");
    op.stride_r = pick(r - 2, m);
    op.stride_c = pick(r - 1, n);
    if (r == 3) op.stride_b = pick(0, batch);
    if (op.stride_r == sym_expr(-1) || op.stride_c == sym_expr(-1) || op.stride_b == sym_expr(-1)) {
      fail("[M, N] or [batch, M, N]");
    }
  }
  return out;
}

namespace detail::epilogue_impl {
// A 16-bit or f32 value read as float, and a value rounded to a dtype, through the conversions of
// conversions_text (hardware instructions where the platform has them).
inline std::string load(dtype t, const std::string& e) {
  if (t == dtype::f16) return "rocmtpl_epi_f16(" + e + ")";
  if (t == dtype::bf16) return "rocmtpl_epi_bf16(" + e + ")";
  return "static_cast<float>(" + e + ")";
}
inline std::string round_to(dtype t, const std::string& v) {
  if (t == dtype::f16) return "rocmtpl_epi_round_f16(" + v + ")";
  if (t == dtype::bf16) return "rocmtpl_epi_round_bf16(" + v + ")";
  return v;
}
// The gelu is the erf form of the portable header (rocmtpl_dev::gelu(), as the templates'
// activation, the reference and the unfused pointwise kernel apply it: one function).
inline std::string activation_text(epilogue_activation a) {
  switch (a) {
    case epilogue_activation::relu: return "v = v > 0.0f ? v : 0.0f;";
    case epilogue_activation::gelu: return "v = rocmtpl_dev::gelu(v);";
    case epilogue_activation::silu: return "v = v / (1.0f + expf(-v));";
    case epilogue_activation::sigmoid: return "v = 1.0f / (1.0f + expf(-v));";
    case epilogue_activation::tanh: return "v = tanhf(v);";
  }
  return "";
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
// 16 bytes at a 16-byte aligned address.
__device__ __forceinline__ uint4 rocmtpl_epi_ld16(const void* p) {
#if defined(ROCMTPL_PLATFORM_NVIDIA)
    return __ldg(reinterpret_cast<const uint4*>(p));
#else
    return *reinterpret_cast<const uint4*>(p);
#endif
}
// Brings the line of p into L2 (NVIDIA; nothing elsewhere).
__device__ __forceinline__ void rocmtpl_epi_prefetch(const void* p) {
#if defined(ROCMTPL_PLATFORM_NVIDIA)
    asm volatile("prefetch.L2 [%0];" ::"l"(p));
#else
    (void)p;
#endif
}
// 8 values at p, p + stride, ... as raw words (16-bit types two a word, low half first): 16-byte
// loads when the values are contiguous and p is 16-byte aligned, else one load a value.
__device__ __forceinline__ void rocmtpl_epi_load8(const uint16_t* p, int64_t stride, uint32_t (&w)[4]) {
    if (stride == 1 && (reinterpret_cast<uintptr_t>(p) & 15u) == 0) {
        const uint4 q = rocmtpl_epi_ld16(p);
        w[0] = q.x, w[1] = q.y, w[2] = q.z, w[3] = q.w;
    } else {
#pragma unroll
        for (int e = 0; e < 4; ++e) {
            w[e] = static_cast<uint32_t>(p[2 * e * stride]) | (static_cast<uint32_t>(p[(2 * e + 1) * stride]) << 16);
        }
    }
}
__device__ __forceinline__ void rocmtpl_epi_load8(const float* p, int64_t stride, uint32_t (&w)[8]) {
    if (stride == 1 && (reinterpret_cast<uintptr_t>(p) & 15u) == 0) {
        const uint4 a = rocmtpl_epi_ld16(p), b = rocmtpl_epi_ld16(p + 4);
        w[0] = a.x, w[1] = a.y, w[2] = a.z, w[3] = a.w, w[4] = b.x, w[5] = b.y, w[6] = b.z, w[7] = b.w;
    } else {
#pragma unroll
        for (int e = 0; e < 8; ++e) w[e] = rocmtpl_dev::float_as_bits(p[e * stride]);
    }
}
)epi";

// The statements of the chain on `float v`; `operand(i)` is the float value of tensor operand i.
template <class Operand>
std::string chain_statements(const epilogue_chain& chain, const std::string& indent, Operand&& operand) {
  std::string s;
  for (const auto& o : chain.ops) {
    switch (o.kind) {
      case epilogue_op_kind::activation: s += indent + activation_text(o.act) + "\n"; break;
      case epilogue_op_kind::scale: s += indent + "v = " + float_text(o.scalar) + "f * v;\n"; break;
      case epilogue_op_kind::cast: s += indent + "v = " + round_to(o.type, "v") + ";\n"; break;
      default: {
        const char* op = o.kind == epilogue_op_kind::add ? " + " : (o.kind == epilogue_op_kind::sub ? " - " : " * ");
        s += indent + "v = v" + std::string(op) + operand(o.input) + ";\n";
      }
    }
  }
  return s;
}

// How each operand is used (its one broadcast), or nothing for an operand no op reads.
inline std::vector<const epilogue_broadcast*> operand_uses(const epilogue_chain& chain, std::size_t count) {
  std::vector<const epilogue_broadcast*> out(count, nullptr);
  for (const auto& o : chain.ops) {
    if (o.has_input() && o.input < count) out[o.input] = &o.broadcast;
  }
  return out;
}

// `ea.e<i>_<field>`, or the stride's value where it is a constant (so that the compiler folds it).
inline std::string field(std::size_t i, const std::string& name, const sym_expr& e) {
  if (e.is_constant()) return e.to_cpp();
  return detail::indexed_name("ea.e", i) + "_" + name;
}

// Words of 8 raw values of a dtype (16-bit: 4, f32: 8).
inline std::string words8(dtype t) { return t == dtype::f32 ? "8" : "4"; }

// `float x<i>[8]` from the raw words `src` of dtype t.
inline std::string unpack8(std::size_t i, dtype t, const std::string& src) {
  const auto x = detail::indexed_name("x", i);
  std::string s = "    float " + x + "[8];\n#pragma unroll\n";
  if (t == dtype::f32)
    return s + "    for (int e = 0; e < 8; ++e) " + x + "[e] = rocmtpl_dev::bits_as_float(" + src + "[e]);\n";
  const char* f = t == dtype::f16 ? "rocmtpl_epi_f16x2(" : "rocmtpl_epi_bf16x2(";
  return s + "    for (int e = 0; e < 4; ++e) " + f + src + "[e], " + x + "[2 * e], " + x + "[2 * e + 1]);\n";
}
}  // namespace detail::epilogue_impl

/// @brief The parameter list `, const T* __restrict__ <prefix>0, ...` of a chain's tensor operands
/// (empty for none), for kernels and entry points that take them after the template's own inputs.
[[nodiscard]] inline std::string epilogue_params(const std::vector<epilogue_operand>& ops, std::string_view prefix,
                                                 bool restrict) {
  std::string out;
  for (std::size_t i = 0; i < ops.size(); ++i) {
    out += ", const " + std::string(storage_type(ops[i].node->type())) + (restrict ? "* __restrict__ " : "* ") +
           detail::indexed_name(prefix, i);
  }
  return out;
}

namespace detail::epilogue_impl {
// struct rocmtpl_epilogue_args and its maker.
inline std::string args_text(const std::vector<epilogue_operand>& ops, const std::vector<std::string>& symbols) {
  std::string s = "struct rocmtpl_epilogue_args {\n";
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const auto n = detail::indexed_name("e", i);
    s += "    const " + std::string(storage_type(ops[i].node->type())) + "* " + n + ";\n";
    s += "    int64_t " + n + "_offset, " + n + "_stride_b, " + n + "_stride_r, " + n + "_stride_c;\n";
  }
  if (ops.empty()) s += "    int rocmtpl_unused;\n";
  s += "};\n";
  std::string params;
  auto add = [&](const std::string& p) { params += (params.empty() ? "" : ", ") + p; };
  for (std::size_t i = 0; i < ops.size(); ++i) {
    add("const " + std::string(storage_type(ops[i].node->type())) + "* " + detail::indexed_name("E", i));
  }
  for (const auto& sym : symbols) add("int64_t " + sym);
  s += "[[maybe_unused]] __host__ __device__ __forceinline__ rocmtpl_epilogue_args rocmtpl_epilogue_make(" + params +
       ") {\n";
  s += "    rocmtpl_epilogue_args a{};\n";
  for (std::size_t i = 0; i < ops.size(); ++i) {
    const auto n = detail::indexed_name("a.e", i);
    s += "    " + n + " = " + detail::indexed_name("E", i) + ";\n";
    s += "    " + n + "_offset = " + ops[i].offset.to_cpp() + ";\n";
    s += "    " + n + "_stride_b = " + ops[i].stride_b.to_cpp() + ";\n";
    s += "    " + n + "_stride_r = " + ops[i].stride_r.to_cpp() + ";\n";
    s += "    " + n + "_stride_c = " + ops[i].stride_c.to_cpp() + ";\n";
  }
  for (const auto& sym : symbols) s += "    (void)" + sym + ";\n";
  s += "    return a;\n}\n";
  return s;
}

// rocmtpl_epilogue(): the chain on one value; every operand indexed in 64 bits.
inline std::string scalar_text(const epilogue_chain& chain, const std::vector<epilogue_operand>& ops) {
  std::string s =
      "__device__ __forceinline__ float rocmtpl_epilogue(const rocmtpl_epilogue_args& ea, int64_t batch, int64_t "
      "row,\n";
  s += "                                                  int64_t col, float v) {\n";
  s += "    (void)ea, (void)batch, (void)row, (void)col;\n";
  const auto uses = operand_uses(chain, ops.size());
  s += chain_statements(chain, "    ", [&](std::size_t i) {
    const auto n = detail::indexed_name("ea.e", i);
    std::string index = n + "_offset + batch * " + n + "_stride_b";
    if (*uses[i] != epilogue_broadcast::row_vector) index += " + row * " + n + "_stride_r";
    if (*uses[i] != epilogue_broadcast::column_vector) index += " + col * " + n + "_stride_c";
    return load(ops[i].node->type(), n + "[" + index + "]");
  });
  s += "    return v;\n}\n";
  return s;
}

// The vector form's three structs: per row (full operands' row starts, column operands' values),
// per 8-column segment of the row vectors, per segment of a row (the full operands' raw words).
inline std::string vector_structs_text(const std::vector<epilogue_operand>& ops,
                                       const std::vector<const epilogue_broadcast*>& uses) {
  std::string row = "struct rocmtpl_epilogue_row {\n";
  std::string cols = "struct rocmtpl_epilogue_cols {\n";
  std::string seg = "struct rocmtpl_epilogue_seg {\n";
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (uses[i] == nullptr) continue;
    const auto n = detail::indexed_name("e", i);
    const auto t = ops[i].node->type();
    switch (*uses[i]) {
      case epilogue_broadcast::full:
        row += "    const " + std::string(storage_type(t)) + "* " + n + ";  // element (batch, row, 0)\n";
        seg += "    uint32_t " + n + "[" + words8(t) + "];\n";
        break;
      case epilogue_broadcast::column_vector: row += "    float " + n + ";\n"; break;
      case epilogue_broadcast::row_vector: cols += "    uint32_t " + n + "[" + words8(t) + "];\n"; break;
    }
  }
  return row + "};\n" + cols + "};\n" + seg + "};\n";
}

// rocmtpl_epilogue_row_at(), rocmtpl_epilogue_cols_at(), rocmtpl_epilogue_seg_at() and
// rocmtpl_epilogue_prefetch().
inline std::string vector_loads_text(const std::vector<epilogue_operand>& ops,
                                     const std::vector<const epilogue_broadcast*>& uses) {
  std::string row =
      "__device__ __forceinline__ rocmtpl_epilogue_row rocmtpl_epilogue_row_at(const rocmtpl_epilogue_args& ea, "
      "int64_t batch,\n                                                             int64_t row) {\n"
      "    rocmtpl_epilogue_row r{};\n    (void)ea, (void)batch, (void)row;\n";
  std::string cols =
      "__device__ __forceinline__ rocmtpl_epilogue_cols rocmtpl_epilogue_cols_at(const rocmtpl_epilogue_args& ea, "
      "int col) {\n    rocmtpl_epilogue_cols c;\n    (void)ea, (void)col;\n";
  std::string seg =
      "__device__ __forceinline__ rocmtpl_epilogue_seg rocmtpl_epilogue_seg_at(const rocmtpl_epilogue_args& ea,\n"
      "                                                             const rocmtpl_epilogue_row& r, int col) {\n"
      "    rocmtpl_epilogue_seg s;\n    (void)ea, (void)r, (void)col;\n";
  std::string pre =
      "__device__ __forceinline__ void rocmtpl_epilogue_prefetch(const rocmtpl_epilogue_args& ea, const "
      "rocmtpl_epilogue_row& r,\n                                                          int col) {\n"
      "    (void)ea, (void)r, (void)col;\n";
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (uses[i] == nullptr) continue;
    const auto& o = ops[i];
    const auto n = detail::indexed_name("e", i);
    const auto ea = "ea." + n;
    const auto sc = field(i, "stride_c", o.stride_c);
    const auto base = field(i, "offset", o.offset) + " + batch * " + field(i, "stride_b", o.stride_b) + " + row * " +
                      field(i, "stride_r", o.stride_r);
    const auto at = "static_cast<int64_t>(col) * " + sc;
    switch (*uses[i]) {
      case epilogue_broadcast::full:
        row += "    r." + n + " = " + ea + " + (" + base + ");\n";
        seg += "    rocmtpl_epi_load8(r." + n + " + " + at + ", " + sc + ", s." + n + ");\n";
        pre += "    rocmtpl_epi_prefetch(r." + n + " + " + at + ");\n";
        break;
      case epilogue_broadcast::column_vector:
        row += "    r." + n + " = " + load(o.node->type(), ea + "[" + base + "]") + ";\n";
        break;
      case epilogue_broadcast::row_vector:
        cols += "    rocmtpl_epi_load8(" + ea + " + (" + field(i, "offset", o.offset) + " + " + at + "), " + sc +
                ", c." + n + ");\n";
        break;
    }
  }
  return row + "    return r;\n}\n" + cols + "    return c;\n}\n" + seg + "    return s;\n}\n" + pre + "}\n";
}

// rocmtpl_epilogue8(): the chain on 8 values, each through the scalar form's statements.
inline std::string vector_apply_text(const epilogue_chain& chain, const std::vector<epilogue_operand>& ops,
                                     const std::vector<const epilogue_broadcast*>& uses) {
  std::string s =
      "__device__ __forceinline__ void rocmtpl_epilogue8(const rocmtpl_epilogue_row& er, const rocmtpl_epilogue_cols& "
      "ec,\n                                                  const rocmtpl_epilogue_seg& es, float (&vs)[8]) {\n"
      "    (void)er, (void)ec, (void)es;\n";
  for (std::size_t i = 0; i < ops.size(); ++i) {
    if (uses[i] == nullptr || *uses[i] == epilogue_broadcast::column_vector) continue;
    const bool full = *uses[i] == epilogue_broadcast::full;
    s += unpack8(i, ops[i].node->type(), (full ? "es." : "ec.") + detail::indexed_name("e", i));
  }
  s += "#pragma unroll\n    for (int e = 0; e < 8; ++e) {\n        float v = vs[e];\n";
  s += chain_statements(chain, "        ", [&](std::size_t i) {
    return *uses[i] == epilogue_broadcast::column_vector ? detail::indexed_name("er.e", i)
                                                         : detail::indexed_name("x", i) + "[e]";
  });
  s += "        vs[e] = v;\n    }\n}\n";
  return s;
}
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
/// output's type.
/// @param chain the ops
/// @param ops the operands (epilogue_operands())
/// @param symbols the kernel's size symbols (the operands' strides and offsets use them)
[[nodiscard]] inline std::string epilogue_device_code(const epilogue_chain& chain,
                                                      const std::vector<epilogue_operand>& ops,
                                                      const std::vector<std::string>& symbols) {
  namespace impl = detail::epilogue_impl;
  const auto uses = impl::operand_uses(chain, ops.size());
  std::string s = "// Fused epilogue: " + chain.to_string() + "\n";
  s += impl::args_text(ops, symbols);
  s += impl::conversions_text;
  s += impl::scalar_text(chain, ops);
  s += "// Vector form: the chain on 8 consecutive columns of one row (codegen/epilogue.hpp).\n";
  s += impl::vector_structs_text(ops, uses);
  s += impl::vector_loads_text(ops, uses);
  s += impl::vector_apply_text(chain, ops, uses);
  return s;
}

/// @brief `rocmtpl_epilogue_make(<prefix>0, ..., <size symbols>)`: the maker's call with the
/// operands named `<prefix><i>` and the size symbols as in scope.
[[nodiscard]] inline std::string epilogue_make_call(std::size_t operands, std::string_view prefix,
                                                    const std::vector<std::string>& symbols) {
  std::string args;
  auto add = [&](const std::string& a) { args += (args.empty() ? "" : ", ") + a; };
  for (std::size_t i = 0; i < operands; ++i) add(detail::indexed_name(prefix, i));
  for (const auto& s : symbols) add(s);
  return "rocmtpl_epilogue_make(" + args + ")";
}

}  // namespace rocmtpl
