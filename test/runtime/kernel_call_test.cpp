// SPDX-License-Identifier: MIT
// Tests runtime/kernel_call.hpp without a GPU: hipcc-built libraries are loaded and their entry
// points called through kernel_entry (workspace query, status codes of the argument checks,
// arguments beyond the registers passed in order).
#include <rocmtpl/runtime/code_cache.hpp>
#include <rocmtpl/runtime/compiler.hpp>
#include <rocmtpl/runtime/kernel_call.hpp>
#include <rocmtpl/runtime/shared_library.hpp>
#include <rocmtpl/runtime/utility_kernels.hpp>

#include "runtime/runtime_test_support.hpp"

#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace {
using namespace rocmtpl;
using namespace rocmtpl::runtime;
using rocmtpl::test::have_compiler;
using rocmtpl::test::symbolic_gemm;
using rocmtpl::test::temp_dir;
using templates::gemm_config;

TEST(KernelCall, HipccBuiltGemmAnswersTheWorkspaceQueryWithoutAGpu) {
  if (!have_compiler(platform::amd)) GTEST_SKIP() << "hipcc not found (apt-get install hipcc)";
  temp_dir dir;
  code_cache cache(dir.path() / "kernels");
  const auto caller = symbolic_gemm().generate(gemm_config{}, {{"M", 100}});
  const auto lib = cache.get_or_compile(compiler::find(platform::amd), caller.source(), amd_compile_options());
  auto so = std::make_shared<shared_library>(lib.library);
  kernel_entry k(so, "rocm_gemm", 3, 1);
  EXPECT_EQ(k.workspace_size({100}), 0U);
  // Null tensors with a non-zero size: the generated check returns a status, never throws or crashes.
  std::vector<const void*> nulls(3, nullptr);
  EXPECT_EQ(k.call(nulls, {100}, nullptr, nullptr, nullptr), kernel_status::null_argument);
  try {
    k.launch(nulls, {100}, nullptr, nullptr);
    FAIL();
  } catch (const kernel_status_error& e) {
    EXPECT_EQ(e.code(), kernel_status::null_argument);
    EXPECT_NE(std::string(e.what()).find("null tensor argument"), std::string::npos);
  }
  // A negative size is refused before anything runs.
  EXPECT_EQ(k.call(nulls, {-1}, nullptr, nullptr, nullptr), kernel_status::unsupported_argument);
  // Zero rows: X and Y may be null (size 0) but W (64 x 48) may not; with W given, nothing runs.
  EXPECT_EQ(k.call(nulls, {0}, nullptr, nullptr, nullptr), kernel_status::null_argument);
  const float w_stand_in = 0;  // never dereferenced: no rows to compute
  EXPECT_EQ(k.call({nullptr, &w_stand_in, nullptr}, {0}, nullptr, nullptr, nullptr), kernel_status::ok);
  EXPECT_THROW((void)k.call(nulls, {1, 2}, nullptr, nullptr, nullptr), invalid_argument_error);
  EXPECT_THROW(kernel_entry(so, "no_such_kernel", 3, 1), symbol_not_found_error);
}

TEST(KernelCall, ManyArgumentsPassThroughTheSlots) {
  if (!have_compiler(platform::amd)) GTEST_SKIP() << "hipcc not found";
  temp_dir dir;
  code_cache cache(dir.path() / "kernels");
  // An entry point with 3 tensors and 20 integer arguments that reports a checksum of them through
  // the workspace query: proves every slot (registers and stack) arrives in order.
  std::string params;
  std::string sum;
  for (int i = 0; i < 20; ++i) {
    params += ", int64_t a";
    params += std::to_string(i);
    sum += " + a";
    sum += std::to_string(i);
    sum += " * ";
    sum += std::to_string(i + 1);
  }
  std::string src;
  src += "#include \"rocmtpl_hip_portable.h\"\n#include <cstdint>\n#include <cstddef>\n";
  src += "extern \"C\" __attribute__((visibility(\"default\"))) int probe(const void* a, const void* b, void* c";
  src += params;
  src += ", size_t* ws, uint8_t* w, hipStream_t s) {\n";
  src += "  (void)w; (void)s;\n  if (ws) { *ws = static_cast<size_t>(0";
  src += sum;
  src += " + (a != nullptr) * 1000000 + (c != nullptr) * 2000000); }\n  (void)b;\n  return 0;\n}\n";
  const auto lib = cache.get_or_compile(compiler::find(platform::amd), src, amd_compile_options({"gfx90a"}));
  kernel_entry k(std::make_shared<shared_library>(lib.library), "probe", 3, 20);
  std::vector<std::int64_t> extra;
  std::int64_t expected = 0;
  for (int i = 0; i < 20; ++i) {
    extra.push_back(i * 7 + 3);
    expected += (i * 7 + 3) * (i + 1);
  }
  EXPECT_EQ(k.workspace_size(extra), static_cast<std::size_t>(expected));
}

}  // namespace
