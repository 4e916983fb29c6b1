// SPDX-License-Identifier: MIT
// codegen/signature.hpp: a compile-time signature's declaration is the text def_kernel() writes
// and the renderer puts into the source (GEMM static, symbolic, bias + input_reorder, residual +
// split_k, explicit strides; elementwise), its argument list and declaration are constants, its
// function type is the C ABI's, and typed_entry passes typed arguments through that type.
#include <rocmtpl/codegen/signature.hpp>

#include <rocmtpl/rocm_template.hpp>

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

// A fully static fp16 GEMM.
using sx = static_buffer<"X", row_major_layout<f16_t, dims<ext<128>, ext<64>>>>;
using sw = static_buffer<"W", row_major_layout<f16_t, dims<ext<64>, ext<32>>>>;
using sy = static_buffer<"Y", row_major_layout<f16_t, dims<ext<128>, ext<32>>>>;
using static_sig = kernel_signature<inputs<sx, sw>, outputs<sy>>;

static_assert(static_sig::declaration_text<"rocm_gemm">.view() ==
              "extern \"C\" PT_EXPORT int rocm_gemm(const uint16_t* X, const uint16_t* W, uint16_t* Y, "
              "size_t* workspace_size, uint8_t* workspace, hipStream_t stream)");
static_assert(static_sig::parameters.size() == 3);
static_assert(static_sig::parameters[0] == param_desc{"X", "uint16_t", param_kind::tensor_in});
static_assert(static_sig::parameters[1] == param_desc{"W", "uint16_t", param_kind::tensor_in});
static_assert(static_sig::parameters[2] == param_desc{"Y", "uint16_t", param_kind::tensor_out});
static_assert(std::is_same_v<static_sig::function_type, int(const std::uint16_t*, const std::uint16_t*, std::uint16_t*,
                                                            std::size_t*, std::uint8_t*, void*)>);

// Symbolic M, runtime split_k: names and order of the example.
using mx = static_buffer<"X", row_major_layout<f16_t, dims<sym<"M">, ext<64>>>>;
using my = static_buffer<"Y", row_major_layout<f16_t, dims<sym<"M">, ext<32>>>>;
using split_sig = kernel_signature<inputs<mx, sw>, outputs<my>, runtime_args<arg<"split_k", std::int32_t>>>;
static_assert(split_sig::declaration_text<"k">.view() ==
              "extern \"C\" PT_EXPORT int k(const uint16_t* X, const uint16_t* W, uint16_t* Y, int64_t u_M, "
              "int32_t split_k, size_t* workspace_size, uint8_t* workspace, hipStream_t stream)");
static_assert(split_sig::parameters[3] == param_desc{"M", "int64_t", param_kind::size});
static_assert(split_sig::parameters[4] == param_desc{"split_k", "int32_t", param_kind::runtime_arg});
static_assert(
    std::is_same_v<split_sig::function_type, int(const std::uint16_t*, const std::uint16_t*, std::uint16_t*,
                                                 std::int64_t, std::int32_t, std::size_t*, std::uint8_t*, void*)>);

// The host types keep fp16 and bf16 apart; the entry's are the storage types.
using bf_x = static_buffer<"X", row_major_layout<bf16_t, dims<ext<4>>>>;
static_assert(std::is_same_v<detail::buffer_params<bf_x>::input::host, const bfloat16_t*>);
static_assert(std::is_same_v<detail::buffer_params<sx>::input::host, const half_t*>);
static_assert(!std::is_convertible_v<const half_t*, const bfloat16_t*>);
static_assert(std::is_same_v<detail::buffer_params<bf_x>::input::storage, const std::uint16_t*>);

// The declaration that def_kernel() writes for `inputs` (template order) and `output`, bound to
// the buffers' own names: what the signature must reproduce.
std::string def_kernel_text(const std::vector<buffer>& inputs, const buffer& output,
                            std::optional<std::vector<int>> order, std::vector<arg_info> runtime = {}) {
  rocm_template_kernel kernel("rocm_gemm", std::move(runtime));
  std::vector<const buffer*> in;
  std::string names;
  for (const auto& b : inputs) {
    in.push_back(&b);
    names += b.name() + ", ";
  }
  return kernel.def_kernel(in, {&output}, names + output.name(), std::move(order));
}

