// SPDX-License-Identifier: MIT
// Tests include/rocmtpl/runtime/build/nvrtc.hpp and the compiler's NVRTC path (no GPU needed): the
// stand-in headers, a cubin from a small kernel, a compile error with NVRTC's log, and
// compiler::compile() choosing NVRTC for NVIDIA code objects (and nvcc when it is turned off).
// Skips where libnvrtc or nvcc is not installed.
#include <rocmtpl/rocm_template.hpp>
#include <rocmtpl/runtime/bench/utility_kernels.hpp>
#include <rocmtpl/runtime/build/code_cache.hpp>
#include <rocmtpl/runtime/build/compiler.hpp>
#include <rocmtpl/runtime/build/device_headers.hpp>
#include <rocmtpl/runtime/build/nvrtc.hpp>
#include <rocmtpl/templates/gemm.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "support/temp_dir.hpp"

namespace {
namespace fs = std::filesystem;
using namespace rocmtpl::runtime;

const char* const kernel_source = R"cu(#include "rocmtpl_hip_portable.h"
#include <cstddef>
#include <cstdint>
extern "C" __global__ void rocmtpl_test_scale(const float* x, float* y, int64_t n) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = 2.0f * x[i];
}
#if !defined(ROCMTPL_DEVICE_ONLY)
extern "C" int host_entry() { return hipGetLastError() == hipSuccess ? 0 : 1; }
#endif
)cu";

