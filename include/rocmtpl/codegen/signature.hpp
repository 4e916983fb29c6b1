// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Compile-time kernel signatures: from the typed buffers of a problem, the entry point's C
/// declaration (the text def_kernel() writes), its exact C++ function type and its argument list;
/// codegen/typed_entry.hpp calls an entry point through them.
///
/// A signature lists the parameters of the C ABI (docs/ARCHITECTURE.md) in its order: the inputs (in
/// input_reorder order), the outputs, the symbolic sizes (in order of first appearance in those
/// tensors' sizes then strides), the runtime arguments; then the fixed tail workspace_size,
/// workspace, stream. Parameter names are the buffer names, the size symbols (declared `u_<name>`
/// in generated code, see ir/identifier.hpp) and the runtime arguments' names.
///
/// @code{.cpp}
/// using X = rocmtpl::static_buffer<"X", rocmtpl::row_major_layout<rocmtpl::f16_t, rocmtpl::dims<rocmtpl::sym<"M">,
/// rocmtpl::ext<64>>>>; using W = rocmtpl::static_buffer<"W", rocmtpl::row_major_layout<rocmtpl::f16_t,
/// rocmtpl::dims<rocmtpl::ext<64>, rocmtpl::ext<32>>>>; using Y = rocmtpl::static_buffer<"Y",
/// rocmtpl::row_major_layout<rocmtpl::f16_t, rocmtpl::dims<rocmtpl::sym<"M">, rocmtpl::ext<32>>>>; using sig =
/// rocmtpl::kernel_signature<rocmtpl::inputs<X, W>, rocmtpl::outputs<Y>>;
/// static_assert(sig::declaration_text<"rocm_gemm">.view() ==
///               "extern \"C\" PT_EXPORT int rocm_gemm(const uint16_t* X, const uint16_t* W, uint16_t* Y, "
///               "int64_t u_M, size_t* workspace_size, uint8_t* workspace, hipStream_t stream)");
/// // sig::function_type is int(const std::uint16_t*, const std::uint16_t*, std::uint16_t*, std::int64_t,
/// //                            std::size_t*, std::uint8_t*, void*)
/// @endcode

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include <rocmtpl/codegen/arg_info.hpp>
#include <rocmtpl/codegen/kernel_args.hpp>
#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/ir/buffer.hpp>
#include <rocmtpl/ir/dim.hpp>
#include <rocmtpl/ir/dtype.hpp>
#include <rocmtpl/ir/fixed_string.hpp>
#include <rocmtpl/ir/host_types.hpp>
#include <rocmtpl/ir/identifier.hpp>
#include <rocmtpl/ir/layout.hpp>

