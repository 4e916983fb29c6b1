// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief What a GEMM path is: the `gemm_path` concept every unit under templates/gemm/ (one folder per path)
/// meets (its configuration type, search space, validity rules, cost model, per-problem ranking,
/// render), and what the paths share to rank a problem (gemm_rank_request).

#include <algorithm>
#include <cmath>
#include <concepts>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <rocmtpl/codegen/indented_buffer.hpp>
#include <rocmtpl/codegen/launch.hpp>
#include <rocmtpl/codegen/rendered_source.hpp>
#include <rocmtpl/core/static_string.hpp>
#include <rocmtpl/ir/sym_expr.hpp>
#include <rocmtpl/kernel/rocm_kernel.hpp>
#include <rocmtpl/templates/gemm/config.hpp>
#include <rocmtpl/templates/gemm/cost_model.hpp>
#include <rocmtpl/templates/gemm/problem.hpp>
#include <rocmtpl/templates/gemm/render.hpp>

namespace rocmtpl::templates {

/// @brief How a path's candidates are ordered among the others' (gemm_problem_configs()).
enum class gemm_path_family {
  tiled,   ///< block tiles over M and N (SIMT, matrix cores, Hopper): ranked together by cost
  skinny,  ///< matrix-vector kernels for M or N up to 64: ranked ahead of the tiled ones
};

/// @brief One problem as the paths rank it: its sizes (symbols at their hints, 1024 when missing;
/// the batch 1), the hints, and whether split-K variants are wanted.
struct gemm_rank_request {
  std::int64_t m = 0;                 ///< rows of Y
  std::int64_t n = 0;                 ///< columns of Y
  std::int64_t k = 0;                 ///< the reduced dimension
  std::int64_t batch = 1;             ///< batch count
  const size_hints* hints = nullptr;  ///< values of size symbols
  bool runtime_split_k = false;       ///< gemm_options::runtime_split_k: the entry takes split_k
  bool split_variants =
      false;  ///< static split-K variants for every configuration (where the path splits K statically)
};

/// @brief A (field, value) list: describe()'s serialised form of a configuration
/// (`math=simt block_m=64 ...` in tuning records).
using gemm_config_fields = std::vector<std::pair<std::string, std::string>>;

/// @brief A GEMM path: one unit with its configuration type and everything that reads it.
///
/// `P::config` is a structural aggregate with constexpr `invalid_reason()`, `name_text()`,
/// `threads()`, `shared_bytes()`, `register_estimate()`, a `split_k` member and `visit_fields(f)`;
/// `P` says its `name` and `family`, whether a split_k above 1 splits K without
/// gemm_options::runtime_split_k (`splits_k_statically`), and gives:
/// - `search_space()`: every configuration of the path, without a problem;
/// - `estimate_cost(c, m, n, k, batch)`: the cost model (relative time);
/// - `problem_configs(v, request)`: the path's candidates for one problem with their costs;
/// - `unsupported(c, v, options)`: why a valid configuration cannot render this problem, or nothing;
/// - `describe(c)` and `parse(fields)`: the serialised form (`math` first) and back (nothing when
///   the fields are another path's);
/// - `describe_launch(kernel, plan, c)` and `render(out, kernel, plan, c, launch)`: the launch
///   description and the translation unit's device code and entry body.
template <class P>
concept gemm_path = std::same_as<std::remove_cv_t<decltype(P::name)>, std::string_view> &&
                    std::same_as<std::remove_cv_t<decltype(P::family)>, gemm_path_family> &&
                    std::same_as < std::remove_cv_t<decltype(P::splits_k_statically)>,
bool > &&requires(const typename P::config& c, const detail::gemm_view& v, const gemm_options& o,
                  const gemm_rank_request& r, const gemm_config_fields& fields, rocm_template_kernel& kernel,
                  const detail::gemm_plan& plan, const launch_description& d, rendered_source& out, std::int64_t i) {
  { c.invalid_reason() } -> std::same_as<std::optional<std::string_view>>;
  { c.name_text() } -> std::same_as<static_string<192>>;
  { c.threads() } -> std::same_as<int>;
  { c.shared_bytes() } -> std::same_as<int>;
  { c.register_estimate() } -> std::same_as<int>;
  { c.split_k } -> std::convertible_to<int>;
  { P::search_space() } -> std::same_as<std::vector<typename P::config>>;
  { P::estimate_cost(c, i, i, i, i) } -> std::same_as<double>;
  { P::problem_configs(v, r) } -> std::same_as<std::vector<std::pair<double, typename P::config>>>;
  { P::unsupported(c, v, o) } -> std::same_as<std::optional<std::string>>;
  { P::describe(c) } -> std::same_as<gemm_config_fields>;
  { P::parse(fields) } -> std::same_as<std::optional<typename P::config>>;
  { P::describe_launch(kernel, plan, c) } -> std::same_as<launch_description>;
  { P::render(out, kernel, plan, c, d) } -> std::same_as<void>;
};

namespace detail {
// The candidates of a block-tiled path for one problem, in its search space's order: each
// configuration (its vector width fitted by `fit`) with its cost, then its split-K variants of 2,
// 4, 8 and 16 slices while each slice keeps two K steps: with runtime split-K, or, on a path that
// splits K statically, when the request asks for them or when the configuration has fewer output
// tiles than two waves over the GPU's SMs (160 x 8192 in 64 x 128 tiles is 1.45 waves: the last
// leaves SMs idle; the cost model weighs the partials against it).
template <class Path, class Fit>
[[nodiscard]] std::vector<std::pair<double, typename Path::config>> rank_tiled(const gemm_rank_request& r, Fit fit) {
  std::vector<std::pair<double, typename Path::config>> out;
  for (auto c : Path::search_space()) {
    fit(c);
    out.emplace_back(Path::estimate_cost(c, r.m, r.n, r.k, r.batch), c);
    const double tiles = std::ceil(static_cast<double>(std::max<std::int64_t>(r.m, 1)) / c.block_m) *
                         std::ceil(static_cast<double>(std::max<std::int64_t>(r.n, 1)) / c.block_n) *
                         static_cast<double>(std::max<std::int64_t>(r.batch, 1));
    const bool few_tiles = tiles < 2 * gemm_cost_sms;  // under two full waves: idle SMs in the last one
    if (!r.runtime_split_k && !(Path::splits_k_statically && (r.split_variants || few_tiles))) continue;
    for (int s : {2, 4, 8, 16}) {
      auto cs = c;
      cs.split_k = s;
      if (r.k / s < 2 * c.block_k) break;
      out.emplace_back(Path::estimate_cost(cs, r.m, r.n, r.k, r.batch), cs);
    }
  }
  return out;
}

// Reads describe()'s fields into `c` through `set(name, value)` (false: not a field of the
// path); throws invalid_argument_error naming the field that is not one, or a bad value.
void parse_config_fields(const gemm_config_fields& fields, std::string_view path,
                         const std::function<bool(std::string_view, int)>& set);
}  // namespace detail

}  // namespace rocmtpl::templates
