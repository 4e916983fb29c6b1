// SPDX-License-Identifier: MIT
#pragma once

// The implementation of templates/pointwise.hpp: included at its end (header-only) or compiled once by
// src/templates.cpp, after it (so it does not include it back).

#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include <rocmtpl/codegen/epilogue.hpp>
#include <rocmtpl/codegen/indented_buffer.hpp>
#include <rocmtpl/codegen/launch.hpp>
#include <rocmtpl/codegen/rendered_source.hpp>
#include <rocmtpl/codegen/template_context.hpp>
#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/kernel/rocm_kernel.hpp>
#include <rocmtpl/templates/detail/element_access.hpp>
#include <rocmtpl/templates/detail/source_parts.hpp>
#include <rocmtpl/templates/elementwise.hpp>

namespace rocmtpl::templates {

ROCMTPL_INLINE launch_description pointwise_policy::describe_launch(rocm_template_kernel& kernel,
                                                                    const template_context& ctx,
                                                                    const elementwise_config& config) const {
  (void)bind(kernel, ctx, config);
  return launch_of(kernel, ctx, config);
}

ROCMTPL_INLINE rendered_source pointwise_policy::render(rocm_template_kernel& kernel, const template_context& ctx,
                                                        const elementwise_config& config) const {
  const problem pr = bind(kernel, ctx, config);
  const auto d = launch_of(kernel, ctx, config);
  const auto symbols = kernel.args().size_params();
  const buffer& x = *ctx.input(0);
  const buffer& y = ctx.output_node();
  std::string params = "const " + detail::storage_text(x) + "* __restrict__ X" +
                       epilogue_params(pr.operands, "E", true) + ", " + detail::storage_text(y) + "* __restrict__ Y";
  std::string args = "X";
  for (std::size_t i = 0; i < pr.operands.size(); ++i) args += ", " + rocmtpl::detail::indexed_name("E", i);
  args += ", Y";
  detail::append_size_symbols(params, args, symbols);

  rendered_source out = kernel.start_source(ctx);
  indented_buffer src;
  src.writeline("// pointwise: Y = (" + chain_.to_string() + ")(X)");
  for (const auto& b : ctx.input_nodes()) src.writeline("// " + b.name() + " " + b.get_layout().to_string());
  src.writeline("// Y " + y.get_layout().to_string());
  src.writeline("namespace {");
  src.writeline("");
  src.writeline("constexpr int block_threads = " + std::to_string(config.block_threads) + ";");
  src.writeline("");
  src.write_verbatim(epilogue_device_code(chain_, pr.operands, symbols));
  src.writeline("");
  write_body(src, pr, x, y, params, symbols);
  src.write_verbatim(detail::checked_size_helpers_text);
  src.write_verbatim(launch_cpp_helpers);
  src.writeline("");
  src.writeline("}  // namespace");
  src.writeline("");
  src.writeline("extern \"C\" __global__ void __launch_bounds__(block_threads) " +
                device_symbol_ref(d.variants.front().launches.front().suffix) + "(" + params + ") {");
  src.writeline("    pointwise_body(" + args + ");");
  src.writeline("}");
  src.writeline("");
  indented_buffer entry;
  write_entry(entry, kernel, ctx, pr, d);
  for (auto& block : launch_includes(d)) out.includes.push_back(std::move(block));
  out.device_code = std::move(src).str();
  out.entry_body = std::move(entry).str();
  out.launch = d;  // rocm_template::generate() takes it from the parts: no second pass
  return out;
}

ROCMTPL_INLINE pointwise_policy::problem pointwise_policy::bind(rocm_template_kernel& kernel,
                                                                const template_context& ctx,
                                                                const elementwise_config& config) const {
  if (config.block_threads < 64 || config.block_threads > 1024 || config.block_threads % 64 != 0) {
    throw config_error("pointwise", config.to_string(), "block_threads must be a multiple of 64 from 64 to 1024");
  }
  const buffer* x = ctx.input(0);
  const buffer& y = ctx.output_node();
  if (x == nullptr) throw invalid_argument_error("rocmtpl: pointwise: needs an input X");
  const auto r = y.get_layout().rank();
  if ((r != 2 && r != 3) || !(x->sizes() == y.sizes())) {
    throw invalid_argument_error("rocmtpl: pointwise: X " + x->get_layout().to_string() + " and Y " +
                                 y.get_layout().to_string() + " must have the same sizes, [M, N] or [B, M, N]");
  }
  problem pr;
  pr.batch = r == 3 ? y.sizes()[0] : sym_expr(1);
  pr.m = y.sizes()[r - 2];
  pr.n = y.sizes()[r - 1];
  const auto& ins = ctx.input_nodes();
  pr.e.inputs.assign(ins.begin() + 1, ins.end());
  pr.e.chain = chain_;
  pr.e.output = y;
  if (chain_.input_count() != pr.e.inputs.size()) {
    throw invalid_argument_error("rocmtpl: pointwise: the chain " + chain_.to_string() + " reads " +
                                 std::to_string(chain_.input_count()) + " operands but " +
                                 std::to_string(pr.e.inputs.size()) + " were given after X");
  }
  fused_epilogue xy;  // X and Y as full operands, for their strides
  xy.inputs = {*x, y};
  xy.output = y;
  const auto xyo = epilogue_operands(xy, pr.batch, pr.m, pr.n);
  pr.x = xyo[0];
  pr.y = xyo[1];
  pr.x.node = nullptr;  // `xy` ends here: only the strides and offsets are kept
  pr.y.node = nullptr;
  std::vector<const buffer*> inputs{x};
  std::string names = "X";
  for (std::size_t i = 1; i < ins.size(); ++i) {
    inputs.push_back(&ins[i]);
    names += ", " + rocmtpl::detail::indexed_name("E", i - 1);
  }
  (void)kernel.def_kernel(inputs, {&y}, names + ", Y", ctx.input_reorder());
  pr.operands = epilogue_operands(pr.e, pr.batch, pr.m, pr.n);
  return pr;
}

ROCMTPL_INLINE launch_description pointwise_policy::launch_of(const rocm_template_kernel& kernel,
                                                              const template_context& ctx,
                                                              const elementwise_config& config) {
  const auto& y = ctx.output_node();
  auto d = launch_description_for(kernel.kernel_name(), kernel.args());
  kernel_launch l;
  l.suffix = "main";
  const sym_expr threads(config.block_threads);
  l.grid[0] = {.sizes = floor_div(y.get_layout().numel() + threads - sym_expr(1), threads), .at_most = 65535};
  l.block = {config.block_threads, 1, 1};
  const auto tensor = [&](const std::string& n) {
    l.params.push_back({.kind = launch_param_kind::tensor, .index = abi_tensor_index(kernel.args(), n), .name = n});
  };
  tensor("X");
  for (std::size_t i = 1; i < ctx.input_nodes().size(); ++i) tensor(rocmtpl::detail::indexed_name("E", i - 1));
  tensor("Y");
  const auto sizes = kernel.args().size_params();
  for (std::size_t i = 0; i < sizes.size(); ++i) {
    l.params.push_back({.kind = launch_param_kind::size, .index = i, .name = sizes[i]});
  }
  d.variants.push_back({{}, {std::move(l)}});
  return d;
}

ROCMTPL_INLINE void pointwise_policy::write_body(indented_buffer& src, const problem& pr, const buffer& x,
                                                 const buffer& y, const std::string& params,
                                                 const std::vector<std::string>& symbols) {
  src.writeline("__device__ __forceinline__ void pointwise_body(" + params + ") {");
  {
    auto body = src.indent();
    src.writeline("const rocmtpl_epilogue_args ea = " + epilogue_make_call(pr.operands.size(), "E", symbols) + ";");
    src.writeline("const int64_t m_size = " + pr.m.to_cpp() + ", n_size = " + pr.n.to_cpp() + ";");
    src.writeline("const int64_t total = " + pr.batch.to_cpp() + " * m_size * n_size;");
    src.writeline(detail::grid_stride_step_line);
    src.writeline(detail::grid_stride_loop_line);
    {
      auto loop = src.indent();
      src.writeline("const int64_t b = i / (m_size * n_size), gm = (i / n_size) % m_size, gn = i % n_size;");
      const auto at = [](const epilogue_operand& o) {
        return "(" + o.offset.to_cpp() + ") + b * (" + o.stride_b.to_cpp() + ") + gm * (" + o.stride_r.to_cpp() +
               ") + gn * (" + o.stride_c.to_cpp() + ")";
      };
      src.writeline("const float v = " + detail::load_as_float(x.type(), "X[" + at(pr.x) + "]") + ";");
      src.writeline("Y[" + at(pr.y) +
                    "] = " + detail::store_from_float(y.type(), "rocmtpl_epilogue(ea, b, gm, gn, v)") + ";");
    }
    src.writeline("}");
  }
  src.writeline("}");
  src.writeline("");
}

ROCMTPL_INLINE void pointwise_policy::write_entry(indented_buffer& src, rocm_template_kernel& kernel,
                                                  const template_context& ctx, const problem& pr,
                                                  const launch_description& d) {
  auto body = src.indent();
  for (const auto& s : kernel.args().size_params()) {
    src.writeline("if (" + s + " < 0) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;");
  }
  src.writeline("int64_t rocmtpl_elements = 0;");
  src.writeline("if (!rocmtpl_checked_mul(" + pr.batch.to_cpp() + ", " + pr.m.to_cpp() +
                ", rocmtpl_elements) || !rocmtpl_checked_mul(rocmtpl_elements, " + pr.n.to_cpp() +
                ", rocmtpl_elements)) {");
  src.writeline("    return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;");
  src.writeline("}");
  write_workspace_query(src, d);
  for (const auto& b : ctx.input_nodes()) src.write_lines(kernel.check_not_null(&b));
  src.write_lines(kernel.check_not_null(&ctx.output_node()));
  src.writeline("if (rocmtpl_elements == 0) return ROCMTPL_STATUS_OK;");
  write_launches(src, d, abi_tensor_names(kernel.args()));
}

}  // namespace rocmtpl::templates
