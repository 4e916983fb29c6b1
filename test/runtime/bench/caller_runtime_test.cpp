// SPDX-License-Identifier: MIT
// rocmtpl/runtime/bench/caller_runtime.hpp: rocm_template_caller's protocol through the runtime layer,
// without a GPU: precompile() builds once with hipcc (gfx90a, gfx940); the GEMM's workspace
// described in C++ (kernel_capabilities::workspace) equals what the compiled entry point's query
// answers for split-K configurations at several sizes; output_node(caller_backend) of a template that
// does not describe its workspace falls back to the compiled query; benchmark() without a GPU throws
// no_gpu_error before compiling anything.
#include <rocmtpl/module.hpp>
#include <rocmtpl/runtime/aot/module_loader.hpp>
#include <rocmtpl/runtime/bench/caller_runtime.hpp>
#include <rocmtpl/templates/gemm.hpp>

#include "support/runtime.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace {
namespace fs = std::filesystem;
using namespace rocmtpl;
using namespace rocmtpl::runtime;
using rocmtpl::test::scoped_env;
using rocmtpl::test::temp_dir;
using templates::gemm_config;
using templates::gemm_policy;

const sym_expr sB = sym_expr::symbol("B");
const sym_expr sM = sym_expr::symbol("M");

// A batched GEMM [B, M, 96] x [96, 40] with split-K as a runtime argument.
rocm_template<gemm_policy> split_gemm() {
  return {
      gemm_policy({.runtime_split_k = true}),
      {buffer("x", layout::row_major(dtype::f32, {sB, sM, 96})), buffer("w", layout::row_major(dtype::f32, {96, 40}))},
      layout::row_major(dtype::f32, {sB, sM, 40})};
}

gemm_config split(int k) { return gemm_config{}.with_split_k(k); }

// A template that does not describe its workspace: its entry point asks for 4 * n + 8 bytes.
struct config {
  int unused = 0;
  friend bool operator==(const config&, const config&) = default;
};
std::vector<std::pair<std::string, std::string>> describe(const config&) { return {}; }
struct opaque_policy {
  using policy_concept = kernel_template_tag;
  using config_type = config;
  static std::string_view name() { return "opaque"; }
  std::vector<config> configs() const { return {{}}; }
  rendered_source render(rocm_template_kernel& k, const template_context& ctx, const config&) const {
    (void)k.def_kernel({ctx.input(0)}, {&ctx.output_node()}, "X, Y");
    const auto n = k.size(&ctx.output_node(), 0);
    auto s = k.start_source(ctx);
    s.entry_body = "    if (workspace_size) {\n        *workspace_size = 4 * (" + n +
                   ") + 8;\n        return 0;\n    }\n    return 1;\n";
    return s;
  }
};

TEST(CallerRuntime, PrecompileBuildsOnceIntoTheCodeCache) {
  ROCMTPL_REQUIRE_COMPILER(cc, platform::amd);
  temp_dir dir;
  scoped_env cache("ROCMTPL_CACHE_DIR", dir.path().string());
  auto caller = split_gemm().generate(split(1), {{"B", 1}, {"M", 8}});
  EXPECT_TRUE(caller.bmreq().library_path.empty());
  caller.precompile(caller_runtime{});
  const fs::path lib = caller.bmreq().library_path;
  ASSERT_TRUE(fs::exists(lib)) << lib;
  EXPECT_TRUE(lib.string().starts_with(dir.path().string())) << lib;  // ROCMTPL_CACHE_DIR applies
  const auto written = fs::last_write_time(lib);
  caller.precompile(caller_runtime{});  // found: nothing rebuilt
  EXPECT_EQ(caller.bmreq().library_path, lib.string());
  EXPECT_EQ(fs::last_write_time(lib), written);
  // Another choice of the same source (other size hints) finds the cached library.
  auto other = split_gemm().generate(split(1), {{"B", 3}, {"M", 50}});
  ASSERT_TRUE(other.source() == caller.source());
  other.precompile(caller_runtime{});
  EXPECT_EQ(other.bmreq().library_path, lib.string());
  EXPECT_EQ(fs::last_write_time(lib), written);
}

