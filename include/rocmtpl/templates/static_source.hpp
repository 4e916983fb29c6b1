// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Kernel sources rendered in constant evaluation, for problems whose shapes are all static:
/// the complete translation unit of the elementwise and pointwise templates, and the parts of a
/// GEMM source that depend only on its signature (the entry's declaration, its packed twin and the
/// `_signature` function). Each is a `static constexpr` fixed-size text (its size computed in a
/// first constant pass) and a constant 64-bit hash, byte for byte and hash for hash what the
/// run-time render (rocm_template::generate()) produces for the same problem (test/unit/templates/
/// static_source_test.cpp proves it over generated problems; static_source_hash_test.cpp checks
/// hashes with static_assert).
///
/// @code{.cpp}
/// using namespace rocmtpl;
/// using X = static_buffer<"X", row_major_layout<f16_t, dims<ext<64>, ext<32>>>>;
/// using B = static_buffer<"Bias", row_major_layout<f16_t, dims<ext<32>>>>;
/// using Y = static_buffer<"Y", row_major_layout<f16_t, dims<ext<64>, ext<32>>>>;
/// using src = templates::static_elementwise_source<kernel_signature<inputs<X, B>, outputs<Y>>,
///                                                  templates::elementwise_options{templates::activation::relu}>;
/// static_assert(src::text.view().starts_with("#include \"rocmtpl_hip_portable.h\"\n"));
/// static_assert(src::hash == detail::xxh3_64(src::text.view()));  // XXH3-64: detail::hash64()'s value
/// @endcode
///
/// Shared text is the runtime renderer's own constants (preamble.hpp, status.hpp, sym_expr.hpp,
/// launch.hpp, source_parts.hpp, activation.hpp, element_access.hpp, epilogue.hpp and
/// rendered_source.hpp's packed-entry writer, which both routes call); the parts that vary with
/// the problem are written here again without std::string (Clang 15 cannot keep one in constant
/// evaluation with libstdc++ 12).
///
/// Not included by the templates or rocm_template: a program that renders at run time does not
/// compile it.

#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include <rocmtpl/codegen/epilogue.hpp>
#include <rocmtpl/codegen/launch.hpp>
#include <rocmtpl/codegen/preamble.hpp>
#include <rocmtpl/codegen/rendered_source.hpp>
#include <rocmtpl/codegen/signature.hpp>
#include <rocmtpl/codegen/status.hpp>
#include <rocmtpl/detail/constexpr_hash.hpp>
#include <rocmtpl/device/hip_portable.hpp>
#include <rocmtpl/ir/buffer.hpp>
#include <rocmtpl/ir/dim.hpp>
#include <rocmtpl/ir/dtype.hpp>
#include <rocmtpl/ir/fixed_string.hpp>
#include <rocmtpl/ir/layout.hpp>
#include <rocmtpl/ir/sym_expr.hpp>
#include <rocmtpl/templates/activation.hpp>
#include <rocmtpl/templates/detail/element_access.hpp>
#include <rocmtpl/templates/detail/source_parts.hpp>
#include <rocmtpl/templates/elementwise.hpp>

namespace rocmtpl::templates {

/// @brief One op of a chain known at compile time: a literal epilogue_op (a scale's float is kept
/// as its bits, since Clang 15 takes no float template argument); build it with the named
/// constructors.
struct static_epilogue_op {
  epilogue_op_kind kind = epilogue_op_kind::activation;     ///< which op; the fields below that it uses
  rocmtpl::activation act = rocmtpl::activation::relu;      ///< activation
  std::size_t input = 0;                                    ///< add/sub/mul: the operand's index
  epilogue_broadcast broadcast = epilogue_broadcast::full;  ///< add/sub/mul: how it broadcasts
  dtype type = dtype::f32;                                  ///< cast: the dtype rounded to
  std::uint32_t scalar_bits = 0x3F800000U;                  ///< scale: the factor's bits (1.0f)

  /// @brief `v = act(v)`.
  [[nodiscard]] static constexpr static_epilogue_op activation(rocmtpl::activation a) noexcept {
    return {.kind = epilogue_op_kind::activation, .act = a};
  }
  /// @brief `v = v + in[input]`.
  [[nodiscard]] static constexpr static_epilogue_op add(std::size_t input, epilogue_broadcast b) noexcept {
    return {.kind = epilogue_op_kind::add, .input = input, .broadcast = b};
  }
  /// @brief `v = v - in[input]`.
  [[nodiscard]] static constexpr static_epilogue_op sub(std::size_t input, epilogue_broadcast b) noexcept {
    return {.kind = epilogue_op_kind::sub, .input = input, .broadcast = b};
  }
  /// @brief `v = v * in[input]`.
  [[nodiscard]] static constexpr static_epilogue_op mul(std::size_t input, epilogue_broadcast b) noexcept {
    return {.kind = epilogue_op_kind::mul, .input = input, .broadcast = b};
  }
  /// @brief `v = s * v` (a finite s: static_pointwise_source checks it).
  [[nodiscard]] static constexpr static_epilogue_op scale(float s) noexcept {
    return {.kind = epilogue_op_kind::scale, .scalar_bits = std::bit_cast<std::uint32_t>(s)};
  }
  /// @brief `v = (float)(T)v`.
  [[nodiscard]] static constexpr static_epilogue_op cast(dtype t) noexcept {
    return {.kind = epilogue_op_kind::cast, .type = t};
  }

