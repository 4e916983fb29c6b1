// SPDX-License-Identifier: MIT
// Tests include/rocmtpl/runtime/launch/module_launcher.hpp without a GPU: device-only code objects of the
// GEMM (SIMT, matrix cores with split-K) and the elementwise template build with hipcc for gfx90a
// and export exactly the kernels their launch descriptions name (read back with
// clang-offload-bundler and llvm-readelf); the module API refuses cleanly without a GPU; a bound
// launch survives the worker protocol's JSON. GPU runs are in test/gpu/launch_gpu_test.cpp.
#include <rocmtpl/runtime/bench/measure.hpp>
#include <rocmtpl/runtime/launch/module_launcher.hpp>
#include <rocmtpl/templates/elementwise.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <iostream>
#include <set>
#include <string>
#include <vector>

#include "support/gemm.hpp"
#include "support/runtime.hpp"

namespace {
using namespace rocmtpl;
using namespace rocmtpl::runtime;
using templates::gemm_config;
using templates::gemm_options;
using templates::gemm_policy;

bool have_hipcc() {
  try {
    (void)compiler::find(platform::amd).version();
    return true;
  } catch (const compiler_not_found_error&) {
    return false;
  }
}

// The kernel symbols (FUNC) of the gfx90a code object inside a hipcc --genco bundle.
std::set<std::string> gfx90a_kernels(const std::filesystem::path& bundle, const std::filesystem::path& dir) {
  const auto elf = dir / "gfx90a.elf";
  const auto unbundle = test::run_logged(
      {"clang-offload-bundler-15", "--unbundle", "--type=o", "--targets=hipv4-amdgcn-amd-amdhsa--gfx90a",
       "--input=" + bundle.string(), "--output=" + elf.string()},
      dir / "unbundle.log");
  EXPECT_EQ(unbundle.exit_code, 0) << unbundle.output;
  const auto symbols = test::run_logged({"llvm-readelf-15", "--symbols", "--wide", elf.string()}, dir / "readelf.log");
  EXPECT_EQ(symbols.exit_code, 0) << symbols.output;
  std::set<std::string> kernels;
  std::string_view rest = symbols.output;
  while (!rest.empty()) {
    const auto nl = rest.find('\n');
    const std::string line(rest.substr(0, nl));
    rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
    if (line.find(" FUNC ") == std::string::npos) continue;
    kernels.insert(line.substr(line.rfind(' ') + 1));
  }
  return kernels;
}

std::set<std::string> described_symbols(const launch_description& d) {
  std::set<std::string> out;
  for (const auto& v : d.variants) {
    for (const auto& l : v.launches) out.insert(device_symbol(d, l));
  }
  return out;
}

void check_code_object(const rocm_template_caller& caller) {
  ASSERT_TRUE(caller.launch().has_value());
  test::temp_dir dir;
  code_cache cache(dir.path() / "kernels");
  const auto cc = compiler::find(platform::amd);
  auto opts = amd_compile_options({"gfx90a"});
  opts.output = compile_output::code_object;
  const auto r = cache.get_or_compile(cc, caller.source(), opts);
  EXPECT_EQ(r.library.filename(), "code.co");
  EXPECT_TRUE(std::find(r.argv.begin(), r.argv.end(), "--genco") != r.argv.end());
  EXPECT_TRUE(std::find(r.argv.begin(), r.argv.end(), "-shared") == r.argv.end());
  const auto kernels = gfx90a_kernels(r.library, dir.path());
  const auto library = cache.get_or_compile(cc, caller.source(), amd_compile_options({"gfx90a"}));
  std::cout << "hipcc gfx90a, " << caller.name() << ": shared library " << library.seconds << " s, code object "
            << r.seconds << " s\n";
  EXPECT_EQ(kernels, described_symbols(*caller.launch())) << caller.source().substr(0, 200);
  EXPECT_EQ(kernels.count(caller.bmreq().kernel_name), 0U);  // no host entry in a code object
  // A second lookup is a cache hit on the code object, a shared-library compile is another entry.
  EXPECT_TRUE(cache.get_or_compile(cc, caller.source(), opts).cached);
  EXPECT_NE(cache.lookup(cc, caller.source(), amd_compile_options({"gfx90a"}))->library, r.library);
}

TEST(ModuleLauncher, DeviceOnlyGemmCodeObjectsExportTheDescribedKernels) {
  if (!have_hipcc()) GTEST_SKIP() << "hipcc not installed";
  const sym_expr m = sym_expr::symbol("M");
  // Matrix cores, split-K at run time: vectorised and scalar main kernels plus the reduction.
  // Symbolic K: the vectorised instantiation needs K % 8 == 0 at run time, so the scalar one is there too.
  const sym_expr k = sym_expr::symbol("K");
  rocm_template<gemm_policy> mc(gemm_policy(gemm_options{.runtime_split_k = true}),
                                {buffer("x", layout::row_major(dtype::f16, {m, k})),
                                 buffer("w", layout::row_major(dtype::f16, {k, sym_expr(128)}))},
                                layout::row_major(dtype::f16, {m, sym_expr(128)}));
  const gemm_config c = gemm_test::mma(64, 64, 32, 32, 32, 2).with_split_k(2);
  const auto caller = mc.generate(c, {{"M", 512}, {"K", 256}});
  EXPECT_EQ(described_symbols(*caller.launch()),
            (std::set<std::string>{"rocm_gemm_v8_8", "rocm_gemm_v1_1", "rocm_gemm_split_k_reduce"}));
  check_code_object(caller);
}

TEST(ModuleLauncher, DeviceOnlyElementwiseCodeObjectExportsItsKernel) {
  if (!have_hipcc()) GTEST_SKIP() << "hipcc not installed";
  rocm_template<templates::elementwise_policy> t(
      templates::elementwise_policy({.act = templates::activation::relu}),
      {buffer("x", layout::row_major(dtype::f32, {sym_expr(64), sym_expr(32)}))},
      layout::row_major(dtype::f32, {sym_expr(64), sym_expr(32)}));
  const auto caller = t.generate(templates::elementwise_config{256});
  EXPECT_EQ(described_symbols(*caller.launch()), (std::set<std::string>{"rocm_elementwise_main"}));
  check_code_object(caller);
}

bool have_nvcc() {
  try {
    (void)compiler::find(platform::nvidia).version();
    return true;
  } catch (const compiler_not_found_error&) {
    return false;
  }
}

// The kernel symbols (FUNC) of a cubin.
std::set<std::string> cubin_functions(const std::filesystem::path& cubin, const std::filesystem::path& dir) {
  const auto symbols =
      test::run_logged({"llvm-readelf-15", "--symbols", "--wide", cubin.string()}, dir / "readelf.log");
  EXPECT_EQ(symbols.exit_code, 0) << symbols.output;
  std::set<std::string> out;
  std::string_view rest = symbols.output;
  while (!rest.empty()) {
    const auto nl = rest.find('\n');
    const std::string line(rest.substr(0, nl));
    rest = nl == std::string_view::npos ? std::string_view{} : rest.substr(nl + 1);
    if (line.find(" FUNC ") != std::string::npos) out.insert(line.substr(line.rfind(' ') + 1));
  }
  return out;
}

// Cubins for sm_90a, from NVRTC in this process and from nvcc -cubin: the described kernels are in
// them, the C entry is not; prints the compile time of the same source as a shared library and as
// each kind of code object (one compile each).
TEST(ModuleLauncher, DeviceOnlyCubinsHoldTheDescribedKernels) {
  if (!have_nvcc()) GTEST_SKIP() << "nvcc not installed";
  const sym_expr m = sym_expr::symbol("M");
  rocm_template<gemm_policy> t(gemm_policy(gemm_options{.act = templates::activation::relu, .runtime_split_k = true}),
                               {buffer("x", layout::row_major(dtype::f16, {m, sym_expr(512)})),
                                buffer("w", layout::row_major(dtype::f16, {sym_expr(512), sym_expr(256)})),
                                buffer("bias", layout::row_major(dtype::f16, {sym_expr(256)}))},
                               layout::row_major(dtype::f16, {m, sym_expr(256)}));
  std::vector<rocm_template_caller> callers;
  for (const auto& c : templates::mma_path::search_space()) {
    if (callers.empty()) callers.push_back(t.generate(c, {{"M", 512}}));
  }
  for (const auto& c : templates::wgmma_path::search_space()) {
    if (callers.size() < 2) callers.push_back(t.generate(c, {{"M", 512}}));
  }
  ASSERT_EQ(callers.size(), 2U);
  test::temp_dir dir;
  code_cache cache(dir.path() / "kernels");
  const auto cc = compiler::find(platform::nvidia);
  compile_options so{.platform = platform::nvidia, .archs = {"sm_90a"}, .include_dirs = {device_include_dir()}};
  auto co = so;
  co.output = compile_output::code_object;
  auto co_nvcc = co;
  co_nvcc.in_process = false;
  for (const auto& caller : callers) {
    const auto library = cache.get_or_compile(cc, caller.source(), so);
    std::string line = "sm_90a, " + caller.to_string() + ": shared library " + std::to_string(library.seconds) + " s";
    // In-process NVRTC where libnvrtc loads (the default), and nvcc -cubin.
    for (const auto* options : {&co, &co_nvcc}) {
      const auto object = cache.get_or_compile(cc, caller.source(), *options);
      const bool in_process = object.argv.front() == "nvrtc";
      EXPECT_TRUE(in_process || std::find(object.argv.begin(), object.argv.end(), "-cubin") != object.argv.end());
      const auto functions = cubin_functions(object.library, dir.path());
      for (const auto& s : described_symbols(*caller.launch())) EXPECT_EQ(functions.count(s), 1U) << s;
      EXPECT_EQ(functions.count(caller.bmreq().kernel_name), 0U);
      EXPECT_FALSE(object.resources.empty()) << object.log;
      line += std::string(in_process ? ", NVRTC " : ", nvcc -cubin ") + std::to_string(object.seconds) + " s";
    }
    std::cout << line << "\n";
  }
}

TEST(ModuleLauncher, WithoutAGpuTheModuleApiRefusesCleanly) {
  if (gpu_runtime::instance().available()) GTEST_SKIP() << "a GPU is present (test/gpu covers it)";
  EXPECT_THROW((void)module_api(), no_gpu_error);
  EXPECT_THROW(code_object("/nonexistent/code.co"), no_gpu_error);
}

TEST(ModuleLauncher, BoundLaunchSurvivesTheWorkerProtocol) {
  const auto m = sym_expr::symbol("M");
  rocm_template<gemm_policy> t(gemm_policy(gemm_options{.runtime_split_k = true}),
                               {buffer("x", layout::row_major(dtype::f16, {m, sym_expr(256)})),
                                buffer("w", layout::row_major(dtype::f16, {sym_expr(256), sym_expr(128)}))},
                               layout::row_major(dtype::f16, {m, sym_expr(128)}));
  const auto callers = t.generate_all({{"M", 1000}});
  ASSERT_FALSE(callers.empty());
  for (const auto& c : callers) {
    const auto b = bind(*c.launch(), {1000}, {c.bmreq().extra_args.back()});
    EXPECT_EQ(launch_from_json(nlohmann::json::parse(launch_to_json(b).dump())), b);
  }
}

}  // namespace
