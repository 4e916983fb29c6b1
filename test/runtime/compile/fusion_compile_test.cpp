// SPDX-License-Identifier: MIT
// Fused modules through the real compilers, without a GPU (issue 12): the GPU test's modules (every
// op fused, as one run of pointwise nodes, on SIMT f32 with and without split-K, matrix cores f16
// and bf16, matrix cores f16 with split-K) and an unfused module build with hipcc for gfx90a and
// gfx940 and with nvcc for sm_90 without register spills; the Hopper path with a fused chain, with
// and without split-K, builds for sm_90a. The AMD library of a fused module loads and its workspace
// query no longer counts the fused intermediate. Skips a compiler that is not installed.
#include <rocmtpl/runtime.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <future>
#include <iostream>
#include <string>
#include <thread>
#include <vector>

#include "support/fusion.hpp"
#include "support/gemm.hpp"
#include "support/runtime.hpp"

namespace {
using namespace rocmtpl;
using namespace rocmtpl::runtime;
namespace fu = rocmtpl::test::fusion;

bool have(platform p) {
  try {
    (void)compiler::find(p).version();
    return true;
  } catch (const compiler_not_found_error&) {
    return false;
  }
}

struct build {
  std::string label;
  module_source module;
};

// What the GPU test runs (test/gpu/fusion_gpu_test.cpp): every op fused on each math path but
// Hopper (built for sm_90a below), and one unfused module.
std::vector<build> fused_builds() {
  std::vector<build> out;
  for (const auto& c : fu::gpu_paths()) {
    if (c.hopper) continue;
    out.push_back(
        {c.name + ", every op", fu::emit_chain_module("fused_" + c.name, c.p, fu::every_op(), c.p.type, true)});
    EXPECT_EQ(out.back().module.calls.size(), 1U) << c.name;
  }
  fu::gemm_problem plain;
  out.push_back({"unfused f16", fu::emit_chain_module("unfused", plain, {fu::bias_gelu_mul()}, dtype::f16, false)});
  EXPECT_EQ(out.back().module.calls.size(), 2U);
  return out;
}

// Compiles each module and checks every kernel's resources: no spills, no scratch or stack.
void check_builds(const std::vector<build>& builds, const compile_options& opts) {
  rocmtpl::test::temp_dir dir;
  code_cache cache(dir.path() / "kernels");
  const compiler cc = compiler::find(opts.platform);
  // At most as many compiler processes as cores at a time (the full Hopper sweep has 101 modules).
  const std::size_t jobs = std::max(2U, std::thread::hardware_concurrency());
  std::vector<std::future<compile_result>> running;
  const auto start = [&](std::size_t i) {
    running.push_back(
        std::async(std::launch::async, [&, i] { return cache.get_or_compile(cc, builds[i].module.source, opts); }));
  };
  for (std::size_t i = 0; i < std::min(jobs, builds.size()); ++i) start(i);
  for (std::size_t i = 0; i < builds.size(); ++i) {
    if (i + jobs < builds.size()) start(i + jobs);
    compile_result r;
    try {
      r = running[i].get();
    } catch (const compile_error& e) {
      ADD_FAILURE() << builds[i].label << ": " << e.what();
      continue;
    }
    EXPECT_FALSE(r.resources.empty()) << builds[i].label << ": no resource usage in the log:\n" << r.log;
    for (const auto& k : r.resources) {
      std::cout << "[ fusion ] " << builds[i].label << ": " << to_string(k) << "\n";
      EXPECT_FALSE(k.spills()) << builds[i].label << ": " << to_string(k);
      if (opts.platform == platform::amd) {
        EXPECT_EQ(k.scratch_bytes, 0) << builds[i].label << ": " << to_string(k);
      } else {
        EXPECT_EQ(k.stack_bytes, 0) << builds[i].label << ": " << to_string(k);
      }
    }
  }
}

TEST(FusionCompile, AmdBuildsWithoutSpills) {
  if (!have(platform::amd)) GTEST_SKIP() << "hipcc not installed";
  check_builds(fused_builds(), amd_compile_options({"gfx90a", "gfx940"}));
}

compile_options nvidia_options(std::string arch) {
  compile_options o;
  o.platform = platform::nvidia;
  o.archs = {std::move(arch)};
  o.include_dirs = {device_include_dir()};
  return o;
}

TEST(FusionCompile, NvidiaBuildsWithoutSpills) {
  if (!have(platform::nvidia)) GTEST_SKIP() << "nvcc not installed";
  check_builds(fused_builds(), nvidia_options("sm_90"));
}

TEST(FusionCompile, HopperWithFusedChainBuildsForSm90a) {
  if (!have(platform::nvidia)) GTEST_SKIP() << "nvcc not installed";
  std::vector<build> builds;
  // The paths the GPU test runs on sm_90 only: Hopper with and without split-K, ping-pong,
  // 160-column tiles and stream-K, and the skinny matrix-core kernel with K slices.
  for (const auto& c : fu::gpu_paths()) {
    if (!c.hopper) continue;
    auto m = fu::emit_chain_module("fused_" + c.name, c.p, fu::every_op(), dtype::f16, true);
    ASSERT_EQ(m.calls.size(), 1U) << (m.notes.empty() ? "" : m.notes[0]);
    builds.push_back({c.name + ", every op", std::move(m)});
  }
  ASSERT_EQ(builds.size(), 6U);
  // ROCMTPL_GEMM_COMPILE_ALL=1 (as gemm_compile_test.cpp's full spill check): each chain of the
  // fusion tests on every Hopper tiling, f16 and bf16 (the kernels are at the
  // 168-register limit, where a small change of the device code can make ptxas spill).
  if (gemm_test::compile_all()) {
    for (const auto& tiling : templates::wgmma_path::search_space()) {
      for (dtype d : {dtype::f16, dtype::bf16}) {
        fu::gemm_problem p;
        p.type = d;
        p.n = sym_expr(200);
        p.k = sym_expr(264);
        p.config = tiling;
        for (const auto& [name, chain] : fu::every_op_chains()) {
          auto m = fu::emit_chain_module("fused_" + name, p, {chain}, d, true);
          builds.push_back({std::string(rocmtpl::name(d)) + " " + name + " " + p.config.name(), std::move(m)});
        }
      }
    }
    ASSERT_EQ(builds.size(), 6U + templates::wgmma_path::search_space().size() * 2 * fu::every_op_chains().size());
  }
  check_builds(builds, nvidia_options("sm_90a"));
}

// The GEMM reference with a fused chain (what fused candidates are verified against) compiles
// device-only, as the autotuner builds the reference: its one kernel under the symbol its launch
// description gives, without spills.
TEST(FusionCompile, FusedReferenceCompilesDeviceOnlyForAmd) {
  if (!have(platform::amd)) GTEST_SKIP() << "hipcc not installed";
  const fu::gemm_problem p;
  const auto h = layout::row_major(p.type, {p.m, p.n});
  const buffer x("x", layout::row_major(p.type, {p.m, p.k}));
  const buffer w("w", layout::row_major(p.type, {p.k, p.n}));
  fused_epilogue e;
  e.chain = fu::bias_gelu_mul();
  e.inputs = {buffer("rocmtpl_epilogue_in0", layout::row_major(dtype::f32, {p.n})), buffer("rocmtpl_epilogue_in1", h)};
  e.output = buffer("rocmtpl_epilogue_out", h);
  rocm_template<templates::gemm_policy> t(templates::gemm_policy(), {x, w}, h);
  rocm_template_kernel k("fused_reference");
  const auto parts = t.policy().render_epilogue_reference(k, t.context(), e);
  ASSERT_TRUE(parts.launch.has_value());
  rocmtpl::test::temp_dir dir;
  code_cache cache(dir.path() / "kernels");
  auto options = amd_compile_options({"gfx90a"});
  options.output = compile_output::code_object;
  const auto r = cache.get_or_compile(compiler::find(platform::amd), parts.str(), options);
  ASSERT_EQ(r.resources.size(), 1U) << r.log;
  EXPECT_EQ(r.resources[0].kernel, device_symbol(*parts.launch, parts.launch->variants.front().launches.front()));
  EXPECT_FALSE(r.resources[0].spills()) << to_string(r.resources[0]);
}

TEST(FusionCompile, FusedModuleWorkspaceHasNoIntermediate) {
  if (!have(platform::amd)) GTEST_SKIP() << "hipcc not installed";
  rocmtpl::test::temp_dir dir;
  code_cache cache(dir.path() / "modules");
  const compiler cc = compiler::find(platform::amd);
  fu::gemm_problem p;  // f16 [M, 64] @ [64, 64]
  const auto fused =
      loaded_module::compile(fu::emit_chain_module("ws_fused", p, {fu::bias_gelu_mul()}, dtype::f16, true), cc,
                             amd_compile_options({"gfx90a"}), cache);
  const auto unfused =
      loaded_module::compile(fu::emit_chain_module("ws_unfused", p, {fu::bias_gelu_mul()}, dtype::f16, false), cc,
                             amd_compile_options({"gfx90a"}), cache);
  EXPECT_EQ(fused.workspace_size({{"M", 1000}}), 0U);
  EXPECT_EQ(unfused.workspace_size({{"M", 1000}}), 1000U * 64 * 2);  // h, f16 (a multiple of 256 already)
}

}  // namespace