  /// @brief The run-time op.
  [[nodiscard]] epilogue_op to_value() const {
    switch (kind) {
      case epilogue_op_kind::activation: return epilogue_op::activation(act);
      case epilogue_op_kind::add: return epilogue_op::add(input, broadcast);
      case epilogue_op_kind::sub: return epilogue_op::sub(input, broadcast);
      case epilogue_op_kind::mul: return epilogue_op::mul(input, broadcast);
      case epilogue_op_kind::scale: return epilogue_op::scale(std::bit_cast<float>(scalar_bits));
      default: return epilogue_op::cast(type);
    }
  }
};

/// @brief A chain of static_epilogue_op values: `static_chain<static_epilogue_op::add(0,
/// epilogue_broadcast::row_vector), static_epilogue_op::activation(activation::gelu)>`.
template <static_epilogue_op... Ops>
struct static_chain {
  /// @brief The ops, in order.
  static constexpr std::array<static_epilogue_op, sizeof...(Ops)> ops{Ops...};
  /// @brief The run-time chain (what pointwise_policy takes).
  [[nodiscard]] static epilogue_chain to_value() { return {{Ops.to_value()...}}; }
};

namespace detail::static_render {

/// The largest rank of a tensor, and the most operands and ops of a chain, a static problem has.
inline constexpr std::size_t max_rank = 8;
inline constexpr std::size_t max_operands = 8;
inline constexpr std::size_t max_ops = 16;

// The two passes: count the characters, then write them into a fixed_text<N> (signature.hpp's
// text_length and text_writer, which the signature's declaration_text uses the same way).
using counter = rocmtpl::detail::text_length;
template <std::size_t N>
using writer = rocmtpl::detail::text_writer<N>;

// A number in the text.
struct num {
  std::int64_t value;
};

template <class Out>
constexpr void put(Out& out, std::string_view s) {
  out += s;
}
template <class Out>
constexpr void put(Out& out, num n) {
  if (n.value < 0) {
    out += "-";
    rocmtpl::detail::entry_text::append_decimal(out,
                                                static_cast<std::uint64_t>(0) - static_cast<std::uint64_t>(n.value));
  } else {
    rocmtpl::detail::entry_text::append_decimal(out, static_cast<std::uint64_t>(n.value));
  }
}
template <class Out>
constexpr void put(Out& out, std::size_t n) {
  rocmtpl::detail::entry_text::append_decimal(out, n);
}

// The pieces, then a newline.
template <class Out, class... Parts>
constexpr void line(Out& out, const Parts&... parts) {
  (put(out, parts), ...);
  out += "\n";
}

// dtype facts from the table dtype.hpp keeps.
constexpr std::string_view dtype_name(dtype t) {
  return rocmtpl::detail::dtype_table[static_cast<std::size_t>(t)].name;
}
constexpr std::string_view storage(dtype t) {
  return rocmtpl::detail::dtype_table[static_cast<std::size_t>(t)].storage_type;
}
constexpr bool float_math_dtype(dtype t) { return t == dtype::f32 || t == dtype::f16 || t == dtype::bf16; }

// A float's text as detail::epilogue_impl::float_text() writes it: `%.9g`, then `.0` when it reads as
// an integer. Exact: the float's value m * 2^e is expanded into decimal digits (a base-1e9 big
// number: m * 2^e, or m * 5^-e with the point -e places from the right), rounded to 9 significant
// digits half to even (as glibc's printf does), then spelt in %g's fixed or exponent form.
struct float_digits {
  char data[40]{};
  std::size_t size = 0;
  constexpr void push(char c) { data[size++] = c; }
  [[nodiscard]] constexpr std::string_view view() const { return {data, size}; }
};

constexpr float_digits float_text(std::uint32_t bits) {
  float_digits out;
  const std::uint32_t biased = (bits >> 23) & 0xFF;
  const std::uint32_t fraction = bits & 0x7FFFFF;
  if (biased == 0xFF && fraction != 0) {  // messages only (a scale is finite); glibc writes -nan
    if (bits >> 31) out.push('-');
    for (char c : std::string_view("nan")) out.push(c);
    return out;
  }
  if (bits >> 31) out.push('-');
  if (biased == 0xFF) {
    for (char c : std::string_view("inf")) out.push(c);
    return out;
  }
  const std::uint64_t m = biased == 0 ? fraction : (fraction | 0x800000U);
  const int e = biased == 0 ? -149 : static_cast<int>(biased) - 150;
  if (m == 0) {
    for (char c : std::string_view("0.0")) out.push(c);
    return out;
  }
  // The digits of m * 2^e (e >= 0) or m * 5^-e (e < 0).
  constexpr std::uint64_t base = 1000000000;
  std::array<std::uint64_t, 16> limbs{};
  std::size_t n = 1;
  limbs[0] = m;
  const std::uint64_t factor = e >= 0 ? 2 : 5;
  for (int t = 0; t < (e >= 0 ? e : -e); ++t) {
    std::uint64_t carry = 0;
    for (std::size_t i = 0; i < n; ++i) {
      const std::uint64_t v = limbs[i] * factor + carry;
      limbs[i] = v % base;
      carry = v / base;
    }
    if (carry != 0) limbs[n++] = carry;
  }
  char digits[160]{};
  int count = 0;
  for (std::size_t i = n; i-- > 0;) {
    char limb[9]{};
    std::uint64_t v = limbs[i];
    for (int k = 8; k >= 0; --k) {
      limb[k] = static_cast<char>('0' + v % 10);
      v /= 10;
    }
    int k = 0;
    if (i == n - 1) {
      while (k < 8 && limb[k] == '0') ++k;
    }
    for (; k < 9; ++k) digits[count++] = limb[k];
  }
  int point = count - (e < 0 ? -e : 0);  // digits before the decimal point
  // Nine significant digits, half to even.
  char r[9]{};
  const int kept = count < 9 ? count : 9;
  for (int i = 0; i < 9; ++i) r[i] = i < kept ? digits[i] : '0';
  if (count > 9) {
    bool up = digits[9] > '5';
    if (digits[9] == '5') {
      bool rest = false;
      for (int i = 10; i < count; ++i) rest = rest || digits[i] != '0';
      up = rest || (r[8] - '0') % 2 == 1;
    }
    if (up) {
      int i = 8;
      while (i >= 0 && r[i] == '9') r[i--] = '0';
      if (i < 0) {
        r[0] = '1';
        ++point;
      } else {
        ++r[i];
      }
    }
  }
  int last = 8;  // the last significant digit (trailing zeros are not printed)
  while (last > 0 && r[last] == '0') --last;
  const int x = point - 1;  // the decimal exponent
  if (x < -4 || x >= 9) {
    out.push(r[0]);
    if (last > 0) {
      out.push('.');
      for (int i = 1; i <= last; ++i) out.push(r[i]);
    }
    out.push('e');
    out.push(x < 0 ? '-' : '+');
    const int ax = x < 0 ? -x : x;
    if (ax >= 100) out.push(static_cast<char>('0' + ax / 100));
    out.push(static_cast<char>('0' + ax / 10 % 10));
    out.push(static_cast<char>('0' + ax % 10));
    return out;  // an exponent: no ".0"
  }
  if (point <= 0) {
    out.push('0');
    out.push('.');
    for (int i = 0; i < -point; ++i) out.push('0');
    for (int i = 0; i <= last; ++i) out.push(r[i]);
    return out;
  }
  for (int i = 0; i < point; ++i) out.push(r[i]);
  if (last >= point) {
    out.push('.');
    for (int i = point; i <= last; ++i) out.push(r[i]);
  } else {
    out.push('.');
    out.push('0');
  }
  return out;
}

// A tensor of a static problem: its name, dtype, sizes, strides and offset, all constants.
struct tensor {
  std::string_view name;
  dtype type = dtype::f32;
  std::size_t rank = 0;
  std::array<std::int64_t, max_rank> sizes{};
  std::array<std::int64_t, max_rank> strides{};
  std::int64_t offset = 0;

