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
#include <span>
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
// compiler prints in the instantiation that fails (instantiated from the call itself, so that the
// error is a few lines: the instantiation, the call, the static_assert).

template <fixed_string Parameter, class Expected, class Given>
struct argument_for_parameter {
  static_assert(always_false<sizeof(Expected), sizeof(Given)>,
                "rocmtpl: typed call: wrong type, the argument for the parameter above does not convert to its type; "
                "pass a pointer to its element type, an integer for a size, the stream last");
};
template <fixed_string Parameter>
struct missing_argument_for_parameter {
  static_assert(always_false<Parameter.size()>,
                "rocmtpl: typed call: missing argument, the parameter above gets none; pass every tensor, size and "
                "runtime argument of the signature in order, then the stream");
};
template <fixed_string LastParameter, class Given>
struct extra_argument_after_parameter {
  static_assert(always_false<sizeof(Given)>,
                "rocmtpl: typed call: too many arguments, one follows the last parameter (named above); remove it");
};
template <fixed_string Parameter, class Given>
struct extra_argument_before_parameter {
  static_assert(always_false<sizeof(Given)>,
                "rocmtpl: typed call: too many arguments, one comes before the parameter above; remove it");
};
template <fixed_string First, fixed_string Second>
struct arguments_in_wrong_order {
  static_assert(always_false<First.size(), Second.size()>,
                "rocmtpl: typed call: wrong order, the arguments for the two parameters above are swapped; swap them");
};
// What a call that fits instantiates instead.
struct call_accepted {};

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

// The element pointer of a std::span (void for other types): a tensor may be passed as one.
template <class T>
struct span_pointer {
  using type = void;
};
template <class E, std::size_t N>
struct span_pointer<std::span<E, N>> {
  using type = E*;
};

template <class P, class A>
inline constexpr bool argument_ok = [] {
  using T = std::remove_cvref_t<A>;
  if constexpr (P::kind == param_kind::tensor_in || P::kind == param_kind::tensor_out) {
    using span_data = typename span_pointer<T>::type;
    return std::is_convertible_v<A, typename P::host> ||
           (!std::is_void_v<span_data> && std::is_convertible_v<span_data, typename P::host>);
  } else if constexpr (std::is_same_v<typename P::host, bool>) {
    return std::is_same_v<T, bool>;
  } else {
    return std::is_integral_v<T> && !std::is_same_v<T, bool>;
  }
}();

// The slots of a call: the parameters, then (WithStream) an optional workspace_ref and the stream.
// Whether argument A fits slot J.
template <class Params, bool WithStream, bool WithWorkspace, std::size_t J, class A>
inline constexpr bool slot_ok = [] {
  if constexpr (J < Params::size) {
    return argument_ok<at_t<J, Params>, A>;
  } else if constexpr (WithWorkspace && J == Params::size) {
    return is_workspace<A>;
  } else {
    return stream_ok<A>;
  }
}();

// How a call's arguments fail to fit its slots: the first argument that does not fit, read as a
// missing argument when the rest fit the slots after it, an extra one when the arguments after it
// fit from its slot on, two swapped ones when each fits the other's slot and the rest fit, else a
// wrong type.
enum class call_fault : std::uint8_t { none, wrong_type, missing, extra, swapped };

struct call_verdict {
  call_fault fault = call_fault::none;
  std::size_t slot = 0;  // the slot named: missing, wrong type, swapped (with slot + 1), extra before it
  std::size_t arg = 0;   // the argument: wrong type, extra
  bool with_workspace = false;
};

template <std::size_t Args, std::size_t Slots>
using fit_matrix = std::array<std::array<bool, Slots + 1>, Args + 1>;  // +1: no zero-sized arrays

template <std::size_t G, std::size_t S>
constexpr bool rest_fits(const fit_matrix<G, S>& fit, std::size_t a, std::size_t s) {
  if (G - a != S - s) return false;
  for (; a < G; ++a, ++s) {
    if (!fit[a][s]) return false;
  }
  return true;
}

template <std::size_t G, std::size_t S>
constexpr call_verdict judge(const fit_matrix<G, S>& fit) {
  std::size_t bad = 0;
  while (bad < G && bad < S && fit[bad][bad]) ++bad;
  if (bad == G && bad == S) return {};
  if (bad == G) return {call_fault::missing, bad, bad};
  if (bad == S) return {call_fault::extra, S, bad};
  if (G < S && rest_fits<G, S>(fit, bad, bad + (S - G))) return {call_fault::missing, bad, bad};
  if (G > S && rest_fits<G, S>(fit, bad + (G - S), bad)) return {call_fault::extra, bad, bad};
  if (bad + 1 < G && bad + 1 < S && fit[bad][bad + 1] && fit[bad + 1][bad] && rest_fits<G, S>(fit, bad + 2, bad + 2)) {
    return {call_fault::swapped, bad, bad};
  }
  return {call_fault::wrong_type, bad, bad};
}

