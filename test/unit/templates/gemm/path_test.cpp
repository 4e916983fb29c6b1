// SPDX-License-Identifier: MIT
// templates/gemm/path.hpp: the gemm_path concept (every shipped path meets it; a unit missing a
// member or with a member of the wrong type does not), the rank request, the block-tiled ranking
// the tiled paths share (detail::rank_tiled) and the field reader of their parse()
// (detail::parse_config_fields).
#include <rocmtpl/templates/gemm/path.hpp>

#include <rocmtpl/templates/gemm/paths.hpp>

#include "support/gemm.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace {
using namespace gemm_test;
namespace tpl = rocmtpl::templates;
using tpl::gemm_config_fields;
using tpl::gemm_path;
using tpl::gemm_path_family;
using tpl::gemm_rank_request;

static_assert(gemm_path<tpl::simt_path>);
static_assert(gemm_path<tpl::mma_path>);
static_assert(gemm_path<tpl::wgmma_path>);
static_assert(gemm_path<tpl::skinny_path>);
static_assert(gemm_path<tpl::skinny_mma_path>);

// A complete unit of configuration `Config` (declarations only: the concept reads the
// signatures), then ones that break it.
template <class Config>
struct unit_of {
  using config = Config;
  static constexpr std::string_view name = "test";
  static constexpr gemm_path_family family = gemm_path_family::tiled;
  static constexpr bool splits_k_statically = false;
  static std::vector<config> search_space();
  static double estimate_cost(const config& c, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch);
  static std::vector<std::pair<double, config>> problem_configs(const tpl::detail::gemm_view& v,
                                                                const gemm_rank_request& r);
  static std::optional<std::string> unsupported(const config& c, const tpl::detail::gemm_view& v,
                                                const tpl::gemm_options& o);
  static gemm_config_fields describe(const config& c);
  static std::optional<config> parse(const gemm_config_fields& fields);
  static rocmtpl::launch_description describe_launch(const rocmtpl::rocm_template_kernel& kernel,
                                                     const tpl::detail::gemm_plan& plan, const config& c);
  static void render(rocmtpl::rendered_source& out, rocmtpl::rocm_template_kernel& kernel,
                     const tpl::detail::gemm_plan& plan, const config& c, const rocmtpl::launch_description& d);
};
using complete_path = unit_of<tpl::simt_config>;
static_assert(gemm_path<complete_path>);

// The least a configuration type has: the rules, a name, the resources, split_k.
struct minimal_config {
  [[nodiscard]] std::optional<std::string_view> invalid_reason() const;
  [[nodiscard]] rocmtpl::static_string<192> name_text() const;
  [[nodiscard]] int threads() const;
  [[nodiscard]] int shared_bytes() const;
  [[nodiscard]] int register_estimate() const;
  int split_k = 1;
};
static_assert(gemm_path<unit_of<minimal_config>>);
struct config_without_split_k {
  [[nodiscard]] std::optional<std::string_view> invalid_reason() const;
  [[nodiscard]] rocmtpl::static_string<192> name_text() const;
  [[nodiscard]] int threads() const;
  [[nodiscard]] int shared_bytes() const;
  [[nodiscard]] int register_estimate() const;
};
static_assert(!gemm_path<unit_of<config_without_split_k>>);
struct config_with_a_long_name : minimal_config {
  [[nodiscard]] rocmtpl::static_string<384> name_text() const;
};
static_assert(!gemm_path<unit_of<config_with_a_long_name>>);

struct without_parse {
  using config = tpl::simt_config;
  static constexpr std::string_view name = "test";
  static constexpr gemm_path_family family = gemm_path_family::tiled;
  static constexpr bool splits_k_statically = false;
  static std::vector<config> search_space();
  static double estimate_cost(const config& c, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch);
  static std::vector<std::pair<double, config>> problem_configs(const tpl::detail::gemm_view& v,
                                                                const gemm_rank_request& r);
  static std::optional<std::string> unsupported(const config& c, const tpl::detail::gemm_view& v,
                                                const tpl::gemm_options& o);
  static gemm_config_fields describe(const config& c);
  static rocmtpl::launch_description describe_launch(const rocmtpl::rocm_template_kernel& kernel,
                                                     const tpl::detail::gemm_plan& plan, const config& c);
  static void render(rocmtpl::rendered_source& out, rocmtpl::rocm_template_kernel& kernel,
                     const tpl::detail::gemm_plan& plan, const config& c, const rocmtpl::launch_description& d);
};
static_assert(!gemm_path<without_parse>);

// The name must be a std::string_view, the cost a double, the space a vector of the configuration.
struct name_of_wrong_type : complete_path {
  static constexpr const char* name = "test";
};
static_assert(!gemm_path<name_of_wrong_type>);
struct cost_of_wrong_type : complete_path {
  static float estimate_cost(const config& c, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch);
};
static_assert(!gemm_path<cost_of_wrong_type>);
struct space_of_another_config : complete_path {
  static std::vector<tpl::mma_config> search_space();
};
static_assert(!gemm_path<space_of_another_config>);
TEST(GemmPath, RankRequestDefaultsToOneBatchWithoutSplits) {
  const gemm_rank_request r;
  EXPECT_EQ(r.batch, 1);
  EXPECT_EQ(r.hints, nullptr);
  EXPECT_FALSE(r.runtime_split_k);
  EXPECT_FALSE(r.split_variants);
}