// Checks the signature against def_kernel() and against a GEMM rendered through rocm_template
// (the output's runtime buffer is named buf_out there; the entry's parameter is Y).
template <class Sig>
void expect_matches_gemm(gemm_options options, const size_hints& hints) {
  const auto out = Sig::output_buffers().front();
  EXPECT_EQ(Sig::declaration("rocm_gemm"),
            def_kernel_text(Sig::input_buffers(), out, Sig::input_reorder(), Sig::runtime_arg_info()));
  const rocm_template<gemm_policy> t(gemm_policy(options), Sig::input_buffers(), out.get_layout(),
                                     Sig::input_reorder());
  rocm_template_kernel kernel("rocm_gemm", t.get_runtime_arg_info(), t.get_runtime_arg_values(gemm_config{}));
  const std::string src = t.render(kernel, gemm_config{}).str();
  EXPECT_EQ(kernel.args().cpp_argdefs(), Sig::argdefs());
  // The typed description and the run-time one (what the packed entry and kernel_entry check) agree.
  EXPECT_EQ(Sig::entry(), kernel.args().signature());
  EXPECT_EQ(Sig::entry().declaration("rocm_gemm"),
            Sig::declaration("rocm_gemm").substr(std::string("extern \"C\" PT_EXPORT ").size()));
  EXPECT_NE(src.find(Sig::declaration("rocm_gemm") + " {"), std::string::npos) << Sig::declaration("rocm_gemm");
  EXPECT_EQ(t.generate(gemm_config{}, hints).source(), src);
}

TEST(KernelSignature, StaticGemmMatchesTheRenderer) { expect_matches_gemm<static_sig>({}, {}); }

TEST(KernelSignature, SymbolicGemmMatchesTheRenderer) {
  using x = static_buffer<"X", row_major_layout<f16_t, dims<sym<"M">, sym<"K">>>>;
  using w = static_buffer<"W", row_major_layout<f16_t, dims<sym<"K">, sym<"N">>>>;
  using y = static_buffer<"Y", row_major_layout<f32_t, dims<sym<"M">, sym<"N">>>>;
  using sig = kernel_signature<inputs<x, w>, outputs<y>>;
  EXPECT_EQ(sig::size_symbols(), (std::vector<std::string>{"M", "K", "N"}));
  expect_matches_gemm<sig>({}, {{"M", 10}, {"N", 20}, {"K", 30}});
}

// The golden's addmm: [Bias, X, W] with input_reorder {2, 0, 1}, column-major W, symbolic K.
TEST(KernelSignature, BiasWithInputReorderMatchesTheRenderer) {
  using x = static_buffer<"X", row_major_layout<f16_t, dims<sym<"M">, sym<"K">>>>;
  using w = static_buffer<"W", static_layout<f16_t, dims<sym<"K">, ext<256>>, dims<ext<1>, sym<"K">>>>;
  using bias = static_buffer<"Bias", row_major_layout<f16_t, dims<ext<256>>>>;
  using y = static_buffer<"Y", row_major_layout<f16_t, dims<sym<"M">, ext<256>>>>;
  using sig = kernel_signature<inputs<x, w, bias>, outputs<y>, input_order<2, 0, 1>>;
  static_assert(sig::parameters[0].name == "Bias" && sig::parameters[1].name == "X");
  EXPECT_EQ(sig::input_reorder(), (std::vector<int>{2, 0, 1}));
  EXPECT_EQ(
      sig::declaration("rocm_gemm"),
      "extern \"C\" PT_EXPORT int rocm_gemm(const uint16_t* Bias, const uint16_t* X, const uint16_t* W, uint16_t* "
      "Y, int64_t u_M, int64_t u_K, size_t* workspace_size, uint8_t* workspace, hipStream_t stream)");
  expect_matches_gemm<sig>({activation::gelu, 0.5F}, {{"M", 64}, {"K", 128}});
}

