// SPDX-License-Identifier: MIT
// The standalone runner (rocmtpl/module/runner.hpp): main() behind ROCMTPL_STANDALONE_RUNNER, size
// defaults and their checks, the argument parser, tensors in entry-point order, timing and report.
#include <rocmtpl/module/runner.hpp>

#include <gtest/gtest.h>

#include <string>

namespace {
using namespace rocmtpl;
using detail::module_impl::write_block;
using detail::module_impl::write_runner;

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

module_source two_tensor_module() {
  module_source m;
  m.name = "scale";
  m.inputs = {buffer("x", layout::row_major(dtype::f16, {sym_expr::symbol("n")}))};
  m.outputs = {buffer("y", layout::row_major(dtype::f32, {sym_expr::symbol("n"), sym_expr::symbol("k")}))};
  m.size_args = {"n", "k"};
  return m;
}

std::string runner_of(const module_source& m, const module_options& o = {}) {
  indented_buffer out;
  write_runner(out, m, o);
  return std::move(out).str();
}

TEST(ModuleRunner, WriteBlockIndentsItsLines) {
  indented_buffer out;
  write_block(out, "if (a)", {"b();", "return 2;"});
  EXPECT_EQ(out.str(), "if (a) {\n    b();\n    return 2;\n}\n");
}

TEST(ModuleRunner, IsAMainBehindItsMacro) {
  const auto src = runner_of(two_tensor_module());
  EXPECT_TRUE(src.starts_with("#ifdef ROCMTPL_STANDALONE_RUNNER\n")) << src.substr(0, 80);
  EXPECT_TRUE(src.ends_with("}\n#endif  // ROCMTPL_STANDALONE_RUNNER\n"));
  EXPECT_TRUE(contains(src, "namespace rocmtpl_runner {"));
  EXPECT_TRUE(contains(src, "\nint main(int argc, char** argv) {\n"));
}

TEST(ModuleRunner, SizesDefaultFromTheOptionsAndAreCheckedOtherwise) {
  module_options o;
  o.runner_sizes = {{"n", 4096}};
  o.runner_iterations = 7;
  const auto src = runner_of(two_tensor_module(), o);
  EXPECT_TRUE(contains(src, "    int64_t u_n = 4096;\n"));
  EXPECT_TRUE(contains(src, "    int64_t u_k = -1;\n"));
  EXPECT_TRUE(contains(src, "    int rocmtpl_iters = 7;\n"));
  EXPECT_TRUE(
      contains(src,
               "    if (u_k < 0) {\n        std::fprintf(stderr, \"rocmtpl runner: give the size k as k=<n>\\n\");\n"
               "        return 2;\n    }\n"));
  EXPECT_TRUE(contains(src, "    if (rocmtpl_iters < 1) {\n"));
}

TEST(ModuleRunner, ParsesEachSizeAndTheIterationCount) {
  const auto src = runner_of(two_tensor_module());
  EXPECT_TRUE(contains(src, "std::printf(\"usage: %s [n=<n>] [k=<n>] [--iters=<n>]\\n\", argv[0]);"));
  EXPECT_TRUE(contains(src,
                       "        if (std::strncmp(rocmtpl_arg, \"n=\", 2) == 0) {\n"
                       "            u_n = std::atoll(rocmtpl_arg + 2);\n            continue;\n        }\n"));
  EXPECT_TRUE(contains(src, "if (std::strncmp(rocmtpl_arg, \"--iters=\", 8) == 0) {"));
  EXPECT_TRUE(contains(src, "rocmtpl runner: unknown argument '%s'; usage: %s [n=<n>] [k=<n>] [--iters=<n>]\\n\""));
}

TEST(ModuleRunner, CallsTheEntryPointWithItsTensorsInOrder) {
  const auto src = runner_of(two_tensor_module());
  EXPECT_TRUE(
      contains(src,
               "    bool rocmtpl_sizes_ok = true;\n"
               "    const size_t rocmtpl_t0_bytes = rocmtpl_module_bytes(u_n, u_n, 2, &rocmtpl_sizes_ok);  // x\n"
               "    if (!rocmtpl_sizes_ok) {\n"
               "        std::fprintf(stderr, \"rocmtpl runner: the bytes of x overflow\\n\");\n"
               "        return 2;\n"
               "    }\n"));
  EXPECT_TRUE(contains(
      src,
      "if (!rocmtpl_runner::make_input(&rocmtpl_t0, rocmtpl_t0_bytes, ROCMTPL_DTYPE_FLOAT16, rocmtpl_rng)) return 1;"));
  // The runner's dtype numbering is the host's (dtype_code()).
  EXPECT_TRUE(contains(src, "#define ROCMTPL_DTYPE_FLOAT16 " + std::to_string(dtype_code(dtype::f16)) + "\n"));
  EXPECT_TRUE(contains(src, "f16 = ROCMTPL_DTYPE_FLOAT16, bf16 = ROCMTPL_DTYPE_BFLOAT16,"));
  EXPECT_TRUE(contains(src, "if (!rocmtpl_runner::make_output(&rocmtpl_t1, rocmtpl_t1_bytes)) return 1;"));
  EXPECT_TRUE(contains(src, "int rocmtpl_status = scale(nullptr, nullptr, u_n, u_k, &rocmtpl_ws_bytes, nullptr, 0);"));
  EXPECT_TRUE(contains(src,
                       "rocmtpl_status = scale(static_cast<const uint16_t*>(rocmtpl_t0), "
                       "static_cast<float*>(rocmtpl_t1), u_n, u_k, nullptr, static_cast<uint8_t*>(rocmtpl_ws), 0);"));
  EXPECT_TRUE(contains(src, "std::printf(\"scale: n=%lld k=%lld %.4f ms per run"));
  EXPECT_TRUE(contains(src,
                       "checksum(y) = %.6e\\n\", rocmtpl_runner::checksum(rocmtpl_t1, rocmtpl_t1_bytes, "
                       "ROCMTPL_DTYPE_FLOAT32));"));
  EXPECT_FALSE(contains(src, "checksum(x)"));
  EXPECT_TRUE(contains(src, "(void)hipFree(rocmtpl_t1);"));
  EXPECT_FALSE(contains(src, "rocmtpl_t2"));
}

TEST(ModuleRunner, AModuleWithoutSizesSaysSo) {
  module_source m;
  m.name = "fixed";
  m.outputs = {buffer("y", layout::row_major(dtype::f32, {4}))};
  const auto src = runner_of(m);
  EXPECT_TRUE(contains(src, "on random inputs; sizes: none\\n"));
  EXPECT_TRUE(contains(src, "int rocmtpl_status = fixed(nullptr, &rocmtpl_ws_bytes, nullptr, 0);"));
  EXPECT_TRUE(contains(src, "std::printf(\"fixed: %.4f ms per run"));
}

}  // namespace
