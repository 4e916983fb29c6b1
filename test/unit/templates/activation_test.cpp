// SPDX-License-Identifier: MIT
// templates/activation.hpp: names, parsing and the device function of each activation.
#include <rocmtpl/templates/activation.hpp>

#include <gtest/gtest.h>

#include <set>
#include <string>

namespace {
using rocmtpl::templates::activation;
using rocmtpl::templates::activation_device_function;
using rocmtpl::templates::all_activations;
using rocmtpl::templates::parse_activation;

TEST(Activation, NamesRoundTripAndAreUnique) {
  std::set<std::string_view> names;
  for (auto a : all_activations) {
    EXPECT_EQ(parse_activation(to_string(a)), a);
    names.insert(to_string(a));
  }
  EXPECT_EQ(names.size(), all_activations.size());
  EXPECT_EQ(to_string(activation::gelu), "gelu");
}

TEST(Activation, UnknownNameIsATypedErrorListingTheNames) {
  try {
    (void)parse_activation("tanh");
    ADD_FAILURE() << "no error";
  } catch (const rocmtpl::invalid_argument_error& e) {
    EXPECT_NE(std::string(e.what()).find("'tanh'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("none, relu, gelu, silu or sigmoid"), std::string::npos) << e.what();
  }
}

TEST(Activation, DeviceFunctionPerActivation) {
  EXPECT_EQ(activation_device_function(activation::none),
            "__device__ __forceinline__ float apply_activation(float v) { return v; }");
  EXPECT_NE(activation_device_function(activation::relu).find("return v > 0.0f ? v : 0.0f;"), std::string::npos);
  EXPECT_NE(activation_device_function(activation::gelu).find("rocmtpl_dev::gelu(v)"), std::string::npos);
  EXPECT_NE(activation_device_function(activation::silu).find("return v / (1.0f + expf(-v));"), std::string::npos);
  EXPECT_NE(activation_device_function(activation::sigmoid).find("return 1.0f / (1.0f + expf(-v));"),
            std::string::npos);
}
}  // namespace
