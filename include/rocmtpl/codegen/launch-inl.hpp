// SPDX-License-Identifier: MIT
#pragma once

// The implementation of codegen/launch.hpp: included at its end (header-only) or compiled once by src/codegen.cpp,
// after it (so it does not include it back).

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rocmtpl/codegen/indented_buffer.hpp>
#include <rocmtpl/codegen/kernel_args.hpp>
#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/ir/dtype.hpp>
#include <rocmtpl/ir/sym_expr.hpp>

namespace rocmtpl {

ROCMTPL_INLINE std::string device_symbol(std::string_view kernel_name, std::string_view suffix) {
  std::string out(kernel_name);
  out += '_';
  out += suffix;
  return out;
}

ROCMTPL_INLINE std::string device_symbol_ref(std::string_view suffix) {
  const bool ok = !suffix.empty() && std::all_of(suffix.begin(), suffix.end(), [](char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  });
  if (!ok) {
    throw invalid_argument_error("rocmtpl: launch_description: device symbol suffix '" + std::string(suffix) +
                                 "' is not an identifier fragment; use letters, digits and '_'");
  }
  std::string out(device_symbol_macro);
  out += '(';
  out += suffix;
  out += ')';
  return out;
}

ROCMTPL_INLINE launch_description launch_description_for(std::string_view kernel_name, const kernel_args& args) {
  launch_description d;
  d.kernel_name = std::string(kernel_name);
  d.size_symbols = args.size_symbols();
  for (const auto& a : args.runtime_args()) d.runtime_args.push_back(a.name);
  for (const auto& t : args.inputs()) d.tensor_types.push_back(t.node.type());
  for (const auto& t : args.outputs()) d.tensor_types.push_back(t.node.type());
  return d;
}

ROCMTPL_INLINE std::size_t abi_tensor_index(const kernel_args& args, std::string_view arg_name) {
  std::size_t i = 0;
  for (const auto* list : {&args.inputs(), &args.outputs()}) {
    for (const auto& t : *list) {
      if (t.arg_name == arg_name) return i;
      ++i;
    }
  }
  throw invalid_argument_error("rocmtpl: launch_description: no tensor is bound as '" + std::string(arg_name) +
                               "'; bind it with def_kernel first");
}

ROCMTPL_INLINE std::vector<std::string> abi_tensor_names(const kernel_args& args) {
  std::vector<std::string> names;
  for (const auto& t : args.inputs()) names.push_back(t.arg_name);
  for (const auto& t : args.outputs()) names.push_back(t.arg_name);
  return names;
}

namespace detail::launch_impl {

ROCMTPL_INLINE size_hints symbol_values(const launch_description& d, const std::vector<std::int64_t>& sizes,
                                        const std::vector<std::int64_t>& runtime_args) {
  if (sizes.size() != d.size_symbols.size() || runtime_args.size() != d.runtime_args.size()) {
    throw invalid_argument_error("rocmtpl: launch_description: got " + std::to_string(sizes.size()) + " sizes and " +
                                 std::to_string(runtime_args.size()) + " runtime arguments, expected " +
                                 std::to_string(d.size_symbols.size()) + " and " +
                                 std::to_string(d.runtime_args.size()) + "; pass them in entry order");
  }
  size_hints h;
  for (std::size_t i = 0; i < sizes.size(); ++i) h.emplace(d.size_symbols[i], sizes[i]);
  return h;
}

ROCMTPL_INLINE std::int64_t runtime_arg(const std::vector<std::int64_t>& args, std::size_t i) {
  if (i >= args.size()) {
    throw invalid_argument_error("rocmtpl: launch_description: runtime argument " + std::to_string(i) +
                                 " does not exist; fix the description");
  }
  return args[i];
}

// The value without the SM-count cap (that one is applied at launch time).
ROCMTPL_INLINE std::int64_t evaluate(const launch_value& v, const size_hints& h,
                                     const std::vector<std::int64_t>& args) {
  if (v.only_when_runtime_arg_above_one && runtime_arg(args, *v.only_when_runtime_arg_above_one) <= 1) return 0;
  std::int64_t x = v.sizes.evaluate(h);
  if (v.times_runtime_arg && __builtin_mul_overflow(x, runtime_arg(args, *v.times_runtime_arg), &x)) {
    throw launch_unsupported_error("rocmtpl: launch: a launch quantity overflows int64; use smaller sizes");
  }
  if (v.at_most > 0 && x > v.at_most) x = v.at_most;
  return x;
}

ROCMTPL_INLINE bool holds(const launch_requirement& r, const size_hints& h) {
  if (r.kind == launch_requirement_kind::aligned_pointer) return true;  // at launch time
  if (r.unless_at_most_one && r.unless_at_most_one->evaluate(h) <= 1) return true;
  const std::int64_t x = r.expr.evaluate(h);
  switch (r.kind) {
    case launch_requirement_kind::multiple_of: return r.value != 0 && x % r.value == 0;
    case launch_requirement_kind::at_most: return x <= r.value;
    case launch_requirement_kind::equals: return x == r.value;
    default: return true;
  }
}

ROCMTPL_INLINE bound_param bind_param(const launch_param& p, const size_hints& h,
                                      const std::vector<std::int64_t>& sizes, const std::vector<std::int64_t>& args) {
  bound_param b;
  b.kind = p.kind;
  b.index = p.index;
  b.scalar = p.scalar;
  switch (p.kind) {
    case launch_param_kind::size:
      if (p.index >= sizes.size()) throw invalid_argument_error("rocmtpl: launch: size parameter out of range");
      b.value = sizes[p.index];
      break;
    case launch_param_kind::runtime_arg: b.value = runtime_arg(args, p.index); break;
    case launch_param_kind::workspace: b.value = p.byte_offset; break;
    case launch_param_kind::tensor_map:
      if (p.map) {
        const auto& m = *p.map;
        const std::int64_t rows = m.rows.evaluate(h);
        const std::int64_t pitch =
            rows <= 1 && m.pitch_if_one_row ? m.pitch_if_one_row->evaluate(h) : m.pitch.evaluate(h);
        b.map = bound_tensor_map{m.tensor,           m.element, m.offset.evaluate(h), rows,
                                 m.cols.evaluate(h), pitch,     m.box_rows_for(rows), m.box_cols};
      }
      break;
    case launch_param_kind::tensor: break;
  }
  return b;
}

}  // namespace detail::launch_impl

ROCMTPL_INLINE bound_launch bind(const launch_description& d, const std::vector<std::int64_t>& sizes,
                                 const std::vector<std::int64_t>& runtime_args, bool amd) {
  namespace impl = detail::launch_impl;
  const auto h = impl::symbol_values(d, sizes, runtime_args);
  bound_launch out;
  out.workspace_bytes = impl::evaluate(d.workspace_bytes, h, runtime_args);
  for (std::size_t vi = 0; vi < d.variants.size(); ++vi) {
    const auto& v = d.variants[vi];
    bool ok = true;
    for (const auto& r : v.requirements) ok = ok && impl::holds(r, h);
    if (!ok) continue;
    bound_variant bv;
    bv.index = vi;
    for (const auto& r : v.requirements) {
      if (r.kind != launch_requirement_kind::aligned_pointer) continue;
      const auto elem = static_cast<std::int64_t>(element_size(d.tensor_types.at(r.tensor)));
      bv.alignments.push_back({r.tensor, r.expr.evaluate(h) * elem, r.value});
    }
    for (const auto& l : v.launches) {
      bound_kernel_launch b;
      b.symbol = device_symbol(d, l);
      for (std::size_t i = 0; i < 3; ++i) b.grid[i] = impl::evaluate(l.grid[i], h, runtime_args);
      b.grid_x_at_most_sm_count = l.grid[0].at_most_sm_count;
      b.block = amd && l.amd_block[0] > 0 ? l.amd_block : l.block;
      b.shared_bytes = amd && l.amd_shared_bytes >= 0 ? l.amd_shared_bytes : l.shared_bytes;
      for (const auto& p : l.params) b.params.push_back(impl::bind_param(p, h, sizes, runtime_args));
      bv.launches.push_back(std::move(b));
    }
    out.variants.push_back(std::move(bv));
  }
  return out;
}

ROCMTPL_INLINE const bound_variant& select_variant(const bound_launch& b, const std::vector<std::uintptr_t>& tensors) {
  for (const auto& v : b.variants) {
    bool ok = true;
    for (const auto& a : v.alignments) {
      if (a.tensor >= tensors.size()) throw invalid_argument_error("rocmtpl: launch: tensor index out of range");
      const auto address = tensors[a.tensor] + static_cast<std::uintptr_t>(a.byte_offset);
      ok = ok && a.alignment > 0 && address % static_cast<std::uintptr_t>(a.alignment) == 0;
    }
    if (ok) return v;
  }
  throw launch_unsupported_error(
      "rocmtpl: launch: no instantiation accepts these sizes and pointers (alignment or size requirements); "
      "align the tensors or use another configuration");
}

ROCMTPL_INLINE std::array<std::int64_t, 3> launch_grid(const bound_kernel_launch& l, std::int64_t sm_count) {
  auto g = l.grid;
  if (l.grid_x_at_most_sm_count && sm_count > 0 && g[0] > sm_count) g[0] = sm_count;
  if (g[0] <= 0 || g[1] <= 0 || g[2] <= 0) return {0, 0, 0};
  if (g[0] > 2147483647 || g[1] > 65535 || g[2] > 65535) {
    throw launch_unsupported_error("rocmtpl: launch: grid of " + l.symbol +
                                   " exceeds the launch limits; use smaller "
                                   "sizes or another configuration");
  }
  return g;
}

namespace detail::launch_impl {

// C++ of a launch quantity with checked arithmetic into `ok`; runtime arguments by their entry name.
ROCMTPL_INLINE std::string value_cpp(const launch_value& v, const launch_description& d, const std::string& ok,
                                     const std::string& sm_count) {
  std::string e = v.sizes.to_cpp_checked(ok);
  if (v.times_runtime_arg) {
    e = "rocmtpl_size_mul(" + e + ", static_cast<int64_t>(" + d.runtime_args.at(*v.times_runtime_arg) + "), &" + ok +
        ")";
  }
  if (v.at_most > 0) {
    e = "rocmtpl_launch_min(" + e + ", " + std::to_string(v.at_most) + ")";
  }
  if (v.at_most_sm_count) e = "rocmtpl_launch_min(" + e + ", " + sm_count + ")";
  if (v.only_when_runtime_arg_above_one) {
    e = "(" + d.runtime_args.at(*v.only_when_runtime_arg_above_one) + " > 1 ? " + e + " : int64_t{0})";
  }
  return e;
}

ROCMTPL_INLINE std::string requirement_cpp(const launch_requirement& r, const std::vector<std::string>& tensor_names) {
  std::string c;
  switch (r.kind) {
    case launch_requirement_kind::aligned_pointer:
      c = "reinterpret_cast<uintptr_t>(" +
          (r.expr == sym_expr(0) ? tensor_names.at(r.tensor)
                                 : tensor_names.at(r.tensor) + " + (" + r.expr.to_cpp() + ")") +
          ") % " + std::to_string(r.value) + " == 0";
      break;
    case launch_requirement_kind::multiple_of:
      c = "rocmtpl_mod(" + r.expr.to_cpp() + ", " + std::to_string(r.value) + ") == 0";
      break;
    case launch_requirement_kind::at_most: c = r.expr.to_cpp() + " <= " + std::to_string(r.value); break;
    case launch_requirement_kind::equals: c = r.expr.to_cpp() + " == " + std::to_string(r.value); break;
  }
  if (r.unless_at_most_one) c = "(" + r.unless_at_most_one->to_cpp() + " <= 1 || " + c + ")";
  return "(" + c + ")";
}

ROCMTPL_INLINE std::string param_cpp(const launch_param& p, std::size_t launch_index) {
  switch (p.kind) {
    case launch_param_kind::workspace:
      return "reinterpret_cast<" + p.cpp_type + ">(workspace" +
             (p.byte_offset != 0 ? " + " + std::to_string(p.byte_offset) : std::string()) + ")";
    case launch_param_kind::tensor_map:
      return "rocmtpl_map_" + std::to_string(launch_index) + "_" + std::to_string(p.index);
    default: return p.name;
  }
}

}  // namespace detail::launch_impl

ROCMTPL_INLINE std::vector<std::string> launch_includes(const launch_description& d) {
  for (const auto& v : d.variants) {
    for (const auto& l : v.launches) {
      if (l.shared_bytes > launch_shared_opt_in_bytes) {
        return {"#if defined(ROCMTPL_PLATFORM_NVIDIA)\n#include <atomic>\n#endif\n"};
      }
    }
  }
  return {};
}

ROCMTPL_INLINE void write_workspace_query(indented_buffer& src, const launch_description& d) {
  src.writeline(detail::launch_impl::workspace_flag_line);
  src.writeline("const int64_t rocmtpl_workspace_bytes = " +
                detail::launch_impl::value_cpp(d.workspace_bytes, d, "rocmtpl_ws_ok", "0") + ";");
  for (const auto line : detail::launch_impl::workspace_answer_lines) src.writeline(line);
}

namespace detail::launch_impl {

// One launch: the checked grid, its tensor maps, the shared-memory opt-in, hipLaunchKernelGGL (HIP's
// launch macro: the portability header maps it onto `<<<...>>>` under nvcc and onto the AMD
// emulator's launcher under a host compiler, where `<<<` is not C++).
ROCMTPL_INLINE void write_one_launch(indented_buffer& src, const launch_description& d, const kernel_launch& l,
                                     std::size_t li, const std::vector<std::string>& tensor_names) {
  const std::string g = "rocmtpl_grid_" + std::to_string(li);
  src.writeline("{");
  {
    auto block = src.indent();
    src.writeline("bool " + g + "_ok = true;");
    for (std::size_t i = 0; i < 3; ++i) {
      src.writeline("const int64_t " + g + "_" + "xyz"[i] + " = " + value_cpp(l.grid[i], d, g + "_ok", "rocmtpl_sms") +
                    ";");
    }
    src.writeline("if (!" + g + "_ok || " + g + "_x > 2147483647 || " + g + "_y > 65535 || " + g +
                  "_z > 65535) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;");
    src.writeline("if (" + g + "_x > 0 && " + g + "_y > 0 && " + g + "_z > 0) {");
    {
      auto inner = src.indent();
      std::string args;
      for (const auto& p : l.params) {
        if (p.kind == launch_param_kind::tensor_map && p.map) {
          const auto& m = *p.map;
          const std::string name = param_cpp(p, li);
          const auto rows = m.rows.constant();
          std::string pitch = m.pitch.to_cpp();
          if (m.pitch_if_one_row && rows) {
            pitch = (*rows <= 1 ? *m.pitch_if_one_row : m.pitch).to_cpp();
          } else if (m.pitch_if_one_row) {
            pitch = "(" + m.rows.to_cpp() + " <= 1 ? " + m.pitch_if_one_row->to_cpp() + " : " + pitch + ")";
          }
          // box_rows_for() of the rows: a number when they are static, its expression when not.
          std::string box_rows = std::to_string(rows ? m.box_rows_for(*rows) : m.box_rows);
          if (m.fit_box_rows && !rows) {
            box_rows = "rocmtpl_launch_min(" + box_rows + ", (" + m.rows.to_cpp() + " + 7) / 8 * 8)";
          }
          src.writeline("CUtensorMap " + name + "{};");
          src.writeline("if (!rocmtpl_make_tensor_map(" + name + ", " + std::to_string(dtype_code(m.element)) + ", " +
                        (m.offset == sym_expr(0) ? tensor_names.at(m.tensor)
                                                 : tensor_names.at(m.tensor) + " + (" + m.offset.to_cpp() + ")") +
                        ", " + m.rows.to_cpp() + ", " + m.cols.to_cpp() + ", " + pitch + ", " + box_rows + ", " +
                        std::to_string(m.box_cols) + ")) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;");
        }
        args += (args.empty() ? "" : ", ") + param_cpp(p, li);
      }
      if (l.shared_bytes > launch_shared_opt_in_bytes) {
        // Once per device (rocmtpl_raise_shared_limit), not on every launch.
        src.writeline("#if defined(ROCMTPL_PLATFORM_NVIDIA)");
        src.writeline("static std::atomic<uint64_t> rocmtpl_shared_raised{0};  // a bit per device");
        src.writeline("if (!rocmtpl_raise_shared_limit(reinterpret_cast<const void*>(&" + device_symbol_ref(l.suffix) +
                      "), " + std::to_string(l.shared_bytes) +
                      ", rocmtpl_shared_raised)) return ROCMTPL_STATUS_LAUNCH_FAILED;");
        src.writeline("#endif");
      }
      const auto dims = [](const std::array<std::int64_t, 3>& b) {
        return "dim3(" + std::to_string(b[0]) + ", " + std::to_string(b[1]) + ", " + std::to_string(b[2]) + ")";
      };
      const std::string grid = "dim3(static_cast<unsigned>(" + g + "_x), static_cast<unsigned>(" + g +
                               "_y), static_cast<unsigned>(" + g + "_z))";
      const auto launch = [&](const std::array<std::int64_t, 3>& b, std::int64_t shared) {
        src.writeline("hipLaunchKernelGGL(" + device_symbol_ref(l.suffix) + ", " + grid + ", " + dims(b) + ", " +
                      std::to_string(shared) + ", stream" + (args.empty() ? "" : ", " + args) + ");");
      };
      const bool amd_differs = (l.amd_block[0] > 0 && l.amd_block != l.block) ||
                               (l.amd_shared_bytes >= 0 && l.amd_shared_bytes != l.shared_bytes);
      if (amd_differs) {
        src.writeline("#if defined(ROCMTPL_PLATFORM_AMD)");
        launch(l.amd_block[0] > 0 ? l.amd_block : l.block,
               l.amd_shared_bytes >= 0 ? l.amd_shared_bytes : l.shared_bytes);
        src.writeline("#else");
        launch(l.block, l.shared_bytes);
        src.writeline("#endif");
      } else {
        launch(l.block, l.shared_bytes);
      }
      src.writeline("if (hipGetLastError() != hipSuccess) return ROCMTPL_STATUS_LAUNCH_FAILED;");
    }
    src.writeline("}");
  }
  src.writeline("}");
}

}  // namespace detail::launch_impl

ROCMTPL_INLINE void write_launches(indented_buffer& src, const launch_description& d,
                                   const std::vector<std::string>& tensor_names) {
  namespace impl = detail::launch_impl;
  src.writeline(impl::workspace_missing_line);
  bool needs_sms = false;
  for (const auto& v : d.variants) {
    for (const auto& l : v.launches) needs_sms = needs_sms || l.grid[0].at_most_sm_count;
  }
  if (needs_sms) {
    src.writeline("const int64_t rocmtpl_sms = rocmtpl_sm_count();");
    src.writeline("if (rocmtpl_sms <= 0) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;");
  }
  for (std::size_t vi = 0; vi < d.variants.size(); ++vi) {
    const auto& v = d.variants[vi];
    std::string cond;
    for (const auto& r : v.requirements) cond += (cond.empty() ? "" : " && ") + impl::requirement_cpp(r, tensor_names);
    if (cond.empty()) {
      src.writeline(vi == 0 ? "{" : "} else {");
    } else {
      src.writeline((vi == 0 ? "if (" : "} else if (") + cond + ") {");
    }
    auto body = src.indent();
    for (std::size_t li = 0; li < v.launches.size(); ++li) {
      detail::launch_impl::write_one_launch(src, d, v.launches[li], li, tensor_names);
    }
  }
  const bool unconditional_last = !d.variants.empty() && d.variants.back().requirements.empty();
  if (!unconditional_last) {
    src.writeline(d.variants.empty() ? "{" : "} else {");
    src.writeline("    return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;");
  }
  src.writeline("}");
  src.writeline("return ROCMTPL_STATUS_OK;");
}

}  // namespace rocmtpl
