// SPDX-License-Identifier: MIT
#pragma once

// The implementation of codegen/kernel_args.hpp: included at its end (header-only) or compiled once by src/codegen.cpp,
// after it (so it does not include it back).

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

ROCMTPL_INLINE std::vector<std::string> entry_signature::argdefs() const {
  std::vector<std::string> out;
  out.reserve(params.size());
  for (const auto& p : params) out.push_back(p.type + " " + p.name);
  return out;
}

ROCMTPL_INLINE std::string entry_signature::declaration(std::string_view name) const {
  std::string out = "int ";
  out.append(name).append("(");
  for (const auto& d : argdefs()) out.append(d).append(", ");
  out.append(tail).append(")");
  return out;
}

ROCMTPL_INLINE entry_signature entry_signature::without_runtime_args() const {
  entry_signature out;
  for (const auto& p : params) {
    if (p.kind != param_kind::runtime_arg) out.params.push_back(p);
  }
  return out;
}

ROCMTPL_INLINE void entry_signature::validate() const {
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

ROCMTPL_INLINE bool entry_signature::type_fits(const entry_param& p) {
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

ROCMTPL_INLINE void kernel_args::add_runtime_arg(const arg_info& info) {
  info.validate();
  check_unused(info.name);
  runtime_.push_back(info);
}

ROCMTPL_INLINE void kernel_args::name_size_args(std::vector<std::string> symbols) {
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

ROCMTPL_INLINE std::vector<std::string> kernel_args::size_params() const {
  std::vector<std::string> out;
  out.reserve(symbols_.size());
  for (const auto& s : symbols_) out.push_back(user_identifier(s));
  return out;
}

// Appends the symbols of one tensor's layout that are not known yet (order of first appearance).
ROCMTPL_INLINE void kernel_args::add_symbols_of(const buffer& b) {
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

ROCMTPL_INLINE std::string kernel_args::arg_name_of(std::string_view buffer_name) const {
  for (const auto* list : {&inputs_, &outputs_}) {
    for (const auto& t : *list) {
      if (t.node.name() == buffer_name) return t.arg_name;
    }
  }
  return {};
}

ROCMTPL_INLINE entry_signature kernel_args::signature() const {
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

ROCMTPL_INLINE std::vector<std::string> kernel_args::call_args() const {
  std::vector<std::string> out;
  for (const auto& t : inputs_) out.push_back(t.node.name());
  for (const auto& t : outputs_) out.push_back(t.node.name());
  for (const auto& s : size_symbols()) out.push_back(s);
  for (const auto& r : runtime_) out.push_back(r.name);
  return out;
}

ROCMTPL_INLINE std::string kernel_args::arg_name_of_param(std::string_view param) const {
  for (const auto* list : {&inputs_, &outputs_}) {
    for (const auto& t : *list) {
      if (t.arg_name == param) return t.arg_name;
    }
  }
  return {};
}

ROCMTPL_INLINE std::string kernel_args::join_symbols() const {
  std::string out;
  for (const auto& s : symbols_) out += (out.empty() ? "" : ", ") + s;
  return out;
}

ROCMTPL_INLINE void kernel_args::check_unused(const std::string& name) const {
  bool used = !arg_name_of_param(name).empty() ||
              std::any_of(runtime_.begin(), runtime_.end(), [&](const arg_info& r) { return r.name == name; });
  if (used) throw invalid_argument_error("rocmtpl: kernel_args: argument name '" + name + "' is used twice");
}

ROCMTPL_INLINE void kernel_args::add(std::vector<tensor_arg>& list, const buffer& b, std::string arg_name) {
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

}  // namespace rocmtpl
