// SPDX-License-Identifier: MIT
#include <rocmtpl/codegen/kernel_args.hpp>

#include <gtest/gtest.h>

namespace {
using rocmtpl::buffer;
using rocmtpl::dtype;
using rocmtpl::layout;
using rocmtpl::sym_expr;

const sym_expr M = sym_expr::symbol("M");
const sym_expr N = sym_expr::symbol("N");
const sym_expr K = sym_expr::symbol("K");

TEST(KernelArgs, CppArgdefsInStableOrder) {
  rocmtpl::kernel_args args;
  args.add_input(buffer("x", layout::row_major(dtype::f16, {M, K})), "X");
  args.add_input(buffer("w", layout::row_major(dtype::bf16, {K, N})), "W");
  args.add_output(buffer("y", layout::row_major(dtype::f32, {M, N})), "Y");
  args.add_runtime_arg({"split_k", "int32_t"});
  EXPECT_EQ(args.size_symbols(), (std::vector<std::string>{"M", "K", "N"}));
  EXPECT_EQ(args.size_params(), (std::vector<std::string>{"u_M", "u_K", "u_N"}));
  EXPECT_EQ(args.cpp_argdefs(),
            (std::vector<std::string>{"const uint16_t* X", "const uint16_t* W", "float* Y", "int64_t u_M",
                                      "int64_t u_K", "int64_t u_N", "int32_t split_k"}));
  EXPECT_EQ(args.call_args(), (std::vector<std::string>{"x", "w", "y", "M", "K", "N", "split_k"}));
}

// The run-time description of the entry's parameters: the same order and types as cpp_argdefs(),
// with each parameter's kind; the declaration adds the fixed tail.
TEST(KernelArgs, SignatureDescribesEveryParameter) {
  rocmtpl::kernel_args args;
  args.add_input(buffer("x", layout::row_major(dtype::f16, {M, K})), "X");
  args.add_output(buffer("y", layout::row_major(dtype::f32, {M})), "Y");
  args.add_runtime_arg({"split_k", "int32_t"});
  using rocmtpl::param_kind;
  const auto sig = args.signature();
  EXPECT_EQ(sig.params, (std::vector<rocmtpl::entry_param>{{"X", param_kind::tensor_in, "const uint16_t*"},
                                                           {"Y", param_kind::tensor_out, "float*"},
                                                           {"u_M", param_kind::size, "int64_t"},
                                                           {"u_K", param_kind::size, "int64_t"},
                                                           {"split_k", param_kind::runtime_arg, "int32_t"}}));
  EXPECT_EQ(sig.argdefs(), args.cpp_argdefs());
  EXPECT_EQ(sig.tensor_count(), 2U);
  EXPECT_EQ(sig.extra_count(), 3U);
  EXPECT_EQ(sig.count(param_kind::runtime_arg), 1U);
  EXPECT_EQ(sig.declaration("k"),
            "int k(const uint16_t* X, float* Y, int64_t u_M, int64_t u_K, int32_t split_k, size_t* workspace_size, "
            "uint8_t* workspace, hipStream_t stream)");
  EXPECT_EQ(sig.without_runtime_args().params.size(), 4U);
  EXPECT_EQ(sig.without_runtime_args().declaration("k").find("split_k"), std::string::npos);
  EXPECT_NO_THROW(sig.validate());
}

TEST(KernelArgs, SignatureValidationRefusesBrokenDescriptions) {
  using rocmtpl::param_kind;
  auto refused = [](std::vector<rocmtpl::entry_param> params) {
    try {
      rocmtpl::entry_signature{std::move(params)}.validate();
    } catch (const rocmtpl::invalid_argument_error&) {
      return true;
    }
    return false;
  };
  const rocmtpl::entry_param in{"X", param_kind::tensor_in, "const float*"};
  const rocmtpl::entry_param out{"Y", param_kind::tensor_out, "float*"};
  const rocmtpl::entry_param size{"u_M", param_kind::size, "int64_t"};
  EXPECT_FALSE(refused({in, out, size}));
  EXPECT_TRUE(refused({out, in}));                                        // out of ABI order
  EXPECT_TRUE(refused({in, {"X", param_kind::tensor_out, "float*"}}));    // a name twice
  EXPECT_TRUE(refused({{"X", param_kind::tensor_in, "float*"}}));         // an input without const
  EXPECT_TRUE(refused({{"Y", param_kind::tensor_out, "const float*"}}));  // a const output
  EXPECT_TRUE(refused({{"n", param_kind::size, "int32_t"}}));             // sizes are int64_t
  EXPECT_TRUE(refused({{"r", param_kind::runtime_arg, "float"}}));        // runtime args are integers
  EXPECT_TRUE(refused({{"9x", param_kind::size, "int64_t"}}));            // not an identifier
}

TEST(KernelArgs, SameBufferTwiceIsOneParameter) {
  rocmtpl::kernel_args args;
  buffer x("x", layout::row_major(dtype::f32, {4}));
  args.add_input(x, "A");
  args.add_input(x, "B");
  EXPECT_EQ(args.cpp_argdefs(), (std::vector<std::string>{"const float* A"}));
  EXPECT_EQ(args.arg_name_of("x"), "A");
}

TEST(KernelArgs, RejectsDuplicateAndBadNames) {
  rocmtpl::kernel_args args;
  args.add_input(buffer("x", layout::row_major(dtype::f32, {4})), "A");
  EXPECT_THROW(args.add_input(buffer("y", layout::row_major(dtype::f32, {4})), "A"), rocmtpl::invalid_argument_error);
  EXPECT_THROW(args.add_output(buffer("z", layout::row_major(dtype::f32, {4})), "not valid"),
               rocmtpl::invalid_argument_error);
  EXPECT_THROW(args.add_runtime_arg({"A", "int32_t"}), rocmtpl::invalid_argument_error);
  EXPECT_THROW(args.add_runtime_arg({"alpha", "float"}), rocmtpl::invalid_argument_error);
}

TEST(KernelArgs, SymbolsNamedLikeParametersDoNotCollide) {  // issue 8: size parameters are u_<symbol>
  rocmtpl::kernel_args args;
  args.add_input(buffer("x", layout::row_major(dtype::f32, {sym_expr::symbol("A")})), "A");
  args.add_runtime_arg({"split_k", "int32_t"});
  args.add_output(buffer("y", layout::row_major(dtype::f32, {sym_expr::symbol("split_k")})), "Y");
  EXPECT_EQ(args.cpp_argdefs(), (std::vector<std::string>{"const float* A", "float* Y", "int64_t u_A",
                                                          "int64_t u_split_k", "int32_t split_k"}));
}

TEST(KernelArgs, SizeParameterCollidingWithATensorParameterIsAnError) {
  rocmtpl::kernel_args args;
  args.add_input(buffer("x", layout::row_major(dtype::f32, {sym_expr::symbol("A")})), "u_A");
  EXPECT_THROW((void)args.cpp_argdefs(), rocmtpl::invalid_argument_error);
}

TEST(KernelArgs, RefusesKeywordsAndAbiNames) {
  for (const char* bad : {"int", "and", "stream", "workspace", "workspace_size", "class", "_Bool", "2x"}) {
    rocmtpl::kernel_args args;
    EXPECT_THROW(args.add_input(buffer("x", layout::row_major(dtype::f32, {4})), bad), rocmtpl::invalid_argument_error)
        << bad;
    EXPECT_THROW(args.add_runtime_arg({bad, "int32_t"}), rocmtpl::invalid_argument_error) << bad;
  }
}
// The reference's size_args(): the template names its size arguments and their order; tensors may
// use only those symbols, and a named symbol no tensor uses is still a parameter.
TEST(KernelArgs, NamedSizeArgumentsReplaceTheCollectedSymbols) {
  rocmtpl::kernel_args args;
  args.name_size_args({"N", "K", "M", "L"});
  args.add_input(buffer("x", layout::row_major(dtype::f32, {M, K})), "X");
  args.add_output(buffer("y", layout::row_major(dtype::f32, {M, N})), "Y");
  EXPECT_EQ(args.size_symbols(), (std::vector<std::string>{"N", "K", "M", "L"}));
  EXPECT_EQ(args.cpp_argdefs(), (std::vector<std::string>{"const float* X", "float* Y", "int64_t u_N", "int64_t u_K",
                                                          "int64_t u_M", "int64_t u_L"}));
  rocmtpl::kernel_args missing;
  missing.name_size_args({"M"});
  try {
    missing.add_input(buffer("x", layout::row_major(dtype::f32, {M, K})), "X");
    FAIL() << "expected invalid_argument_error";
  } catch (const rocmtpl::invalid_argument_error& e) {
    EXPECT_NE(std::string(e.what()).find("uses size symbol 'K', which is not among the named size arguments [M]"),
              std::string::npos)
        << e.what();
  }
}

TEST(KernelArgs, SizeArgumentsAreNamedFirstOnceEach) {
  rocmtpl::kernel_args late;
  late.add_input(buffer("x", layout::row_major(dtype::f32, {M})), "X");
  EXPECT_THROW(late.name_size_args({"M"}), rocmtpl::invalid_argument_error);
  rocmtpl::kernel_args twice;
  EXPECT_THROW(twice.name_size_args({"M", "N", "M"}), rocmtpl::invalid_argument_error);
  EXPECT_THROW(twice.name_size_args({"not a name"}), rocmtpl::invalid_argument_error);
  twice.name_size_args({});  // none: every tensor must be static
  EXPECT_THROW(twice.add_input(buffer("x", layout::row_major(dtype::f32, {M})), "X"), rocmtpl::invalid_argument_error);
  twice.add_input(buffer("s", layout::row_major(dtype::f32, {4})), "S");
  EXPECT_TRUE(twice.size_symbols().empty());
}

}  // namespace
