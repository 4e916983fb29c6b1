// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief kernel_args: the arguments of a generated entry point (the reference's KernelArgs).

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rocmtpl/codegen/arg_info.hpp>
#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/ir/buffer.hpp>
#include <rocmtpl/ir/identifier.hpp>

namespace rocmtpl {

/// @brief What a parameter of a generated entry point is (before the fixed tail
/// `size_t* workspace_size, uint8_t* workspace, hipStream_t stream`).
enum class param_kind {
  tensor_in,   ///< `const T*`: an input tensor's address
  tensor_out,  ///< `T*`: an output tensor's address
  size,        ///< `int64_t`: a symbolic size
  runtime_arg  ///< an integer runtime argument of the template (arg_info::allowed_types)
};

/// @brief `tensor_in`, `tensor_out`, `size` or `runtime_arg`.
[[nodiscard]] constexpr std::string_view to_string(param_kind k) noexcept {
  switch (k) {
    case param_kind::tensor_in: return "tensor_in";
    case param_kind::tensor_out: return "tensor_out";
    case param_kind::size: return "size";
    case param_kind::runtime_arg: return "runtime_arg";
  }
  return "unknown";
}

/// @brief One parameter of an entry point: its name, kind and C type as declared (`const float*`,
/// `float*`, `int64_t`, `int32_t`).
struct entry_param {
  std::string name;                    ///< the parameter's name as declared (`X`, `u_M`, `split_k`)
  param_kind kind = param_kind::size;  ///< what it is
  std::string type;                    ///< its C type as declared

  /// @brief Member-wise equality.
  friend bool operator==(const entry_param&, const entry_param&) = default;
};

/// @brief The run-time description of an entry point's signature (the generated C ABI of
/// docs/ARCHITECTURE.md): its parameters in order, inputs, outputs, sizes, runtime arguments, without the
/// fixed tail. Rendering declares the entry from it; the runtime checks a loaded library and every
/// call against it.
struct entry_signature {
  std::vector<entry_param> params;  ///< the parameters before the fixed tail, in ABI order

  /// @brief The fixed tail of every entry point.
  static constexpr std::string_view tail = "size_t* workspace_size, uint8_t* workspace, hipStream_t stream";

  /// @brief How many parameters have kind `k`.
  [[nodiscard]] std::size_t count(param_kind k) const noexcept {
    return static_cast<std::size_t>(
        std::count_if(params.begin(), params.end(), [k](const entry_param& p) { return p.kind == k; }));
  }
  /// @brief Tensor parameters (inputs, then outputs).
  [[nodiscard]] std::size_t tensor_count() const noexcept {
    return count(param_kind::tensor_in) + count(param_kind::tensor_out);
  }
  /// @brief Integer parameters (sizes, then runtime arguments).
  [[nodiscard]] std::size_t extra_count() const noexcept {
    return count(param_kind::size) + count(param_kind::runtime_arg);
  }

  /// @brief The parameter declarations: `const float* X`, ..., `int64_t u_M`.
  [[nodiscard]] std::vector<std::string> argdefs() const;

  /// @brief The declaration without linkage: `int NAME(const float* X, ..., size_t* workspace_size,
  /// uint8_t* workspace, hipStream_t stream)`. This is the text a library's `NAME_signature()` returns.
  [[nodiscard]] std::string declaration(std::string_view name) const;

  /// @brief The same signature without its runtime arguments (what a template's reference kernel
  /// declares: the candidates' tensors and sizes, no runtime arguments).
  [[nodiscard]] entry_signature without_runtime_args() const;

  /// @brief Checks the description: valid names, used once; kinds in ABI order (inputs, outputs,
  /// sizes, runtime arguments); tensors typed as pointers (`const` for inputs only), sizes `int64_t`,
  /// runtime arguments of an allowed integer type.
  /// @throws invalid_argument_error naming the first parameter that breaks a rule
  void validate() const;

  /// @brief Member-wise equality.
  friend bool operator==(const entry_signature&, const entry_signature&) = default;

