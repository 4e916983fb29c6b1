// SPDX-License-Identifier: MIT
// The runtime's helper kernels (seeded fill, compare): their source speaks the host's dtype
// numbering and compiles, as a shared library and device-only; the entry points answer the
// workspace query without a GPU; their launch descriptions (the module API's launches and the
// entries' launch lines) cover every element.
#include <rocmtpl/runtime/bench/utility_kernels.hpp>

#include "support/runtime.hpp"

#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

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

// Issue 9 (cold tune): the helpers build device-only, through the compile path the candidates
// use (hipcc --genco on AMD), with both kernels under their unmangled names and no spills.
TEST(UtilityKernels, CompileDeviceOnlyForAmd) {
  ROCMTPL_REQUIRE_COMPILER(cc, platform::amd);
  temp_dir dir;
  const scoped_env cache_dir("ROCMTPL_CACHE_DIR", (dir / "cache").string());
  code_cache cache(dir / "kernels");
  auto options = amd_compile_options({"gfx90a", "gfx940"});
  options.output = compile_output::code_object;
  const auto r = cache.get_or_compile(cc, runtime::detail::utility_source, options);
  EXPECT_EQ(r.library.filename(), "code.co");
  std::set<std::string> kernels;
  for (const auto& k : r.resources) {
    kernels.insert(k.kernel + "@" + k.arch);
    EXPECT_FALSE(k.spills()) << k.kernel << " " << k.arch;
  }
  EXPECT_EQ(kernels, (std::set<std::string>{"rocmtpl_compare_kernel@gfx90a", "rocmtpl_compare_kernel@gfx940",
                                            "rocmtpl_fill_kernel@gfx90a", "rocmtpl_fill_kernel@gfx940"}));
  EXPECT_EQ(utility_kernels::build(cache, cc, options), r.library) << "cached";
}

TEST(UtilityKernels, LaunchDescriptionsCoverEveryElement) {
  const auto& fill = runtime::detail::fill_launch();
  EXPECT_EQ(fill.size_symbols, (std::vector<std::string>{"dtype", "n", "seed"}));
  const auto fill_grid = [&](std::int64_t n) {
    const auto b = bind(fill, {dtype_code(dtype::f16), n, -5}, {});
    const auto& l = b.variants.at(0).launches.at(0);
    EXPECT_EQ(l.symbol, "rocmtpl_fill_kernel");
    EXPECT_EQ(l.block, (std::array<std::int64_t, 3>{256, 1, 1}));
    EXPECT_EQ(l.params.size(), 4U);
    EXPECT_EQ(l.params[3].value, -5) << "the seed's bits go through unchanged";
    return launch_grid(l, 0)[0];
  };
  EXPECT_EQ(fill_grid(1), 1);
  EXPECT_EQ(fill_grid(256), 1);
  EXPECT_EQ(fill_grid(257), 2);
  EXPECT_EQ(fill_grid(std::int64_t{1} << 40), 65536) << "a grid-stride loop covers the rest";
  EXPECT_EQ(fill_grid(0), 0) << "nothing to fill: no launch";

  // compare: the grid follows the product of the padded sizes.
  tensor_meta out;
  out.type = dtype::f16;
  out.sizes = {3, 1000};
  out.strides = {1000, 1};
  tensor_meta ref = out;
  ref.type = dtype::f64;
  const auto extra = utility_kernels::compare_arguments(out, ref);
  ASSERT_EQ(extra.size(), 23U);
  EXPECT_EQ(extra[0], dtype_code(dtype::f16));
  EXPECT_EQ(extra[1], dtype_code(dtype::f64));
  EXPECT_EQ(extra[2], 2);
  const auto b = bind(runtime::detail::compare_launch(), extra, {});
  const auto& l = b.variants.at(0).launches.at(0);
  EXPECT_EQ(l.symbol, "rocmtpl_compare_kernel");
  EXPECT_EQ(l.params.size(), 4U + 23U);
  EXPECT_EQ(launch_grid(l, 0)[0], (3000 + 255) / 256);
  out.sizes = {4096, 4096};
  EXPECT_EQ(launch_grid(bind(runtime::detail::compare_launch(), utility_kernels::compare_arguments(out, out), {})
                            .variants[0]
                            .launches[0],
                        0)[0],
            4096);

  // The entries' launch lines are rendered from the same descriptions.
  const std::string& src = runtime::detail::utility_source;
  EXPECT_NE(src.find("hipLaunchKernelGGL(ROCMTPL_KERNEL_SYMBOL(fill_kernel), "), std::string::npos);
  EXPECT_NE(src.find("hipLaunchKernelGGL(ROCMTPL_KERNEL_SYMBOL(compare_kernel), "), std::string::npos);
  EXPECT_NE(src.find("rocmtpl_launch_min("), std::string::npos);
}

}  // namespace
