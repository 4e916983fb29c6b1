// SPDX-License-Identifier: MIT
#pragma once

// The implementation of templates/gemm/skinny/path.hpp: included at its end (header-only) or
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

ROCMTPL_INLINE std::vector<skinny_config> skinny_path::search_space() {
  static constexpr int smalls[] = {1, 2, 4, 8, 16};
  // (k_threads, p_threads, p_units, k_step): streaming, then dot shapes.
  static constexpr std::array<int, 4> shapes[] = {{1, 256, 1, 8}, {4, 64, 1, 8}, {8, 32, 1, 8}, {2, 128, 2, 8},
                                                  {4, 64, 1, 4},  {8, 32, 1, 4}, {32, 8, 1, 8}, {16, 16, 1, 8},
                                                  {32, 8, 4, 8},  {16, 16, 4, 8}};
  std::vector<skinny_config> out;
  for (const auto& sh : shapes) {
    for (int rows : smalls) {
      skinny_config c{.rows = rows, .k_threads = sh[0], .p_threads = sh[1], .p_units = sh[2], .k_step = sh[3]};
      while (c.invalid_reason() && c.vector > 1) c.vector /= 2;
      if (!c.invalid_reason() && c.vector >= 4) out.push_back(c);
    }
  }
  return out;
}

ROCMTPL_INLINE double skinny_path::estimate_cost(const skinny_config& c, std::int64_t m, std::int64_t n, std::int64_t k,
                                                 std::int64_t batch) {
  const bool q_is_m = c.side == skinny_side::m;
  const auto pos = [](std::int64_t x) { return static_cast<double>(std::max<std::int64_t>(x, 1)); };
  const double q = pos(q_is_m ? m : n);
  const double p = pos(q_is_m ? n : m);
  const double kk = pos(k);
  const double b = pos(batch);
  constexpr double sms = detail::gemm_cost_sms;
  const double tiles_q = std::ceil(q / c.rows);
  const double units = c.vector > 1 ? std::ceil(p / c.vector) : p;
  const double blocks = tiles_q * std::ceil(units / c.units()) * c.split_k * b;
  const double esize = 16.0 / c.vector;
  const int threads = std::max(c.threads(), 32);
  const double occ = std::max(1, std::min({2048 / threads, 65536 / (threads * std::max(c.register_estimate(), 32)),
                                           228 * 1024 / std::max(c.shared_bytes(), 1), 32}));
  const double resident = std::min(occ, blocks / sms);
  const double in_flight = resident * threads * c.k_step * c.p_units * 16.0;
  const double busy = std::min(1.0, blocks / sms);
  const double rounds = std::ceil(blocks / (sms * occ));
  const double wave = blocks / (rounds * sms * occ);
  const double bw = busy * std::min(1.0, in_flight / (32.0 * 1024)) * std::max(0.5, std::min(1.0, wave + 0.3));
  const double bytes = p * kk * b * esize * std::max(1.0, tiles_q / 3.0) + q * p * b * 4.0;
  const double memory = bytes * 10.0 / (sms * std::max(bw, 1e-3));
  const double fma = tiles_q * c.rows * p * kk * b / (sms * std::max(busy, 1e-3));
  double time = std::max(memory, fma);
  // Per-block tail: the K threads' reduction and the epilogue of rows x p_units results.
  time += rounds * occ * c.rows * c.p_units * (c.k_threads > 1 ? 400.0 : 40.0);
  if (c.split_k > 1) time += c.split_k * q * p * b * 8.0 * 10.0 / sms + 6.0e5;
  return time;
}

ROCMTPL_INLINE bool skinny_path::fma_bound(const skinny_config& c, std::int64_t m, std::int64_t n, std::int64_t k,
                                           std::int64_t batch) {
  const bool q_is_m = c.side == skinny_side::m;
  const auto pos = [](std::int64_t x) { return static_cast<double>(std::max<std::int64_t>(x, 1)); };
  const double q = pos(q_is_m ? m : n);
  const double p = pos(q_is_m ? n : m);
  constexpr double sms = detail::gemm_cost_sms;
  const double tiles_q = std::ceil(q / c.rows);
  const double esize = 16.0 / c.vector;
  const double bytes = p * pos(k) * pos(batch) * esize * std::max(1.0, tiles_q / 3.0) + q * p * pos(batch) * 4.0;
  const double memory = bytes * 10.0 / sms;
  const double fma = 4.0 * tiles_q * c.rows * p * pos(k) * pos(batch) / sms;
  return fma > memory;
}

