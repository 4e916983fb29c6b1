// SPDX-License-Identifier: MIT
#pragma once

// The implementation of templates/gemm/search_space.hpp: included at its end (header-only) or compiled once by
// src/templates.cpp, after it (so it does not include it back).

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/ir/dtype.hpp>
#include <rocmtpl/ir/sym_expr.hpp>
#include <rocmtpl/templates/gemm/config.hpp>
#include <rocmtpl/templates/gemm/cost_model.hpp>
#include <rocmtpl/templates/gemm/problem.hpp>

namespace rocmtpl::templates {

ROCMTPL_INLINE std::vector<gemm_config> gemm_simt_configs() {
  static constexpr std::pair<int, int> blocks[] = {{64, 64}, {64, 128}, {128, 64}, {128, 128}, {128, 256}, {256, 128}};
  static constexpr int ks[] = {8, 16};
  static constexpr std::pair<int, int> per_thread[] = {{4, 4}, {4, 8}, {8, 4}, {8, 8}, {8, 16}, {16, 8}};
  std::vector<gemm_config> out;
  for (const auto& [bm, bn] : blocks) {
    for (const int bk : ks) {
      for (const auto& [tm, tn] : per_thread) {
        gemm_config c;
        c.block_m = bm;
        c.block_n = bn;
        c.block_k = bk;
        c.thread_m = tm;
        c.thread_n = tn;
        c.group_m = 8;
        c.stages = 2;
        c.vector = 4;
        if (is_valid(c) && c.threads() >= 64 && c.threads() <= 256) out.push_back(c);
      }
    }
  }
  return out;
}

ROCMTPL_INLINE std::vector<gemm_config> gemm_matrix_core_configs() {
  static constexpr std::pair<int, int> blocks[] = {{64, 64}, {64, 128}, {128, 64}, {128, 128}, {128, 256}, {256, 128}};
  static constexpr std::pair<int, int> warps[] = {{64, 64}, {32, 64}, {64, 32}, {32, 32}};
  static constexpr std::pair<int, int> k_stages[] = {{32, 3}, {32, 4}, {64, 3}};
  std::vector<gemm_config> out;
  for (const auto& [bm, bn] : blocks) {
    for (const auto& [wm, wn] : warps) {
      for (const auto& [bk, stages] : k_stages) {
        gemm_config c;
        c.math = gemm_math::matrix_core;
        c.block_m = bm;
        c.block_n = bn;
        c.warp_m = wm;
        c.warp_n = wn;
        c.block_k = bk;
        c.stages = stages;
        c.thread_m = 0;
        c.thread_n = 0;
        c.group_m = 8;
        c.vector = 8;
        if (is_valid(c) && c.warps() >= 4) out.push_back(c);
      }
    }
  }
  return out;
}

ROCMTPL_INLINE std::vector<gemm_config> gemm_wgmma_configs() {
  static constexpr std::pair<int, int> blocks[] = {{128, 256}, {256, 128}, {128, 128}, {128, 64}};
  std::vector<gemm_config> out;
  for (const auto& [bm, bn] : blocks) {
    gemm_config c;
    c.math = gemm_math::wgmma;
    c.block_m = bm;
    c.block_n = bn;
    c.block_k = gemm_wgmma_facts::block_k;
    c.thread_m = 0;
    c.thread_n = 0;
    c.warp_m = bm / gemm_wgmma_facts::consumers;
    c.warp_n = bn;
    c.group_m = 8;
    c.vector = 8;
    c.stages = 2;
    while (c.stages < 8) {
      auto more = c;
      ++more.stages;
      if (!is_valid(more)) break;
      c = more;
    }
    if (is_valid(c)) out.push_back(c);
  }
  return out;
}

ROCMTPL_INLINE std::vector<gemm_config> gemm_skinny_configs() {
  static constexpr int smalls[] = {1, 2, 4, 8, 16};
  // (warp_m, warp_n, thread_n, block_k): streaming, then dot shapes.
  static constexpr std::array<int, 4> shapes[] = {{1, 256, 1, 8}, {4, 64, 1, 8}, {8, 32, 1, 8}, {2, 128, 2, 8},
                                                  {4, 64, 1, 4},  {8, 32, 1, 4}, {32, 8, 1, 8}, {16, 16, 1, 8},
                                                  {32, 8, 4, 8},  {16, 16, 4, 8}};
  std::vector<gemm_config> out;
  for (const auto& sh : shapes) {
    for (int bm : smalls) {
      gemm_config c;
      c.math = gemm_math::skinny_m;
      c.block_m = bm;
      c.warp_m = sh[0];
      c.warp_n = sh[1];
      c.thread_n = sh[2];
      c.block_n = sh[1] * sh[2];
      c.block_k = sh[3];
      c.thread_m = 1;
      c.group_m = 1;
      c.stages = 1;
      c.vector = 8;
      while (!is_valid(c) && c.vector > 1) c.vector /= 2;
      if (is_valid(c) && c.vector >= 4) out.push_back(c);
    }
  }
  return out;
}

ROCMTPL_INLINE std::vector<gemm_config> gemm_skinny_mma_configs() {
  static constexpr std::array<int, 4> tiles[] = {{8, 4, 1, 8},  {8, 2, 2, 8},  {8, 4, 2, 8},  {8, 2, 1, 8},
                                                 {16, 4, 1, 8}, {32, 4, 1, 8}, {32, 2, 2, 4}, {64, 4, 1, 4}};
  std::vector<gemm_config> out;
  for (const auto& t : tiles) {
    gemm_config c;
    c.math = gemm_math::skinny_m;
    c.block_m = t[0];
    c.warp_m = t[1];
    c.warp_n = t[2];
    c.block_n = 64 * t[2];
    c.block_k = t[3];
    c.thread_m = 1;
    c.thread_n = 1;
    c.group_m = 1;
    c.stages = 2;
    c.vector = 8;
    if (is_valid(c)) out.push_back(c);
  }
  return out;
}

}  // namespace rocmtpl::templates

