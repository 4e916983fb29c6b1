// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief typed_entry: a generated entry point called through the exact function type of its
/// kernel_signature (codegen/signature.hpp), with typed arguments checked at compile time: a wrong
/// type, a missing argument or an extra one is a static_assert whose instantiation names the
/// parameter (`argument_for_parameter<"X", ...>`, `missing_argument_for_parameter<"M">`,
/// `extra_argument_after_parameter<"stream", ...>`).
///
/// @code{.cpp}
/// rocmtpl::typed_entry<sig> entry(fn);          // fn: sig::function_type*, e.g. from dlsym
/// entry(x, w, y, std::int64_t{100}, stream);   // x, w: const half_t*; y: half_t*
/// std::size_t bytes = 0;
/// entry.query_workspace(bytes, std::int64_t{100});
/// @endcode

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>
#include <utility>

#include <rocmtpl/codegen/signature.hpp>
#include <rocmtpl/codegen/status.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/ir/fixed_string.hpp>
#include <rocmtpl/ir/host_types.hpp>

namespace rocmtpl {

/// @brief A workspace given to a typed call: device memory and its size in bytes.
struct workspace_ref {
  void* data = nullptr;  ///< device memory (may be null when size is 0)
  std::size_t size = 0;  ///< bytes available at `data`
};

/// @brief The host spelling of the C ABI's `hipStream_t stream` (hipStream_t and cudaStream_t are
/// pointers; the runtime layer passes them as `void*`).
using stream_handle = void*;

namespace detail {

// Diagnostics of typed calls: each names the parameter in its template arguments, which the
// compiler prints in the instantiation that fails.
template <fixed_string Parameter, class Expected, class Given>
struct argument_for_parameter {
  static_assert(sizeof(Given) == 0,
                "rocmtpl: typed call: an argument does not convert to its parameter's type (parameter and types in "
                "the instantiation above); pass tensors, sizes and runtime arguments in signature order, then the "
                "stream");
};
template <fixed_string Parameter>
struct missing_argument_for_parameter {
  static_assert(Parameter.size() == 0,
                "rocmtpl: typed call: too few arguments, the parameter in the instantiation above gets none; pass "
                "every tensor, size and runtime argument of the signature, then the stream");
};
template <fixed_string LastParameter, class Given>
struct extra_argument_after_parameter {
  static_assert(sizeof(Given) == 0,
                "rocmtpl: typed call: too many arguments, one follows the last parameter (in the instantiation "
                "above); remove it");
};

// A name whose value depends on `Context`, so that a diagnostic naming it is instantiated only
// where it is reached.
template <class Context, fixed_string Name>
inline constexpr auto dependent_name = Name;

template <class T>
inline constexpr bool is_workspace = std::is_same_v<std::remove_cvref_t<T>, workspace_ref>;

// A stream: nullptr, or a pointer that is no tensor (not to an element type, not to a workspace).
template <class A>
inline constexpr bool stream_ok = [] {
  using T = std::remove_cvref_t<A>;
  if constexpr (std::is_null_pointer_v<T>) {
    return true;
  } else if constexpr (std::is_pointer_v<T>) {
    using E = std::remove_cv_t<std::remove_pointer_t<T>>;
    return std::is_convertible_v<T, void*> && !is_host_element_v<E> && !std::is_same_v<E, workspace_ref> &&
           !std::is_pointer_v<E>;
  } else {
    return false;
  }
}();

// stream_ok of the I-th type of Args, false when there is none.
template <bool Exists, std::size_t I, class Args>
inline constexpr bool stream_at_ok = false;
template <std::size_t I, class Args>
inline constexpr bool stream_at_ok<true, I, Args> = stream_ok<at_t<I, Args>>;

template <class P, class A>
inline constexpr bool argument_ok = [] {
  using T = std::remove_cvref_t<A>;
  if constexpr (P::kind == param_kind::tensor_in || P::kind == param_kind::tensor_out) {
    return std::is_convertible_v<A, typename P::host>;
  } else if constexpr (std::is_same_v<typename P::host, bool>) {
    return std::is_same_v<T, bool>;
  } else {
    return std::is_integral_v<T> && !std::is_same_v<T, bool>;
  }
}();

// How the arguments of a typed call map to the parameters; `ok` only when they all fit.
struct call_shape {
  bool ok;
  bool with_workspace;
};

template <class Params, class... A>
consteval std::size_t first_bad_argument() {
  constexpr std::size_t checked = std::min(Params::size, sizeof...(A));
  using args = type_list<A...>;
  return []<std::size_t... I>(std::index_sequence<I...>) {
    const std::array<bool, sizeof...(I)> ok{argument_ok<at_t<I, Params>, at_t<I, args>>...};
    return static_cast<std::size_t>(std::find(ok.begin(), ok.end(), false) - ok.begin());
  }
  (std::make_index_sequence<checked>{});
}

// Checks a typed call's arguments against `Params`, then (WithStream) an optional workspace_ref
// and the stream. A mismatch instantiates one diagnostic above (the first one), which names the
// parameter. `Last` names what comes last when there is no stream (for the extra argument).
template <class Params, bool WithStream, fixed_string Last, class... A>
consteval call_shape check_call() {
  constexpr std::size_t n = Params::size;
  constexpr std::size_t given = sizeof...(A);
  using args = type_list<A...>;
  constexpr std::size_t bad = first_bad_argument<Params, A...>();
  if constexpr (WithStream && bad < given && given <= n && bad + 1 == given && stream_at_ok<(bad < given), bad, args>) {
    // The stream came early: the parameters from `bad` on are missing.
    (void)missing_argument_for_parameter<at_t<bad, Params>::fixed_name>{};
    return {false, false};
  } else if constexpr (bad < std::min(n, given)) {
    using p = at_t<bad, Params>;
    (void)argument_for_parameter<p::fixed_name, typename p::host, at_t<bad, args>>{};
    return {false, false};
  } else if constexpr (given < n) {
    (void)missing_argument_for_parameter<at_t<given, Params>::fixed_name>{};
    return {false, false};
  } else if constexpr (!WithStream) {
    if constexpr (given > n) {
      (void)extra_argument_after_parameter<Last, at_t<n, args>>{};
      return {false, false};
    } else {
      return {true, false};
    }
  } else if constexpr (given == n) {
    (void)missing_argument_for_parameter<dependent_name<args, "stream">>{};
    return {false, false};
  } else {
    constexpr bool with_ws = given >= n + 2 && is_workspace<at_t<n, args>>;
    constexpr std::size_t stream_at = n + (with_ws ? 1 : 0);
    if constexpr (given <= stream_at) {
      (void)missing_argument_for_parameter<dependent_name<args, "stream">>{};
      return {false, false};
    } else if constexpr (!stream_ok<at_t<stream_at, args>>) {
      (void)argument_for_parameter<"stream", stream_handle, at_t<stream_at, args>>{};
      return {false, false};
    } else if constexpr (given > stream_at + 1) {
      (void)extra_argument_after_parameter<"stream", at_t<stream_at + 1, args>>{};
      return {false, false};
    } else {
      return {true, with_ws};
    }
  }
}

// The storage value of one argument (a tensor pointer cast to the C ABI's element type).
template <class P, class A>
constexpr typename P::storage to_storage(A&& a) noexcept {
  if constexpr (P::kind == param_kind::tensor_in || P::kind == param_kind::tensor_out) {
    return reinterpret_cast<typename P::storage>(static_cast<typename P::host>(a));
  } else {
    return static_cast<typename P::storage>(a);
  }
}

template <class List>
struct filter_scalars;
template <class... P>
struct filter_scalars<type_list<P...>> {
  using type = concat_t<std::conditional_t<P::kind == param_kind::size || P::kind == param_kind::runtime_arg,
                                           type_list<P>, type_list<>>...>;
};

}  // namespace detail

/// @brief A generated entry point through its exact function type, called with typed arguments.
///
/// `operator()` takes the signature's parameters in order: tensors as host element pointers
/// (`const half_t*` for an f16 input, `float*` for an f32 output, ...), sizes and runtime
/// arguments as integers, optionally a workspace_ref, then the stream. An argument of the wrong
/// type, a missing one or an extra one is a compile error whose instantiation names the
/// parameter. Nothing is thrown for a status: operator() returns it (runtime::typed_kernel throws).
/// @tparam Signature a kernel_signature
template <class Signature>
class typed_entry {
  static_assert(detail::is_kernel_signature<Signature>,
                "rocmtpl: typed_entry: the parameter is a kernel_signature<inputs<...>, outputs<...>, ...>");

