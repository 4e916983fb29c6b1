// SPDX-License-Identifier: MIT
#pragma once

// The implementation of templates/gemm/simt/path.hpp: included at its end (header-only) or compiled
// once by src/templates.cpp, after it (so it does not include it back).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/ir/dtype.hpp>
#include <rocmtpl/templates/gemm/cost_model.hpp>
#include <rocmtpl/templates/gemm/simt/device_code.hpp>

namespace rocmtpl::templates {

ROCMTPL_INLINE std::vector<simt_config> simt_path::search_space() {
  // 96-row tiles (12 rows a thread) for problems of 65 to 96 rows, which 128-row tiles pad by up to
  // a half (fp32 96 x 8192 x 8192 on the H200: 0.89x of cuBLAS in 128 x 256 tiles of 4 K slices,
  // 1.15x in 96 x 256 ones).
  static constexpr std::pair<int, int> blocks[] = {{64, 64},   {64, 128},  {128, 64}, {128, 128},
                                                   {128, 256}, {256, 128}, {96, 128}, {96, 256}};
  static constexpr int ks[] = {8, 16};
  static constexpr std::pair<int, int> per_thread[] = {{4, 4},  {4, 8},  {8, 4},  {8, 8},
                                                       {8, 16}, {16, 8}, {12, 4}, {12, 8}};
  std::vector<simt_config> out;
  for (const auto& [bm, bn] : blocks) {
    for (const int bk : ks) {
      for (const auto& [tm, tn] : per_thread) {
        const simt_config c{.block_m = bm, .block_n = bn, .block_k = bk, .thread_m = tm, .thread_n = tn};
        if (!c.invalid_reason() && c.threads() >= 64 && c.threads() <= 256) out.push_back(c);
      }
    }
  }
  return out;
}

ROCMTPL_INLINE double simt_path::estimate_cost(const simt_config& c, std::int64_t m, std::int64_t n, std::int64_t k,
                                               std::int64_t batch) {
  const auto intensity = [](double a, double b) { return a * b / (a + b); };
  double eff = 1.0;
  eff *= std::pow(std::min(1.4, intensity(c.thread_m, c.thread_n) / 4.0), 0.8);
  eff *= std::pow(std::min(1.4, intensity(c.block_m, c.block_n) / 64.0), 0.3);
  eff *= c.block_k >= 16 ? 1.0 : 0.98;
  return detail::gemm_block_tiled_cost(detail::block_shape(c, eff), m, n, k, batch);
}

ROCMTPL_INLINE std::vector<std::pair<double, simt_config>> simt_path::problem_configs(const detail::gemm_view& v,
                                                                                      const gemm_rank_request& r) {
  if (v.matrix_core_eligible()) return {};
  return detail::rank_tiled<simt_path>(r,
                                       [&](simt_config& c) { c.vector = detail::fit_vector(c.vector, v, *r.hints); });
}

ROCMTPL_INLINE std::optional<std::string> simt_path::unsupported(const simt_config&, const detail::gemm_view&,
                                                                 const gemm_options&) {
  return std::nullopt;
}

ROCMTPL_INLINE gemm_config_fields simt_path::describe(const simt_config& c) {
  return {{"math", std::string(simt_config::math)}, {"block_m", std::to_string(c.block_m)},
          {"block_n", std::to_string(c.block_n)},   {"block_k", std::to_string(c.block_k)},
          {"thread_m", std::to_string(c.thread_m)}, {"thread_n", std::to_string(c.thread_n)},
          {"group_m", std::to_string(c.group_m)},   {"stages", std::to_string(simt_config::stages)},
          {"vector", std::to_string(c.vector)},     {"split_k", std::to_string(c.split_k)}};
}

ROCMTPL_INLINE std::optional<simt_config> simt_path::parse(const gemm_config_fields& fields) {
  if (fields.empty() || fields.front().second != simt_config::math) return std::nullopt;
  simt_config c;
  detail::parse_config_fields(fields, name, [&c](std::string_view f, int v) {
    if (f == "stages") return v == simt_config::stages;
    int* field = f == "block_m"    ? &c.block_m
                 : f == "block_n"  ? &c.block_n
                 : f == "block_k"  ? &c.block_k
                 : f == "thread_m" ? &c.thread_m
                 : f == "thread_n" ? &c.thread_n
                 : f == "group_m"  ? &c.group_m
                 : f == "vector"   ? &c.vector
                 : f == "split_k"  ? &c.split_k
                                   : nullptr;
    if (field != nullptr) *field = v;
    return field != nullptr;
  });
  return c;
}

ROCMTPL_INLINE int simt_path::min_blocks(const simt_config& c) {
  return std::clamp(65536 / (std::max(c.threads(), 32) * c.register_estimate()), 1, 2);
}

ROCMTPL_INLINE bool simt_path::prefetch(const simt_config& c) {
  if (c.thread_m * c.thread_n >= 128) return true;
  const int room = std::min(255, 65536 / (std::max(c.threads(), 32) * min_blocks(c)));
  return room >= c.register_estimate() + c.thread_m + c.thread_n;
}

ROCMTPL_INLINE detail::gemm_block_tile simt_path::tile(const simt_config& c) {
  return {.block_m = c.block_m,
          .block_n = c.block_n,
          .block_k = c.block_k,
          .group_m = c.group_m,
          .stages = c.stages,
          .threads = c.threads(),
          .shared_bytes = c.shared_bytes(),
          .min_blocks = min_blocks(c),
          .matrix_cores = false,
          .amd_threads = 0,
          .constants = {{"thread_m", c.thread_m}, {"thread_n", c.thread_n}},
          .simt_prefetch = prefetch(c),
          .main_loop = &detail::gemm_simt_text()};
}

ROCMTPL_INLINE launch_description simt_path::describe_launch(const rocm_template_kernel& kernel,
                                                             const detail::gemm_plan& plan, const simt_config& c) {
  return detail::block_tiled_launch_description(kernel, plan, tile(c));
}

ROCMTPL_INLINE void simt_path::render(rendered_source& out, rocm_template_kernel& kernel, const detail::gemm_plan& plan,
                                      const simt_config& c, const launch_description& d) {
  detail::render_block_tiled(out, kernel, plan, tile(c), d);
}

}  // namespace rocmtpl::templates