// The golden's batched bf16 GEMM with an f32 Bias, a Residual and runtime split_k.
TEST(KernelSignature, ResidualAndSplitKMatchTheRenderer) {
  using x = static_buffer<"X", row_major_layout<bf16_t, dims<sym<"B">, sym<"M">, ext<512>>>>;
  using w = static_buffer<"W", static_layout<bf16_t, dims<ext<512>, ext<96>>, dims<ext<1>, ext<512>>>>;
  using bias = static_buffer<"Bias", row_major_layout<f32_t, dims<ext<96>>>>;
  using res = static_buffer<"Residual", row_major_layout<bf16_t, dims<sym<"B">, sym<"M">, ext<96>>>>;
  using y = static_buffer<"Y", row_major_layout<f32_t, dims<sym<"B">, sym<"M">, ext<96>>>>;
  using sig = kernel_signature<inputs<x, w, bias, res>, outputs<y>, runtime_args<arg<"split_k", std::int32_t>>>;
  EXPECT_EQ(sig::runtime_arg_info(), (std::vector<arg_info>{{"split_k", "int32_t"}}));
  expect_matches_gemm<sig>({.act = activation::sigmoid, .residual = true, .runtime_split_k = true},
                           {{"B", 2}, {"M", 100}});
}

// A symbol that appears only in a stride comes after the sizes' symbols of the same tensor.
TEST(KernelSignature, StrideSymbolsFollowSizeSymbols) {
  using x = static_buffer<"X", static_layout<f32_t, dims<sym<"M">, ext<64>>, dims<sym<"ldx">, ext<1>>>>;
  using w = static_buffer<"W", row_major_layout<f32_t, dims<ext<64>, sym<"N">>>>;
  using y = static_buffer<"Y", row_major_layout<f32_t, dims<sym<"M">, sym<"N">>>>;
  using sig = kernel_signature<inputs<x, w>, outputs<y>>;
  EXPECT_EQ(sig::size_symbols(), (std::vector<std::string>{"M", "ldx", "N"}));
  expect_matches_gemm<sig>({}, {{"M", 3}, {"N", 5}, {"ldx", 64}});
}

TEST(KernelSignature, ElementwiseMatchesTheRenderer) {
  using x = static_buffer<"X", row_major_layout<bf16_t, dims<sym<"M">, ext<64>>>>;
  using bias = static_buffer<"Bias", row_major_layout<f32_t, dims<ext<64>>>>;
  using y = static_buffer<"Y", row_major_layout<bf16_t, dims<sym<"M">, ext<64>>>>;
  using sig = kernel_signature<inputs<x, bias>, outputs<y>>;
  const rocm_template<elementwise_policy> t(elementwise_policy({activation::gelu}), sig::input_buffers(),
                                            sig::output_buffers().front().get_layout());
  rocm_template_kernel kernel("rocm_elementwise");
  const std::string src = t.render(kernel, elementwise_config{}).str();
  EXPECT_EQ(kernel.args().cpp_argdefs(), sig::argdefs());
  EXPECT_NE(src.find(sig::declaration("rocm_elementwise")), std::string::npos) << src;
}

TEST(KernelSignature, RuntimeArgumentsAreChecked) {
  EXPECT_NO_THROW(split_sig::check_runtime_args("gemm", {{"split_k", "int32_t"}}));
  for (const std::vector<arg_info>& declared : {std::vector<arg_info>{}, std::vector<arg_info>{{"split_k", "int64_t"}},
                                                std::vector<arg_info>{{"splits", "int32_t"}}}) {
    try {
      split_sig::check_runtime_args("gemm", declared);
      ADD_FAILURE() << "no error for " << declared.size() << " arguments";
    } catch (const signature_error& e) {
      EXPECT_NE(std::string(e.what()).find("but the signature has [int32_t split_k]"), std::string::npos) << e.what();
    }
  }
  EXPECT_THROW(static_sig::check_runtime_args("gemm", {{"split_k", "int32_t"}}), signature_error);
}

TEST(KernelSignature, RenderedParametersAreChecked) {
  EXPECT_NO_THROW(static_sig::check_argdefs("gemm", {"const uint16_t* X", "const uint16_t* W", "uint16_t* Y"}));
  EXPECT_THROW(static_sig::check_argdefs("gemm", {"const uint16_t* A", "const uint16_t* W", "uint16_t* Y"}),
               signature_error);
}

}  // namespace
