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
  [[nodiscard]] std::vector<std::string> argdefs() const {
    std::vector<std::string> out;
    out.reserve(params.size());
    for (const auto& p : params) out.push_back(p.type + " " + p.name);
    return out;
  }

  /// @brief The declaration without linkage: `int NAME(const float* X, ..., size_t* workspace_size,
  /// uint8_t* workspace, hipStream_t stream)`. This is the text a library's `NAME_signature()` returns.
  [[nodiscard]] std::string declaration(std::string_view name) const {
    std::string out = "int ";
    out.append(name).append("(");
    for (const auto& d : argdefs()) out.append(d).append(", ");
    out.append(tail).append(")");
    return out;
  }

  /// @brief The same signature without its runtime arguments (what a template's reference kernel
  /// declares: the candidates' tensors and sizes, no runtime arguments).
  [[nodiscard]] entry_signature without_runtime_args() const {
    entry_signature out;
    for (const auto& p : params) {
      if (p.kind != param_kind::runtime_arg) out.params.push_back(p);
    }
    return out;
  }

  /// @brief Checks the description: valid names, used once; kinds in ABI order (inputs, outputs,
  /// sizes, runtime arguments); tensors typed as pointers (`const` for inputs only), sizes `int64_t`,
  /// runtime arguments of an allowed integer type.
  /// @throws invalid_argument_error naming the first parameter that breaks a rule
  void validate() const {
    for (std::size_t i = 0; i < params.size(); ++i) {
      const auto& p = params[i];
      check_name("entry_signature: parameter name", p.name);
      std::string where = "rocmtpl: entry_signature: parameter ";  // in steps: g++ 12 -O3 false -Wrestrict
      where += std::to_string(i);
      where += " '" + p.name + "' (" + std::string(to_string(p.kind)) + ", " + p.type + ")";
      if (i > 0 && static_cast<int>(params[i - 1].kind) > static_cast<int>(p.kind)) {
        throw invalid_argument_error(where + " is out of order; list inputs, outputs, sizes, then runtime arguments");
      }
      for (std::size_t j = 0; j < i; ++j) {
        if (params[j].name == p.name) throw invalid_argument_error(where + " repeats a name; rename one of them");
      }
      if (!type_fits(p)) {
        throw invalid_argument_error(where +
                                     " has a type its kind does not allow; tensors are `const T*` (inputs) "
                                     "or `T*` (outputs), sizes `int64_t`, runtime arguments integers");
      }
    }
  }

  /// @brief Member-wise equality.
  friend bool operator==(const entry_signature&, const entry_signature&) = default;

 private:
  static bool type_fits(const entry_param& p) {
    const bool pointer = p.type.size() > 1 && p.type.back() == '*';
    const bool is_const = p.type.starts_with("const ");
    switch (p.kind) {
      case param_kind::tensor_in: return pointer && is_const;
      case param_kind::tensor_out: return pointer && !is_const;
      case param_kind::size: return p.type == "int64_t";
      case param_kind::runtime_arg:
        return std::find(arg_info::allowed_types.begin(), arg_info::allowed_types.end(), p.type) !=
               arg_info::allowed_types.end();
    }
    return false;
  }
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
  void add_runtime_arg(const arg_info& info) {
    info.validate();
    check_unused(info.name);
    runtime_.push_back(info);
  }

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
  void name_size_args(std::vector<std::string> symbols) {
    if (!inputs_.empty() || !outputs_.empty()) {
      throw invalid_argument_error(
          "rocmtpl: kernel_args: size arguments named after tensors were bound; name them "
          "first");
    }
    for (std::size_t i = 0; i < symbols.size(); ++i) {
      check_name("kernel_args: size argument", symbols[i]);
      if (std::find(symbols.begin(), symbols.begin() + static_cast<std::ptrdiff_t>(i), symbols[i]) !=
          symbols.begin() + static_cast<std::ptrdiff_t>(i)) {
        throw invalid_argument_error("rocmtpl: kernel_args: size argument '" + symbols[i] + "' is named twice");
      }
    }
    symbols_ = std::move(symbols);
    named_size_args_ = true;
  }

  /// @brief The size arguments' parameter names in generated code, in size_symbols() order:
  /// `user_identifier(symbol)` (`u_M`), the names sym_expr::to_cpp() uses. Templates declare and
  /// pass the size arguments under these names, never under size_symbols().
  [[nodiscard]] std::vector<std::string> size_params() const {
    std::vector<std::string> out;
    out.reserve(symbols_.size());
    for (const auto& s : symbols_) out.push_back(user_identifier(s));
    return out;
  }

 private:
  // Appends the symbols of one tensor's layout that are not known yet (order of first appearance).
  void add_symbols_of(const buffer& b) {
    const auto& l = b.get_layout();
    auto visit = [&](const sym_expr& e) {
      if (e.is_constant()) return;
      for (auto& s : e.free_symbols()) {
        if (std::find(symbols_.begin(), symbols_.end(), s) != symbols_.end()) continue;
        if (named_size_args_) {
          throw invalid_argument_error("rocmtpl: kernel_args: tensor '" + b.name() + "' " + l.to_string() +
                                       " uses size symbol '" + s + "', which is not among the named size arguments [" +
                                       join_symbols() + "]; add it to the template's size_args()");
        }
        symbols_.push_back(std::move(s));
      }
    };
    for (const auto& e : l.sizes()) visit(e);
    for (const auto& e : l.strides()) visit(e);
    visit(l.offset());
  }

 public:
  /// @brief The parameter name bound to a buffer name, or empty when the buffer is not an argument.
  [[nodiscard]] std::string arg_name_of(std::string_view buffer_name) const {
    for (const auto* list : {&inputs_, &outputs_}) {
      for (const auto& t : *list) {
        if (t.node.name() == buffer_name) return t.arg_name;
      }
    }
    return {};
  }

  /// @brief C parameter declarations: `const T* in`, `T* out`, `int64_t u_sym` (size_params()),
  /// `<ty> runtime_arg`. Tensor pointer types are the storage spellings (DTYPE_TO_ROCM_TYPE).
  /// @throws invalid_argument_error if a size parameter collides with a tensor parameter name (a
  /// tensor bound under a `u_` name).
  [[nodiscard]] std::vector<std::string> cpp_argdefs() const { return signature().argdefs(); }

  /// @brief The run-time description of the parameters cpp_argdefs() declares, in the same order.
  /// @throws invalid_argument_error as cpp_argdefs()
  [[nodiscard]] entry_signature signature() const {
    entry_signature out;
    out.params.reserve(inputs_.size() + outputs_.size() + symbols_.size() + runtime_.size());
    for (const auto& t : inputs_) {
      out.params.push_back(
          {t.arg_name, param_kind::tensor_in, "const " + std::string(storage_type(t.node.type())) + "*"});
    }
    for (const auto& t : outputs_) {
      out.params.push_back({t.arg_name, param_kind::tensor_out, std::string(storage_type(t.node.type())) + "*"});
    }
    for (const auto& p : size_params()) {
      if (!arg_name_of_param(p).empty()) {
        throw invalid_argument_error("rocmtpl: kernel_args: size parameter '" + p +
                                     "' has the same name as a tensor argument; rename one of them");
      }
      out.params.push_back({p, param_kind::size, "int64_t"});
    }
    for (const auto& r : runtime_) out.params.push_back({r.name, param_kind::runtime_arg, r.ty});
    return out;
  }

  /// @brief Names the caller passes, in parameter order: buffer names, symbol names, runtime arg names.
  [[nodiscard]] std::vector<std::string> call_args() const {
    std::vector<std::string> out;
    for (const auto& t : inputs_) out.push_back(t.node.name());
    for (const auto& t : outputs_) out.push_back(t.node.name());
    for (const auto& s : size_symbols()) out.push_back(s);
    for (const auto& r : runtime_) out.push_back(r.name);
    return out;
  }

 private:
  [[nodiscard]] std::string arg_name_of_param(std::string_view param) const {
    for (const auto* list : {&inputs_, &outputs_}) {
      for (const auto& t : *list) {
        if (t.arg_name == param) return t.arg_name;
      }
    }
    return {};
  }

  [[nodiscard]] std::string join_symbols() const {
    std::string out;
    for (const auto& s : symbols_) out += (out.empty() ? "" : ", ") + s;
    return out;
  }

  void check_unused(const std::string& name) const {
    bool used = !arg_name_of_param(name).empty() ||
                std::any_of(runtime_.begin(), runtime_.end(), [&](const arg_info& r) { return r.name == name; });
    if (used) throw invalid_argument_error("rocmtpl: kernel_args: argument name '" + name + "' is used twice");
  }

  void add(std::vector<tensor_arg>& list, const buffer& b, std::string arg_name) {
    for (const auto* l : {&inputs_, &outputs_}) {
      for (const auto& t : *l) {
        if (t.node.name() == b.name()) return;  // same buffer: one parameter (the reference's unique())
      }
    }
    check_name("kernel_args: argument name", arg_name);
    check_unused(arg_name);
    list.push_back({b, std::move(arg_name)});
    add_symbols_of(list.back().node);
  }

  std::vector<tensor_arg> inputs_;
  std::vector<tensor_arg> outputs_;
  std::vector<arg_info> runtime_;
  std::vector<std::string> symbols_;  // size_symbols(), extended as tensors are added
  bool named_size_args_ = false;      // name_size_args() fixed symbols_
};

}  // namespace rocmtpl