namespace rocmtpl {

/// @brief The problem's inputs, in the template's order (static_buffer types).
template <class... Buffers>
struct inputs {};

/// @brief The problem's outputs (static_buffer types).
template <class... Buffers>
struct outputs {};

/// @brief The order in which the entry point takes the inputs (the reference's input_reorder):
/// `input_order<2, 0, 1>` for addmm's [Bias, X, W].
template <int... Indices>
struct input_order {};

/// @brief A runtime argument of a signature: its name and its C++ type (`std::int32_t`,
/// `std::int64_t`, `std::uint32_t`, `std::uint64_t` or `bool`; see arg_info::allowed_types).
template <fixed_string Name, class T>
struct arg {
  static_assert(is_valid_name(Name.view()),
                "rocmtpl: arg: a runtime argument name must be a C identifier, not a keyword and not workspace_size, "
                "workspace or stream; rename it");
  static_assert(std::is_same_v<T, std::int32_t> || std::is_same_v<T, std::int64_t> ||
                    std::is_same_v<T, std::uint32_t> || std::is_same_v<T, std::uint64_t> || std::is_same_v<T, bool>,
                "rocmtpl: arg: a runtime argument is a fixed-width integer or bool; use std::int32_t, std::int64_t, "
                "std::uint32_t, std::uint64_t or bool");
  /// @brief The argument's name.
  static constexpr std::string_view name = Name.view();
  /// @brief Its C spelling in the entry point (`int32_t`, ...).
  static constexpr std::string_view c_type = std::is_same_v<T, bool>            ? "bool"
                                             : std::is_same_v<T, std::int32_t>  ? "int32_t"
                                             : std::is_same_v<T, std::int64_t>  ? "int64_t"
                                             : std::is_same_v<T, std::uint32_t> ? "uint32_t"
                                                                                : "uint64_t";
  /// @brief Its C++ type.
  using type = T;
};

/// @brief The runtime arguments of a signature, in the entry point's order: `runtime_args<arg<"split_k",
/// std::int32_t>>`.
template <class... Args>
struct runtime_args {};

/// @brief One parameter of an entry point as constexpr data (the signature's argument list).
struct param_desc {
  std::string_view name;    ///< buffer name, size symbol (`M`, declared `u_M`) or runtime argument name
  std::string_view c_type;  ///< element type of a tensor (`uint16_t`), `int64_t` for a size, a runtime arg's type
  param_kind kind;          ///< what the parameter is
  /// @brief Member-wise equality.
  friend constexpr bool operator==(const param_desc&, const param_desc&) = default;
};

/// @brief A signature does not match what a template declares or renders (runtime arguments,
/// parameter names or types). The message lists both.
class signature_error : public invalid_argument_error {
 public:
  using invalid_argument_error::invalid_argument_error;
};

/// @brief Text of fixed length usable in constant expressions (a signature's declaration).
template <std::size_t N>
struct fixed_text {
  char data[N + 1]{};  ///< the characters and a terminating zero
  /// @brief The text.
  [[nodiscard]] constexpr std::string_view view() const noexcept { return {data, N}; }
  /// @brief view(), implicitly.
  constexpr operator std::string_view() const noexcept { return view(); }  // NOLINT: implicit by design
};

namespace detail {

template <class... T>
struct type_list {
  static constexpr std::size_t size = sizeof...(T);
};

template <class... Lists>
struct concat;
template <>
struct concat<> {
  using type = type_list<>;
};
template <class... A>
struct concat<type_list<A...>> {
  using type = type_list<A...>;
};
template <class... A, class... B, class... Rest>
struct concat<type_list<A...>, type_list<B...>, Rest...> : concat<type_list<A..., B...>, Rest...> {};
template <class... Lists>
using concat_t = typename concat<Lists...>::type;

template <std::size_t I, class List>
struct at;
template <std::size_t I, class... T>
struct at<I, type_list<T...>> {
  using type = std::tuple_element_t<I, std::tuple<T...>>;
};
template <std::size_t I, class List>
using at_t = typename at<I, List>::type;

// Keeps the first occurrence of every type.
template <class Out, class... In>
struct unique_impl {
  using type = Out;
};
template <class... Out, class H, class... T>
struct unique_impl<type_list<Out...>, H, T...>
    : unique_impl<std::conditional_t<(std::is_same_v<H, Out> || ...), type_list<Out...>, type_list<Out..., H>>, T...> {
};
template <class List>
struct unique;
template <class... T>
struct unique<type_list<T...>> : unique_impl<type_list<>, T...> {};

// One parameter of a signature, as a type: its name (for diagnostics and for the declaration),
// its kind, its host type (what the typed call takes) and its storage type (the C ABI's).
template <fixed_string Name, param_kind Kind, class Host, class Storage, class CType>
struct param {
  static constexpr auto fixed_name = Name;
  static constexpr std::string_view name = Name.view();
  static constexpr param_kind kind = Kind;
  static constexpr std::string_view c_type = CType::value;
  using host = Host;
  using storage = Storage;
};

template <dtype D>
struct storage_spelling {
  static constexpr std::string_view value = dtype_table[static_cast<std::size_t>(D)].storage_type;
};
struct int64_spelling {
  static constexpr std::string_view value = "int64_t";
};
template <class Arg>
struct arg_spelling {
  static constexpr std::string_view value = Arg::c_type;
};

template <class T>
inline constexpr bool is_static_buffer = false;
template <fixed_string Name, class Layout>
inline constexpr bool is_static_buffer<static_buffer<Name, Layout>> = true;

template <class B>
struct buffer_params;
template <fixed_string Name, class Layout>
struct buffer_params<static_buffer<Name, Layout>> {
  static constexpr dtype type = Layout::type;
  using input =
      param<Name, param_kind::tensor_in, const host_type_t<type>*, const storage_type_t<type>*, storage_spelling<type>>;
  using output = param<Name, param_kind::tensor_out, host_type_t<type>*, storage_type_t<type>*, storage_spelling<type>>;
};

template <class S>
struct size_param;
template <fixed_string Name>
struct size_param<sym<Name>> {
  using type = param<Name, param_kind::size, std::int64_t, std::int64_t, int64_spelling>;
};

template <class A>
struct runtime_param;
template <fixed_string Name, class T>
struct runtime_param<arg<Name, T>> {
  using type = param<Name, param_kind::runtime_arg, T, T, arg_spelling<arg<Name, T>>>;
};

// The symbolic dimensions of a dims<...> (or none for void strides), in order.
template <class Dims>
struct syms_of {
  using type = type_list<>;
};
template <class... D>
struct syms_of<dims<D...>> {
  using type = concat_t<std::conditional_t<symbolic_dim<D>, type_list<D>, type_list<>>...>;
};
// A tensor's symbols as kernel_args visits them: sizes, then strides (offsets are static).
template <class B>
using buffer_syms = concat_t<typename syms_of<typename B::layout_type::sizes_type>::type,
                             typename syms_of<typename B::layout_type::strides_type>::type>;

template <class T>
inline constexpr bool is_runtime_args = false;
template <class... A>
inline constexpr bool is_runtime_args<runtime_args<A...>> = true;
template <class T>
inline constexpr bool is_input_order = false;
template <int... I>
inline constexpr bool is_input_order<input_order<I...>> = true;

template <class Default, class Found>
struct first_or {
  using type = Default;
};
template <class Default, class F, class... Rest>
struct first_or<Default, type_list<F, Rest...>> {
  using type = F;
};

template <std::size_t N>
struct identity_order {
  template <std::size_t... I>
  static auto make(std::index_sequence<I...>) -> input_order<static_cast<int>(I)...>;
  using type = decltype(make(std::make_index_sequence<N>{}));
};

template <class Order, class... In>
struct apply_order;
template <int... I, class... In>
struct apply_order<input_order<I...>, In...> {
  static constexpr bool is_permutation = [] {
    std::array<int, sizeof...(I)> v{I...};
    std::sort(v.begin(), v.end());
    for (std::size_t k = 0; k < v.size(); ++k) {
      if (v[k] != static_cast<int>(k)) return false;
    }
    return v.size() == sizeof...(In);
  }();
  static_assert(is_permutation,
                "rocmtpl: input_order: the indices must be a permutation of 0..inputs-1; give each input once");
  using type = std::conditional_t<
      is_permutation,
      type_list<std::tuple_element_t<static_cast<std::size_t>(I) % sizeof...(In), std::tuple<In...>>...>,
      type_list<In...>>;
};

template <class List>
struct runtime_params;
template <class... A>
struct runtime_params<runtime_args<A...>> {
  using type = type_list<typename runtime_param<A>::type...>;
};

template <class List>
struct size_params;
template <class... S>
struct size_params<type_list<S...>> {
  using type = type_list<typename size_param<S>::type...>;
};

template <class Params>
struct param_array;
template <class... P>
struct param_array<type_list<P...>> {
  static constexpr std::array<param_desc, sizeof...(P)> value{param_desc{P::name, P::c_type, P::kind}...};
};

template <class Params>
struct function_of;
template <class... P>
struct function_of<type_list<P...>> {
  using type = int(typename P::storage..., std::size_t*, std::uint8_t*, void*);
};

// The parameters' names are distinct, and a size's code name u_<M> is no other parameter's name.
template <std::size_t N>
constexpr bool distinct_names(const std::array<param_desc, N>& params) {
  for (std::size_t i = 0; i < N; ++i) {
    for (std::size_t j = 0; j < N; ++j) {
      if (i != j && params[i].name == params[j].name) return false;
      if (params[i].kind == param_kind::size && params[j].name.size() == params[i].name.size() + 2 &&
          params[j].name.starts_with(user_identifier_prefix) && params[j].name.substr(2) == params[i].name) {
        return false;
      }
    }
  }
  return true;
}

// Appends one parameter's declaration (`const uint16_t* X`, `int64_t u_M`, `int32_t split_k`) to
// `out`: a std::string, a text_length or a text_writer (the last two build constant text without
// std::string, which Clang cannot keep in constant evaluation with libstdc++ 12).
template <class Out>
constexpr void append_argdef(Out& out, const param_desc& p) {
  if (p.kind == param_kind::tensor_in) out += "const ";
  out += p.c_type;
  out += p.kind == param_kind::tensor_in || p.kind == param_kind::tensor_out ? "* " : " ";
  if (p.kind == param_kind::size) out += user_identifier_prefix;
  out += p.name;
}

// Counts the characters appended to it.
struct text_length {
  std::size_t size = 0;
  constexpr text_length& operator+=(std::string_view s) noexcept {
    size += s.size();
    return *this;
  }
};

// Writes appended characters into a fixed_text.
template <std::size_t N>
struct text_writer {
  fixed_text<N> text{};
  std::size_t size = 0;
  constexpr text_writer& operator+=(std::string_view s) noexcept {
    for (char c : s) text.data[size++] = c;
    return *this;
  }
};

// False, for a static_assert that fails only where its template is instantiated.
template <std::size_t...>
inline constexpr bool always_false = false;

// A string of static storage as a fixed_string (a template argument, for diagnostics and derived
// names): to_fixed_string<s.size()>(s).
template <std::size_t N>
constexpr fixed_string<N + 1> to_fixed_string(std::string_view s) noexcept {
  char text[N + 1]{};
  for (std::size_t i = 0; i < N; ++i) text[i] = s[i];
  return fixed_string<N + 1>(text);
}

// `int NAME(<params>, <tail>)`, as entry_signature::declaration() writes it.
template <class Out, std::size_t N>
constexpr void write_c_declaration(Out& out, std::string_view kernel_name, const std::array<param_desc, N>& params) {
  out += "int ";
  out += kernel_name;
  out += "(";
  for (const auto& p : params) {
    append_argdef(out, p);
    out += ", ";
  }
  out += entry_signature::tail;
  out += ")";
}

// The declaration of an exported entry point with these parameters.
template <class Out, std::size_t N>
constexpr void write_declaration(Out& out, std::string_view kernel_name, const std::array<param_desc, N>& params) {
  out += "extern \"C\" PT_EXPORT ";
  write_c_declaration(out, kernel_name, params);
}

// The run-time forms of a signature's parameters, shared by every kernel_signature (compiled once with
// the library: signature-inl.hpp).
[[nodiscard]] entry_signature signature_entry(std::span<const param_desc> params);
[[nodiscard]] std::vector<std::string> signature_size_symbols(std::span<const param_desc> params);
[[nodiscard]] std::vector<arg_info> signature_runtime_args(std::span<const param_desc> params);
void check_signature_runtime_args(std::string_view who, std::span<const param_desc> params,
                                  const std::vector<arg_info>& declared);
void check_signature_argdefs(std::string_view who, std::span<const param_desc> params,
                             const std::vector<std::string>& rendered);

}  // namespace detail

/// @brief The compile-time signature of a kernel entry point, built from a problem's typed buffers.
/// @tparam Inputs `inputs<static_buffer...>` in the template's order
/// @tparam Outputs `outputs<static_buffer...>`
/// @tparam Extras optional `runtime_args<arg<...>...>` and `input_order<...>`, each at most once
///
/// Buffer names are parameter names, so they must be the names the template binds
/// (`X`, `W`, `Y`, ... for GEMM): typed_template checks that the rendered entry point agrees.
/// Two buffers must not share a name.
template <class Inputs, class Outputs, class... Extras>
struct kernel_signature;

/// @brief kernel_signature for `inputs<In...>`, `outputs<Out...>` and the extras (see the primary template).
template <class... In, class... Out, class... Extras>
struct kernel_signature<inputs<In...>, outputs<Out...>, Extras...> {
  static_assert((detail::is_static_buffer<In> && ...) && (detail::is_static_buffer<Out> && ...),
                "rocmtpl: kernel_signature: inputs and outputs are static_buffer types; use "
                "static_buffer<\"name\", static_layout<...>>");
  static_assert(((detail::is_runtime_args<Extras> || detail::is_input_order<Extras>)&&...),
                "rocmtpl: kernel_signature: after inputs and outputs come only runtime_args<...> and input_order<...>");
  static_assert((0 + ... + (detail::is_runtime_args<Extras> ? 1 : 0)) <= 1 &&
                    (0 + ... + (detail::is_input_order<Extras> ? 1 : 0)) <= 1,
                "rocmtpl: kernel_signature: give runtime_args and input_order at most once each");