// The C++ description and the compiled query agree for every split-K and size tried, and
// output_node() uses the description without compiling.
TEST(CallerRuntime, GemmWorkspaceDescriptionMatchesTheCompiledQuery) {
  ROCMTPL_REQUIRE_COMPILER(cc, platform::amd);
  temp_dir dir;
  scoped_env cache("ROCMTPL_CACHE_DIR", dir.path().string());
  const auto tpl = split_gemm();
  int checked = 0;
  for (int k : {1, 2, 4, 7}) {
    for (const size_hints& h : {size_hints{{"B", 1}, {"M", 1}}, size_hints{{"B", 2}, {"M", 100}},
                                size_hints{{"B", 5}, {"M", 333}}, size_hints{{"B", 3}, {"M", 0}}}) {
      auto described = tpl.generate(split(k), h);
      ASSERT_TRUE(described.bmreq().workspace_bytes);
      const auto node = described.output_node();
      EXPECT_TRUE(described.bmreq().library_path.empty()) << "output_node() compiled for a described workspace";
      const auto expected = k > 1 ? static_cast<std::size_t>(k * h.at("B") * h.at("M") * 40 * 4) : std::size_t{0};
      EXPECT_EQ(node.get_workspace_size(), expected) << "split_k " << k;
      ASSERT_TRUE(node.workspace_bytes());
      EXPECT_EQ(node.workspace_bytes()->evaluate(h), static_cast<std::int64_t>(expected));

      auto compiled = tpl.generate(split(k), h);
      const std::size_t queried = caller_runtime{}.query_workspace(compiled.bmreq()).value();
      EXPECT_EQ(queried, node.get_workspace_size()) << "split_k " << k << " B " << h.at("B") << " M " << h.at("M");
      EXPECT_EQ(compiled.bmreq().workspace_size, queried);
      ++checked;
    }
  }
  EXPECT_EQ(checked, 16);
}

TEST(CallerRuntime, OutputNodeFallsBackToTheCompiledQuery) {
  ROCMTPL_REQUIRE_COMPILER(cc, platform::amd);
  temp_dir dir;
  scoped_env cache("ROCMTPL_CACHE_DIR", dir.path().string());
  // Static sizes: the queried size holds for every call, so the node carries it as a constant.
  const auto fixed = layout::row_major(dtype::f32, {10});
  rocm_template<opaque_policy> t(opaque_policy{}, {buffer("x", fixed)}, fixed);
  auto caller = t.generate({});
  EXPECT_FALSE(caller.bmreq().workspace_bytes);
  EXPECT_EQ(t.generate({}).output_node().get_workspace_size(), 0U);  // without the backend: unknown
  const auto node = caller.output_node(caller_runtime{});
  EXPECT_FALSE(caller.bmreq().library_path.empty());  // compiled for the query
  EXPECT_EQ(node.get_workspace_size(), 48U);
  ASSERT_TRUE(node.workspace_bytes());
  EXPECT_EQ(*node.workspace_bytes(), sym_expr(48));
  // Symbolic sizes: the size at the hint only; the scheduler asks the kernel at run time.
  const auto sym = layout::row_major(dtype::f32, {sM});
  rocm_template<opaque_policy> s(opaque_policy{}, {buffer("x", sym)}, sym);
  auto symbolic = s.generate({}, {{"M", 25}});
  const auto snode = symbolic.output_node(caller_runtime{});
  EXPECT_EQ(snode.get_workspace_size(), 108U);
  EXPECT_FALSE(snode.workspace_bytes());
  // A size already known is kept (queried once, as the reference's update_workspace_size).
  symbolic.bmreq().library_path.clear();
  EXPECT_EQ(symbolic.output_node(caller_runtime{}).get_workspace_size(), 108U);
  EXPECT_TRUE(symbolic.bmreq().library_path.empty());
}

