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
static_assert(std::is_aggregate_v<tpl::gemm_config>);
static_assert(std::is_aggregate_v<tpl::gemm_options>);
static_assert(tpl::is_valid(tpl::gemm_config{}));

TEST(Gemm, GatheringHeaderExposesEveryPart) {
  EXPECT_EQ(tpl::gemm_policy::name(), "gemm");
  EXPECT_FALSE(tpl::gemm_simt_configs().empty());
  EXPECT_FALSE(tpl::gemm_matrix_core_configs().empty());
  EXPECT_GT(tpl::gemm_estimate_cost(tpl::gemm_config{}, 64, 64, 64, 1), 0.0);
  EXPECT_EQ(tpl::parse_activation("silu"), tpl::activation::silu);
  EXPECT_FALSE(tpl::detail::gemm_simt_text().empty());
}
}  // namespace