namespace rocmtpl::templates::detail {

ROCMTPL_INLINE int widest_vector(int limit, const gemm_copy_facts& f, std::size_t esize, const size_hints& hints) {
  const int cap = std::min<int>(limit, static_cast<int>(16 / esize));
  if (!f.fast_copy) return cap;
  for (int vec = cap; vec > 1; vec /= 2) {
    const auto s = f.statically_aligned(vec);
    if ((!s.has_value() || *s) && f.aligned_with(vec, hints)) return vec;
  }
  return 1;
}

ROCMTPL_INLINE std::vector<int> skinny_splits(std::int64_t k, std::int64_t block_step) {
  std::vector<int> out{1};
  for (int s : {2, 4, 8, 16, 32}) {
    if (k / s < 2 * block_step) break;
    out.push_back(s);
  }
  return out;
}

ROCMTPL_INLINE std::vector<std::pair<double, gemm_config>> skinny_mma_problem_configs(const gemm_view& v,
                                                                                      const skinny_problem& sp) {
  std::vector<std::pair<double, gemm_config>> out;
  if (!v.matrix_core_eligible() || sp.facts.k_major || sp.vec < 8) return out;
  // The small operand read element by element (not contiguous along K: W^T for few columns of a
  // column-major X) costs registers: there the tiles of 32 rows and 8 K elements and of 64 rows
  // spilled 4-12 bytes on sm_90a (CUDA 13; GemmGpu.EverySkinnyMmaConfigBothSides), so they stay out.
  const bool small_k_contiguous = copy_facts(sp.q_is_m ? v.x : v.w, !sp.q_is_m).k_contiguous;
  for (auto c : gemm_skinny_mma_configs()) {
    if (c.block_m > 8 && c.block_m / 2 >= sp.small) continue;
    if (!small_k_contiguous && c.register_estimate() >= 200) continue;
    c.math = sp.q_is_m ? gemm_math::skinny_m : gemm_math::skinny_n;
    std::pair<double, gemm_config> best{0.0, c};
    for (int s : skinny_splits(sp.k, 4LL * c.warp_m * c.block_k)) {
      auto cs = c;
      cs.split_k = s;
      const double cost = gemm_estimate_cost(cs, sp.m, sp.n, sp.k, sp.b);
      if (is_valid(cs) && (s == 1 || cost < best.first)) best = {cost, cs};
    }
    out.push_back(best);
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& c) { return a.first < c.first; });
  if (out.size() > 4) out.resize(4);
  return out;
}