  /// @brief The runtime arguments, `runtime_args<...>`.
  using runtime_args_type = typename detail::first_or<
      runtime_args<>, detail::concat_t<std::conditional_t<detail::is_runtime_args<Extras>, detail::type_list<Extras>,
                                                          detail::type_list<>>...>>::type;
  /// @brief The entry point's order of the inputs, `input_order<...>` (identity by default).
  using input_order_type = typename detail::first_or<
      typename detail::identity_order<sizeof...(In)>::type,
      detail::concat_t<
          std::conditional_t<detail::is_input_order<Extras>, detail::type_list<Extras>, detail::type_list<>>...>>::type;

  /// @brief The inputs in the entry point's order.
  using entry_inputs = typename detail::apply_order<input_order_type, In...>::type;

 private:
  template <class List>
  struct input_params_of;
  template <class... B>
  struct input_params_of<detail::type_list<B...>> {
    using type = detail::type_list<typename detail::buffer_params<B>::input...>;
    using syms = detail::concat_t<detail::buffer_syms<B>...>;
  };
  using syms = typename detail::unique<
      detail::concat_t<typename input_params_of<entry_inputs>::syms, detail::buffer_syms<Out>...>>::type;

 public:
  /// @brief Every parameter before the fixed tail, as types (`detail::param`).
  using params = detail::concat_t<
      typename input_params_of<entry_inputs>::type, detail::type_list<typename detail::buffer_params<Out>::output...>,
      typename detail::size_params<syms>::type, typename detail::runtime_params<runtime_args_type>::type>;

