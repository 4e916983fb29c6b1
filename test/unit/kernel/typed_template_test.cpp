// SPDX-License-Identifier: MIT
// rocmtpl/kernel/typed_template.hpp: a template made from buffer types renders, byte for byte, what the
// runtime-value route renders for the same problem; its choices carry the signature; a policy whose
// runtime arguments or parameter names differ from the signature is a signature_error.
#include <rocmtpl/kernel/typed_template.hpp>
#include <rocmtpl/templates/elementwise.hpp>
#include <rocmtpl/templates/gemm.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace {
using namespace rocmtpl;
using templates::activation;
using templates::elementwise_config;
using templates::elementwise_policy;
using templates::gemm_config;
using templates::gemm_options;
using templates::gemm_policy;

using x_t = static_buffer<"X", row_major_layout<f16_t, dims<sym<"M">, ext<64>>>>;
using w_t = static_buffer<"W", row_major_layout<f16_t, dims<ext<64>, ext<32>>>>;
using y_t = static_buffer<"Y", row_major_layout<f16_t, dims<sym<"M">, ext<32>>>>;

const sym_expr m = sym_expr::symbol("M");

TEST(TypedTemplate, RendersTheSameSourceAsTheRuntimeRoute) {
  const auto typed = make_template(gemm_policy{}, inputs<x_t, w_t>{}, outputs<y_t>{});
  const rocm_template<gemm_policy> runtime(
      gemm_policy{},
      {buffer("X", layout::row_major(dtype::f16, {m, 64})), buffer("W", layout::row_major(dtype::f16, {64, 32}))},
      layout::row_major(dtype::f16, {m, 32}));
  const size_hints hints{{"M", 100}};
  const auto typed_all = typed.generate_all(hints);
  const auto runtime_all = runtime.generate_all(hints);
  ASSERT_EQ(typed_all.size(), runtime_all.size());
  ASSERT_GT(typed_all.size(), 1u);
  for (std::size_t i = 0; i < typed_all.size(); ++i) {
    EXPECT_EQ(typed_all[i].source(), runtime_all[i].source()) << "choice " << i;
  }
  const auto caller = typed.generate(runtime.policy().configs().front(), hints);
  EXPECT_EQ(caller.kernel_name(), "rocm_gemm");
  EXPECT_EQ(caller.declaration(),
            "extern \"C\" PT_EXPORT int rocm_gemm(const uint16_t* X, const uint16_t* W, uint16_t* Y, int64_t u_M, "
            "size_t* workspace_size, uint8_t* workspace, hipStream_t stream)");
  EXPECT_NE(caller.source().find(caller.declaration()), std::string::npos);
  EXPECT_TRUE(caller.runtime_arg_values().empty());
}

TEST(TypedTemplate, KeepsTheInputOrderAndRuntimeArguments) {
  using bias_t = static_buffer<"Bias", row_major_layout<f16_t, dims<ext<32>>>>;
  const gemm_options options{.act = activation::relu, .runtime_split_k = true};
  const auto typed = make_template(gemm_policy(options), inputs<x_t, w_t, bias_t>{}, outputs<y_t>{},
                                   runtime_args<arg<"split_k", std::int32_t>>{}, input_order<2, 0, 1>{});
  const rocm_template<gemm_policy> runtime(
      gemm_policy(options),
      {buffer("X", layout::row_major(dtype::f16, {m, 64})), buffer("W", layout::row_major(dtype::f16, {64, 32})),
       buffer("Bias", layout::row_major(dtype::f16, {32}))},
      layout::row_major(dtype::f16, {m, 32}), std::vector<int>{2, 0, 1});
  gemm_config config{};
  config.split_k = 2;
  const auto caller = typed.generate(config, {{"M", 8}});
  EXPECT_EQ(caller.source(), runtime.generate(config, {{"M", 8}}).source());
  EXPECT_EQ(caller.runtime_arg_values(), (std::vector<runtime_arg_value>{2}));
  EXPECT_NE(caller.source().find("rocm_gemm(const uint16_t* Bias, const uint16_t* X, const uint16_t* W, uint16_t* Y, "
                                 "int64_t u_M, int32_t split_k,"),
            std::string::npos);
}

TEST(TypedTemplate, RuntimeArgumentsMustMatchThePolicy) {
  EXPECT_THROW((void)make_template(gemm_policy{}, inputs<x_t, w_t>{}, outputs<y_t>{},
                                   runtime_args<arg<"split_k", std::int32_t>>{}),
               signature_error);
  EXPECT_THROW((void)make_template(gemm_policy({.runtime_split_k = true}), inputs<x_t, w_t>{}, outputs<y_t>{}),
               signature_error);
  EXPECT_THROW((void)make_template(gemm_policy({.runtime_split_k = true}), inputs<x_t, w_t>{}, outputs<y_t>{},
                                   runtime_args<arg<"split_k", std::int64_t>>{}),
               signature_error);
}

TEST(TypedTemplate, BufferNamesMustBeTheTemplatesParameterNames) {
  using a_t = static_buffer<"A", row_major_layout<f16_t, dims<sym<"M">, ext<64>>>>;
  const auto typed = make_template(gemm_policy{}, inputs<a_t, w_t>{}, outputs<y_t>{});
  try {
    (void)typed.generate(gemm_config{}, {{"M", 4}});
    ADD_FAILURE() << "no error";
  } catch (const signature_error& e) {
    EXPECT_NE(std::string(e.what()).find("renders the parameters (const uint16_t* X, "), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("the signature declares (const uint16_t* A, "), std::string::npos) << e.what();
  }
}

TEST(TypedTemplate, Elementwise) {
  using ex_t = static_buffer<"X", row_major_layout<f32_t, dims<sym<"M">, ext<16>>>>;
  using ey_t = static_buffer<"Y", row_major_layout<f32_t, dims<sym<"M">, ext<16>>>>;
  const auto typed = make_template(elementwise_policy({activation::relu}), inputs<ex_t>{}, outputs<ey_t>{});
  const rocm_template<elementwise_policy> runtime(elementwise_policy({activation::relu}),
                                                  {buffer("X", layout::row_major(dtype::f32, {m, 16}))},
                                                  layout::row_major(dtype::f32, {m, 16}));
  EXPECT_EQ(typed.generate(elementwise_config{}, {{"M", 3}}).source(),
            runtime.generate(elementwise_config{}, {{"M", 3}}).source());
}

}  // namespace