  [[nodiscard]] constexpr std::int64_t numel() const {
    std::int64_t n = 1;
    for (std::size_t i = 0; i < rank; ++i) n *= sizes[i];
    return n;
  }
  [[nodiscard]] constexpr bool same_sizes(const tensor& o) const {
    if (rank != o.rank) return false;
    for (std::size_t i = 0; i < rank; ++i) {
      if (sizes[i] != o.sizes[i]) return false;
    }
    return true;
  }
};

template <class D>
inline constexpr bool all_static = false;
template <class... D>
inline constexpr bool all_static<dims<D...>> = (static_dim<D> && ...);

// The tensor of a static_buffer whose sizes and strides are all static extents.
template <class B>
consteval tensor tensor_of() {
  using L = typename B::layout_type;
  using S = typename L::sizes_type;
  using T = typename L::strides_type;
  static_assert(all_static<S> && (std::is_void_v<T> || all_static<T>),
                "rocmtpl: static_source: renders problems whose sizes and strides are all static extents (ext<V>); "
                "render a problem with sym<...> sizes at run time (rocm_template::generate())");
  static_assert(S::rank <= max_rank, "rocmtpl: static_source: at most 8 dimensions");
  tensor t;
  t.name = B::name;
  t.type = L::type;
  t.rank = S::rank;
  t.offset = L::offset;
  if constexpr (S::rank > 0) {
    constexpr auto sizes = static_extents_v<S>;
    for (std::size_t i = 0; i < S::rank; ++i) t.sizes[i] = sizes[i];
    if constexpr (std::is_void_v<T>) {
      std::int64_t running = 1;
      for (std::size_t i = S::rank; i-- > 0;) {
        t.strides[i] = running;
        running *= sizes[i];
      }
    } else {
      static_assert(T::rank == S::rank, "rocmtpl: static_source: give one stride per size");
      constexpr auto strides = static_extents_v<T>;
      for (std::size_t i = 0; i < S::rank; ++i) t.strides[i] = strides[i];
    }
  }
  return t;
}

// overlap_of()'s rule on constants: the dimensions of more than one element, by stride, each stride
// at least the previous stride times the previous size (the first at least 1).
constexpr bool disjoint(const tensor& t) {
  std::array<bool, max_rank> taken{};
  std::int64_t extent = 1;
  for (;;) {
    std::size_t next = max_rank;
    for (std::size_t j = 0; j < t.rank; ++j) {
      if (!taken[j] && t.sizes[j] > 1 && (next == max_rank || t.strides[j] < t.strides[next])) next = j;
    }
    if (next == max_rank) return true;
    taken[next] = true;
    if (t.strides[next] < extent) return false;
    extent = t.strides[next] * t.sizes[next];
  }
}

// The buffers of a kernel_signature, as tensors.
template <class Sig>
struct signature_tensors {
  static constexpr bool is_signature = false;
};
template <class... In, class... Out, class... Extras>
struct signature_tensors<kernel_signature<inputs<In...>, outputs<Out...>, Extras...>> {
  static constexpr bool is_signature = true;
  static constexpr bool plain = sizeof...(Extras) == 0;
  static constexpr std::array<tensor, sizeof...(In)> in{tensor_of<In>()...};
  static constexpr std::array<tensor, sizeof...(Out)> out{tensor_of<Out>()...};
};

// `dtype[s0, s1] strides [t0, t1] offset o` (layout::to_string()).
template <class Out>
constexpr void layout_text(Out& out, const tensor& t) {
  out += dtype_name(t.type);
  out += "[";
  for (std::size_t i = 0; i < t.rank; ++i) {
    if (i != 0) out += ", ";
    put(out, num{t.sizes[i]});
  }
  out += "] strides [";
  for (std::size_t i = 0; i < t.rank; ++i) {
    if (i != 0) out += ", ";
    put(out, num{t.strides[i]});
  }
  out += "] offset ";
  put(out, num{t.offset});
}

// True when indented_buffer::splice() writes `block` back unchanged: no common indentation, no
// line of blanks only, no trailing blank line, a newline at the end.
constexpr bool splices_verbatim(std::string_view block) {
  if (block.empty() || block.back() != '\n') return false;
  bool at_column_zero = false;
  std::size_t start = 0;
  while (start < block.size()) {
    const auto nl = block.find('\n', start);
    const auto l = block.substr(start, nl - start);
    const bool blank = l.find_first_not_of(" \t\r") == std::string_view::npos;
    if (blank) return false;
    at_column_zero = at_column_zero || (l[0] != ' ' && l[0] != '\t');
    start = nl + 1;
  }
  return at_column_zero;
}
static_assert(splices_verbatim(kernel_status_defines) && splices_verbatim(sym_expr_cpp_helpers),
              "rocmtpl: static_source: rocm_template::globals() splices these blocks; the constant renderer "
              "appends them as they are, which is the same text only while they have no indentation to remove");

// The includes and globals every rendered source starts with (rocm_template::header() and
// globals(), rendered_source::str()), then the device-symbol macro.
template <class Out>
constexpr void write_head(Out& out, std::string_view kernel_name) {
  line(out, "#include \"", device::portable_header_name, "\"");
  line(out, "#include <cstddef>");
  line(out, "#include <cstdint>");
  out += "\n";
  out += pt_export_block;
  out += bfloat16_alias;
  out += kernel_status_defines;
  out += sym_expr_cpp_helpers;
  out += "\n";
  line(out, "#define ", device_symbol_macro, "(suffix) ", kernel_name, "_##suffix");
}

template <class Out>
constexpr void write_param_type(Out& out, const param_desc& p) {
  if (p.kind == param_kind::tensor_in) out += "const ";
  out += p.c_type;
  if (p.kind == param_kind::tensor_in || p.kind == param_kind::tensor_out) out += "*";
}

// The packed twin and the signature function: the runtime's own writer (rendered_source.hpp).
template <class Out, std::size_t N>
constexpr void write_packed(Out& out, std::string_view name, const std::array<param_desc, N>& params) {
  rocmtpl::detail::entry_text::write_packed_entry(
      out, name, N,
      [&](std::size_t i) {
        return params[i].kind == param_kind::tensor_in || params[i].kind == param_kind::tensor_out;
      },
      [&](Out& o, std::size_t i) { write_param_type(o, params[i]); },
      [&](Out& o) { rocmtpl::detail::write_c_declaration(o, name, params); });
}

// The entry point (rendered_source::entry()) around `body`, then the macro's #undef.
template <class Out, std::size_t N, class Body>
constexpr void write_entry(Out& out, std::string_view name, const std::array<param_desc, N>& params, Body&& body) {
  out += rocmtpl::detail::entry_text::host_guard_open;
  out += rocmtpl::detail::entry_text::exported_linkage;
  rocmtpl::detail::write_c_declaration(out, name, params);
  out += " {\n";
  body(out);
  out += "}\n";
  write_packed(out, name, params);
  out += rocmtpl::detail::entry_text::host_guard_close;
  line(out, "#undef ", device_symbol_macro);
}

// The entry body's fixed middle: the workspace query (no workspace), null checks of the tensors
// with elements, the empty-problem return (write_workspace_query(), check_not_null()).
template <class Out>
constexpr void write_workspace_query(Out& out) {
  namespace launch = rocmtpl::detail::launch_impl;
  line(out, "    ", launch::workspace_flag_line);
  line(out, "    const int64_t rocmtpl_workspace_bytes = 0;");
  for (const auto l : launch::workspace_answer_lines) line(out, "    ", l);
}

template <class Out>
constexpr void write_null_check(Out& out, std::string_view arg, const tensor& t) {
  if (t.numel() != 0) line(out, "    if (!", arg, ") return ROCMTPL_STATUS_NULL_ARGUMENT;");
}

// One grid-stride launch of `<kernel>_main` (write_launches() for one unconditional variant).
template <class Out, class Args>
constexpr void write_grid_stride_launch(Out& out, std::int64_t elements, int block_threads, Args&& args) {
  const std::int64_t blocks = (elements + block_threads - 1) / block_threads;
  line(out, "    ", rocmtpl::detail::launch_impl::workspace_missing_line);
  line(out, "    {");
  line(out, "        {");
  line(out, "            bool rocmtpl_grid_0_ok = true;");
  line(out, "            const int64_t rocmtpl_grid_0_x = rocmtpl_launch_min(", num{blocks}, ", 65535);");
  line(out, "            const int64_t rocmtpl_grid_0_y = 1;");
  line(out, "            const int64_t rocmtpl_grid_0_z = 1;");
  line(out,
       "            if (!rocmtpl_grid_0_ok || rocmtpl_grid_0_x > 2147483647 || rocmtpl_grid_0_y > 65535 || "
       "rocmtpl_grid_0_z > 65535) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;");
  line(out, "            if (rocmtpl_grid_0_x > 0 && rocmtpl_grid_0_y > 0 && rocmtpl_grid_0_z > 0) {");
  out += "                hipLaunchKernelGGL(";
  out += device_symbol_macro;
  out +=
      "(main), dim3(static_cast<unsigned>(rocmtpl_grid_0_x), static_cast<unsigned>(rocmtpl_grid_0_y), "
      "static_cast<unsigned>(rocmtpl_grid_0_z)), dim3(";
  put(out, num{block_threads});
  out += ", 1, 1), 0, stream, ";
  args(out);
  line(out, ");");
  line(out, "                if (hipGetLastError() != hipSuccess) return ROCMTPL_STATUS_LAUNCH_FAILED;");
  line(out, "            }");
  line(out, "        }");
  line(out, "    }");
  line(out, "    return ROCMTPL_STATUS_OK;");
}

// The anonymous namespace's end and the `__global__` kernel that calls `<body>(<args>)`.
template <class Out, class Params, class Args>
constexpr void write_global_kernel(Out& out, std::string_view body, Params&& params, Args&& args) {
  out += detail::checked_size_helpers_text;
  out += launch_cpp_helpers;
  out += "\n";
  line(out, "}  // namespace");
  out += "\n";
  out += "extern \"C\" __global__ void __launch_bounds__(block_threads) ";
  out += device_symbol_macro;
  out += "(main)(";
  params(out);
  line(out, ") {");
  out += "    ";
  out += body;
  out += "(";
  args(out);
  line(out, ");");
  line(out, "}");
  out += "\n";
}

constexpr bool valid_block_threads(int t) { return t >= 64 && t <= 1024 && t % 64 == 0; }

// ---- elementwise ----

struct elementwise_problem {
  activation act = activation::none;
  int block_threads = 256;
  tensor x, bias, y;
  bool has_bias = false;
};

template <class Out>
constexpr void elementwise_params(Out& out, const elementwise_problem& p) {
  out += "const ";
  out += storage(p.x.type);
  out += "* __restrict__ X, ";
  if (p.has_bias) {
    out += "const ";
    out += storage(p.bias.type);
    out += "* __restrict__ Bias, ";
  }
  out += storage(p.y.type);
  out += "* __restrict__ Y";
}

template <class Out>
constexpr void elementwise_args(Out& out, const elementwise_problem& p) {
  out += p.has_bias ? "X, Bias, Y" : "X, Y";
}

// `<load>(<array>[<index>])` of elementwise's body.
template <class Out>
constexpr void load_element(Out& out, dtype t, std::string_view element) {
  out += load_open(t);
  out += element;
  out += ")";
}

template <class Out, std::size_t N>
constexpr void write_elementwise(Out& out, const elementwise_problem& p, std::string_view name,
                                 const std::array<param_desc, N>& params) {
  write_head(out, name);
  line(out, "// elementwise: Y = ", to_string(p.act), "(X", p.has_bias ? " + Bias" : "", ")");
  out += "// X ";
  layout_text(out, p.x);
  out += "\n";
  if (p.has_bias) {
    out += "// Bias ";
    layout_text(out, p.bias);
    out += "\n";
  }
  out += "// Y ";
  layout_text(out, p.y);
  out += "\n";
  line(out, "namespace {");
  out += "\n";
  line(out, "constexpr int block_threads = ", num{p.block_threads}, ";");
  out += "\n";
  line(out, activation_function_open, "return ", activation_expression(p.act), ";", activation_function_close);
  out += "\n";
  out += "__device__ __forceinline__ void elementwise_body(";
  elementwise_params(out, p);
  line(out, ") {");
  const bool rank1 = p.bias.rank == 1;
  line(out, "    const int64_t m_size = ", num{p.x.sizes[0]}, ";");
  line(out, "    const int64_t n_size = ", num{p.x.sizes[1]}, ";");
  line(out, "    const int64_t x_stride_m = ", num{p.x.strides[0]}, ";");
  line(out, "    const int64_t x_stride_n = ", num{p.x.strides[1]}, ";");
  line(out, "    const int64_t x_offset = ", num{p.x.offset}, ";");
  if (p.has_bias) {
    line(out, "    const int64_t bias_stride_m = ", num{rank1 ? 0 : p.bias.strides[0]}, ";");
    line(out, "    const int64_t bias_stride_n = ", num{rank1 ? p.bias.strides[0] : p.bias.strides[1]}, ";");
    line(out, "    const int64_t bias_offset = ", num{p.bias.offset}, ";");
  }
  line(out, "    const int64_t y_stride_m = ", num{p.y.strides[0]}, ";");
  line(out, "    const int64_t y_stride_n = ", num{p.y.strides[1]}, ";");
  line(out, "    const int64_t y_offset = ", num{p.y.offset}, ";");
  line(out, "    const int64_t total = m_size * n_size;");
  line(out, "    ", detail::grid_stride_step_line);
  line(out, "    ", detail::grid_stride_loop_line);
  line(out, "        const int64_t gm = i / n_size, gn = i % n_size;");
  out += "        float v = ";
  load_element(out, p.x.type, "X[x_offset + gm * x_stride_m + gn * x_stride_n]");
  line(out, ";");
  if (p.has_bias) {
    out += "        v += ";
    load_element(out, p.bias.type, "Bias[bias_offset + gm * bias_stride_m + gn * bias_stride_n]");
    line(out, ";");
  }
  out += "        Y[y_offset + gm * y_stride_m + gn * y_stride_n] = ";
  const std::string_view store = store_open(p.y.type);
  out += store;
  out += "apply_activation(v)";
  if (!store.empty()) out += ")";
  line(out, ";");
  line(out, "    }");
  line(out, "}");
  out += "\n";
  write_global_kernel(
      out, "elementwise_body", [&](Out& o) { elementwise_params(o, p); }, [&](Out& o) { elementwise_args(o, p); });
  write_entry(out, name, params, [&](Out& o) {
    line(o, "    int64_t rocmtpl_elements = 0;");
    line(o, "    if (!rocmtpl_checked_mul(", num{p.x.sizes[0]}, ", ", num{p.x.sizes[1]}, ", rocmtpl_elements)) {");
    line(o, "        return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;");
    line(o, "    }");
    write_workspace_query(o);
    write_null_check(o, "X", p.x);
    if (p.has_bias) write_null_check(o, "Bias", p.bias);
    write_null_check(o, "Y", p.y);
    line(o, "    if (rocmtpl_elements == 0) return ROCMTPL_STATUS_OK;");
    write_grid_stride_launch(o, p.x.numel(), p.block_threads, [&](Out& a) { elementwise_args(a, p); });
  });
}

// ---- pointwise ----

// An operand of the chain as (batch, rows, cols) of the output (epilogue_operand).
struct operand {
  tensor t;
  std::int64_t stride_b = 0, stride_r = 0, stride_c = 0;
  bool used = false;  // some op reads it
  epilogue_broadcast use = epilogue_broadcast::full;
};

// What a static pointwise problem breaks (static_pointwise_spec asserts each with its message).
enum class pointwise_error {
  none,
  arity,
  too_many_operands,
  xy_sizes,
  cast_dtype,
  two_broadcasts,
  operand_count,
  operand_dtype,
  operand_shape,
  xy_dtype,
  xy_rank,
  block_threads,
  overlap,
  scale_not_finite
};

struct pointwise_problem {
  int block_threads = 256;
  std::array<static_epilogue_op, max_ops> ops{};
  std::size_t op_count = 0;
  tensor x, y;
  std::int64_t batch = 1, m = 0, n = 0;
  operand xo, yo;  // X and Y as full operands (their strides)
  std::array<operand, max_operands> operands{};
  std::size_t operand_count = 0;
  pointwise_error error = pointwise_error::none;  // what does not fit, when something does not
};

constexpr bool has_input(const static_epilogue_op& o) {
  return o.kind == epilogue_op_kind::add || o.kind == epilogue_op_kind::sub || o.kind == epilogue_op_kind::mul;
}

// epilogue_operands() for one operand: its strides against the output [(batch,) m, n]; false when
// its shape does not fit its broadcast.
constexpr bool place_operand(operand& op, std::int64_t batch, std::int64_t m, std::int64_t n) {
  const tensor& t = op.t;
  const auto r = t.rank;
  constexpr std::int64_t no = -1;
  const auto pick = [&](std::size_t d, std::int64_t want) -> std::int64_t {
    if (t.sizes[d] == want) return t.strides[d];
    if (t.sizes[d] == 1) return 0;
    return no;
  };
  const auto bc = op.used ? op.use : epilogue_broadcast::full;
  if (bc == epilogue_broadcast::row_vector || bc == epilogue_broadcast::column_vector) {
    const bool rows = bc == epilogue_broadcast::column_vector;
    const std::int64_t len = rows ? m : n;
    std::int64_t stride = no;
    if (r == 1) stride = pick(0, len);
    if (r == 2 && (rows ? t.sizes[1] : t.sizes[0]) == 1) stride = pick(rows ? 0 : 1, len);
    if (stride == no) return false;
    (rows ? op.stride_r : op.stride_c) = stride;
    return true;
  }
  if (r < 2 || r > 3) return false;
  op.stride_r = pick(r - 2, m);
  op.stride_c = pick(r - 1, n);
  if (r == 3) op.stride_b = pick(0, batch);
  return op.stride_r != no && op.stride_c != no && op.stride_b != no;
}

template <class Chain, class Sig, int BlockThreads>
consteval pointwise_problem make_pointwise() {
  using tensors = signature_tensors<Sig>;
  pointwise_problem p;
  p.block_threads = BlockThreads;
  static_assert(Chain::ops.size() <= max_ops, "rocmtpl: static_source: at most 16 ops in a chain");
  for (const auto& o : Chain::ops) p.ops[p.op_count++] = o;
  if (tensors::in.size() < 1 || tensors::out.size() != 1) {
    p.error = pointwise_error::arity;
    return p;
  }
  if (tensors::in.size() - 1 > max_operands) {
    p.error = pointwise_error::too_many_operands;
    return p;
  }
  p.x = tensors::in[0];
  p.y = tensors::out[0];
  const auto r = p.y.rank;
  if ((r != 2 && r != 3) || !p.x.same_sizes(p.y)) {
    p.error = pointwise_error::xy_sizes;
    return p;
  }
  p.batch = r == 3 ? p.y.sizes[0] : 1;
  p.m = p.y.sizes[r - 2];
  p.n = p.y.sizes[r - 1];
  p.operand_count = tensors::in.size() - 1;
  std::size_t reads = 0;
  for (std::size_t k = 0; k < p.op_count; ++k) {
    const auto& o = p.ops[k];
    if (o.kind == epilogue_op_kind::scale && ((o.scalar_bits >> 23) & 0xFF) == 0xFF) {
      p.error = pointwise_error::scale_not_finite;
      return p;
    }
    if (o.kind == epilogue_op_kind::cast && !float_math_dtype(o.type)) {
      p.error = pointwise_error::cast_dtype;
      return p;
    }
    if (!has_input(o)) continue;
    if (o.input + 1 > reads) reads = o.input + 1;
    if (o.input >= p.operand_count) continue;
    auto& op = p.operands[o.input];
    if (op.used && op.use != o.broadcast) {
      p.error = pointwise_error::two_broadcasts;
      return p;
    }
    op.used = true;
    op.use = o.broadcast;
  }
  if (reads != p.operand_count) {
    p.error = pointwise_error::operand_count;
    return p;
  }
  for (std::size_t i = 0; i < p.operand_count; ++i) {
    p.operands[i].t = tensors::in[i + 1];
    if (!float_math_dtype(p.operands[i].t.type)) {
      p.error = pointwise_error::operand_dtype;
      return p;
    }
    if (!place_operand(p.operands[i], p.batch, p.m, p.n)) {
      p.error = pointwise_error::operand_shape;
      return p;
    }
  }
  p.xo.t = p.x;
  p.yo.t = p.y;
  if (!float_math_dtype(p.x.type) || !float_math_dtype(p.y.type)) {
    p.error = pointwise_error::xy_dtype;
    return p;
  }
  if (!place_operand(p.xo, p.batch, p.m, p.n) || !place_operand(p.yo, p.batch, p.m, p.n)) {
    p.error = pointwise_error::xy_rank;
    return p;
  }
  if (!valid_block_threads(BlockThreads)) {
    p.error = pointwise_error::block_threads;
    return p;
  }
  if (!disjoint(p.y)) p.error = pointwise_error::overlap;
  return p;
}

// epilogue_chain::to_string().
template <class Out>
constexpr void chain_text(Out& out, const pointwise_problem& p) {
  if (p.op_count == 0) out += "identity";
  for (std::size_t k = 0; k < p.op_count; ++k) {
    const auto& o = p.ops[k];
    if (k != 0) out += " -> ";
    switch (o.kind) {
      case epilogue_op_kind::activation: out += to_string(o.act); break;
      case epilogue_op_kind::cast:
        out += "cast(";
        out += dtype_name(o.type);
        out += ")";
        break;
      case epilogue_op_kind::scale:
        out += "scale(";
        out += float_text(o.scalar_bits).view();
        out += ")";
        break;
      default:
        out += o.kind == epilogue_op_kind::add ? "add(in" : (o.kind == epilogue_op_kind::sub ? "sub(in" : "mul(in");
        put(out, o.input);
        out += " ";
        out += to_string(o.broadcast);
        out += ")";
    }
  }
}

// chain_statements(): the chain on `float v`; operand(out, i) writes operand i's value.
template <class Out, class Operand>
constexpr void chain_statements(Out& out, const pointwise_problem& p, std::string_view indent, Operand&& operand) {
  namespace impl = rocmtpl::detail::epilogue_impl;
  for (std::size_t k = 0; k < p.op_count; ++k) {
    const auto& o = p.ops[k];
    if (o.kind == epilogue_op_kind::activation && o.act == rocmtpl::activation::none) continue;  // no statement
    out += indent;
    switch (o.kind) {
      case epilogue_op_kind::activation:
        out += "v = ";
        out += activation_expression(o.act);
        out += ";";
        break;
      case epilogue_op_kind::cast: {
        const auto open = impl::round_open(o.type);
        out += "v = ";
        out += open;
        out += "v";
        if (!open.empty()) out += ")";
        out += ";";
        break;
      }
      case epilogue_op_kind::scale:
        out += "v = ";
        out += float_text(o.scalar_bits).view();
        out += "f * v;";
        break;
      default:
        out +=
            o.kind == epilogue_op_kind::add ? "v = v + " : (o.kind == epilogue_op_kind::sub ? "v = v - " : "v = v * ");
        operand(out, o.input);
        out += ";";
    }
    out += "\n";
  }
}

template <class Out>
constexpr void write_epilogue_device_code(Out& out, const pointwise_problem& p) {
  namespace impl = rocmtpl::detail::epilogue_impl;
  const auto count = p.operand_count;
  const auto& ops = p.operands;
  out += "// Fused epilogue: ";
  chain_text(out, p);
  out += "\n";
  // args_text()
  line(out, "struct rocmtpl_epilogue_args {");
  for (std::size_t i = 0; i < count; ++i) {
    line(out, "    const ", storage(ops[i].t.type), "* e", i, ";");
    line(out, "    int64_t e", i, "_offset, e", i, "_stride_b, e", i, "_stride_r, e", i, "_stride_c;");
  }
  if (count == 0) line(out, "    int rocmtpl_unused;");
  line(out, "};");
  out += "[[maybe_unused]] __host__ __device__ __forceinline__ rocmtpl_epilogue_args rocmtpl_epilogue_make(";
  for (std::size_t i = 0; i < count; ++i) {
    if (i != 0) out += ", ";
    put(out, "const ");
    out += storage(ops[i].t.type);
    out += "* E";
    put(out, i);
  }
  line(out, ") {");
  line(out, "    rocmtpl_epilogue_args a{};");
  for (std::size_t i = 0; i < count; ++i) {
    line(out, "    a.e", i, " = E", i, ";");
    line(out, "    a.e", i, "_offset = ", num{ops[i].t.offset}, ";");
    line(out, "    a.e", i, "_stride_b = ", num{ops[i].stride_b}, ";");
    line(out, "    a.e", i, "_stride_r = ", num{ops[i].stride_r}, ";");
    line(out, "    a.e", i, "_stride_c = ", num{ops[i].stride_c}, ";");
  }
  line(out, "    return a;");
  line(out, "}");
  out += impl::conversions_text;
  // scalar_text()
  out += impl::scalar_head;
  chain_statements(out, p, "    ", [&](Out& o, std::size_t i) {
    o += impl::load_open(ops[i].t.type);
    put(o, "ea.e");
    put(o, i);
    put(o, "[ea.e");
    put(o, i);
    put(o, "_offset + batch * ea.e");
    put(o, i);
    put(o, "_stride_b");
    if (ops[i].use != epilogue_broadcast::row_vector) {
      put(o, " + row * ea.e");
      put(o, i);
      put(o, "_stride_r");
    }
    if (ops[i].use != epilogue_broadcast::column_vector) {
      put(o, " + col * ea.e");
      put(o, i);
      put(o, "_stride_c");
    }
    put(o, "])");
  });
  out += impl::scalar_tail;
  out += impl::vector_form_comment;
  // vector_structs_text()
  const auto words = [](dtype t) { return t == dtype::f32 ? "8" : "4"; };
  line(out, "struct rocmtpl_epilogue_row {");
  for (std::size_t i = 0; i < count; ++i) {
    if (!ops[i].used) continue;
    if (ops[i].use == epilogue_broadcast::full) {
      line(out, "    const ", storage(ops[i].t.type), "* e", i, ";  // element (batch, row, 0)");
    }
    if (ops[i].use == epilogue_broadcast::column_vector) line(out, "    float e", i, ";");
  }
  line(out, "};");
  line(out, "struct rocmtpl_epilogue_cols {");
  for (std::size_t i = 0; i < count; ++i) {
    if (ops[i].used && ops[i].use == epilogue_broadcast::row_vector) {
      line(out, "    uint32_t e", i, "[", std::string_view(words(ops[i].t.type)), "];");
    }
  }
  line(out, "};");
  line(out, "struct rocmtpl_epilogue_seg {");
  for (std::size_t i = 0; i < count; ++i) {
    if (ops[i].used && ops[i].use == epilogue_broadcast::full) {
      line(out, "    uint32_t e", i, "[", std::string_view(words(ops[i].t.type)), "];");
    }
  }
  line(out, "};");
  // vector_loads_text(): every field is a constant here (field() prints constants).
  const auto base = [&](Out& o, const operand& op) {
    put(o, num{op.t.offset});
    put(o, " + batch * ");
    put(o, num{op.stride_b});
    put(o, " + row * ");
    put(o, num{op.stride_r});
  };
  out += impl::row_at_head;
  for (std::size_t i = 0; i < count; ++i) {
    if (!ops[i].used) continue;
    if (ops[i].use == epilogue_broadcast::full) {
      put(out, "    r.e");
      put(out, i);
      put(out, " = ea.e");
      put(out, i);
      put(out, " + (");
      base(out, ops[i]);
      line(out, ");");
    } else if (ops[i].use == epilogue_broadcast::column_vector) {
      put(out, "    r.e");
      put(out, i);
      put(out, " = ");
      out += impl::load_open(ops[i].t.type);
      put(out, "ea.e");
      put(out, i);
      put(out, "[");
      base(out, ops[i]);
      line(out, "]);");
    }
  }
  out += impl::row_at_tail;
  out += impl::cols_at_head;
  for (std::size_t i = 0; i < count; ++i) {
    if (ops[i].used && ops[i].use == epilogue_broadcast::row_vector) {
      line(out, "    rocmtpl_dev::load8(ea.e", i, " + (", num{ops[i].t.offset}, " + static_cast<int64_t>(col) * ",
           num{ops[i].stride_c}, "), ", num{ops[i].stride_c}, ", c.e", i, ");");
    }
  }
  out += impl::cols_at_tail;
  out += impl::seg_at_head;
  for (std::size_t i = 0; i < count; ++i) {
    if (ops[i].used && ops[i].use == epilogue_broadcast::full) {
      line(out, "    rocmtpl_dev::load8(r.e", i, " + static_cast<int64_t>(col) * ", num{ops[i].stride_c}, ", ",
           num{ops[i].stride_c}, ", s.e", i, ");");
    }
  }
  out += impl::seg_at_tail;
  out += impl::prefetch_head;
  for (std::size_t i = 0; i < count; ++i) {
    if (ops[i].used && ops[i].use == epilogue_broadcast::full) {
      line(out, "    rocmtpl_epi_prefetch(r.e", i, " + static_cast<int64_t>(col) * ", num{ops[i].stride_c}, ");");
    }
  }
  out += impl::prefetch_tail;
  // vector_apply_text()
  out += impl::apply8_head;
  for (std::size_t i = 0; i < count; ++i) {
    if (!ops[i].used || ops[i].use == epilogue_broadcast::column_vector) continue;
    const std::string_view from = ops[i].use == epilogue_broadcast::full ? "es.e" : "ec.e";
    line(out, "    float x", i, "[8];");
    line(out, "#pragma unroll");
    if (ops[i].t.type == dtype::f32) {
      line(out, "    for (int e = 0; e < 8; ++e) x", i, "[e] = rocmtpl_dev::bits_as_float(", from, i, "[e]);");
    } else {
      line(out, "    for (int e = 0; e < 4; ++e) ",
           ops[i].t.type == dtype::f16 ? std::string_view("rocmtpl_epi_f16x2(")
                                       : std::string_view("rocmtpl_epi_bf16x2("),
           from, i, "[e], x", i, "[2 * e], x", i, "[2 * e + 1]);");
    }
  }
  out += impl::apply8_loop;
  chain_statements(out, p, "        ", [&](Out& o, std::size_t i) {
    if (ops[i].use == epilogue_broadcast::column_vector) {
      put(o, "er.e");
      put(o, i);
    } else {
      put(o, "x");
      put(o, i);
      put(o, "[e]");
    }
  });
  out += impl::apply8_tail;
}

template <class Out>
constexpr void pointwise_params(Out& out, const pointwise_problem& p) {
  out += "const ";
  out += storage(p.x.type);
  out += "* __restrict__ X";
  for (std::size_t i = 0; i < p.operand_count; ++i) {
    out += ", const ";
    out += storage(p.operands[i].t.type);
    out += "* __restrict__ E";
    put(out, i);
  }
  out += ", ";
  out += storage(p.y.type);
  out += "* __restrict__ Y";
}

template <class Out>
constexpr void pointwise_args(Out& out, const pointwise_problem& p) {
  out += "X";
  for (std::size_t i = 0; i < p.operand_count; ++i) {
    out += ", E";
    put(out, i);
  }
  out += ", Y";
}

// `(offset) + b * (stride_b) + gm * (stride_r) + gn * (stride_c)` of X or Y.
template <class Out>
constexpr void element_at(Out& out, const operand& o) {
  put(out, "(");
  put(out, num{o.t.offset});
  put(out, ") + b * (");
  put(out, num{o.stride_b});
  put(out, ") + gm * (");
  put(out, num{o.stride_r});
  put(out, ") + gn * (");
  put(out, num{o.stride_c});
  put(out, ")");
}

template <class Out, std::size_t N>
constexpr void write_pointwise(Out& out, const pointwise_problem& p, std::string_view name,
                               const std::array<param_desc, N>& params) {
  write_head(out, name);
  out += "// pointwise: Y = (";
  chain_text(out, p);
  line(out, ")(X)");
  out += "// ";
  out += p.x.name;
  out += " ";
  layout_text(out, p.x);
  out += "\n";
  for (std::size_t i = 0; i < p.operand_count; ++i) {
    out += "// ";
    out += p.operands[i].t.name;
    out += " ";
    layout_text(out, p.operands[i].t);
    out += "\n";
  }
  out += "// Y ";
  layout_text(out, p.y);
  out += "\n";
  line(out, "namespace {");
  out += "\n";
  line(out, "constexpr int block_threads = ", num{p.block_threads}, ";");
  out += "\n";
  write_epilogue_device_code(out, p);
  out += "\n";
  out += "__device__ __forceinline__ void pointwise_body(";
  pointwise_params(out, p);
  line(out, ") {");
  out += "    const rocmtpl_epilogue_args ea = rocmtpl_epilogue_make(";
  for (std::size_t i = 0; i < p.operand_count; ++i) {
    if (i != 0) out += ", ";
    put(out, "E");
    put(out, i);
  }
  line(out, ");");
  line(out, "    const int64_t m_size = ", num{p.m}, ", n_size = ", num{p.n}, ";");
  line(out, "    const int64_t total = ", num{p.batch}, " * m_size * n_size;");
  line(out, "    ", detail::grid_stride_step_line);
  line(out, "    ", detail::grid_stride_loop_line);
  line(out, "        const int64_t b = i / (m_size * n_size), gm = (i / n_size) % m_size, gn = i % n_size;");
  out += "        const float v = ";
  out += load_open(p.x.type);
  out += "X[";
  element_at(out, p.xo);
  line(out, "]);");
  out += "        Y[";
  element_at(out, p.yo);
  out += "] = ";
  const std::string_view store = store_open(p.y.type);
  out += store;
  out += "rocmtpl_epilogue(ea, b, gm, gn, v)";
  if (!store.empty()) out += ")";
  line(out, ";");
  line(out, "    }");
  line(out, "}");
  out += "\n";
  write_global_kernel(
      out, "pointwise_body", [&](Out& o) { pointwise_params(o, p); }, [&](Out& o) { pointwise_args(o, p); });
  write_entry(out, name, params, [&](Out& o) {
    line(o, "    int64_t rocmtpl_elements = 0;");
    line(o, "    if (!rocmtpl_checked_mul(", num{p.batch}, ", ", num{p.m},
         ", rocmtpl_elements) || !rocmtpl_checked_mul(rocmtpl_elements, ", num{p.n}, ", rocmtpl_elements)) {");
    line(o, "        return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;");
    line(o, "    }");
    write_workspace_query(o);
    write_null_check(o, "X", p.x);
    for (std::size_t i = 0; i < p.operand_count; ++i) {
      if (p.operands[i].t.numel() != 0) line(o, "    if (!E", i, ") return ROCMTPL_STATUS_NULL_ARGUMENT;");
    }
    write_null_check(o, "Y", p.y);
    line(o, "    if (rocmtpl_elements == 0) return ROCMTPL_STATUS_OK;");
    write_grid_stride_launch(o, p.y.numel(), p.block_threads, [&](Out& a) { pointwise_args(a, p); });
  });
}

// ---- the text of a spec: two constant passes ----

template <class Spec>
consteval std::size_t text_size() {
  counter c;
  Spec::write(c);
  return c.size;
}

template <class Spec, std::size_t N>
consteval fixed_text<N> text_of() {
  writer<N> w;
  Spec::write(w);
  return w.text;
}

}  // namespace detail::static_render

/// @brief The text of a constant-evaluation render: `Spec` is one of the specs below
/// (static_elementwise_spec, static_pointwise_spec, static_entry_spec).
template <class Spec>
struct static_source {
  /// @brief Number of characters.
  static constexpr std::size_t size = detail::static_render::text_size<Spec>();
  /// @brief The text (`text.view()`), with a terminating zero.
  static constexpr fixed_text<size> text = detail::static_render::text_of<Spec, size>();
  /// @brief XXH3-64 of the text: the value detail::hash64() gives for the same bytes at run time.
  static constexpr std::uint64_t hash = rocmtpl::detail::xxh3_64(text.view());
};

/// @brief The elementwise template's translation unit, as `rocm_template<elementwise_policy>(
/// elementwise_policy(Options), Sig::input_buffers(), <Sig's output layout>).generate(Config)`
/// renders it (kernel `KernelName`, `rocm_elementwise` by default).
/// @tparam Sig `kernel_signature<inputs<X>, outputs<Y>>` or `kernel_signature<inputs<X, Bias>,
/// outputs<Y>>`, buffers named as the template names its parameters (X, Bias, Y), all sizes and
/// strides static; X and Y [M, N], Bias [N] or [M, N]; f32, f16 or bf16.
template <class Sig, elementwise_options Options = elementwise_options{},
          elementwise_config Config = elementwise_config{}, fixed_string KernelName = "rocm_elementwise">
struct static_elementwise_spec {
 private:
  using tensors = detail::static_render::signature_tensors<Sig>;
  static_assert(tensors::is_signature,
                "rocmtpl: static_elementwise_source: Sig is a kernel_signature<inputs<...>, "
                "outputs<...>>");
  static_assert(tensors::plain,
                "rocmtpl: static_elementwise_source: the elementwise entry takes no runtime_args and keeps the "
                "inputs' order; drop runtime_args<...> and input_order<...>");
  static_assert((tensors::in.size() == 1 || tensors::in.size() == 2) && tensors::out.size() == 1,
                "rocmtpl: static_elementwise_source: inputs<X> or inputs<X, Bias>, and outputs<Y>");
  static_assert(tensors::in[0].name == "X" && (tensors::in.size() == 1 || tensors::in[1].name == "Bias") &&
                    tensors::out[0].name == "Y",
                "rocmtpl: static_elementwise_source: name the buffers X, Bias and Y (the entry's parameters)");
  static constexpr auto make() {
    detail::static_render::elementwise_problem p;
    p.act = Options.act;
    p.block_threads = Config.block_threads;
    p.x = tensors::in[0];
    p.has_bias = tensors::in.size() == 2;
    if (p.has_bias) p.bias = tensors::in[tensors::in.size() - 1];
    p.y = tensors::out[0];
    return p;
  }