  /// @brief The argument list: every parameter before workspace_size, workspace and stream, in order.
  static constexpr auto parameters = detail::param_array<params>::value;
  static_assert(detail::distinct_names(parameters),
                "rocmtpl: kernel_signature: two parameters share a name (buffers, size symbols as u_<name>, "
                "runtime arguments); rename one");

  /// @brief The entry point's exact C++ function type (the stream as `void*`).
  using function_type = typename detail::function_of<params>::type;

  /// @brief Number of input and output tensors.
  static constexpr std::size_t tensor_count = sizeof...(In) + sizeof...(Out);
  /// @brief Number of outputs.
  static constexpr std::size_t output_count = sizeof...(Out);

  /// @brief The parameter declarations, as kernel_args::cpp_argdefs() writes them.
  [[nodiscard]] static std::vector<std::string> argdefs() { return entry().argdefs(); }

  /// @brief The same parameters as the run-time description that rendering, the packed entry and
  /// kernel_entry use (kernel_args::signature()), so the typed and the dynamic paths declare one text.
  [[nodiscard]] static entry_signature entry() { return detail::signature_entry(parameters); }

  /// @brief The entry point's declaration, as rocm_template_kernel::def_kernel() returns it.
  [[nodiscard]] static std::string declaration(std::string_view kernel_name) {
    std::string s;
    detail::write_declaration(s, kernel_name, parameters);
    return s;
  }

