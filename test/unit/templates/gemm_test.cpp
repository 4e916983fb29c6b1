// SPDX-License-Identifier: MIT
// templates/gemm.hpp: the gathering header alone gives the whole GEMM family (each part has its
// own test under templates/gemm/).
#include <rocmtpl/templates/gemm.hpp>

#include <gtest/gtest.h>

#include <type_traits>

namespace {
namespace tpl = rocmtpl::templates;

// Every part is reachable through the one include users write.
static_assert(rocmtpl::kernel_template<tpl::gemm_policy>);
static_assert(std::is_aggregate_v<tpl::simt_config> && std::is_aggregate_v<tpl::mma_config> &&
              std::is_aggregate_v<tpl::wgmma_config> && std::is_aggregate_v<tpl::skinny_config> &&
              std::is_aggregate_v<tpl::skinny_mma_config>);
static_assert(std::is_aggregate_v<tpl::gemm_options>);
static_assert(tpl::is_valid(tpl::gemm_config{}));
static_assert(tpl::gemm_path<tpl::wgmma_path>);

TEST(Gemm, GatheringHeaderExposesEveryPart) {
  EXPECT_EQ(tpl::gemm_policy::name(), "gemm");
  EXPECT_FALSE(tpl::simt_path::search_space().empty());
  EXPECT_FALSE(tpl::mma_path::search_space().empty());
  EXPECT_FALSE(tpl::skinny_mma_path::search_space().empty());
  EXPECT_GT(tpl::gemm_estimate_cost(tpl::gemm_config{}, 64, 64, 64, 1), 0.0);
  EXPECT_EQ(tpl::parse_gemm_config(tpl::describe(tpl::gemm_config{})), tpl::gemm_config{});
  EXPECT_EQ(tpl::parse_activation("silu"), tpl::activation::silu);
  EXPECT_FALSE(tpl::detail::gemm_common_text.empty());
}
}  // namespace