 public:
  /// @brief The problem, as constants.
  static constexpr detail::static_render::elementwise_problem problem = make();
  static_assert(detail::static_render::valid_block_threads(Config.block_threads),
                "rocmtpl: static_elementwise_source: block_threads must be a multiple of 64 from 64 to 1024");
  static_assert(problem.x.rank == 2 && problem.y.rank == 2 && problem.x.same_sizes(problem.y),
                "rocmtpl: static_elementwise_source: X and Y are [M, N] of the same sizes");
  static_assert(!problem.has_bias || (problem.bias.rank == 1 && problem.bias.sizes[0] == problem.x.sizes[1]) ||
                    (problem.bias.rank == 2 && problem.bias.same_sizes(problem.x)),
                "rocmtpl: static_elementwise_source: Bias is [N] or [M, N]");
  static_assert(detail::static_render::float_math_dtype(problem.x.type) &&
                    detail::static_render::float_math_dtype(problem.y.type) &&
                    (!problem.has_bias || detail::static_render::float_math_dtype(problem.bias.type)),
                "rocmtpl: static_elementwise_source: X, Bias and Y are float32, float16 or bfloat16");
  static_assert(detail::static_render::disjoint(problem.y),
                "rocmtpl: static_elementwise_source: two indices of Y address one element; give Y a layout whose "
                "elements do not overlap");

