// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief typed_kernel: a loaded entry point called through its exact C++ function type, with the
/// arguments its kernel_signature names; and compile(), which takes a typed_caller from
/// typed_template through the code cache to a typed_kernel.
///
/// Workspace: the kernel never allocates. A call without a workspace_ref asks the entry point how
/// much workspace these sizes and runtime arguments need and throws workspace_required_error when
/// it is not zero; a call with one throws the same error when it is too small. workspace_size()
/// answers the question beforehand, so the caller allocates once and passes it on every call.
///
/// @code{.cpp}
/// using namespace rocmtpl;
/// auto gemm = make_template(templates::gemm_policy{}, inputs<X, W>{}, outputs<Y>{});
/// auto kernel = runtime::compile(gemm.generate(config, hints<"M">{100}), cache, cc, options);
/// std::size_t bytes = kernel.workspace_size(m);  // sizes, then runtime arguments
/// kernel(x, w, y, m, stream);  // const float*, const float*, float*, int64_t, stream
/// kernel(std::span<const float>(x, n), w, y, m, workspace_ref{ws, bytes}, stream);
/// @endcode

#include <cstddef>
#include <memory>
#include <string>
#include <tuple>
#include <utility>

#include <rocmtpl/codegen/signature.hpp>
#include <rocmtpl/codegen/status.hpp>
#include <rocmtpl/codegen/typed_entry.hpp>
#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/kernel/typed_template.hpp>
#include <rocmtpl/runtime/build/code_cache.hpp>
#include <rocmtpl/runtime/build/compiler.hpp>
#include <rocmtpl/runtime/launch/kernel_call.hpp>
#include <rocmtpl/runtime/sys/shared_library.hpp>

namespace rocmtpl::runtime {

/// @brief A typed call needs workspace that it was not given (none, or too small).
class workspace_required_error : public error {
 public:
  /// @param kernel the entry point's name
  /// @param needed bytes the entry point asked for
  /// @param given bytes of the workspace_ref passed (0 when none)
  workspace_required_error(std::string kernel, std::size_t needed, std::size_t given);
  /// @brief The entry point's name.
  [[nodiscard]] const std::string& kernel() const noexcept { return kernel_; }
  /// @brief Bytes needed.
  [[nodiscard]] std::size_t needed() const noexcept { return needed_; }
  /// @brief Bytes given.
  [[nodiscard]] std::size_t given() const noexcept { return given_; }

 private:
  std::string kernel_;
  std::size_t needed_;
  std::size_t given_;
};

/// @brief A generated entry point loaded from a shared library, with its signature as a type.
/// The library stays loaded while a copy of the typed_kernel lives.
/// @tparam Signature a kernel_signature
template <class Signature>
class typed_kernel {
 public:
  using signature = Signature;                              ///< the kernel_signature
  using function_type = typename Signature::function_type;  ///< the entry point's exact function type

  /// @param library the loaded library
  /// @param name the entry point's symbol
  /// @throws symbol_not_found_error when the library has no such symbol.
  typed_kernel(std::shared_ptr<shared_library> library, std::string name)
      : library_(std::move(library)), name_(std::move(name)), entry_(library_->symbol<function_type>(name_)) {}

  /// @brief The entry point's name.
  [[nodiscard]] const std::string& name() const noexcept { return name_; }
  /// @brief The library it lives in (kept loaded while a copy lives).
  [[nodiscard]] const std::shared_ptr<shared_library>& library() const noexcept { return library_; }
  /// @brief The typed pointer (returns statuses instead of throwing).
  [[nodiscard]] const typed_entry<Signature>& entry() const noexcept { return entry_; }

  /// @brief Bytes of workspace a launch with these sizes and runtime arguments needs.
  /// @param args the sizes, then the runtime arguments, in signature order
  /// @throws kernel_status_error when the entry point refuses the values.
  template <class... A>
  [[nodiscard]] std::size_t workspace_size(A&&... args) const {
    std::size_t bytes = 0;
    check_status(name_, entry_.query_workspace(bytes, std::forward<A>(args)...));
    return bytes;
  }

  /// @brief Launches: `(tensors..., sizes..., runtime args..., [workspace_ref,] stream)`.
  /// @throws workspace_required_error when the launch needs more workspace than given;
  /// kernel_status_error when the entry point returns a status other than ok.
  template <class... A>
  void operator()(A&&... args) const {
    constexpr auto shape = rocmtpl::detail::check_call<typename Signature::params, true, "stream", A...>();
    (void)rocmtpl::detail::call_diagnostic<typename Signature::params, true, "stream", A...>{};  // names a misuse
    if constexpr (shape.ok) {
      auto t = std::forward_as_tuple(args...);
      std::size_t given = 0;
      if constexpr (shape.with_workspace) given = std::get<Signature::params::size>(t).size;
      const std::size_t needed = needed_for(t, std::make_index_sequence<scalar_count>{});
      if (needed > given) throw workspace_required_error(name_, needed, given);
      check_status(name_, std::apply(entry_, t));
    }
  }

 private:
  static constexpr std::size_t scalar_count = Signature::params::size - Signature::tensor_count;

  template <class Tuple, std::size_t... I>
  std::size_t needed_for(Tuple& t, std::index_sequence<I...>) const {
    return workspace_size(std::get<Signature::tensor_count + I>(t)...);
  }

  std::shared_ptr<shared_library> library_;
  std::string name_;
  typed_entry<Signature> entry_;
};

/// @brief Loads a compiled choice: the library at `library`, its entry point typed_caller::kernel_name().
/// @throws library_load_error, symbol_not_found_error.
template <class Signature>
[[nodiscard]] typed_kernel<Signature> load(const typed_caller<Signature>& caller,
                                           const std::filesystem::path& library) {
  return typed_kernel<Signature>(std::make_shared<shared_library>(library), caller.kernel_name());
}

/// @brief Compiles a choice of a typed_template through the code cache (once per source, command,
/// compiler version and arch) and loads it as a typed_kernel.
/// @throws compile_error, compiler_not_found_error, library_load_error, symbol_not_found_error.
template <class Signature>
[[nodiscard]] typed_kernel<Signature> compile(const typed_caller<Signature>& caller, code_cache& cache,
                                              const compiler& cc, const compile_options& options) {
  auto checked = options;
  if (checked.output == compile_output::shared_library) checked.required_symbols = {{caller.kernel_name()}};
  return load(caller, cache.get_or_compile(cc, caller.source(), checked).library);
}

}  // namespace rocmtpl::runtime

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/runtime/launch/typed_kernel-inl.hpp>
#endif
