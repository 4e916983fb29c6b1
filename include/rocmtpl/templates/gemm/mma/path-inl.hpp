// SPDX-License-Identifier: MIT
#pragma once

// The implementation of templates/gemm/mma/path.hpp: included at its end (header-only) or compiled
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
#include <rocmtpl/templates/gemm/mma/device_code.hpp>

namespace rocmtpl::templates {

ROCMTPL_INLINE std::vector<mma_config> mma_path::search_space() {
  static constexpr std::pair<int, int> blocks[] = {{64, 64}, {64, 128}, {128, 64}, {128, 128}, {128, 256}, {256, 128}};
  static constexpr std::pair<int, int> warps[] = {{64, 64}, {32, 64}, {64, 32}, {32, 32}};
  static constexpr std::pair<int, int> k_stages[] = {{32, 3}, {32, 4}, {64, 3}};
  std::vector<mma_config> out;
  for (const auto& [bm, bn] : blocks) {
    for (const auto& [wm, wn] : warps) {
      for (const auto& [bk, stages] : k_stages) {
        const mma_config c{
            .block_m = bm, .block_n = bn, .block_k = bk, .warp_m = wm, .warp_n = wn, .group_m = 8, .stages = stages};
        if (!c.invalid_reason() && c.warps() >= 4) out.push_back(c);
      }
    }
  }
  return out;
}

ROCMTPL_INLINE double mma_path::estimate_cost(const mma_config& c, std::int64_t m, std::int64_t n, std::int64_t k,
                                              std::int64_t batch) {
  const auto intensity = [](double a, double b) { return a * b / (a + b); };
  double eff = 1.0;
  eff *= std::pow(std::min(1.0, intensity(c.block_m, c.block_n) / 64.0), 0.6);
  eff *= std::pow(std::min(1.0, intensity(c.warp_m, c.warp_n) / 32.0), 0.5);
  eff *= c.stages >= 3 ? 1.0 : 0.85;
  eff *= c.block_k >= 64 ? 1.0 : 0.94;
  return detail::gemm_block_tiled_cost(detail::block_shape(c, eff), m, n, k, batch);
}

ROCMTPL_INLINE std::vector<std::pair<double, mma_config>> mma_path::problem_configs(const detail::gemm_view& v,
                                                                                    const gemm_rank_request& r) {
  if (!v.matrix_core_eligible()) return {};
  return detail::rank_tiled<mma_path>(r, [&](mma_config& c) { c.vector = detail::fit_vector(c.vector, v, *r.hints); });
}

ROCMTPL_INLINE std::optional<std::string> mma_path::unsupported(const mma_config& c, const detail::gemm_view& v,
                                                                const gemm_options&) {
  if (v.matrix_core_eligible()) return std::nullopt;
  return "rocmtpl: gemm: matrix-core config " + c.name_text().str() +
         " needs X and W of one dtype, float16 or bfloat16; got " + std::string(rocmtpl::name(v.x.node->type())) +
         " and " + std::string(rocmtpl::name(v.w.node->type())) + "; use a simt config";
}

ROCMTPL_INLINE gemm_config_fields mma_path::describe(const mma_config& c) {
  return {{"math", std::string(mma_config::math)}, {"block_m", std::to_string(c.block_m)},
          {"block_n", std::to_string(c.block_n)},  {"block_k", std::to_string(c.block_k)},
          {"warp_m", std::to_string(c.warp_m)},    {"warp_n", std::to_string(c.warp_n)},
          {"group_m", std::to_string(c.group_m)},  {"stages", std::to_string(c.stages)},
          {"vector", std::to_string(c.vector)},    {"split_k", std::to_string(c.split_k)}};
}

ROCMTPL_INLINE std::optional<mma_config> mma_path::parse(const gemm_config_fields& fields) {
  if (fields.empty() || fields.front().second != mma_config::math) return std::nullopt;
  mma_config c;
  detail::parse_config_fields(fields, name, [&c](std::string_view f, int v) {
    int* field = f == "block_m"   ? &c.block_m
                 : f == "block_n" ? &c.block_n
                 : f == "block_k" ? &c.block_k
                 : f == "warp_m"  ? &c.warp_m
                 : f == "warp_n"  ? &c.warp_n
                 : f == "group_m" ? &c.group_m
                 : f == "stages"  ? &c.stages
                 : f == "vector"  ? &c.vector
                 : f == "split_k" ? &c.split_k
                                  : nullptr;
    if (field != nullptr) *field = v;
    return field != nullptr;
  });
  return c;
}

ROCMTPL_INLINE detail::gemm_block_tile mma_path::tile(const mma_config& c) {
  // Blocks per SM on NVIDIA: 1, so ptxas uses what the accumulators need (with the thread count
  // alone it capped small tiles at 72 registers and spilled; CUDA 13.0, sm_90).
  return {.block_m = c.block_m,
          .block_n = c.block_n,
          .block_k = c.block_k,
          .group_m = c.group_m,
          .stages = c.stages,
          .threads = c.threads(),
          .shared_bytes = c.shared_bytes(),
          .min_blocks = 1,
          .matrix_cores = true,
          .amd_threads = 64 * c.warps(),
          .constants = {{"warp_m", c.warp_m}, {"warp_n", c.warp_n}},
          .simt_prefetch = false,
          .main_loop = &detail::gemm_matrix_core_text()};
}

ROCMTPL_INLINE launch_description mma_path::describe_launch(const rocm_template_kernel& kernel,
                                                            const detail::gemm_plan& plan, const mma_config& c) {
  return detail::block_tiled_launch_description(kernel, plan, tile(c));
}

ROCMTPL_INLINE void mma_path::render(rendered_source& out, rocm_template_kernel& kernel, const detail::gemm_plan& plan,
                                     const mma_config& c, const launch_description& d) {
  detail::render_block_tiled(out, kernel, plan, tile(c), d);
}

}  // namespace rocmtpl::templates