 public:
  using signature = Signature;                              ///< the kernel_signature
  using function_type = typename Signature::function_type;  ///< the entry point's exact function type
  using params = typename Signature::params;                ///< the parameters before the fixed tail, as types
  /// @brief The parameters the workspace query takes: sizes, then runtime arguments.
  using scalar_params = typename detail::filter_scalars<params>::type;

  constexpr typed_entry() noexcept = default;
  /// @param fn the entry point (for example `library.symbol<sig::function_type>(name)`)
  constexpr explicit typed_entry(function_type* fn) noexcept : fn_(fn) {}

  /// @brief The function pointer.
  [[nodiscard]] constexpr function_type* get() const noexcept { return fn_; }
  /// @brief True when it points to a function.
  [[nodiscard]] constexpr explicit operator bool() const noexcept { return fn_ != nullptr; }

  /// @brief Launches: `(tensors..., sizes..., runtime args..., [workspace_ref,] stream)`.
  /// @return what the entry point returned
  /// @throws invalid_argument_error when empty.
  template <class... A>
  kernel_status operator()(A&&... args) const {
    constexpr auto shape = detail::check_call<params, true, "stream", A...>();
    if constexpr (shape.ok) {
      constexpr std::size_t n = params::size;
      auto t = std::forward_as_tuple(args...);
      workspace_ref ws{};
      if constexpr (shape.with_workspace) ws = std::get<n>(t);
      void* stream = std::get<n + (shape.with_workspace ? 1 : 0)>(t);
      return launch(std::make_index_sequence<n>{}, t, ws, stream);
    } else {
      return kernel_status::unsupported_argument;
    }
  }

