// SPDX-License-Identifier: MIT
#pragma once

// The implementation of templates/gemm/paths.hpp (and of templates/gemm/path.hpp's
// parse_config_fields()): included at its end (header-only) or compiled once by src/templates.cpp,
// after it (so it does not include it back).

#include <charconv>
#include <optional>
#include <string>
#include <system_error>
#include <utility>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>

namespace rocmtpl::templates {

namespace detail {
ROCMTPL_INLINE void parse_config_fields(const gemm_config_fields& fields, std::string_view path,
                                        const std::function<bool(std::string_view, int)>& set) {
  for (std::size_t i = 1; i < fields.size(); ++i) {
    const auto& [key, value] = fields[i];
    int v = 0;
    const auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (ec != std::errc() || ptr != value.data() + value.size() || !set(key, v)) {
      throw invalid_argument_error("rocmtpl: gemm: '" + key + "=" + value + "' is not a field value of a " +
                                   std::string(path) +
                                   " configuration; the record was written by another template version");
    }
  }
}
}  // namespace detail

ROCMTPL_INLINE void validate(const gemm_config& c) {
  if (const auto why = c.invalid_reason()) throw config_error("gemm", c.to_string(), std::string(*why));
}

ROCMTPL_INLINE gemm_config_fields describe(const gemm_config& c) {
  return c.visit_path([](auto p, const auto& config) { return decltype(p)::type::describe(config); });
}

ROCMTPL_INLINE gemm_config parse_gemm_config(const gemm_config_fields& fields) {
  if (fields.empty() || fields.front().first != "math") {
    throw invalid_argument_error("rocmtpl: gemm: a configuration's fields start with its math");
  }
  std::optional<gemm_config> found;
  gemm_path_list::for_each([&](auto p) {
    if (found) return;
    if (auto c = decltype(p)::type::parse(fields)) found = gemm_config(*c);
  });
  if (!found) throw invalid_argument_error("rocmtpl: gemm: unknown gemm math '" + fields.front().second + "'");
  return *found;
}

ROCMTPL_INLINE double gemm_estimate_cost(const gemm_config& c, std::int64_t m, std::int64_t n, std::int64_t k,
                                         std::int64_t batch) {
  return c.visit_path(
      [&](auto p, const auto& config) { return decltype(p)::type::estimate_cost(config, m, n, k, batch); });
}

ROCMTPL_INLINE bool gemm_skinny_fma_bound(const gemm_config& c, std::int64_t m, std::int64_t n, std::int64_t k,
                                          std::int64_t batch) {
  const auto* s = c.get_if<skinny_config>();
  return s != nullptr && skinny_path::fma_bound(*s, m, n, k, batch);
}

namespace detail {

ROCMTPL_INLINE void check_gemm_renderable(const gemm_config& config, const gemm_view& v, const gemm_options& options) {
  config.visit_path([&](auto p, const auto& c) {
    using path = typename decltype(p)::type;
    if (auto why = path::unsupported(c, v, options)) throw invalid_argument_error(*why);
    if (c.split_k != 1 && !options.runtime_split_k && !path::splits_k_statically) {
      std::string statically;  // the paths that split K without the option, from the list
      gemm_path_list::for_each([&](auto q) {
        if (decltype(q)::type::splits_k_statically)
          statically += (statically.empty() ? "" : ", ") + std::string(decltype(q)::type::name);
      });
      throw invalid_argument_error("rocmtpl: gemm: config " + c.name_text().str() +
                                   " splits K but gemm_options::runtime_split_k is off; turn it on (the " + statically +
                                   " paths split K statically)");
    }
  });
}

ROCMTPL_INLINE sym_expr gemm_workspace_bytes(const gemm_view& v, const gemm_config& config,
                                             const gemm_options& options) {
  // A path with a workspace of its own (Hopper stream-K) says so; else K slices of fp32 partials.
  const auto own = config.visit_path([&](auto p, const auto& c) -> std::optional<sym_expr> {
    using path = typename decltype(p)::type;
    if constexpr (requires { path::workspace_bytes(c, v); }) {
      return path::workspace_bytes(c, v);
    } else {
      return std::nullopt;
    }
  });
  if (own) return *own;
  const bool statically = config.visit_path([](auto p, const auto&) { return decltype(p)::type::splits_k_statically; });
  if (config.split_k() <= 1 || !(options.runtime_split_k || statically)) return sym_expr(0);
  return sym_expr(config.split_k()) * split_k_slice_bytes(v);
}

ROCMTPL_INLINE gemm_plan_config plan_config(const gemm_config& config) {
  return config.visit_path([&](auto p, const auto& c) {
    using path = typename decltype(p)::type;
    return gemm_plan_config{.name = c.name_text().str(),
                            .split_k = c.split_k,
                            .vector = c.vector,
                            .splits_k_statically = path::splits_k_statically,
                            .static_slices = path::family == gemm_path_family::skinny,
                            .stream_k = [&] {
                              if constexpr (requires { c.stream_k; }) {
                                return c.stream_k;
                              } else {
                                return 0;
                              }
                            }()};
  });
}

ROCMTPL_INLINE launch_description describe_gemm_launch(rocm_template_kernel& kernel, const template_context& ctx,
                                                       const gemm_config& config, const gemm_options& options) {
  validate(config);
  auto v = make_gemm_view(ctx, options);
  check_gemm_renderable(config, v, options);
  const gemm_plan plan = make_gemm_plan(kernel, ctx, plan_config(config), options, std::move(v));
  return config.visit_path([&](auto p, const auto& c) { return decltype(p)::type::describe_launch(kernel, plan, c); });
}

ROCMTPL_INLINE rendered_source render_gemm(rocm_template_kernel& kernel, const template_context& ctx,
                                           const gemm_config& config, const gemm_options& options,
                                           const fused_epilogue* fused) {
  validate(config);
  if (fused != nullptr) {
    config.visit_path([&](auto p, const auto& c) {
      if constexpr (requires { decltype(p)::type::unsupported_fusion(c, ctx, *fused); }) {
        if (auto why = decltype(p)::type::unsupported_fusion(c, ctx, *fused)) throw invalid_argument_error(*why);
      }
    });
  }
  auto v = make_gemm_view(ctx, options, fused);
  check_gemm_renderable(config, v, options);
  const gemm_plan plan = make_gemm_plan(kernel, ctx, plan_config(config), options, std::move(v));
  rendered_source out = kernel.start_source(ctx);
  // The launch description: the entry's launch lines and the kernels come from it, and the parts
  // carry it (rocm_template::generate() gives it to the caller: no second pass).
  config.visit_path([&](auto p, const auto& c) {
    using path = typename decltype(p)::type;
    auto d = path::describe_launch(kernel, plan, c);
    path::render(out, kernel, plan, c, d);
    for (auto& block : launch_includes(d)) out.includes.push_back(std::move(block));
    out.launch = std::move(d);
  });
  return out;
}

}  // namespace detail

}  // namespace rocmtpl::templates