ROCMTPL_INLINE std::vector<std::pair<double, skinny_config>> skinny_path::problem_configs(const detail::gemm_view& v,
                                                                                          const gemm_rank_request& r) {
  const auto sp = detail::make_skinny_problem(v, *r.hints);
  if (!sp) return {};
  std::vector<std::pair<double, skinny_config>> out;
  for (auto c : search_space()) {
    if (sp->facts.k_major ? c.k_threads < 8 : c.p_threads < 32) continue;
    if (c.rows > 1 && c.rows / 2 >= sp->small) continue;
    c.side = sp->q_is_m ? skinny_side::m : skinny_side::n;
    c.vector = std::min(c.vector, sp->vec);
    for (int s : detail::skinny_splits(sp->k, static_cast<std::int64_t>(c.k_threads) * c.k_step)) {
      auto cs = c;
      cs.split_k = s;
      if (!cs.invalid_reason()) out.emplace_back(estimate_cost(cs, sp->m, sp->n, sp->k, sp->b), cs);
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& c) { return a.first < c.first; });
  return out;
}

ROCMTPL_INLINE std::optional<std::string> skinny_path::unsupported(const skinny_config&, const detail::gemm_view&,
                                                                   const gemm_options&) {
  return std::nullopt;
}

ROCMTPL_INLINE gemm_config_fields skinny_path::describe(const skinny_config& c) {
  return {{"math", std::string(c.math())},
          {"block_m", std::to_string(c.rows)},
          {"block_n", std::to_string(c.units())},
          {"block_k", std::to_string(c.k_step)},
          {"warp_m", std::to_string(c.k_threads)},
          {"warp_n", std::to_string(c.p_threads)},
          {"thread_n", std::to_string(c.p_units)},
          {"group_m", "1"},
          {"stages", "1"},
          {"vector", std::to_string(c.vector)},
          {"split_k", std::to_string(c.split_k)}};
}

ROCMTPL_INLINE std::optional<skinny_config> skinny_path::parse(const gemm_config_fields& fields) {
  if (fields.empty() || (fields.front().second != "skinny_m" && fields.front().second != "skinny_n")) {
    return std::nullopt;
  }
  for (const auto& [f, v] : fields) {
    if (f == "stages" && v != "1") return std::nullopt;  // stages 2: the matrix-core kernel (skinny_mma)
  }
  skinny_config c{.side = fields.front().second == "skinny_m" ? skinny_side::m : skinny_side::n};
  int units = -1;
  detail::parse_config_fields(fields, name, [&](std::string_view f, int v) {
    if (f == "group_m" || f == "stages" || f == "thread_m") return v == 1;
    int* field = f == "block_m"    ? &c.rows
                 : f == "block_n"  ? &units
                 : f == "block_k"  ? &c.k_step
                 : f == "warp_m"   ? &c.k_threads
                 : f == "warp_n"   ? &c.p_threads
                 : f == "thread_n" ? &c.p_units
                 : f == "vector"   ? &c.vector
                 : f == "split_k"  ? &c.split_k
                                   : nullptr;
    if (field != nullptr) *field = v;
    return field != nullptr;
  });
  if (units >= 0 && units != c.units()) {
    throw invalid_argument_error("rocmtpl: gemm: skinny config field block_n=" + std::to_string(units) +
                                 " is not warp_n * thread_n");
  }
  return c;
}

ROCMTPL_INLINE detail::skinny_shape skinny_path::shape(const skinny_config& c) {
  return {.q_is_m = c.side == skinny_side::m,
          .mma = false,
          .rows = c.rows,
          .k_threads = c.k_threads,
          .p_threads = c.p_threads,
          .p_units = c.p_units,
          .k_step = c.k_step,
          .split_k = c.split_k,
          .threads = c.threads(),
          .units = c.units(),
          .vector = c.vector};
}

ROCMTPL_INLINE launch_description skinny_path::describe_launch(const rocm_template_kernel& kernel,
                                                               const detail::gemm_plan& plan, const skinny_config& c) {
  return detail::skinny_launch_description(kernel, plan, shape(c));
}

ROCMTPL_INLINE void skinny_path::render(rendered_source& out, rocm_template_kernel& kernel,
                                        const detail::gemm_plan& plan, const skinny_config& c,
                                        const launch_description& d) {
  detail::render_skinny(out, kernel, plan, shape(c), d);
}

}  // namespace rocmtpl::templates
