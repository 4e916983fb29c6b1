// SPDX-License-Identifier: MIT
// rocmtpl/kernel/typed_template.hpp: a template made from buffer types renders, byte for byte, what the
// runtime-value route renders for the same problem; its choices carry the signature, which the policy
// derives at compile time (buffer names, dtypes and ranks that disagree are compile errors:
// test/fail/typed_*); unnamed inputs take the policy's names; a runtime argument that depends on a
// run-time option, or a Residual named Bias, is a signature_error at run time.
#include <rocmtpl/kernel/typed_template.hpp>
#include <rocmtpl/templates/elementwise.hpp>
#include <rocmtpl/templates/gemm.hpp>
#include <rocmtpl/templates/pointwise.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <type_traits>
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
  const auto typed_all = typed.generate_all(hints<"M">{100});
  const auto runtime_all = runtime.generate_all({{"M", 100}});
  ASSERT_EQ(typed_all.size(), runtime_all.size());
  ASSERT_GT(typed_all.size(), 1u);
  for (std::size_t i = 0; i < typed_all.size(); ++i) {
    EXPECT_EQ(typed_all[i].source(), runtime_all[i].source()) << "choice " << i;
  }
  const auto caller = typed.generate(runtime.policy().configs().front(), hints<"M">{100});
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
  const gemm_config config = gemm_config{}.with_split_k(2);
  const auto caller = typed.generate(config, hints<"M">{8});
  EXPECT_EQ(caller.source(), runtime.generate(config, {{"M", 8}}).source());
  EXPECT_EQ(caller.runtime_arg_values(), (std::vector<runtime_arg_value>{2}));
  EXPECT_NE(caller.source().find("rocm_gemm(const uint16_t* Bias, const uint16_t* X, const uint16_t* W, uint16_t* Y, "
                                 "int64_t u_M, int32_t split_k,"),
            std::string::npos);
}

TEST(TypedTemplate, RuntimeArgumentsMustMatchThePolicysOption) {
  // split_k is a runtime argument exactly with gemm_options::runtime_split_k, a run-time option;
  // another name or type is a compile error (test/fail/typed_runtime_args_differ.cpp).
  EXPECT_THROW((void)make_template(gemm_policy{}, inputs<x_t, w_t>{}, outputs<y_t>{},
                                   runtime_args<arg<"split_k", std::int32_t>>{}),
               signature_error);
  EXPECT_THROW((void)make_template(gemm_policy({.runtime_split_k = true}), inputs<x_t, w_t>{}, outputs<y_t>{}),
               signature_error);
}

TEST(TypedTemplate, TheSignatureIsThePolicys) {
  // The policy derives the signature: the declared buffers' signature is the derived one, and
  // layouts without names take the policy's names (X, W, Y).
  using declared = kernel_signature<inputs<x_t, w_t>, outputs<y_t>>;
  static_assert(std::is_same_v<derived_signature_t<gemm_policy, inputs<x_t, w_t>, outputs<y_t>>, declared>);
  static_assert(std::is_same_v<
                derived_signature_t<gemm_policy, inputs<x_t::layout_type, w_t::layout_type>, outputs<y_t::layout_type>>,
                declared>);
  static_assert(declared::declaration_text<"rocm_gemm">.view() ==
                "extern \"C\" PT_EXPORT int rocm_gemm(const uint16_t* X, const uint16_t* W, uint16_t* Y, int64_t "
                "u_M, size_t* workspace_size, uint8_t* workspace, hipStream_t stream)");
  const auto named = make_template(gemm_policy{}, inputs<x_t, w_t>{}, outputs<y_t>{});
  const auto unnamed =
      make_template(gemm_policy{}, inputs<x_t::layout_type, w_t::layout_type>{}, outputs<y_t::layout_type>{});
  static_assert(std::is_same_v<decltype(named), decltype(unnamed)>);
  EXPECT_EQ(named.generate(gemm_config{}, hints<"M">{4}).source(),
            unnamed.generate(gemm_config{}, hints<"M">{4}).source());
}

TEST(TypedTemplate, TheThirdGemmInputIsBiasOrResidualAsTheOptionSays) {
  // The GEMM's third input is Bias, or Residual with gemm_options::residual: a run-time option, so
  // both names compile and rendering checks which one the policy binds.
  using residual_t = static_buffer<"Residual", row_major_layout<f16_t, dims<sym<"M">, ext<32>>>>;
  const auto with_residual =
      make_template(gemm_policy({.residual = true}), inputs<x_t, w_t, residual_t>{}, outputs<y_t>{});
  EXPECT_NE(with_residual.generate(gemm_config{}, hints<"M">{4}).source().find("const uint16_t* Residual"),
            std::string::npos);
  const auto without = make_template(gemm_policy{}, inputs<x_t, w_t, residual_t>{}, outputs<y_t>{});
  try {
    (void)without.generate(gemm_config{}, hints<"M">{4});
    ADD_FAILURE() << "no error";
  } catch (const signature_error& e) {
    EXPECT_NE(std::string(e.what()).find("renders the parameters (const uint16_t* X, const uint16_t* W, const "
                                         "uint16_t* Bias, "),
              std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("the signature declares (const uint16_t* X, const uint16_t* W, const "
                                         "uint16_t* Residual, "),
              std::string::npos)
        << e.what();
  }
}