  /// @brief Writes the text into a counter or a writer.
  template <class Out>
  static constexpr void write(Out& out) {
    detail::static_render::write_elementwise(out, problem, KernelName.view(), Sig::parameters);
  }
};

/// @brief static_source of static_elementwise_spec: `static_elementwise_source<Sig>::text`.
template <class Sig, elementwise_options Options = elementwise_options{},
          elementwise_config Config = elementwise_config{}, fixed_string KernelName = "rocm_elementwise">
using static_elementwise_source = static_source<static_elementwise_spec<Sig, Options, Config, KernelName>>;

/// @brief The pointwise template's translation unit, as `rocm_template<pointwise_policy>(
/// pointwise_policy(Chain::to_value()), Sig::input_buffers(), <Sig's output layout>).generate(Config)`
/// renders it (kernel `KernelName`, `rocm_pointwise` by default).
/// @tparam Sig `kernel_signature<inputs<X, E0, E1, ...>, outputs<Y>>`: buffers named as the template
/// names its parameters, all sizes and strides static; X and Y [M, N] or [B, M, N]; operand i as its
/// broadcast says ([N] or [1, N] row vector, [M] or [M, 1] column vector, [(B,) M, N] full).
/// @tparam Chain a static_chain of every op epilogue_chain has: activations, add, sub and mul (every
/// broadcast), scale, cast.
template <class Sig, class Chain, elementwise_config Config = elementwise_config{},
          fixed_string KernelName = "rocm_pointwise">
struct static_pointwise_spec {
 private:
  using tensors = detail::static_render::signature_tensors<Sig>;
  static_assert(tensors::is_signature,
                "rocmtpl: static_pointwise_source: Sig is a kernel_signature<inputs<...>, "
                "outputs<...>>");
  static_assert(tensors::plain,
                "rocmtpl: static_pointwise_source: the pointwise entry takes no runtime_args and keeps the inputs' "
                "order; drop runtime_args<...> and input_order<...>");
  static constexpr bool names_ok = [] {
    if (tensors::in.size() == 0 || tensors::in[0].name != "X" || tensors::out.size() != 1 ||
        tensors::out[0].name != "Y") {
      return false;
    }
    for (std::size_t i = 1; i < tensors::in.size(); ++i) {
      detail::static_render::writer<4> expected;  // E0 .. E7
      expected += "E";
      detail::static_render::put(expected, i - 1);
      if (tensors::in[i].name != std::string_view(expected.text.data, expected.size)) return false;
    }
    return true;
  }();
  static_assert(names_ok,
                "rocmtpl: static_pointwise_source: name the buffers X, E0, E1, ... and Y (the entry's parameters)");

