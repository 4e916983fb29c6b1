// SPDX-License-Identifier: MIT
#pragma once

// The implementation of templates/gemm/skinny_mma/path.hpp: included at its end (header-only) or
// compiled once by src/templates.cpp, after it (so it does not include it back).

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/templates/gemm/cost_model.hpp>

namespace rocmtpl::templates {

ROCMTPL_INLINE std::vector<skinny_mma_config> skinny_mma_path::search_space() {
  // (rows, k_warps, p_warps, k_step)
  static constexpr std::array<int, 4> tiles[] = {{8, 4, 1, 8},  {8, 2, 2, 8},  {8, 4, 2, 8},  {8, 2, 1, 8},
                                                 {16, 4, 1, 8}, {32, 4, 1, 8}, {32, 2, 2, 4}, {64, 4, 1, 4}};
  std::vector<skinny_mma_config> out;
  for (const auto& t : tiles) {
    const skinny_mma_config c{.rows = t[0], .k_warps = t[1], .p_warps = t[2], .k_step = t[3]};
    if (!c.invalid_reason()) out.push_back(c);
  }
  return out;
}

ROCMTPL_INLINE double skinny_mma_path::estimate_cost(const skinny_mma_config& c, std::int64_t m, std::int64_t n,
                                                     std::int64_t k, std::int64_t batch) {
  const bool q_is_m = c.side == skinny_side::m;
  const auto pos = [](std::int64_t x) { return static_cast<double>(std::max<std::int64_t>(x, 1)); };
  const double q = pos(q_is_m ? m : n);
  const double p = pos(q_is_m ? n : m);
  const double kk = pos(k);
  const double b = pos(batch);
  constexpr double sms = detail::gemm_cost_sms;
  const double tiles_q = std::ceil(q / c.rows);
  const double blocks = tiles_q * std::ceil(p / c.columns()) * c.split_k * b;
  const int threads = c.threads();
  const double occ = std::max(1, std::min({2048 / threads, 65536 / (threads * std::max(c.register_estimate(), 32)),
                                           228 * 1024 / std::max(c.shared_bytes(), 1), 32}));
  const double resident = std::min(occ, blocks / sms);
  const double in_flight = resident * threads * c.k_step * 16.0 * 2.0;
  const double busy = std::min(1.0, blocks / sms);
  const double rounds = std::ceil(blocks / (sms * occ));
  const double wave = blocks / (rounds * sms * occ);
  const double bw = busy * std::min(1.0, in_flight / (32.0 * 1024)) * std::max(0.5, std::min(1.0, wave + 0.3));
  const double bytes = p * kk * b * 2.0 * std::max(1.0, tiles_q / 3.0) + q * p * b * 4.0;
  const double memory = bytes * 10.0 / (sms * std::max(bw, 1e-3));
  const double mmas = tiles_q * (c.rows / 8.0) * std::ceil(p / 16.0) * std::ceil(kk / 16.0) * b;
  double time = std::max(memory, mmas * 256.0 / (sms * std::max(busy, 1e-3)));
  time += rounds * occ * (c.rows / 8.0) * (c.k_warps > 1 ? 400.0 : 40.0);
  if (c.split_k > 1) time += c.split_k * q * p * b * 8.0 * 10.0 / sms + 6.0e5;
  return time;
}

ROCMTPL_INLINE std::vector<std::pair<double, skinny_mma_config>> skinny_mma_path::problem_configs(
    const detail::gemm_view& v, const gemm_rank_request& r) {
  const auto sp = detail::make_skinny_problem(v, *r.hints);
  std::vector<std::pair<double, skinny_mma_config>> out;
  if (!sp || !v.matrix_core_eligible() || sp->facts.k_major || sp->vec < 8) return out;
  // The small operand read element by element (not contiguous along K: W^T for few columns of a
  // column-major X) costs registers: there the tiles of 32 rows and 8 K elements and of 64 rows
  // spilled 4-12 bytes on sm_90a (CUDA 13; GemmGpu.EverySkinnyMmaConfigBothSides), so they stay out.
  const bool small_k_contiguous = detail::copy_facts(sp->q_is_m ? v.x : v.w, !sp->q_is_m).k_contiguous;
  for (auto c : search_space()) {
    if (c.rows > 8 && c.rows / 2 >= sp->small) continue;
    if (!small_k_contiguous && c.register_estimate() >= 200) continue;
    c.side = sp->q_is_m ? skinny_side::m : skinny_side::n;
    std::pair<double, skinny_mma_config> best{0.0, c};
    for (int s : detail::skinny_splits(sp->k, 4LL * c.k_warps * c.k_step)) {
      auto cs = c;
      cs.split_k = s;
      const double cost = estimate_cost(cs, sp->m, sp->n, sp->k, sp->b);
      if (!cs.invalid_reason() && (s == 1 || cost < best.first)) best = {cost, cs};
    }
    out.push_back(best);
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& c) { return a.first < c.first; });
  if (out.size() > 4) out.resize(4);
  return out;
}