// The tiled paths' ranking: each configuration of the space in order, fitted, with its cost; with
// split variants, 2, 4, 8 and 16 slices while each slice keeps two K steps. 4096 x 4096: every
// SIMT tile gives at least 132 tiles, so no configuration asks for static slices by itself.
TEST(GemmPath, RankTiledAddsSplitVariantsWhileSlicesKeepTwoSteps) {
  const size_hints h;
  gemm_rank_request r{.m = 4096, .n = 4096, .k = 1024, .hints = &h};
  const auto space = tpl::simt_path::search_space();
  const auto plain = tpl::detail::rank_tiled<tpl::simt_path>(r, [](tpl::simt_config& c) { c.vector = 1; });
  ASSERT_EQ(plain.size(), space.size());
  for (std::size_t i = 0; i < space.size(); ++i) {
    auto fitted = space[i];
    fitted.vector = 1;
    EXPECT_EQ(plain[i].second, fitted);
    EXPECT_DOUBLE_EQ(plain[i].first, tpl::simt_path::estimate_cost(fitted, 4096, 4096, 1024, 1));
  }
  r.split_variants = true;
  const auto split = tpl::detail::rank_tiled<tpl::simt_path>(r, [](tpl::simt_config&) {});
  std::map<int, int> slices;
  for (const auto& [cost, c] : split) {
    ++slices[c.split_k];
    EXPECT_GE(1024 / c.split_k, 2 * c.block_k) << c.name_text().view();
    EXPECT_DOUBLE_EQ(cost, tpl::simt_path::estimate_cost(c, 4096, 4096, 1024, 1));
  }
  // Every tile takes 16 slices of 64 (two K steps of 8 or 16 fit).
  EXPECT_EQ(slices[1], static_cast<int>(space.size()));
  EXPECT_EQ(slices[16], static_cast<int>(space.size()));
  // K = 100: no slice keeps two steps of 8 at 8 slices (12 elements).
  r.k = 100;
  for (const auto& [cost, c] : tpl::detail::rank_tiled<tpl::simt_path>(r, [](tpl::simt_config&) {})) {
    EXPECT_LE(c.split_k, c.block_k == 8 ? 4 : 2) << c.name_text().view();
  }
  // Without the request's variants, a configuration with fewer tiles than SMs takes them on a path
  // that splits K statically (SIMT, Hopper), not on one that splits only at run time (mma).
  r = {.m = 256, .n = 256, .k = 1024, .hints = &h};
  std::map<int, int> few;
  for (const auto& [cost, c] : tpl::detail::rank_tiled<tpl::simt_path>(r, [](tpl::simt_config&) {})) ++few[c.split_k];
  EXPECT_EQ(few[1], static_cast<int>(space.size()));
  EXPECT_EQ(few[16], static_cast<int>(space.size()));
  for (const auto& [cost, c] : tpl::detail::rank_tiled<tpl::mma_path>(r, [](tpl::mma_config&) {})) {
    EXPECT_EQ(c.split_k, 1) << c.name_text().view();
  }
  r.runtime_split_k = true;  // every tiled path splits with the entry's split_k
  const auto mma_split = tpl::detail::rank_tiled<tpl::mma_path>(r, [](tpl::mma_config&) {});
  EXPECT_TRUE(std::any_of(mma_split.begin(), mma_split.end(), [](const auto& e) { return e.second.split_k > 1; }));
}

TEST(GemmPath, ParseConfigFieldsSetsEachFieldAfterTheMath) {
  std::vector<std::pair<std::string, int>> seen;
  const auto set = [&seen](std::string_view f, int v) {
    seen.emplace_back(f, v);
    return f != "unknown";
  };
  tpl::detail::parse_config_fields({{"math", "x"}, {"a", "1"}, {"b", "-20"}}, "test", set);
  EXPECT_EQ(seen, (std::vector<std::pair<std::string, int>>{{"a", 1}, {"b", -20}}));
  // An unknown field, a value that is not a whole int: named, with the path.
  for (const auto& [field, value] : std::vector<std::pair<std::string, std::string>>{
           {"unknown", "1"}, {"a", "x"}, {"a", ""}, {"a", "4x"}, {"a", "1.5"}, {"a", "99999999999"}}) {
    try {
      tpl::detail::parse_config_fields({{"math", "x"}, {field, value}}, "test", set);
      ADD_FAILURE() << field << "=" << value << " was accepted";
    } catch (const rocmtpl::invalid_argument_error& e) {
      EXPECT_EQ(std::string(e.what()), "rocmtpl: gemm: '" + field + "=" + value +
                                           "' is not a field value of a test configuration; the record was "
                                           "written by another template version");
    }
  }
}
}  // namespace
