// SPDX-License-Identifier: MIT
// codegen/activation.hpp: the one activation set (issue 25): every value has a name and device
// text in the table, names parse back, the text is what every renderer writes, and each device
// function the text calls is one the portable header defines.
#include <rocmtpl/codegen/activation.hpp>
#include <rocmtpl/device/hip_portable.hpp>

#ifdef RTLD_NOW
#error "codegen/activation.hpp is pure: it must not pull in <dlfcn.h>"
#endif

#include <gtest/gtest.h>

#include <cstddef>
#include <set>
#include <string>
#include <string_view>

namespace {
using rocmtpl::activation;
using rocmtpl::activation_device_function;
using rocmtpl::activation_expression;
using rocmtpl::all_activations;
using rocmtpl::parse_activation;

static_assert(rocmtpl::to_string(activation::gelu_tanh) == "gelu_tanh");
static_assert(activation_expression(activation::relu) == "v > 0.0f ? v : 0.0f");
static_assert(all_activations.size() == 7);

TEST(Activation, EveryValueHasOneRowInEnumOrder) {
  // all_activations lists the enum's values 0 .. 6 in order, each once.
  for (std::size_t i = 0; i < all_activations.size(); ++i) EXPECT_EQ(static_cast<std::size_t>(all_activations[i]), i);
  EXPECT_EQ(all_activations.back(), activation::tanh);
  std::set<std::string_view> names, texts;
  for (const auto a : all_activations) {
    EXPECT_FALSE(to_string(a).empty());
    EXPECT_FALSE(activation_expression(a).empty());
    names.insert(to_string(a));
    texts.insert(activation_expression(a));
  }
  EXPECT_EQ(names.size(), all_activations.size());
  EXPECT_EQ(texts.size(), all_activations.size());
}

TEST(Activation, NamesRoundTrip) {
  for (const auto a : all_activations) EXPECT_EQ(parse_activation(to_string(a)), a) << to_string(a);
  EXPECT_EQ(to_string(activation::none), "none");
  EXPECT_EQ(to_string(activation::gelu), "gelu");
  EXPECT_EQ(to_string(activation::gelu_tanh), "gelu_tanh");
  EXPECT_EQ(to_string(activation::tanh), "tanh");
  EXPECT_EQ(parse_activation("tanh"), activation::tanh);
}

TEST(Activation, UnknownNameIsATypedErrorListingEveryName) {
  for (const std::string_view bad : {"", "GELU", "gelu-tanh", "swish"}) {
    try {
      (void)parse_activation(bad);
      ADD_FAILURE() << "'" << bad << "' was accepted";
    } catch (const rocmtpl::invalid_argument_error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("unknown activation '" + std::string(bad) + "'"), std::string::npos) << what;
      EXPECT_NE(what.find("expected none, relu, gelu, gelu_tanh, silu, sigmoid or tanh"), std::string::npos) << what;
    }
  }
}

// The text of each value, as the renderers wrote it before the two enums became one (the GEMM's
// `return <text>;`, a chain's `v = <text>;`): a change here changes every rendered source.
TEST(Activation, DeviceTextPerValue) {
  EXPECT_EQ(activation_expression(activation::none), "v");
  EXPECT_EQ(activation_expression(activation::relu), "v > 0.0f ? v : 0.0f");
  EXPECT_EQ(activation_expression(activation::gelu), "rocmtpl_dev::gelu(v)");
  EXPECT_EQ(activation_expression(activation::gelu_tanh), "rocmtpl_dev::gelu_tanh(v)");
  EXPECT_EQ(activation_expression(activation::silu), "rocmtpl_dev::silu(v)");
  EXPECT_EQ(activation_expression(activation::sigmoid), "rocmtpl_dev::sigmoid(v)");
  EXPECT_EQ(activation_expression(activation::tanh), "tanhf(v)");
  EXPECT_EQ(activation_device_function(activation::none),
            "__device__ __forceinline__ float apply_activation(float v) { return v; }");
  EXPECT_EQ(activation_device_function(activation::gelu_tanh),
            "__device__ __forceinline__ float apply_activation(float v) { return rocmtpl_dev::gelu_tanh(v); }");
  for (const auto a : all_activations) {
    // Appended step by step: g++ 12 at -O3 reports a false -Warray-bounds on the operator+ chain.
    std::string expected(rocmtpl::activation_function_open);
    expected += "return ";
    expected += activation_expression(a);
    expected += ";";
    expected += rocmtpl::activation_function_close;
    EXPECT_EQ(activation_device_function(a), expected);
  }
}

// A `rocmtpl_dev::f(v)` of the table is a device function of rocmtpl_hip_portable.h.
TEST(Activation, DeviceFunctionsAreThePortableHeaders) {
  const std::string_view header = rocmtpl::device::portable_header_source;
  std::size_t called = 0;
  for (const auto a : all_activations) {
    const std::string_view text = activation_expression(a);
    constexpr std::string_view ns = "rocmtpl_dev::";
    if (!text.starts_with(ns)) continue;
    const auto name = text.substr(ns.size(), text.find('(') - ns.size());
    ++called;
    EXPECT_NE(header.find("ROCMTPL_DEVICE ROCMTPL_FORCEINLINE float " + std::string(name) + "(float v) {"),
              std::string_view::npos)
        << name;
  }
  EXPECT_EQ(called, 4U);  // gelu, gelu_tanh, silu, sigmoid
}

}  // namespace
