// SPDX-License-Identifier: MIT
// The runtime's helper kernels (seeded fill, compare): their source speaks the host's dtype
// numbering and compiles; the entry points answer the workspace query without a GPU.
#include <rocmtpl/runtime/utility_kernels.hpp>

#include "runtime/runtime_test_support.hpp"

#include <gtest/gtest.h>

#include <string>

namespace {

using namespace rocmtpl;
using namespace rocmtpl::runtime;
using rocmtpl::test::scoped_env;
using rocmtpl::test::temp_dir;

TEST(UtilityKernels, SourceUsesTheSharedDtypeNumbering) {
  const std::string& src = rocmtpl::runtime::detail::utility_source;
  EXPECT_EQ(src.rfind(dtype_code_defines(), 0), 0U) << "the source must start with dtype_code_defines()";
  EXPECT_NE(src.find("f16 = ROCMTPL_DTYPE_FLOAT16"), std::string::npos);
  EXPECT_NE(src.find("bf16 = ROCMTPL_DTYPE_BFLOAT16"), std::string::npos);
  EXPECT_EQ(src.find("f16 = 0"), std::string::npos) << "a private numbering came back";
}

TEST(UtilityKernels, CompilesForAmdAndAnswersTheWorkspaceQuery) {
  ROCMTPL_REQUIRE_COMPILER(cc, platform::amd);
  temp_dir dir;
  const scoped_env cache_dir("ROCMTPL_CACHE_DIR", (dir / "cache").string());
  code_cache cache(dir / "kernels");
  auto options = amd_compile_options({"gfx90a"});
  options.resource_usage = false;
  const auto library = utility_kernels::build(cache, cc, options);
  const auto lib = std::make_shared<shared_library>(library);
  const kernel_entry fill(lib, "rocmtpl_fill_uniform", runtime::detail::fill_signature());
  EXPECT_EQ(fill.workspace_size({dtype_code(dtype::bf16), 100, 7}), 0U);
  const kernel_entry compare(lib, "rocmtpl_compare", runtime::detail::compare_signature());
  EXPECT_EQ(compare.workspace_size(std::vector<std::int64_t>(23, 1)), 0U);
  // The helpers' entries are declared from these signatures, and their libraries say so.
  EXPECT_EQ(kernel_entry::exported_signature(*lib, "rocmtpl_compare"),
            runtime::detail::compare_signature().declaration("rocmtpl_compare"));
  EXPECT_EQ(fill.signature().tensor_count(), 1U);
  EXPECT_EQ(compare.signature().extra_count(), 23U);
}

}  // namespace