  /// @brief declaration() as a constant: `sig::declaration_text<"rocm_gemm">.view()`.
  template <fixed_string KernelName>
  static constexpr auto declaration_text = [] {
    constexpr std::size_t n = [] {
      detail::text_length length;
      detail::write_declaration(length, KernelName.view(), parameters);
      return length.size;
    }();
    detail::text_writer<n> out;
    detail::write_declaration(out, KernelName.view(), parameters);
    return out.text;
  }();

  /// @brief The size symbols (`M`), in parameter order (their code names are `u_M`).
  [[nodiscard]] static std::vector<std::string> size_symbols() { return detail::signature_size_symbols(parameters); }

  /// @brief The runtime arguments as the policy's runtime_arg_info() describes them.
  [[nodiscard]] static std::vector<arg_info> runtime_arg_info() { return detail::signature_runtime_args(parameters); }

  /// @brief The inputs as runtime buffers, in the template's order.
  [[nodiscard]] static std::vector<buffer> input_buffers() { return {In::to_value()...}; }

  /// @brief The outputs as runtime buffers.
  [[nodiscard]] static std::vector<buffer> output_buffers() { return {Out::to_value()...}; }

  /// @brief The input order for rocm_template (nullopt when it is the identity).
  [[nodiscard]] static std::optional<std::vector<int>> input_reorder() {
    return []<int... I>(input_order<I...>)->std::optional<std::vector<int>> {
      std::vector<int> v{I...};
      for (std::size_t k = 0; k < v.size(); ++k) {
        if (v[k] != static_cast<int>(k)) return v;
      }
      return std::nullopt;
    }
    (input_order_type{});
  }

  /// @brief Checks that a template declares exactly this signature's runtime arguments.
  /// @param who the template, for the message
  /// @param declared what the policy's runtime_arg_info() returns
  /// @throws signature_error listing both when they differ in number, name, type or order.
  static void check_runtime_args(std::string_view who, const std::vector<arg_info>& declared) {
    detail::check_signature_runtime_args(who, parameters, declared);
  }

  /// @brief Checks rendered parameter declarations (kernel_args::cpp_argdefs()) against argdefs().
  /// @throws signature_error listing both when they differ.
  static void check_argdefs(std::string_view who, const std::vector<std::string>& rendered) {
    detail::check_signature_argdefs(who, parameters, rendered);
  }
};

namespace detail {

template <class T>
inline constexpr bool is_kernel_signature = false;
template <class I, class O, class... E>
inline constexpr bool is_kernel_signature<kernel_signature<I, O, E...>> = true;

}  // namespace detail

}  // namespace rocmtpl

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/codegen/signature-inl.hpp>
#endif