ROCMTPL_INLINE std::optional<std::string> skinny_mma_path::unsupported(const skinny_mma_config& c,
                                                                       const detail::gemm_view& v,
                                                                       const gemm_options&) {
  const bool q_is_m = c.side == skinny_side::m;
  if (v.matrix_core_eligible() && !detail::copy_facts(q_is_m ? v.w : v.x, q_is_m).k_major) return std::nullopt;
  return "rocmtpl: gemm: skinny mma config " + c.name_text().str() +
         " needs X and W of one dtype, float16 or bfloat16, and the large operand (" + (q_is_m ? "W" : "X") +
         ") contiguous along " + (q_is_m ? "N" : "M") + "; use a skinny (FMA) config";
}

ROCMTPL_INLINE gemm_config_fields skinny_mma_path::describe(const skinny_mma_config& c) {
  return {{"math", std::string(c.math())},
          {"block_m", std::to_string(c.rows)},
          {"block_n", std::to_string(c.columns())},
          {"block_k", std::to_string(c.k_step)},
          {"warp_m", std::to_string(c.k_warps)},
          {"warp_n", std::to_string(c.p_warps)},
          {"thread_n", "1"},
          {"group_m", "1"},
          {"stages", std::to_string(skinny_mma_config::stages)},
          {"vector", std::to_string(skinny_mma_config::vector)},
          {"split_k", std::to_string(c.split_k)}};
}

ROCMTPL_INLINE std::optional<skinny_mma_config> skinny_mma_path::parse(const gemm_config_fields& fields) {
  if (fields.empty() || (fields.front().second != "skinny_m" && fields.front().second != "skinny_n")) {
    return std::nullopt;
  }
  bool mma = false;
  for (const auto& [f, v] : fields) mma = mma || (f == "stages" && v == "2");
  if (!mma) return std::nullopt;
  skinny_mma_config c{.side = fields.front().second == "skinny_m" ? skinny_side::m : skinny_side::n};
  int columns = -1;
  detail::parse_config_fields(fields, name, [&](std::string_view f, int v) {
    if (f == "group_m" || f == "thread_m" || f == "thread_n") return v == 1;
    if (f == "stages") return v == skinny_mma_config::stages;
    if (f == "vector") return v == skinny_mma_config::vector;
    int* field = f == "block_m"   ? &c.rows
                 : f == "block_n" ? &columns
                 : f == "block_k" ? &c.k_step
                 : f == "warp_m"  ? &c.k_warps
                 : f == "warp_n"  ? &c.p_warps
                 : f == "split_k" ? &c.split_k
                                  : nullptr;
    if (field != nullptr) *field = v;
    return field != nullptr;
  });
  if (columns >= 0 && columns != c.columns()) {
    throw invalid_argument_error("rocmtpl: gemm: skinny mma config field block_n=" + std::to_string(columns) +
                                 " is not 64 * warp_n");
  }
  return c;
}

ROCMTPL_INLINE detail::skinny_shape skinny_mma_path::shape(const skinny_mma_config& c) {
  return {.q_is_m = c.side == skinny_side::m,
          .mma = true,
          .rows = c.rows,
          .k_threads = c.k_warps,
          .p_threads = c.p_warps,
          .p_units = 1,
          .k_step = c.k_step,
          .split_k = c.split_k,
          .threads = c.threads(),
          .units = c.columns(),
          .vector = skinny_mma_config::vector};
}

ROCMTPL_INLINE launch_description skinny_mma_path::describe_launch(const rocm_template_kernel& kernel,
                                                                   const detail::gemm_plan& plan,
                                                                   const skinny_mma_config& c) {
  return detail::skinny_launch_description(kernel, plan, shape(c));
}

ROCMTPL_INLINE void skinny_mma_path::render(rendered_source& out, rocm_template_kernel& kernel,
                                            const detail::gemm_plan& plan, const skinny_mma_config& c,
                                            const launch_description& d) {
  detail::render_skinny(out, kernel, plan, shape(c), d);
}

}  // namespace rocmtpl::templates