TEST(Nvrtc, StandInHeadersAreWrittenOnce) {
  if (nvrtc() == nullptr) GTEST_SKIP() << "libnvrtc not installed";
  const auto dir = nvrtc_include_dir();
  for (const char* f : {"stdint.h", "cstdint", "cstddef", "atomic", "cuda_runtime.h", "rocmtpl_nvrtc_prelude.h"}) {
    EXPECT_TRUE(fs::is_regular_file(dir / f)) << f;
  }
  EXPECT_EQ(nvrtc_include_dir(), dir);
  std::ifstream in(dir / "stdint.h");
  const std::string text{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  EXPECT_NE(text.find("typedef long int64_t;"), std::string::npos) << "LP64, as the host";
}

TEST(Nvrtc, CompilesACubinAndReportsErrors) {
  std::string why;
  const auto* api = nvrtc(&why);
  if (api == nullptr) GTEST_SKIP() << why;
  const std::vector<std::string> options{"--gpu-architecture=sm_90a",
                                         "-std=c++17",
                                         "-default-device",
                                         "-DROCMTPL_DEVICE_ONLY=1",
                                         "-I" + device_include_dir().string(),
                                         "-I" + nvrtc_include_dir().string(),
                                         "-I/usr/local/cuda/include",
                                         "--pre-include=rocmtpl_nvrtc_prelude.h"};
  const auto ok = nvrtc_compile(*api, kernel_source, "k.cu", options);
  ASSERT_TRUE(ok.ok) << ok.log;
  ASSERT_GE(ok.cubin.size(), 4U);
  EXPECT_EQ(ok.cubin.substr(0, 4),
            "\x7f"
            "ELF");
  EXPECT_NE(ok.cubin.find("rocmtpl_test_scale"), std::string::npos);
  const auto bad = nvrtc_compile(*api, "extern \"C\" __global__ void k() { undeclared(); }", "bad.cu", options);
  EXPECT_FALSE(bad.ok);
  EXPECT_NE(bad.log.find("undeclared"), std::string::npos) << bad.log;
}

TEST(Nvrtc, CompilerUsesNvrtcForNvidiaCodeObjects) {
  if (nvrtc() == nullptr) GTEST_SKIP() << "libnvrtc not installed";
  std::optional<compiler> cc;
  try {
    cc = compiler::find(platform::nvidia);
  } catch (const compiler_not_found_error& e) {
    GTEST_SKIP() << e.what();
  }
  rocmtpl::test::temp_dir dir;
  const auto src = dir.path() / "k.cu";
  std::ofstream(src) << kernel_source;
  compile_options o{.platform = platform::nvidia, .archs = {"sm_90a"}, .include_dirs = {device_include_dir()}};
  o.output = compile_output::code_object;
  const auto argv = cc->command(o, src, dir.path() / "k.cubin");
  EXPECT_EQ(argv.front(), "nvrtc");
  EXPECT_TRUE(argv[1].starts_with("version "));
  const auto r = cc->compile(src, o, dir.path() / "k.cubin");
  EXPECT_EQ(r.argv.front(), "nvrtc");
  EXPECT_GT(fs::file_size(r.library), 0U);
  ASSERT_FALSE(r.resources.empty()) << r.log;  // --ptxas-options=-v in NVRTC's log
  EXPECT_EQ(r.resources.front().kernel, "rocmtpl_test_scale");
  // Off, or with several archs: nvcc.
  o.in_process = false;
  EXPECT_EQ(cc->command(o, src, dir.path() / "k.cubin").front(), cc->path().string());
  o.in_process = true;
  o.archs = {"sm_80", "sm_90a"};
  EXPECT_EQ(cc->command(o, src, dir.path() / "k.fatbin").front(), cc->path().string());
  // A compile error is a compile_error carrying NVRTC's log.
  std::ofstream(src) << "extern \"C\" __global__ void k() { undeclared(); }\n";
  o.archs = {"sm_90a"};
  try {
    (void)cc->compile(src, o, dir.path() / "bad.cubin");
    ADD_FAILURE() << "no error";
  } catch (const compile_error& e) {
    EXPECT_EQ(e.failure(), compile_failure::source);
    EXPECT_NE(e.log().find("undeclared"), std::string::npos);
  }
}

// Issue 9 (cold tune): the helper kernels and the GEMM reference compile in this process too, so
// that no nvcc process is left on a tune's critical path; each kernel under its described name,
// without spills. Prints the compile times (no GPU needed).
TEST(Nvrtc, HelperKernelsAndReferenceCompileInProcess) {
  if (nvrtc() == nullptr) GTEST_SKIP() << "libnvrtc not installed";
  std::optional<compiler> cc;
  try {
    cc = compiler::find(platform::nvidia);
  } catch (const compiler_not_found_error& e) {
    GTEST_SKIP() << e.what();
  }
  rocmtpl::test::temp_dir dir;
  code_cache cache(dir.path() / "kernels");
  compile_options o{.platform = platform::nvidia, .archs = {"sm_90a"}, .include_dirs = {device_include_dir()}};
  o.output = compile_output::code_object;
  using namespace rocmtpl;
  rocm_template<templates::gemm_policy> gemm(
      templates::gemm_policy({templates::activation::relu}),
      {buffer("x", layout::row_major(dtype::f16, {sym_expr::symbol("M"), 512})),
       buffer("w", layout::row_major(dtype::f16, {512, 256})), buffer("b", layout::row_major(dtype::f16, {256}))},
      layout::row_major(dtype::f16, {sym_expr::symbol("M"), 256}));
  const auto reference = gemm.generate_reference({{"M", 384}});
  const std::vector<std::pair<std::string, std::vector<std::string>>> sources{
      {rocmtpl::runtime::detail::utility_source, {"rocmtpl_compare_kernel", "rocmtpl_fill_kernel"}},
      {reference.source(),
       {rocmtpl::device_symbol(*reference.launch(), reference.launch()->variants.front().launches.front())}}};
  for (const auto& [source, expected] : sources) {
    const auto r = cache.get_or_compile(*cc, source, o);
    EXPECT_EQ(r.argv.front(), "nvrtc");
    std::vector<std::string> kernels;
    for (const auto& k : r.resources) {
      kernels.push_back(k.kernel);
      EXPECT_GT(k.registers, 0) << k.kernel;
      EXPECT_FALSE(k.spills()) << k.kernel;
    }
    std::sort(kernels.begin(), kernels.end());
    EXPECT_EQ(kernels, expected) << r.log;
    std::cout << "sm_90a " << expected.front() << (expected.size() > 1 ? " (helpers)" : " (reference)") << ": NVRTC "
              << r.seconds << " s\n";
  }
}

}  // namespace