TEST(CallerRuntime, OutputNodeKeepsZeroWithoutACompiler) {
  temp_dir dir;
  scoped_env cache("ROCMTPL_CACHE_DIR", dir.path().string());
  // An override naming a missing file: compiler::find() reports no compiler.
  scoped_env hipcc("ROCMTPL_HIPCC", (dir.path() / "no-such-hipcc").string());
  scoped_env nvcc("ROCMTPL_NVCC", (dir.path() / "no-such-nvcc").string());
  const auto sym = layout::row_major(dtype::f32, {sM});
  rocm_template<opaque_policy> s(opaque_policy{}, {buffer("x", sym)}, sym);
  auto caller = s.generate({}, {{"M", 25}});
  const auto node = caller.output_node(caller_runtime{});
  EXPECT_EQ(node.get_workspace_size(), 0U);
  EXPECT_FALSE(node.workspace_bytes());
  EXPECT_THROW(caller.precompile(caller_runtime{}), compiler_not_found_error);
}

TEST(CallerRuntime, BenchmarkWithoutAGpuThrowsNoGpuError) {
  if (gpu_runtime::instance().available()) GTEST_SKIP() << "a GPU is present (test/gpu/caller_gpu_test.cpp runs it)";
  temp_dir dir;
  scoped_env cache("ROCMTPL_CACHE_DIR", dir.path().string());
  auto caller = split_gemm().generate(split(2), {{"B", 1}, {"M", 8}});
  float x = 0, w = 0, y = 0;
  EXPECT_THROW((void)caller.benchmark(caller_runtime{}, &x, &w, &y), no_gpu_error);
  EXPECT_THROW((void)caller.benchmark(caller_runtime{}, unchecked, std::vector<const void*>{&x, &w}, &y), no_gpu_error);
  EXPECT_TRUE(caller.bmreq().library_path.empty());  // refused before compiling
}

// rocm_cpp_scheduling allocates the described workspace around the call: a module of one split-K
// GEMM computes it from M (no query of the kernel) and its own workspace query answers it, aligned.
TEST(CallerRuntime, ModuleAllocatesTheDescribedWorkspaceAroundTheCall) {
  ROCMTPL_REQUIRE_COMPILER(cc, platform::amd);
  temp_dir dir;
  const buffer x("x", layout::row_major(dtype::f32, {sM, 96}));
  const buffer w("w", layout::row_major(dtype::f32, {96, 40}));
  rocm_template<gemm_policy> t(gemm_policy({.runtime_split_k = true}), {x, w}, layout::row_major(dtype::f32, {sM, 40}));
  module_graph g("split_module");
  g.add_input(x).add_input(w);
  g.add_node("y", t.generate(split(3), {{"M", 64}}).output_node());
  g.add_output("y");
  const auto m = emit_module(g);
  EXPECT_NE(m.source.find("workspace 480*M bytes, known at code generation"), std::string::npos);
  EXPECT_EQ(m.source.find("&rocmtpl_call0_workspace"), std::string::npos);  // no run-time query
  code_cache cache(dir.path() / "kernels");
  const auto module = loaded_module::compile(m, cc, amd_compile_options({"gfx90a"}), cache);
  for (std::int64_t rows : {0, 1, 64, 1000}) {
    const auto bytes = static_cast<std::size_t>(3 * rows * 40 * 4);
    EXPECT_EQ(module.workspace_size({{"M", rows}}), (bytes + 255) / 256 * 256) << "M " << rows;
  }
  // Sizes whose workspace overflows are refused by the module before any kernel runs.
  EXPECT_THROW((void)module.workspace_size({{"M", std::int64_t{1} << 60}}), kernel_status_error);
}

}  // namespace
