// SPDX-License-Identifier: MIT
#pragma once

// The implementation of kernel/rocm_kernel.hpp: included at its end (header-only) or compiled once by src/kernel.cpp,
// after it (so it does not include it back).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <map>
#include <numeric>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/detail/strings.hpp>
#include <rocmtpl/ir/identifier.hpp>

namespace rocmtpl {

ROCMTPL_INLINE rocm_template_kernel::rocm_template_kernel(std::string kernel_name,
                                                          std::vector<arg_info> runtime_arg_info,
                                                          std::vector<runtime_arg_value> runtime_arg_values)
    : kernel_name_(std::move(kernel_name)),
      runtime_arg_info_(std::move(runtime_arg_info)),
      runtime_arg_values_(std::move(runtime_arg_values)) {
  // The kernel name is the entry point's, exported as it is: no runtime name either (free, hipMalloc).
  if (const auto problem = exported_name_problem(kernel_name_); !problem.empty()) {
    throw invalid_argument_error("rocmtpl: rocm_template_kernel: kernel name '" + kernel_name_ + "' " +
                                 std::string(problem));
  }
  if (kernel_name_.starts_with(user_identifier_prefix)) {
    throw invalid_argument_error("rocmtpl: rocm_template_kernel: kernel name '" + kernel_name_ + "' starts with '" +
                                 std::string(user_identifier_prefix) +
                                 "', the prefix of user names in generated code; choose another name");
  }
  if (!runtime_arg_values_.empty() && runtime_arg_values_.size() != runtime_arg_info_.size()) {
    throw invalid_argument_error("rocmtpl: rocm_template_kernel: " + std::to_string(runtime_arg_info_.size()) +
                                 " runtime args described but " + std::to_string(runtime_arg_values_.size()) +
                                 " values given");
  }
  for (const auto& info : runtime_arg_info_) args_.add_runtime_arg(info);
}

ROCMTPL_INLINE void rocm_template_kernel::name_size_args(const std::vector<sym_expr>& size_args) {
  std::vector<std::string> names;
  for (const auto& e : size_args) {
    auto name = e.symbol_name();
    if (!name) {
      std::string text = "rocmtpl: rocm_template_kernel: size argument '";  // in steps: g++ 12 -O3 false -Wrestrict
      text += e.to_string();
      throw invalid_argument_error(text + "' is not a single symbol; size arguments are int64_t symbols");
    }
    names.push_back(std::move(*name));
  }
  args_.name_size_args(std::move(names));
}

ROCMTPL_INLINE std::optional<std::string> rocm_template_kernel::arg_name(const buffer* node) const {
  if (node == nullptr) return std::nullopt;
  auto name = args_.arg_name_of(node->name());
  if (name.empty()) return std::nullopt;
  return name;
}

ROCMTPL_INLINE std::string rocm_template_kernel::def_kernel(const std::vector<const buffer*>& inputs,
                                                            const std::vector<const buffer*>& outputs,
                                                            std::string_view names_str,
                                                            std::optional<std::vector<int>> input_reorder) {
  const auto names = split_names(names_str);
  if (inputs.size() + outputs.size() != names.size()) {
    throw invalid_argument_error("rocmtpl: def_kernel: " + std::to_string(inputs.size()) + " inputs + " +
                                 std::to_string(outputs.size()) +
                                 " outputs = " + std::to_string(inputs.size() + outputs.size()) + " but " +
                                 std::to_string(names.size()) + " names were given: [" + detail::join(names) + "]");
  }
  std::set<std::string> seen;
  for (const auto& n : names) {
    if (const auto problem = identifier_problem(n); !problem.empty()) {
      throw invalid_argument_error("rocmtpl: def_kernel: argument name '" + n + "' " + std::string(problem) +
                                   " (names: [" + detail::join(names) + "])");
    }
    if (!seen.insert(n).second) {
      throw invalid_argument_error("rocmtpl: def_kernel: argument name '" + n + "' appears twice in [" +
                                   detail::join(names) + "]");
    }
  }
  std::vector<int> order(inputs.size());
  std::iota(order.begin(), order.end(), 0);
  if (input_reorder) {
    auto sorted = *input_reorder;
    std::sort(sorted.begin(), sorted.end());
    if (sorted != order) {
      std::string text;
      for (auto i : *input_reorder) text += (text.empty() ? "" : ", ") + std::to_string(i);
      throw invalid_argument_error("rocmtpl: def_kernel: input_reorder [" + text + "] is not a permutation of 0.." +
                                   std::to_string(static_cast<int>(inputs.size()) - 1));
    }
    order = *input_reorder;
  }
  for (int idx : order) {
    const auto* node = inputs[static_cast<std::size_t>(idx)];
    if (node == nullptr) continue;
    const auto& name = names[static_cast<std::size_t>(idx)];
    named_nodes_.insert_or_assign(name, *node);
    args_.add_input(*node, name);
  }
  for (const auto* out : outputs) {
    if (out != nullptr) check_output_strides(*out);
  }
  for (std::size_t i = 0; i < outputs.size(); ++i) {
    if (outputs[i] == nullptr) continue;
    const auto& name = names[inputs.size() + i];
    named_nodes_.insert_or_assign(name, *outputs[i]);
    args_.add_output(*outputs[i], name);
  }
  return entry_declaration(kernel_name_, args_.signature());
}

ROCMTPL_INLINE rendered_source rocm_template_kernel::start_source(const template_context& ctx) const {
  rendered_source out;
  out.includes.push_back(ctx.header());
  out.globals = ctx.globals();
  out.entry_name = kernel_name_;
  out.signature = args_.signature();
  return out;
}

ROCMTPL_INLINE std::string rocm_template_kernel::size(const buffer* node, std::int64_t start,
                                                      std::optional<std::int64_t> end,
                                                      std::int64_t default_value) const {
  if (node == nullptr) return std::to_string(default_value);
  const auto& sizes = node->sizes();
  const auto s = normalize(node, start, "size start");
  const auto e = normalize(node, end.value_or(start), "size end");
  if (s > e) return std::to_string(default_value);
  std::vector<sym_expr> range(sizes.begin() + static_cast<std::ptrdiff_t>(s),
                              sizes.begin() + static_cast<std::ptrdiff_t>(e) + 1);
  return product(range).to_cpp();
}

ROCMTPL_INLINE std::string rocm_template_kernel::stride(const buffer* node, std::int64_t index,
                                                        std::int64_t default_value) const {
  if (node == nullptr) return std::to_string(default_value);
  return node->strides()[normalize(node, index, "stride")].to_cpp();
}

ROCMTPL_INLINE std::string rocm_template_kernel::offset(const buffer* node) const {
  if (node == nullptr) return "0";
  return node->get_layout().offset().to_cpp();
}

// Outputs must not write two elements to one place (overlap_of()): a layout that overlaps for
// constant strides is refused here, one whose symbols decide by the generated checks
// (argument_checks) once their values are known.
ROCMTPL_INLINE void rocm_template_kernel::check_output_strides(const buffer& out) {
  if (auto o = overlap_of(out.get_layout()); o.kind == overlap_kind::overlapping) {
    throw invalid_argument_error("rocmtpl: def_kernel: output '" + out.name() + "' " + out.get_layout().to_string() +
                                 ": " + o.reason + "; give it a layout whose elements do not overlap");
  }
}

// The run-time form of overlap_of()'s rule for an output whose symbols decide: the dimensions that
// may have more than one element, sorted by stride (selection, the rank is small), each stride at
// least the previous stride times the previous size (the first at least 1); clears `ok` otherwise.
ROCMTPL_INLINE std::vector<std::string> rocm_template_kernel::overlap_checks(const layout& l, std::string_view ok) {
  std::vector<std::string> sizes;
  std::vector<std::string> strides;
  for (std::size_t i = 0; i < l.rank(); ++i) {
    if (const auto size = l.sizes()[i].constant(); size && *size <= 1) continue;
    sizes.push_back(l.sizes()[i].to_cpp_checked(ok));
    strides.push_back(l.strides()[i].to_cpp_checked(ok));
  }
  const std::string n = std::to_string(sizes.size());
  const std::string flag(ok);
  return {"{  // no two indices address one element: by stride, each at least the previous stride * size",
          "    const int64_t rocmtpl_sizes[" + n + "] = {" + detail::join(sizes) + "};",
          "    const int64_t rocmtpl_strides[" + n + "] = {" + detail::join(strides) + "};",
          "    bool rocmtpl_taken[" + n + "] = {};",
          "    int64_t rocmtpl_extent = 1;",
          "    for (int rocmtpl_i = 0; rocmtpl_i < " + n + " && " + flag + "; ++rocmtpl_i) {",
          "        int rocmtpl_next = -1;",
          "        for (int rocmtpl_j = 0; rocmtpl_j < " + n + "; ++rocmtpl_j) {",
          "            if (!rocmtpl_taken[rocmtpl_j] && rocmtpl_sizes[rocmtpl_j] > 1 &&",
          "                (rocmtpl_next < 0 || rocmtpl_strides[rocmtpl_j] < rocmtpl_strides[rocmtpl_next])) {",
          "                rocmtpl_next = rocmtpl_j;",
          "            }",
          "        }",
          "        if (rocmtpl_next < 0) break;",
          "        rocmtpl_taken[rocmtpl_next] = true;",
          "        if (rocmtpl_strides[rocmtpl_next] < rocmtpl_extent) " + flag + " = false;",
          "        rocmtpl_extent = rocmtpl_size_mul(rocmtpl_strides[rocmtpl_next], rocmtpl_sizes[rocmtpl_next], &" +
              flag + ");",
          "    }",
          "}"};
}

// True when `n` is written to memory by the kernel (bound as an output).
ROCMTPL_INLINE bool rocm_template_kernel::is_output(const buffer& n) const {
  return std::any_of(args_.outputs().begin(), args_.outputs().end(),
                     [&](const kernel_args::tensor_arg& t) { return t.node.name() == n.name(); });
}

// The body of check_not_null() / check_sizes(); see there.
ROCMTPL_INLINE std::string rocm_template_kernel::argument_checks(const buffer* node, bool null_check) const {
  const auto name = arg_name(node);
  if (!name) return {};
  const auto& l = node->get_layout();
  const sym_expr numel = l.numel();
  if (numel.constant() == std::optional<std::int64_t>(0)) return {};
  constexpr std::string_view ok = "rocmtpl_ok";
  std::vector<std::string> in_range;  // checks that run when the tensor has elements
  if (const sym_expr storage = l.storage_size(); !storage.is_constant() && storage != numel) {
    in_range.push_back("(void)" + storage.to_cpp_checked(ok) + ";");
  }
  for (std::size_t i = 0; is_output(*node) && i < l.rank(); ++i) {
    const auto size = l.sizes()[i].constant();
    if (l.strides()[i].is_constant() || (size && *size <= 1)) continue;
    in_range.push_back("if (" + l.sizes()[i].to_cpp_checked(ok) + " > 1 && " + l.strides()[i].to_cpp_checked(ok) +
                       " <= 0) " + std::string(ok) + " = false;");
  }
  if (is_output(*node) && overlap_of(l).kind == overlap_kind::depends) {
    for (auto& line : overlap_checks(l, ok)) in_range.push_back(std::move(line));
  }
  const std::string null = "return ROCMTPL_STATUS_NULL_ARGUMENT;";
  if (numel.is_constant() && in_range.empty()) return null_check ? "if (!" + *name + ") " + null + "\n" : "";
  std::string out = "{\n    bool " + std::string(ok) +
                    " = true;\n    const int64_t rocmtpl_numel = " + numel.to_cpp_checked(ok) + ";\n";
  if (!in_range.empty()) {
    out += "    if (rocmtpl_numel > 0) {\n";
    for (const auto& c : in_range) out += "        " + c + "\n";
    out += "    }\n";
  }
  out += "    if (!" + std::string(ok) + ") return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;\n";
  if (null_check) out += "    if (!" + *name + " && rocmtpl_numel > 0) " + null + "\n";
  return out + "}\n";
}

ROCMTPL_INLINE std::size_t rocm_template_kernel::normalize(const buffer* node, std::int64_t index, const char* what) {
  const auto rank = static_cast<std::int64_t>(node->get_layout().rank());
  const auto i = index < 0 ? index + rank : index;
  if (i < 0 || i >= rank) {
    throw out_of_range_error("rocmtpl: rocm_template_kernel: " + std::string(what) + " index " + std::to_string(index) +
                             " out of range for buffer '" + node->name() + "' of rank " + std::to_string(rank));
  }
  return static_cast<std::size_t>(i);
}

ROCMTPL_INLINE std::vector<std::string> rocm_template_kernel::split_names(std::string_view text) {
  std::vector<std::string> out;
  auto trim = [](std::string_view s) {
    const auto b = s.find_first_not_of(" \t\n");
    if (b == std::string_view::npos) return std::string_view{};
    return s.substr(b, s.find_last_not_of(" \t\n") - b + 1);
  };
  if (trim(text).empty()) return out;
  for (std::size_t start = 0;;) {
    const auto comma = text.find(',', start);
    out.emplace_back(
        trim(text.substr(start, comma == std::string_view::npos ? std::string_view::npos : comma - start)));
    if (comma == std::string_view::npos) break;
    start = comma + 1;
  }
  return out;
}

ROCMTPL_INLINE rocm_template_caller::rocm_template_caller(std::string name, std::string category,
                                                          std::vector<buffer> input_nodes, buffer output_node,
                                                          make_kernel_render_fn make_kernel_render,
                                                          rocm_benchmark_request bmreq,
                                                          std::vector<std::pair<std::string, std::string>> info_kwargs)
    : name_(std::move(name)),
      category_(std::move(category)),
      input_nodes_(std::move(input_nodes)),
      output_node_(std::move(output_node)),
      make_kernel_render_(std::move(make_kernel_render)),
      bmreq_(std::move(bmreq)),
      info_kwargs_(std::move(info_kwargs)) {}

ROCMTPL_INLINE std::vector<std::pair<std::string, std::string>> rocm_template_caller::info_dict() const {
  std::vector<std::pair<std::string, std::string>> out{{"backend", "ROCm"}, {"name", name_}};
  out.insert(out.end(), info_kwargs_.begin(), info_kwargs_.end());
  return out;
}

ROCMTPL_INLINE std::string rocm_template_caller::to_string() const {
  std::string info;
  for (const auto& [k, v] : info_dict()) info += (info.empty() ? "" : ", ") + k + ": " + v;
  return "rocm_template_caller(source_hash=" + bmreq_.source_hash() + ", {" + info + "})";
}

ROCMTPL_INLINE void rocm_template_caller::set_epilogue_support(make_fused_render_fn fused,
                                                               std::optional<epilogue_chain> pointwise) {
  make_fused_render_ = std::move(fused);
  pointwise_ = std::move(pointwise);
}

ROCMTPL_INLINE void rocm_template_caller::update_workspace_size() {
  if (bmreq_.workspace_size) return;
  if (!bmreq_.workspace_bytes) return;
  const std::int64_t bytes = bmreq_.workspace_bytes->evaluate(bmreq_.size_arg_hints());
  if (bytes < 0) {
    throw template_error("rocmtpl: rocm_template_caller: template '" + category_ + "' describes a workspace of " +
                             std::to_string(bytes) + " bytes (" + bmreq_.workspace_bytes->to_string() +
                             ") at these sizes; workspace_bytes() must not be negative",
                         category_);
  }
  bmreq_.workspace_size = static_cast<std::size_t>(bytes);
}

ROCMTPL_INLINE rocm_template_buffer rocm_template_caller::output_node() {
  update_workspace_size();
  return make_output_node();
}

// The node's workspace expression: the template's, else a queried size that holds for every call
// (no size argument), else none.
ROCMTPL_INLINE std::optional<sym_expr> rocm_template_caller::workspace_expression() const {
  if (bmreq_.workspace_bytes) return bmreq_.workspace_bytes;
  if (bmreq_.workspace_size && bmreq_.size_arg_count == 0) {
    return sym_expr(static_cast<std::int64_t>(*bmreq_.workspace_size));
  }
  return std::nullopt;
}

ROCMTPL_INLINE std::string rocm_template_caller::tensor_list() const {
  std::string names;
  for (const auto& t : bmreq_.input_tensor_meta) names += t.name + ", ";
  return "(" + names + bmreq_.output_tensor_meta.name + ")";
}

ROCMTPL_INLINE void rocm_template_caller::check_pointer_count(std::size_t given) const {
  const std::size_t expected = bmreq_.input_tensor_meta.size() + 1;
  if (given != expected) {
    throw invalid_argument_error("rocmtpl: rocm_template_caller: benchmark of '" + name_ + "' takes " +
                                 std::to_string(expected) + " pointers " + tensor_list() + " but was given " +
                                 std::to_string(given) +
                                 "; pass the inputs in the entry point's order, then the output");
  }
}

ROCMTPL_INLINE void rocm_template_caller::check_pointer_types(const std::vector<dtype>& given) const {
  check_pointer_count(given.size());
  for (std::size_t i = 0; i < given.size(); ++i) {
    const tensor_meta& t =
        i < bmreq_.input_tensor_meta.size() ? bmreq_.input_tensor_meta[i] : bmreq_.output_tensor_meta;
    if (given[i] == t.type) continue;
    throw invalid_argument_error("rocmtpl: rocm_template_caller: benchmark of '" + name_ + "': pointer " +
                                 std::to_string(i + 1) + " (for " + t.name + ") points to " +
                                 std::string(rocmtpl::name(given[i])) + " but " + t.name + " is " +
                                 std::string(rocmtpl::name(t.type)) + "; pass typed pointers in the order " +
                                 tensor_list() + ", or untyped ones through benchmark(backend, unchecked, ...)");
  }
}

ROCMTPL_INLINE rocm_template_buffer rocm_template_caller::make_output_node() const {
  rocm_template_buffer node{output_node_,          input_nodes_, make_kernel_render_,
                            bmreq_.workspace_size, category_,    workspace_expression()};
  node.set_fused_render(make_fused_render_).set_pointwise(pointwise_);
  return node;
}

}  // namespace rocmtpl