ROCMTPL_INLINE std::vector<std::pair<double, gemm_config>> skinny_problem_configs(const gemm_view& v,
                                                                                  const size_hints& hints) {
  skinny_problem sp{};
  sp.m = size_value(v.m, hints, 1024);
  sp.n = size_value(v.n, hints, 1024);
  sp.k = size_value(v.k, hints, 1024);
  sp.b = size_value(v.batch, hints, 1);
  sp.small = std::min(sp.m, sp.n);
  if (sp.small > gemm_skinny_max_small) return {};
  sp.q_is_m = sp.m <= sp.n;
  sp.large = sp.q_is_m ? &v.w : &v.x;
  sp.facts = copy_facts(*sp.large, sp.q_is_m);
  sp.vec = widest_vector(8, sp.facts, element_size(sp.large->node->type()), hints);
  std::vector<std::pair<double, gemm_config>> out;
  for (auto c : gemm_skinny_configs()) {
    if (sp.facts.k_major ? c.warp_m < 8 : c.warp_n < 32) continue;
    if (c.block_m > 1 && c.block_m / 2 >= sp.small) continue;
    c.math = sp.q_is_m ? gemm_math::skinny_m : gemm_math::skinny_n;
    c.vector = std::min(c.vector, sp.vec);
    for (int s : skinny_splits(sp.k, static_cast<std::int64_t>(c.warp_m) * c.block_k)) {
      auto cs = c;
      cs.split_k = s;
      if (is_valid(cs)) out.emplace_back(gemm_estimate_cost(cs, sp.m, sp.n, sp.k, sp.b), cs);
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& c) { return a.first < c.first; });
  auto mma = skinny_mma_problem_configs(v, sp);
  out.insert(out.begin(), mma.begin(), mma.end());
  return out;
}

}  // namespace rocmtpl::templates::detail

namespace rocmtpl::templates {

ROCMTPL_INLINE std::vector<gemm_config> gemm_problem_configs(const detail::gemm_view& v, bool runtime_split_k,
                                                             const size_hints& hints) {
  auto base = v.matrix_core_eligible() ? gemm_matrix_core_configs() : gemm_simt_configs();
  if (!detail::wgmma_static_reason(v) && detail::wgmma_fits_hints(v, hints)) {
    const auto hopper = gemm_wgmma_configs();
    base.insert(base.begin(), hopper.begin(), hopper.end());
  }
  const auto fx = detail::copy_facts(v.x, false);
  const auto fw = detail::copy_facts(v.w, true);
  const std::int64_t m = detail::size_value(v.m, hints, 1024);
  const std::int64_t n = detail::size_value(v.n, hints, 1024);
  const std::int64_t k = detail::size_value(v.k, hints, 1024);
  const std::int64_t b = detail::size_value(v.batch, hints, 1);
  auto skinny = detail::skinny_problem_configs(v, hints);
  // fp32 FMAs bound the skinny kernels from about 16 rows (columns) on: 16-bit problems, and
  // others whose best skinny configuration the cost model finds FMA-bound (f32 from about 32
  // rows); there the tiled configurations compete with them (below), the SIMT ones also with
  // static K slices when the entry takes no split_k (a few tiles leave most SMs idle otherwise).
  const bool tiled_compete = !skinny.empty() && std::min(m, n) > 16 &&
                             (v.matrix_core_eligible() || gemm_skinny_fma_bound(skinny.front().second, m, n, k, b));
  const bool static_split = !runtime_split_k && tiled_compete && !v.matrix_core_eligible();
  std::vector<std::pair<double, gemm_config>> ranked;
  for (auto c : base) {
    if (c.math != gemm_math::wgmma) {  // Hopper: TMA rows and 16-byte stores, no vector width to fit
      const int vx = detail::widest_vector(c.vector, fx, element_size(v.x.node->type()), hints);
      const int vw = detail::widest_vector(c.vector, fw, element_size(v.w.node->type()), hints);
      c.vector = std::min(vx, vw);
    }
    ranked.emplace_back(gemm_estimate_cost(c, m, n, k, b), c);
    if (!runtime_split_k && !static_split) continue;
    for (int s : {2, 4, 8, 16}) {
      auto cs = c;
      cs.split_k = s;
      if (k / s < 2 * c.block_k) break;
      ranked.emplace_back(gemm_estimate_cost(cs, m, n, k, b), cs);
    }
  }
  std::stable_sort(ranked.begin(), ranked.end(), [](const auto& a, const auto& c) { return a.first < c.first; });
  // Where they compete, keep the best tiled (matrix-core, wgmma; SIMT and its split-K variants)
  // configurations right after the best skinny ones, so that a tuner's top 16 measures both.
  if (tiled_compete) {
    const auto tiled = static_cast<std::ptrdiff_t>(std::min<std::size_t>(8, ranked.size()));
    const auto lead = static_cast<std::ptrdiff_t>(std::min<std::size_t>(8, skinny.size()));
    skinny.insert(skinny.begin() + lead, ranked.begin(), ranked.begin() + tiled);
    ranked.erase(ranked.begin(), ranked.begin() + tiled);
  }
  ranked.insert(ranked.begin(), skinny.begin(), skinny.end());
  std::vector<gemm_config> out;
  out.reserve(ranked.size());
  for (const auto& r : ranked) {
    if (std::find(out.begin(), out.end(), r.second) == out.end()) out.push_back(r.second);
  }
  return out;
}

}  // namespace rocmtpl::templates
