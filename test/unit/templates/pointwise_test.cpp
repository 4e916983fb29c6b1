// SPDX-License-Identifier: MIT
// templates/pointwise.hpp: the pointwise template renders its chain as the shared epilogue device
// function, binds X, the chain's operands and Y, carries its chain on its node, and refuses inputs
// that do not fit the chain (issue 12).
#include <rocmtpl/rocm_template.hpp>
#include <rocmtpl/templates/pointwise.hpp>

#include <gtest/gtest.h>

#include <limits>
#include <string>

namespace {
using namespace rocmtpl;
using templates::elementwise_config;
using templates::pointwise_policy;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

const sym_expr M = sym_expr::symbol("M");

epilogue_chain bias_gelu_mul() {
  return {{epilogue_op::add(0, epilogue_broadcast::row_vector), epilogue_op::activation(activation::gelu),
           epilogue_op::mul(1, epilogue_broadcast::full)}};
}

rocm_template<pointwise_policy> make(epilogue_chain c, std::vector<buffer> operands) {
  std::vector<buffer> in{buffer("h", layout::row_major(dtype::f16, {M, 64}))};
  in.insert(in.end(), operands.begin(), operands.end());
  return {pointwise_policy(std::move(c)), in, layout::row_major(dtype::bf16, {M, 64})};
}

TEST(Pointwise, RendersTheChainThroughTheSharedEpilogueFunction) {
  auto t = make(bias_gelu_mul(), {buffer("bias", layout::row_major(dtype::f32, {64})),
                                  buffer("d", layout::row_major(dtype::f16, {M, 64}))});
  auto caller = t.generate(elementwise_config{256}, {{"M", 100}});
  const auto& src = caller.source();
  EXPECT_TRUE(contains(src, "// pointwise: Y = (add(in0 row_vector) -> gelu -> mul(in1 full))(X)")) << src;
  EXPECT_TRUE(contains(src, "const rocmtpl_epilogue_args ea = rocmtpl_epilogue_make(E0, E1, u_M);")) << src;
  EXPECT_TRUE(contains(src, "rocmtpl_dev::float_to_bf16_bits(rocmtpl_epilogue(ea, b, gm, gn, v))")) << src;
  EXPECT_TRUE(contains(src, "const uint16_t* X, const float* E0, const uint16_t* E1, uint16_t* Y, int64_t u_M")) << src;
  ASSERT_TRUE(caller.launch().has_value());
  const auto node = caller.output_node();
  ASSERT_TRUE(node.pointwise().has_value());
  EXPECT_EQ(*node.pointwise(), bias_gelu_mul());
  EXPECT_EQ(node.workspace_bytes(), std::optional<sym_expr>(sym_expr(0)));
}

// Issue 22 item 5: a chain's scale is rendered as a float literal; the template refuses NaN and
// infinities when it is made, naming the op and the value.
TEST(Pointwise, RefusesNonFiniteScalesWhenMade) {
  for (const float bad : {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(),
                          -std::numeric_limits<float>::infinity()}) {
    epilogue_chain c{{epilogue_op::activation(activation::relu), epilogue_op::scale(2.0F)}};
    c.ops[1].scalar = bad;  // past epilogue_op::scale(), which refuses it too
    try {
      (void)pointwise_policy(c);
      ADD_FAILURE() << "scale " << bad << " was accepted";
    } catch (const config_error& e) {
      EXPECT_TRUE(contains(e.what(), "rocmtpl: pointwise: invalid config scale(")) << e.what();
      EXPECT_EQ(e.reason(), "the scale of op 1 must be a finite number (it is rendered into the kernel as a literal)");
    }
    EXPECT_THROW((void)epilogue_op::scale(bad), config_error);
  }
  EXPECT_NO_THROW((void)pointwise_policy({{epilogue_op::scale(-std::numeric_limits<float>::max())}}));
}

TEST(Pointwise, RefusesOperandsThatDoNotFitTheChain) {
  // One operand short.
  auto short_of_one = make(bias_gelu_mul(), {buffer("bias", layout::row_major(dtype::f32, {64}))});
  EXPECT_THROW((void)short_of_one.generate(elementwise_config{}, {{"M", 8}}), invalid_argument_error);
  // A row vector of the wrong length.
  const epilogue_chain add{{epilogue_op::add(0, epilogue_broadcast::row_vector)}};
  auto wrong = make(add, {buffer("bias", layout::row_major(dtype::f32, {63}))});
  try {
    (void)wrong.generate(elementwise_config{}, {{"M", 8}});
    FAIL() << "expected a refusal";
  } catch (const invalid_argument_error& e) {
    EXPECT_TRUE(contains(e.what(), "[N] (a row vector)")) << e.what();
  }
  auto bad_config = make(add, {buffer("bias", layout::row_major(dtype::f32, {64}))});
  EXPECT_THROW((void)bad_config.generate(elementwise_config{100}, {{"M", 8}}), config_error);
}

}  // namespace
