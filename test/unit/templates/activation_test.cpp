// SPDX-License-Identifier: MIT
// templates/activation.hpp: the template layer's names of the one activation set
// (codegen/activation.hpp tests the table itself).
#include <rocmtpl/templates/activation.hpp>

#include <gtest/gtest.h>

#include <string>
#include <type_traits>

namespace {
using rocmtpl::templates::activation;
using rocmtpl::templates::activation_device_function;
using rocmtpl::templates::all_activations;
using rocmtpl::templates::parse_activation;

// One enum: the templates' activation is the chains' (epilogue_op::activation takes the same values).
static_assert(std::is_same_v<activation, rocmtpl::activation>);
static_assert(rocmtpl::templates::to_string(activation::silu) == "silu");

TEST(Activation, TheTemplateNamesReachTheOneSet) {
  EXPECT_EQ(all_activations.size(), 7U);
  for (auto a : all_activations) EXPECT_EQ(parse_activation(rocmtpl::templates::to_string(a)), a);
  EXPECT_EQ(parse_activation("gelu_tanh"), activation::gelu_tanh);
  EXPECT_THROW((void)parse_activation("swish"), rocmtpl::invalid_argument_error);
}

TEST(Activation, DeviceFunctionPerActivation) {
  EXPECT_EQ(activation_device_function(activation::none),
            "__device__ __forceinline__ float apply_activation(float v) { return v; }");
  EXPECT_NE(activation_device_function(activation::relu).find("return v > 0.0f ? v : 0.0f;"), std::string::npos);
  EXPECT_NE(activation_device_function(activation::gelu).find("return rocmtpl_dev::gelu(v);"), std::string::npos);
  EXPECT_NE(activation_device_function(activation::gelu_tanh).find("return rocmtpl_dev::gelu_tanh(v);"),
            std::string::npos);
  EXPECT_NE(activation_device_function(activation::silu).find("return rocmtpl_dev::silu(v);"), std::string::npos);
  EXPECT_NE(activation_device_function(activation::sigmoid).find("return rocmtpl_dev::sigmoid(v);"), std::string::npos);
  EXPECT_NE(activation_device_function(activation::tanh).find("return tanhf(v);"), std::string::npos);
}
}  // namespace
