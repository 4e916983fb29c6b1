// SPDX-License-Identifier: MIT
// runtime/db/descriptor_json.hpp: a problem descriptor's JSON form round-trips, names its kind, and a
// malformed one is refused naming the field.
#include <rocmtpl/runtime/db/descriptor_json.hpp>
#include <rocmtpl/templates/gemm/descriptor.hpp>
#include <rocmtpl/templates/gemm/policy.hpp>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>

namespace {
using rocmtpl::invalid_argument_error;
using rocmtpl::runtime::descriptor_json;
using rocmtpl::runtime::read_descriptor;
using rocmtpl::templates::gemm_problem;

const gemm_problem sample{.m = 40,
                          .n = 24,
                          .k = 16,
                          .batch = 4,
                          .type = rocmtpl::dtype::bf16,
                          .layout = "cr",
                          .act = rocmtpl::templates::activation::silu,
                          .alpha = 0.25F,
                          .bias = true,
                          .symbolic = {"B", "M"}};

TEST(DescriptorJson, RoundTripsEveryField) {
  const auto text = descriptor_json(sample);
  const auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j.at("kind"), "gemm");
  EXPECT_EQ(j.at("dtype"), "bfloat16");
  EXPECT_EQ(j.at("activation"), "silu");
  EXPECT_EQ(j.at("symbolic"), (nlohmann::json{"B", "M"}));
  const auto back = read_descriptor<gemm_problem>(text);
  ASSERT_TRUE(back.has_value());
  EXPECT_EQ(*back, sample);
}

TEST(DescriptorJson, EmptyTextOrAnotherKindIsNone) {
  EXPECT_FALSE(read_descriptor<gemm_problem>("").has_value());
  EXPECT_FALSE(read_descriptor<gemm_problem>(R"({"kind": "elementwise", "n": 4})").has_value());
}

TEST(DescriptorJson, MalformedDescriptorsNameTheField) {
  auto message = [](const std::string& text) {
    try {
      (void)read_descriptor<gemm_problem>(text);
    } catch (const invalid_argument_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("{not json").find("not a JSON object"), std::string::npos);
  auto j = nlohmann::json::parse(descriptor_json(sample));
  j.erase("layout");
  EXPECT_NE(message(j.dump()).find("no field 'layout'"), std::string::npos) << message(j.dump());
  j = nlohmann::json::parse(descriptor_json(sample));
  j["m"] = "forty";
  EXPECT_NE(message(j.dump()).find("field 'm'"), std::string::npos) << message(j.dump());
  j = nlohmann::json::parse(descriptor_json(sample));
  j["activation"] = "tanh-ish";
  EXPECT_NE(message(j.dump()).find("field 'activation'"), std::string::npos) << message(j.dump());
}

}  // namespace
