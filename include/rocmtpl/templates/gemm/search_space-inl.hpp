// SPDX-License-Identifier: MIT
#pragma once

// The implementation of templates/gemm/search_space.hpp: included at its end (header-only) or compiled once by
// src/templates.cpp, after it (so it does not include it back).

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include <rocmtpl/core/config.hpp>

namespace rocmtpl::templates {

ROCMTPL_INLINE std::vector<gemm_config> gemm_problem_configs(const detail::gemm_view& v, bool runtime_split_k,
                                                             const size_hints& hints) {
  gemm_rank_request r{.m = detail::size_value(v.m, hints, 1024),
                      .n = detail::size_value(v.n, hints, 1024),
                      .k = detail::size_value(v.k, hints, 1024),
                      .batch = detail::size_value(v.batch, hints, 1),
                      .hints = &hints,
                      .runtime_split_k = runtime_split_k};
  const auto ranked_of = [&](gemm_path_family family) {
    std::vector<std::pair<double, gemm_config>> out;
    gemm_path_list::for_each([&](auto p) {
      using path = typename decltype(p)::type;
      if (path::family != family) return;
      for (const auto& [cost, c] : path::problem_configs(v, r)) out.emplace_back(cost, c);
    });
    return out;
  };
  auto skinny = ranked_of(gemm_path_family::skinny);
  // fp32 FMAs bound the skinny kernels from about 16 rows (columns) on: 16-bit problems, and
  // others whose best skinny configuration the cost model finds FMA-bound (f32 from about 32
  // rows); there the tiled configurations compete with them (below), the SIMT ones also with
  // static K slices when the entry takes no split_k (a few tiles leave most SMs idle otherwise).
  const bool tiled_compete =
      !skinny.empty() && std::min(r.m, r.n) > 16 &&
      (v.matrix_core_eligible() || gemm_skinny_fma_bound(skinny.front().second, r.m, r.n, r.k, r.batch));
  const bool static_split = !runtime_split_k && tiled_compete && !v.matrix_core_eligible();
  r.split_variants = static_split;
  auto ranked = ranked_of(gemm_path_family::tiled);
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
  for (const auto& entry : ranked) {
    if (std::find(out.begin(), out.end(), entry.second) == out.end()) out.push_back(entry.second);
  }
  return out;
}

}  // namespace rocmtpl::templates