template <class Params, bool WithStream, class... A>
consteval call_verdict judge_call() {
  constexpr bool ws = WithStream && (is_workspace<A> || ...);
  constexpr std::size_t slots = Params::size + (WithStream ? 1 : 0) + (ws ? 1 : 0);
  constexpr std::size_t given = sizeof...(A);
  using args = type_list<A...>;
  fit_matrix<given, slots> fit{};
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (
        [&]<std::size_t... J>(std::index_sequence<J...>, auto arg) {
          constexpr std::size_t i = decltype(arg)::value;
          ((fit[i][J] = slot_ok<Params, WithStream, ws, J, at_t<i, args>>), ...);
        }(std::make_index_sequence<slots>{}, std::integral_constant<std::size_t, I>{}),
        ...);
  }
  (std::make_index_sequence<given>{});
  call_verdict v = judge<given, slots>(fit);
  v.with_workspace = ws;
  return v;
}

// The name of slot J (a parameter, the workspace or the stream; `Last` past the end).
template <class Params, bool WithStream, bool WithWorkspace, fixed_string Last, std::size_t J>
consteval auto slot_name() {
  if constexpr (J < Params::size) {
    return at_t<J, Params>::fixed_name;
  } else if constexpr (WithStream && WithWorkspace && J == Params::size) {
    return fixed_string("workspace");
  } else if constexpr (WithStream && J == Params::size + (WithWorkspace ? 1 : 0)) {
    return fixed_string("stream");
  } else if constexpr (Params::size > 0 && !WithStream) {
    return at_t<Params::size - 1, Params>::fixed_name;
  } else {
    return Last;
  }
}

template <class Params, bool WithStream, bool WithWorkspace, std::size_t J>
consteval auto slot_type() {
  if constexpr (J < Params::size) {
    return std::type_identity<typename at_t<J, Params>::host>{};
  } else if constexpr (WithWorkspace && J == Params::size) {
    return std::type_identity<workspace_ref>{};
  } else {
    return std::type_identity<stream_handle>{};
  }
}

// The diagnostic of a verdict, as a type (call_accepted when the call fits): the call instantiates
// it, so that a misuse fails right at the call.
template <class Params, bool WithStream, fixed_string Last, class... A>
consteval auto diagnose() {
  constexpr call_verdict v = judge_call<Params, WithStream, A...>();
  constexpr bool ws = v.with_workspace;
  using args = type_list<A...>;
  if constexpr (v.fault == call_fault::none) {
    return std::type_identity<call_accepted>{};
  } else if constexpr (v.fault == call_fault::missing) {
    return std::type_identity<missing_argument_for_parameter<slot_name<Params, WithStream, ws, Last, v.slot>()>>{};
  } else if constexpr (v.fault == call_fault::extra) {
    constexpr std::size_t slots = Params::size + (WithStream ? 1 : 0) + (ws ? 1 : 0);
    if constexpr (v.slot >= slots) {
      return std::type_identity<extra_argument_after_parameter<
          slot_name<Params, WithStream, ws, Last, (slots == 0 ? slots : slots - 1)>(), at_t<v.arg, args>>>{};
    } else {
      return std::type_identity<
          extra_argument_before_parameter<slot_name<Params, WithStream, ws, Last, v.slot>(), at_t<v.arg, args>>>{};
    }
  } else if constexpr (v.fault == call_fault::swapped) {
    return std::type_identity<arguments_in_wrong_order<slot_name<Params, WithStream, ws, Last, v.slot>(),
                                                       slot_name<Params, WithStream, ws, Last, v.slot + 1>()>>{};
  } else {
    return std::type_identity<argument_for_parameter<
        slot_name<Params, WithStream, ws, Last, v.slot>(),
        typename decltype(slot_type<Params, WithStream, ws, v.slot>())::type, at_t<v.arg, args>>>{};
  }
}

// The diagnostic type of a call (see diagnose()); `call_accepted` when it fits.
template <class Params, bool WithStream, fixed_string Last, class... A>
using call_diagnostic = typename decltype(diagnose<Params, WithStream, Last, A...>())::type;

// How the arguments of a typed call map to the parameters; `ok` only when they all fit.
struct call_shape {
  bool ok;
  bool with_workspace;
};

// Checks a typed call's arguments against `Params`, then (WithStream) an optional workspace_ref
// and the stream, and returns the shape. The caller instantiates call_diagnostic<...> (whose
// instantiation names the parameter) where this says not ok.
template <class Params, bool WithStream, fixed_string Last, class... A>
consteval call_shape check_call() {
  constexpr call_verdict v = judge_call<Params, WithStream, A...>();
  return {v.fault == call_fault::none, v.with_workspace};
}

// The storage value of one argument (a tensor pointer cast to the C ABI's element type).
template <class P, class A>
constexpr typename P::storage to_storage(A&& a) noexcept {
  if constexpr (P::kind == param_kind::tensor_in || P::kind == param_kind::tensor_out) {
    if constexpr (!std::is_void_v<typename span_pointer<std::remove_cvref_t<A>>::type>) {
      return reinterpret_cast<typename P::storage>(static_cast<typename P::host>(a.data()));
    } else {
      return reinterpret_cast<typename P::storage>(static_cast<typename P::host>(a));
    }
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
/// (`const half_t*` for an f16 input, `float*` for an f32 output, ...) or spans of them
/// (`std::span<const half_t>`: its data() is passed), sizes and runtime
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
    (void)detail::call_diagnostic<params, true, "stream", A...>{};  // names the parameter of a misuse
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
    (void)detail::call_diagnostic<scalar_params, false, "workspace_size", A...>{};
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
