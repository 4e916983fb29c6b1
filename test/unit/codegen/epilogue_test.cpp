// SPDX-License-Identifier: MIT
// codegen/epilogue.hpp: epilogue chains (text, operands, concatenation), the operand views of each
// broadcast and what they refuse, and the rendered device function every path calls (issue 12).
#include <rocmtpl/codegen/epilogue.hpp>
#include <rocmtpl/device/hip_portable.hpp>

#include <gtest/gtest.h>

#include <limits>
#include <string>
#include <vector>

namespace {
using namespace rocmtpl;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

epilogue_chain bias_gelu_mul() {
  return {{epilogue_op::add(0, epilogue_broadcast::row_vector), epilogue_op::activation(activation::gelu),
           epilogue_op::mul(1, epilogue_broadcast::full)}};
}

TEST(EpilogueChain, TextNamesEveryOpInOrder) {
  EXPECT_EQ(bias_gelu_mul().to_string(), "add(in0 row_vector) -> gelu -> mul(in1 full)");
  const epilogue_chain c{{epilogue_op::scale(0.5F), epilogue_op::sub(0, epilogue_broadcast::column_vector),
                          epilogue_op::cast(dtype::bf16), epilogue_op::activation(activation::tanh)}};
  EXPECT_EQ(c.to_string(), "scale(0.5) -> sub(in0 column_vector) -> cast(bfloat16) -> tanh");
  EXPECT_EQ(epilogue_chain{}.to_string(), "identity");
}

// Issue 22 item 5: a scale is rendered as a float literal, so NaN and infinities are refused where
// the op is made (config_error naming the value) and, for a chain assembled by hand, where it renders.
TEST(EpilogueChain, NonFiniteScalesAreRefused) {
  const float nan = std::numeric_limits<float>::quiet_NaN();
  const float inf = std::numeric_limits<float>::infinity();
  try {
    (void)epilogue_op::scale(nan);
    ADD_FAILURE() << "scale(nan) was accepted";
  } catch (const config_error& e) {
    EXPECT_EQ(e.config(), "scale(nan)");
    EXPECT_TRUE(contains(e.what(), "rocmtpl: epilogue: invalid config scale(nan): the scale of op 0 must be a finite"))
        << e.what();
  }
  EXPECT_THROW((void)epilogue_op::scale(-inf), config_error);
  epilogue_chain c{{epilogue_op::scale(2.0F)}};
  c.ops[0].scalar = inf;
  EXPECT_THROW(c.validate(), config_error);
  EXPECT_EQ(c.to_string(), "scale(inf)");  // messages still print it
  const fused_epilogue e{c, {}, buffer("rocmtpl_epilogue_out", layout::row_major(dtype::f32, {4, 4})), {}};
  EXPECT_THROW((void)epilogue_operands(e, 1, 4, 4), config_error);
  EXPECT_NO_THROW(epilogue_chain{{epilogue_op::scale(1e-30F)}}.validate());
}

TEST(EpilogueChain, InputCountAndConcatenationShiftOperands) {
  EXPECT_EQ(bias_gelu_mul().input_count(), 2U);
  const epilogue_chain relu{{epilogue_op::activation(activation::relu)}};
  EXPECT_EQ(relu.input_count(), 0U);
  const auto joined = bias_gelu_mul().then(bias_gelu_mul(), 2);
  EXPECT_EQ(joined.ops.size(), 6U);
  EXPECT_EQ(joined.ops[3], epilogue_op::add(2, epilogue_broadcast::row_vector));
  EXPECT_EQ(joined.ops[5], epilogue_op::mul(3, epilogue_broadcast::full));
  EXPECT_EQ(joined.input_count(), 4U);
  EXPECT_FALSE(epilogue_op::scale(2.0F) == epilogue_op::scale(3.0F));
}

fused_epilogue make(const std::vector<buffer>& inputs, epilogue_chain chain) {
  fused_epilogue e;
  e.chain = std::move(chain);
  e.inputs = inputs;
  e.output = buffer("y", layout::row_major(dtype::f16, {sym_expr::symbol("M"), 64}));
  return e;
}

TEST(EpilogueOperands, BroadcastsGiveZeroStrides) {
  const auto m = sym_expr::symbol("M");
  const auto e =
      make({buffer("bias", layout::row_major(dtype::f32, {64})), buffer("d", layout::row_major(dtype::bf16, {m, 64})),
            buffer("r", layout::row_major(dtype::f16, {m}))},
           {{epilogue_op::add(0, epilogue_broadcast::row_vector), epilogue_op::mul(1, epilogue_broadcast::full),
             epilogue_op::sub(2, epilogue_broadcast::column_vector)}});
  const auto ops = epilogue_operands(e, sym_expr(1), m, sym_expr(64));
  ASSERT_EQ(ops.size(), 3U);
  EXPECT_EQ(ops[0].stride_r, sym_expr(0));
  EXPECT_EQ(ops[0].stride_c, sym_expr(1));
  EXPECT_EQ(ops[1].stride_r, sym_expr(64));
  EXPECT_EQ(ops[1].stride_c, sym_expr(1));
  EXPECT_EQ(ops[2].stride_r, sym_expr(1));
  EXPECT_EQ(ops[2].stride_c, sym_expr(0));
  EXPECT_EQ(ops[1].node->name(), "d");
}

TEST(EpilogueOperands, RefusesShapesThatDoNotFitTheBroadcast) {
  const auto m = sym_expr::symbol("M");
  const auto wrong = make({buffer("bias", layout::row_major(dtype::f32, {32}))},
                          {{epilogue_op::add(0, epilogue_broadcast::row_vector)}});
  try {
    (void)epilogue_operands(wrong, sym_expr(1), m, sym_expr(64));
    FAIL() << "expected a refusal";
  } catch (const invalid_argument_error& err) {
    EXPECT_TRUE(contains(err.what(), "input bias")) << err.what();
    EXPECT_TRUE(contains(err.what(), "[N] (a row vector)")) << err.what();
  }
  const auto missing = make({}, {{epilogue_op::mul(0, epilogue_broadcast::full)}});
  EXPECT_THROW((void)epilogue_operands(missing, sym_expr(1), m, sym_expr(64)), invalid_argument_error);
  const auto twice = make(
      {buffer("v", layout::row_major(dtype::f32, {64}))},
      {{epilogue_op::add(0, epilogue_broadcast::row_vector), epilogue_op::mul(0, epilogue_broadcast::column_vector)}});
  EXPECT_THROW((void)epilogue_operands(twice, sym_expr(1), m, sym_expr(64)), invalid_argument_error);
  const auto ints =
      make({buffer("i", layout::row_major(dtype::i32, {m, 64}))}, {{epilogue_op::add(0, epilogue_broadcast::full)}});
  EXPECT_THROW((void)epilogue_operands(ints, sym_expr(1), m, sym_expr(64)), invalid_argument_error);
}

TEST(EpilogueDeviceCode, OneFunctionAppliesTheChainInOrder) {
  const auto m = sym_expr::symbol("M");
  const auto e =
      make({buffer("bias", layout::row_major(dtype::f16, {64})), buffer("d", layout::row_major(dtype::f32, {m, 64}))},
           bias_gelu_mul());
  const auto ops = epilogue_operands(e, sym_expr(1), m, sym_expr(64));
  const auto code = epilogue_device_code(e.chain, ops, {"M"});
  EXPECT_TRUE(contains(code, "// Fused epilogue: add(in0 row_vector) -> gelu -> mul(in1 full)")) << code;
  EXPECT_TRUE(contains(code, "struct rocmtpl_epilogue_args {")) << code;
  EXPECT_TRUE(contains(code, "rocmtpl_epilogue_make(const uint16_t* E0, const float* E1, int64_t M)")) << code;
  EXPECT_TRUE(contains(code, "float rocmtpl_epilogue(const rocmtpl_epilogue_args& ea, int64_t batch, int64_t row,"))
      << code;
  // The row vector is indexed by the column only, the full tensor by both.
  const auto add = code.find("v = v + rocmtpl_epi_f16(ea.e0[ea.e0_offset + batch * ea.e0_stride_b + col");
  const auto gelu = code.find("rocmtpl_dev::gelu(v)");
  const auto mul = code.find("v = v * static_cast<float>(ea.e1[ea.e1_offset + batch * ea.e1_stride_b + row * ");
  ASSERT_NE(add, std::string::npos) << code;
  ASSERT_NE(gelu, std::string::npos) << code;
  ASSERT_NE(mul, std::string::npos) << code;
  EXPECT_LT(add, gelu);
  EXPECT_LT(gelu, mul);
  EXPECT_EQ(epilogue_make_call(2, "E", {"M"}), "rocmtpl_epilogue_make(E0, E1, M)");
  EXPECT_EQ(epilogue_params(ops, "E", true), ", const uint16_t* __restrict__ E0, const float* __restrict__ E1");
}

TEST(EpilogueDeviceCode, CastsRoundAndScalesMultiply) {
  const epilogue_chain c{{epilogue_op::cast(dtype::f16), epilogue_op::scale(0.25F), epilogue_op::cast(dtype::bf16),
                          epilogue_op::cast(dtype::f32)}};
  const auto code = epilogue_device_code(c, {}, {});
  EXPECT_TRUE(contains(code, "v = rocmtpl_epi_round_f16(v);")) << code;
  EXPECT_TRUE(contains(code, "v = 0.25f * v;")) << code;
  EXPECT_TRUE(contains(code, "v = rocmtpl_epi_round_bf16(v);")) << code;
  // Hardware conversions on NVIDIA (cvt instructions), not the portable header's bit operations.
  EXPECT_TRUE(contains(code, "return __half2float(__float2half_rn(v));")) << code;
  EXPECT_TRUE(contains(code, "v = v;")) << code;  // f32: nothing to round
}

// Issue 25: values staged in a 16-bit type (the Hopper path's rows) skip the chain's leading cast
// to that type in the vector form only; a leading cast to another type, or a later one, stays.
TEST(EpilogueDeviceCode, VectorFormSkipsALeadingCastToTheStagedType) {
  const epilogue_chain c{{epilogue_op::cast(dtype::f16), epilogue_op::scale(0.5F), epilogue_op::cast(dtype::f16)}};
  const auto staged = epilogue_device_code(c, {}, {}, dtype::f16);
  EXPECT_TRUE(contains(staged, "    v = rocmtpl_epi_round_f16(v);\n    v = 0.5f * v;\n")) << staged;  // scalar
  EXPECT_TRUE(contains(staged,
                       "        float v = vs[e];\n        v = 0.5f * v;\n        v = rocmtpl_epi_round_f16(v);\n"
                       "        vs[e] = v;\n"))
      << staged;
  EXPECT_TRUE(contains(epilogue_device_code(c, {}, {}),
                       "        float v = vs[e];\n        v = rocmtpl_epi_round_f16(v);\n        v = 0.5f * v;\n"));
  EXPECT_TRUE(contains(epilogue_device_code(c, {}, {}, dtype::bf16),
                       "        float v = vs[e];\n        v = rocmtpl_epi_round_f16(v);\n        v = 0.5f * v;\n"));
}

// Issue 25: an activation of a chain is `v = <its table text>;` in both forms (the text the
// templates' apply_activation() returns); none writes no statement.
TEST(EpilogueDeviceCode, EveryActivationIsItsTableText) {
  for (const auto a : all_activations) {
    const epilogue_chain c{{epilogue_op::scale(2.0F), epilogue_op::activation(a)}};
    const auto code = epilogue_device_code(c, {}, {});
    EXPECT_TRUE(contains(code, "// Fused epilogue: scale(2.0) -> " + std::string(to_string(a)) + "\n")) << code;
    const std::string stmt = a == activation::none ? "" : "v = " + std::string(activation_expression(a)) + ";\n";
    EXPECT_TRUE(contains(code, "    v = 2.0f * v;\n" + (stmt.empty() ? "" : "    " + stmt) + "    return v;\n"))
        << code;
    EXPECT_TRUE(
        contains(code, "        v = 2.0f * v;\n" + (stmt.empty() ? "" : "        " + stmt) + "        vs[e] = v;\n"))
        << code;
  }
  const auto tanh_form = epilogue_device_code({{epilogue_op::activation(activation::gelu_tanh)}}, {}, {});
  EXPECT_TRUE(contains(tanh_form, "    v = rocmtpl_dev::gelu_tanh(v);\n")) << tanh_form;
}

// Issue 12: the vector form reads a row's full operands from a hoisted row start, a column segment
// of a row vector once, 8 values with one 16-byte load where contiguous, and applies the same
// statements as the scalar form.
TEST(EpilogueDeviceCode, VectorFormHoistsRowsAndLoadsSegments) {
  const auto m = sym_expr::symbol("M");
  const auto e =
      make({buffer("bias", layout::row_major(dtype::f32, {64})), buffer("d", layout::row_major(dtype::f16, {m, 64})),
            buffer("r", layout::row_major(dtype::bf16, {m}))},
           {{epilogue_op::add(0, epilogue_broadcast::row_vector), epilogue_op::activation(activation::gelu),
             epilogue_op::mul(1, epilogue_broadcast::full), epilogue_op::sub(2, epilogue_broadcast::column_vector)}});
  const auto ops = epilogue_operands(e, sym_expr(1), m, sym_expr(64));
  const auto code = epilogue_device_code(e.chain, ops, {"M"});
  // Row starts and column-vector values once per row; strides that are constants are folded in.
  EXPECT_TRUE(contains(code, "r.e1 = ea.e1 + (0 + batch * 0 + row * 64);")) << code;
  EXPECT_TRUE(contains(code, "r.e2 = rocmtpl_epi_bf16(ea.e2[0 + batch * 0 + row * 1]);")) << code;
  EXPECT_TRUE(contains(code, "rocmtpl_dev::load8(ea.e0 + (0 + static_cast<int64_t>(col) * 1), 1, c.e0);")) << code;
  EXPECT_TRUE(contains(code, "rocmtpl_dev::load8(r.e1 + static_cast<int64_t>(col) * 1, 1, s.e1);")) << code;
  EXPECT_TRUE(contains(code, "uint32_t e0[8];")) << code;  // 8 f32 words of the row vector
  EXPECT_TRUE(contains(code, "uint32_t e1[4];")) << code;  // 8 f16 values in 16 bytes
  // The loads are the portable header's (16 bytes when contiguous and aligned), not the chain's own.
  EXPECT_FALSE(contains(code, "void load8(")) << code;
  EXPECT_TRUE(contains(std::string(rocmtpl::device::portable_header_source), "const uint4 q = ld16(p);"));
  EXPECT_TRUE(contains(code, "rocmtpl_epi_f16x2(es.e1[e], x1[2 * e], x1[2 * e + 1]);")) << code;
  EXPECT_TRUE(contains(code, "const float2 f = __half22float2(h);")) << code;
  // The same statements as the scalar form, on x<i>[e] and the row's column value.
  EXPECT_TRUE(contains(code,
                       "        v = v + x0[e];\n        v = rocmtpl_dev::gelu(v);\n"
                       "        v = v * x1[e];\n        v = v - er.e2;\n"))
      << code;
  EXPECT_TRUE(contains(code, "    v = rocmtpl_dev::gelu(v);\n")) << code;
  // A symbolic stride is read from the arguments (the 16-byte path checks it at run time).
  const auto t =
      make({buffer("d", layout::col_major(dtype::f16, {m, 64}))}, {{epilogue_op::mul(0, epilogue_broadcast::full)}});
  const auto tcode = epilogue_device_code(t.chain, epilogue_operands(t, sym_expr(1), m, sym_expr(64)), {"M"});
  EXPECT_TRUE(
      contains(tcode, "rocmtpl_dev::load8(r.e0 + static_cast<int64_t>(col) * ea.e0_stride_c, ea.e0_stride_c, s.e0);"))
      << tcode;
}

}  // namespace