 public:
  /// @brief The problem, as constants.
  static constexpr detail::static_render::pointwise_problem problem =
      detail::static_render::make_pointwise<Chain, Sig, Config.block_threads>();
  /// @brief What make_pointwise() found wrong with the problem (none when it renders).
  using error = detail::static_render::pointwise_error;
  static_assert(problem.error != error::arity, "rocmtpl: static_pointwise_source: inputs<X, E0, E1, ...>, outputs<Y>");
  static_assert(problem.error != error::too_many_operands, "rocmtpl: static_pointwise_source: at most 8 operands");
  static_assert(problem.error != error::xy_sizes,
                "rocmtpl: static_pointwise_source: X and Y must have the same sizes, [M, N] or [B, M, N]");
  static_assert(problem.error != error::cast_dtype,
                "rocmtpl: static_pointwise_source: a cast is to float32, float16 or bfloat16");
  static_assert(problem.error != error::two_broadcasts,
                "rocmtpl: static_pointwise_source: an operand is used with two broadcasts; give it once per broadcast");
  static_assert(problem.error != error::operand_count,
                "rocmtpl: static_pointwise_source: the chain reads another number of operands than come after X "
                "(one past its largest operand index)");
  static_assert(problem.error != error::operand_dtype,
                "rocmtpl: static_pointwise_source: operands are float32, float16 or bfloat16");
  static_assert(problem.error != error::operand_shape,
                "rocmtpl: static_pointwise_source: an operand's shape does not fit its broadcast ([N] or [1, N] row "
                "vector, [M] or [M, 1] column vector, [M, N] or [B, M, N] full)");
  static_assert(problem.error != error::xy_dtype,
                "rocmtpl: static_pointwise_source: X and Y are float32, float16 or bfloat16");
  static_assert(problem.error != error::xy_rank, "rocmtpl: static_pointwise_source: X and Y are [M, N] or [B, M, N]");
  static_assert(problem.error != error::block_threads,
                "rocmtpl: static_pointwise_source: block_threads must be a multiple of 64 from 64 to 1024");
  static_assert(problem.error != error::scale_not_finite,
                "rocmtpl: static_pointwise_source: a scale must be a finite number (it is rendered as a literal)");
  static_assert(problem.error != error::overlap,
                "rocmtpl: static_pointwise_source: two indices of Y address one element; give Y a layout whose "
                "elements do not overlap");