  /// @brief The workspace query: `(sizes..., runtime args...)`; writes the bytes the launch with
  /// these values needs into `bytes`.
  /// @return what the entry point returned
  /// @throws invalid_argument_error when empty.
  template <class... A>
  kernel_status query_workspace(std::size_t& bytes, A&&... args) const {
    constexpr auto shape = detail::check_call<scalar_params, false, "workspace_size", A...>();
    if constexpr (shape.ok) {
      check_not_empty();
      auto t = std::forward_as_tuple(args...);
      bytes = 0;
      return query(std::make_index_sequence<params::size>{}, t, &bytes);
    } else {
      return kernel_status::unsupported_argument;
    }
  }

 private:
  void check_not_empty() const {
    if (fn_ == nullptr) {
      throw invalid_argument_error("rocmtpl: typed_entry: no entry point; make it from the loaded function");
    }
  }

  template <std::size_t... I, class Tuple>
  kernel_status launch(std::index_sequence<I...>, Tuple& t, workspace_ref ws, void* stream) const {
    check_not_empty();
    return to_kernel_status(fn_(detail::to_storage<detail::at_t<I, params>>(std::get<I>(t))..., nullptr,
                                static_cast<std::uint8_t*>(ws.data), stream));
  }

  template <std::size_t I, class Tuple>
  static auto query_arg(Tuple& t) {
    using p = detail::at_t<I, params>;
    if constexpr (I < Signature::tensor_count) {
      return typename p::storage{nullptr};
    } else {
      return detail::to_storage<p>(std::get<I - Signature::tensor_count>(t));
    }
  }

  template <std::size_t... I, class Tuple>
  kernel_status query(std::index_sequence<I...>, Tuple& t, std::size_t* bytes) const {
    return to_kernel_status(fn_(query_arg<I>(t)..., bytes, nullptr, nullptr));
  }

  function_type* fn_ = nullptr;
};

}  // namespace rocmtpl