TEST(TypedTemplate, HintsAreKeyedByTheSignaturesSymbols) {
  // Hints name the signature's symbols in any order; a static problem takes none.
  using bx_t = static_buffer<"X", row_major_layout<f32_t, dims<sym<"B">, sym<"M">, sym<"K">>>>;
  using bw_t = static_buffer<"W", row_major_layout<f32_t, dims<sym<"K">, ext<8>>>>;
  using by_t = static_buffer<"Y", row_major_layout<f32_t, dims<sym<"B">, sym<"M">, ext<8>>>>;
  const auto typed = make_template(gemm_policy{}, inputs<bx_t, bw_t>{}, outputs<by_t>{});
  const auto& runtime = typed.untyped();
  EXPECT_EQ(runtime.size_symbols(), (std::vector<std::string>{"B", "K", "M"}));
  const auto caller = typed.generate(gemm_config{}, hints<"M", "K", "B">{5, 16, 2});
  EXPECT_EQ(caller.source(), runtime.generate(gemm_config{}, {{"B", 2}, {"K", 16}, {"M", 5}}).source());
  EXPECT_EQ(caller.untyped().bmreq().extra_args, (std::vector<runtime_arg_value>{2, 5, 16}));

  using sx_t = static_buffer<"X", row_major_layout<f32_t, dims<ext<4>, ext<8>>>>;
  using sw_t = static_buffer<"W", row_major_layout<f32_t, dims<ext<8>, ext<8>>>>;
  using sy_t = static_buffer<"Y", row_major_layout<f32_t, dims<ext<4>, ext<8>>>>;
  const auto fixed = make_template(gemm_policy{}, inputs<sx_t, sw_t>{}, outputs<sy_t>{});
  EXPECT_FALSE(fixed.generate(gemm_config{}).source().empty());
  EXPECT_EQ(fixed.generate_all().size(), fixed.untyped().generate_all().size());
}

TEST(TypedTemplate, TheRuntimeRouteRefusesAHintForAnUnknownSymbol) {
  const rocm_template<gemm_policy> runtime(
      gemm_policy{},
      {buffer("X", layout::row_major(dtype::f16, {m, 64})), buffer("W", layout::row_major(dtype::f16, {64, 32}))},
      layout::row_major(dtype::f16, {m, 32}));
  for (const auto& call : {+[](const rocm_template<gemm_policy>& t) {
                             (void)t.generate(gemm_config{}, {{"Q", 1}});
                           },
                           +[](const rocm_template<gemm_policy>& t) {
                             (void)t.generate_all({{"M", 8}, {"Q", 1}});
                           },
                           +[](const rocm_template<gemm_policy>& t) {
                             (void)t.generate_reference({{"Q", 1}});
                           }}) {
    try {
      call(runtime);
      ADD_FAILURE() << "no error";
    } catch (const invalid_argument_error& e) {
      EXPECT_EQ(std::string(e.what()),
                "rocmtpl: rocm_template: template 'gemm' has no size symbol 'Q' (a size hint names it); its "
                "symbols: M");
    }
  }
  EXPECT_NO_THROW((void)runtime.generate(gemm_config{}, {{"M", 8}}));
}

TEST(TypedTemplate, NamesAreConstant) {
  static_assert(gemm_policy::name() == "gemm");
  static_assert(elementwise_policy::name() == "elementwise");
  static_assert(rocm_template<gemm_policy>::name() == "gemm");
  constexpr gemm_config config{};
  static_assert(config.name_text() == "bm64_bn64_bk16_tm4_tn4_g8_s2_v4");
  EXPECT_EQ(config.name(), config.name_text().view());
  EXPECT_EQ(config.to_string(), config.to_text().view());
}

TEST(TypedTemplate, Elementwise) {
  using ex_t = static_buffer<"X", row_major_layout<f32_t, dims<sym<"M">, ext<16>>>>;
  using ey_t = static_buffer<"Y", row_major_layout<f32_t, dims<sym<"M">, ext<16>>>>;
  const auto typed = make_template(elementwise_policy({activation::relu}), inputs<ex_t>{}, outputs<ey_t>{});
  const rocm_template<elementwise_policy> runtime(elementwise_policy({activation::relu}),
                                                  {buffer("X", layout::row_major(dtype::f32, {m, 16}))},
                                                  layout::row_major(dtype::f32, {m, 16}));
  EXPECT_EQ(typed.generate(elementwise_config{}, hints<"M">{3}).source(),
            runtime.generate(elementwise_config{}, {{"M", 3}}).source());
}

TEST(TypedTemplate, PointwiseNamesItsChainOperands) {
  // The pointwise template names the chain's operands E0, E1, ...: unnamed layouts take those names.
  using px_t = row_major_layout<f32_t, dims<sym<"M">, ext<16>>>;
  using pe_t = row_major_layout<f32_t, dims<ext<16>>>;
  const epilogue_chain chain{{epilogue_op::add(0, epilogue_broadcast::row_vector)}};
  const auto typed = make_template(templates::pointwise_policy(chain), inputs<px_t, pe_t>{}, outputs<px_t>{});
  static_assert(std::is_same_v<decltype(typed)::signature,
                               kernel_signature<inputs<static_buffer<"X", px_t>, static_buffer<"E0", pe_t>>,
                                                outputs<static_buffer<"Y", px_t>>>>);
  const rocm_template<templates::pointwise_policy> runtime(
      templates::pointwise_policy(chain),
      {buffer("X", layout::row_major(dtype::f32, {m, 16})), buffer("E0", layout::row_major(dtype::f32, {16}))},
      layout::row_major(dtype::f32, {m, 16}));
  EXPECT_EQ(typed.generate(elementwise_config{}, hints<"M">{3}).source(),
            runtime.generate(elementwise_config{}, {{"M", 3}}).source());
}

}  // namespace