  /// @brief Writes the text into a counter or a writer.
  template <class Out>
  static constexpr void write(Out& out) {
    detail::static_render::write_pointwise(out, problem, KernelName.view(), Sig::parameters);
  }
};

/// @brief static_source of static_pointwise_spec: `static_pointwise_source<Sig, Chain>::text`.
template <class Sig, class Chain, elementwise_config Config = elementwise_config{},
          fixed_string KernelName = "rocm_pointwise">
using static_pointwise_source = static_source<static_pointwise_spec<Sig, Chain, Config, KernelName>>;

/// @brief The parts of a source that depend only on the entry's signature, as every exported
/// entry ends (rendered_source::entry()): `extern "C" PT_EXPORT int NAME(...)` (the definition's
/// first line, without the ` {`) when `Part` is `declaration`; the packed twin and the
/// `NAME_signature` function (packed_entry_text()) when it is `twins`. For GEMM: `Sig` as the
/// typed GEMM takes it (kernel_signature<inputs<X, W[, Bias]>, outputs<Y>[, runtime_args<...>]>,
/// symbolic sizes allowed: they are parameters), KernelName `rocm_gemm`.
enum class static_entry_part { declaration, twins };

/// @brief See static_entry_part.
template <class Sig, fixed_string KernelName, static_entry_part Part>
struct static_entry_spec {
  static_assert(rocmtpl::detail::is_kernel_signature<Sig>, "rocmtpl: static_entry_source: Sig is a kernel_signature");
  /// @brief Writes the text into a counter or a writer.
  template <class Out>
  static constexpr void write(Out& out) {
    if constexpr (Part == static_entry_part::declaration) {
      out += rocmtpl::detail::entry_text::exported_linkage;
      rocmtpl::detail::write_c_declaration(out, KernelName.view(), Sig::parameters);
    } else {
      detail::static_render::write_packed(out, KernelName.view(), Sig::parameters);
    }
  }
};

/// @brief static_source of static_entry_spec: `static_entry_source<Sig, "rocm_gemm",
/// static_entry_part::twins>::text`.
template <class Sig, fixed_string KernelName, static_entry_part Part>
using static_entry_source = static_source<static_entry_spec<Sig, KernelName, Part>>;

}  // namespace rocmtpl::templates