 private:
  static bool type_fits(const entry_param& p);
};

/// @brief Ordered arguments of a kernel entry point: input tensors, output tensors, symbolic
/// sizes, runtime arguments. The order is stable: tensors in the order they were added, size
/// symbols in order of first appearance in those tensors' layouts, runtime arguments as given.
class kernel_args {
 public:
  /// @brief A tensor argument: the graph buffer and the C parameter name it is bound to.
  struct tensor_arg {
    buffer node;           ///< the graph buffer
    std::string arg_name;  ///< the C parameter name it is bound to
  };

  /// @brief Binds an input buffer to a parameter name; a buffer added twice keeps its first name.
  void add_input(const buffer& b, std::string arg_name) { add(inputs_, b, std::move(arg_name)); }
  /// @brief Binds an output buffer to a parameter name.
  void add_output(const buffer& b, std::string arg_name) { add(outputs_, b, std::move(arg_name)); }

  /// @brief Appends a runtime argument (after the size arguments).
  /// @throws invalid_argument_error for a bad name or type, or a name already used.
  void add_runtime_arg(const arg_info& info);

  /// @brief The input tensors, in the order they were added.
  [[nodiscard]] const std::vector<tensor_arg>& inputs() const noexcept { return inputs_; }
  /// @brief The output tensors, in the order they were added.
  [[nodiscard]] const std::vector<tensor_arg>& outputs() const noexcept { return outputs_; }
  /// @brief The runtime arguments, in order.
  [[nodiscard]] const std::vector<arg_info>& runtime_args() const noexcept { return runtime_; }

  /// @brief Symbols of all tensor layouts, in order of first appearance as tensors were added
  /// (the `int64_t` size arguments), by their user names (`M`).
  [[nodiscard]] const std::vector<std::string>& size_symbols() const noexcept { return symbols_; }

  /// @brief Names the size arguments, in order (the reference's size_args()), instead of collecting
  /// the tensors' symbols: tensors added later may only use these symbols. Call it before any tensor.
  /// @throws invalid_argument_error when a tensor was added already, or a name is invalid or repeats.
  void name_size_args(std::vector<std::string> symbols);

  /// @brief The size arguments' parameter names in generated code, in size_symbols() order:
  /// `user_identifier(symbol)` (`u_M`), the names sym_expr::to_cpp() uses. Templates declare and
  /// pass the size arguments under these names, never under size_symbols().
  [[nodiscard]] std::vector<std::string> size_params() const;

 private:
  void add_symbols_of(const buffer& b);

 public:
  /// @brief The parameter name bound to a buffer name, or empty when the buffer is not an argument.
  [[nodiscard]] std::string arg_name_of(std::string_view buffer_name) const;

  /// @brief C parameter declarations: `const T* in`, `T* out`, `int64_t u_sym` (size_params()),
  /// `<ty> runtime_arg`. Tensor pointer types are the storage spellings (DTYPE_TO_ROCM_TYPE).
  /// @throws invalid_argument_error if a size parameter collides with a tensor parameter name (a
  /// tensor bound under a `u_` name).
  [[nodiscard]] std::vector<std::string> cpp_argdefs() const { return signature().argdefs(); }

  /// @brief The run-time description of the parameters cpp_argdefs() declares, in the same order.
  /// @throws invalid_argument_error as cpp_argdefs()
  [[nodiscard]] entry_signature signature() const;

  /// @brief Names the caller passes, in parameter order: buffer names, symbol names, runtime arg names.
  [[nodiscard]] std::vector<std::string> call_args() const;

 private:
  [[nodiscard]] std::string arg_name_of_param(std::string_view param) const;
  [[nodiscard]] std::string join_symbols() const;
  void check_unused(const std::string& name) const;
  void add(std::vector<tensor_arg>& list, const buffer& b, std::string arg_name);

  std::vector<tensor_arg> inputs_;
  std::vector<tensor_arg> outputs_;
  std::vector<arg_info> runtime_;
  std::vector<std::string> symbols_;  // size_symbols(), extended as tensors are added
  bool named_size_args_ = false;      // name_size_args() fixed symbols_
};

}  // namespace rocmtpl

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/codegen/kernel_args-inl.hpp>
#endif
