// SPDX-License-Identifier: MIT
// templates/gemm/config.hpp: the GEMM's problem-level options (gemm_options, bias_dim) and their
// check, validate(gemm_options). The tunable configurations are per path
// (templates/gemm/<path>/config_test.cpp); gemm_config, the variant over them, is paths_test.cpp's.
#include <rocmtpl/templates/gemm/config.hpp>

#include <rocmtpl/core/error.hpp>

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <utility>
#include <vector>

namespace {
using rocmtpl::templates::activation;
using rocmtpl::templates::bias_dim;
using rocmtpl::templates::gemm_options;
using rocmtpl::templates::validate;

TEST(GemmOptions, DefaultsAreThePlainProduct) {
  const gemm_options o;
  EXPECT_EQ(o.act, activation::none);
  EXPECT_EQ(o.alpha, 1.0F);
  EXPECT_EQ(o.beta, 1.0F);
  EXPECT_EQ(o.bias_along, bias_dim::n);
  EXPECT_FALSE(o.residual);
  EXPECT_FALSE(o.runtime_split_k);
  EXPECT_NO_THROW(validate(o));
}

// alpha and beta are rendered into the kernels as float literals: NaN and the infinities are
// refused with a config_error naming the field and its value; the largest finite values pass.
TEST(GemmOptions, ValidateRefusesNonFiniteAlphaAndBeta) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  const std::vector<std::pair<gemm_options, std::string>> bad{
      {{.alpha = nan}, "alpha=nan"}, {{.alpha = -inf}, "alpha=-inf"}, {{.beta = inf}, "beta=inf"}};
  for (const auto& [o, config] : bad) {
    try {
      validate(o);
      ADD_FAILURE() << config << " was accepted";
    } catch (const rocmtpl::config_error& e) {
      EXPECT_EQ(e.config(), config);
      EXPECT_EQ(e.reason(), config.substr(0, config.find('=')) +
                                " must be a finite number (it is rendered into the kernel as a literal)");
    }
  }
  const float big = std::numeric_limits<float>::max();
  EXPECT_NO_THROW(validate(gemm_options{.alpha = big, .beta = -big, .bias_along = bias_dim::m}));
}
}  // namespace
