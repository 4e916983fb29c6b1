// SPDX-License-Identifier: MIT
// runtime/launch/module_launcher.hpp against a fake CUDA runtime (test/runtime/gpu/fake_cudart.cpp)
// and a fake driver (test/runtime/launch/fake_cuda_driver.cpp), on any machine: the kernels, grids,
// blocks, shared memory, shared-memory opt-in, parameter bytes, variant choice and tensor maps
// that a module_kernel passes to cuLaunchKernel for GEMM descriptions. Its own executable: it
// points the process's GPU runtime at the fakes before first use (skips where a real one loads).
#include <rocmtpl/rocm_template.hpp>
#include <rocmtpl/runtime/gpu/gpu_runtime.hpp>
#include <rocmtpl/runtime/launch/module_launcher.hpp>
#include <rocmtpl/templates/gemm.hpp>

#include "support/gemm.hpp"
#include "support/temp_dir.hpp"

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

namespace {
namespace fs = std::filesystem;
using namespace rocmtpl;
using namespace rocmtpl::runtime;
using templates::gemm_config;
using templates::gemm_options;
using templates::gemm_policy;

struct launch_seen {
  std::string kernel;
  unsigned grid[3];
  unsigned block[3];
  unsigned shared;
  std::vector<std::uint64_t> params;
};

// The fakes, loaded as the process's runtime and driver (the fake runtime first, under the soname
// libcudart.so.13 the loader asks for); false where the process's runtime is another one.
bool use_fakes() {
  static const bool ok = [] {
    if (::dlopen(ROCMTPL_FAKE_CUDART, RTLD_NOW | RTLD_GLOBAL) == nullptr) return false;
    ::setenv("ROCMTPL_PLATFORM", "nvidia", 1);
    ::setenv("ROCMTPL_CUDA_DRIVER", ROCMTPL_FAKE_CUDA_DRIVER, 1);
    const auto& rt = gpu_runtime::instance();
    int (*count)(const char*) = nullptr;
    if (void* h = ::dlopen(rt.library().c_str(), RTLD_NOW | RTLD_NOLOAD)) {
      count = reinterpret_cast<int (*)(const char*)>(::dlsym(h, "rocmtpl_fake_count"));
    }
    return rt.available() && count != nullptr;
  }();
  return ok;
}

template <class Fn>
Fn driver_fn(const char* name) {
  void* h = ::dlopen(ROCMTPL_FAKE_CUDA_DRIVER, RTLD_NOW | RTLD_NOLOAD);
  EXPECT_NE(h, nullptr);
  return reinterpret_cast<Fn>(::dlsym(h, name));
}
int count(const char* what) { return driver_fn<int (*)(const char*)>("rocmtpl_fake_driver_count")(what); }
void expect_params(int n) { driver_fn<void (*)(int)>("rocmtpl_fake_driver_params")(n); }
launch_seen seen(int i, std::size_t params) {
  launch_seen s{};
  s.params.resize(params);
  s.kernel = driver_fn<const char* (*)(int, unsigned*, unsigned*, unsigned*, std::uint64_t*)>(
      "rocmtpl_fake_driver_launch")(i, s.grid, s.block, &s.shared, s.params.data());
  return s;
}

// Stands in for the caller's code object: the fake driver finds kernels by name in it, so it lists
// the symbols that the source's device-symbol macro expands to (device_symbol() of each described
// launch; runtime_module_launcher_test checks real code objects against the same list).
fs::path code_object_file(const test::temp_dir& dir, const rocm_template_caller& c) {
  const auto p = dir.path() / (c.name() + ".co");
  std::ofstream out(p, std::ios::binary);
  for (const auto& v : c.launch()->variants) {
    for (const auto& l : v.launches) out << device_symbol(*c.launch(), l) << '\n';
  }
  out << '\0';
  return p;
}

std::uint64_t word(const void* p) { return reinterpret_cast<std::uintptr_t>(p); }

TEST(ModuleLauncherFake, SplitKGemmLaunchesBothKernelsWithTheirArguments) {
  if (!use_fakes()) GTEST_SKIP() << "a real CUDA runtime is present";
  const sym_expr m = sym_expr::symbol("M");
  const sym_expr k = sym_expr::symbol("K");
  rocm_template<gemm_policy> t(gemm_policy(gemm_options{.runtime_split_k = true}),
                               {buffer("x", layout::row_major(dtype::f16, {m, k})),
                                buffer("w", layout::row_major(dtype::f16, {k, sym_expr(256)}))},
                               layout::row_major(dtype::f16, {m, sym_expr(256)}));
  const gemm_config c = gemm_test::mma(128, 128, 32, 64, 64, 4).with_split_k(3);
  const auto caller = t.generate(c, {{"M", 1000}, {"K", 512}});
  test::temp_dir dir;
  const module_kernel kernel(code_object_file(dir, caller), *caller.launch(), {1000, 512}, {3});
  const std::vector<std::int64_t> extra{1000, 512, 3};
  EXPECT_EQ(kernel.workspace_size(extra), 1000U * 256U * 4U * 3U);
  EXPECT_THROW((void)kernel.workspace_size({1000, 512, 2}), invalid_argument_error);

  // Parameters: X, W, Y, Partial, M, K, split_k.
  expect_params(7);
  const int before = count("launches");
  alignas(16) static char memory[4][64];
  const std::vector<const void*> tensors{memory[0], memory[1], memory[2]};
  kernel.launch(tensors, extra, memory[3], nullptr);
  ASSERT_EQ(count("launches"), before + 2);
  const auto main = seen(before, 7);
  EXPECT_EQ(main.kernel, "rocm_gemm_v8_8");
  EXPECT_EQ(main.grid[0], 8U * 2U);  // cdiv(1000, 128) * cdiv(256, 128)
  EXPECT_EQ(main.grid[1], 1U);
  EXPECT_EQ(main.grid[2], 3U);  // split_k
  EXPECT_EQ(main.block[0], 128U);
  EXPECT_EQ(main.shared, 65536U);  // above 48 KiB: the fake refuses it unless the opt-in was made
  EXPECT_EQ(main.params[0], word(memory[0]));
  EXPECT_EQ(main.params[1], word(memory[1]));
  EXPECT_EQ(main.params[2], word(memory[2]));
  EXPECT_EQ(main.params[3], word(memory[3]));
  EXPECT_EQ(main.params[4], 1000U);
  EXPECT_EQ(main.params[5], 512U);
  EXPECT_EQ(static_cast<std::uint32_t>(main.params[6]), 3U);  // int32
  const auto reduce = seen(before + 1, 7);
  EXPECT_EQ(reduce.kernel, "rocm_gemm_split_k_reduce");
  EXPECT_EQ(reduce.grid[0], 1000U);  // cdiv(1000 * 256, 256)
  EXPECT_EQ(reduce.block[0], 256U);
  EXPECT_EQ(reduce.shared, 0U);

  // A misaligned X takes the scalar instantiation (then the reduction); so does K % 8 != 0.
  kernel.launch({memory[0] + 2, memory[1], memory[2]}, extra, memory[3], nullptr);
  ASSERT_EQ(count("launches"), before + 4);
  EXPECT_EQ(seen(before + 2, 7).kernel, "rocm_gemm_v1_1");
  const module_kernel odd(code_object_file(dir, caller), *caller.launch(), {1000, 510}, {1});
  odd.launch(tensors, {1000, 510, 1}, nullptr, nullptr);
  ASSERT_EQ(count("launches"), before + 5) << "split_k 1: no reduction";
  EXPECT_EQ(seen(before + 4, 7).kernel, "rocm_gemm_v1_1");
  EXPECT_EQ(seen(before + 4, 7).params[3], 0U) << "no workspace: a null Partial, as the C entry passes it";
  // A workspace is needed with split_k 3.
  EXPECT_THROW(kernel.launch(tensors, extra, nullptr, nullptr), kernel_status_error);
}

// Skinny split-K (issue 10 part 2): the static K slices need no runtime argument; the streaming
// kernel writes the partials, then the shared split-K reduction always follows.
TEST(ModuleLauncherFake, SkinnyStaticSplitKLaunchesTheStreamingKernelThenTheReduction) {
  if (!use_fakes()) GTEST_SKIP() << "a real CUDA runtime is present";
  const sym_expr m = sym_expr::symbol("M");
  const sym_expr k = sym_expr::symbol("K");
  const sym_expr n = sym_expr::symbol("N");
  rocm_template<gemm_policy> t(
      gemm_policy(),
      {buffer("x", layout::row_major(dtype::f16, {m, k})), buffer("w", layout::row_major(dtype::f16, {k, n}))},
      layout::row_major(dtype::f16, {m, n}));
  const auto c = gemm_test::skinny(templates::skinny_side::m, 2, 8, 32, 1, 8, 8, 4);
  const auto caller = t.generate(c, {{"M", 8}, {"K", 1024}, {"N", 4096}});
  test::temp_dir dir;
  const module_kernel kernel(code_object_file(dir, caller), *caller.launch(), {8, 1024, 4096}, {});
  const std::vector<std::int64_t> extra{8, 1024, 4096};
  EXPECT_EQ(kernel.workspace_size(extra), 4U * 8U * 4096U * 4U);

  // Parameters: X, W, Y, Partial, M, K, N.
  expect_params(7);
  const int before = count("launches");
  alignas(16) static char memory[4][64];
  const std::vector<const void*> tensors{memory[0], memory[1], memory[2]};
  kernel.launch(tensors, extra, memory[3], nullptr);
  ASSERT_EQ(count("launches"), before + 2);
  const auto main = seen(before, 7);
  EXPECT_EQ(main.kernel, "rocm_gemm_skinny_v8");
  EXPECT_EQ(main.grid[0], 4U * 16U);  // cdiv(8, 2) * cdiv(cdiv(4096, 8), 32)
  EXPECT_EQ(main.grid[1], 1U);
  EXPECT_EQ(main.grid[2], 4U);  // the static slices
  EXPECT_EQ(main.block[0], 256U);
  EXPECT_EQ(main.params[3], word(memory[3]));
  EXPECT_EQ(main.params[4], 8U);
  EXPECT_EQ(main.params[5], 1024U);
  EXPECT_EQ(main.params[6], 4096U);
  const auto reduce = seen(before + 1, 7);
  EXPECT_EQ(reduce.kernel, "rocm_gemm_split_k_reduce");
  EXPECT_EQ(reduce.grid[0], 128U);  // cdiv(8 * 4096, 256)
  EXPECT_EQ(reduce.params[3], word(memory[3]));

  // N % 8 != 0 (W's rows not 16-byte multiples) takes the scalar instantiation, then the
  // reduction.
  const module_kernel odd(code_object_file(dir, caller), *caller.launch(), {8, 1024, 4095}, {});
  odd.launch(tensors, {8, 1024, 4095}, memory[3], nullptr);
  ASSERT_EQ(count("launches"), before + 4);
  EXPECT_EQ(seen(before + 2, 7).kernel, "rocm_gemm_skinny_v1");
  EXPECT_EQ(seen(before + 2, 7).grid[0], 4U * 128U);  // cdiv(8, 2) * cdiv(4095, 32): units of one element
  EXPECT_EQ(seen(before + 3, 7).kernel, "rocm_gemm_split_k_reduce");
  // The slices' partials need the workspace.
  EXPECT_THROW(kernel.launch(tensors, extra, nullptr, nullptr), kernel_status_error);
}

TEST(ModuleLauncherFake, HopperGemmEncodesTensorMapsAndCapsTheGridAtTheSmCount) {
  if (!use_fakes()) GTEST_SKIP() << "a real CUDA runtime is present";
  rocm_template<gemm_policy> t(gemm_policy(),
                               {buffer("x", layout::row_major(dtype::bf16, {4096, 1024})),
                                buffer("w", layout::row_major(dtype::bf16, {1024, 4096}))},
                               layout::row_major(dtype::bf16, {4096, 4096}));
  const gemm_config c = gemm_test::hopper(128, 256, 4);
  const auto caller = t.generate(c);
  test::temp_dir dir;
  const module_kernel kernel(code_object_file(dir, caller), *caller.launch(), {}, {});
  EXPECT_EQ(kernel.workspace_size({}), 0U);
  expect_params(5);  // map_X, map_W, X, W, Y
  const int before = count("launches");
  const int maps = count("maps_encoded");
  alignas(16) static char memory[3][64];
  kernel.launch({memory[0], memory[1], memory[2]}, {}, nullptr, nullptr);
  ASSERT_EQ(count("launches"), before + 1);
  EXPECT_EQ(count("maps_encoded"), maps + 2);
  const auto l = seen(before, 5);
  EXPECT_EQ(l.kernel, "rocm_gemm_sm90");
  // 32 x 16 tiles, capped at the fake device's 160 SMs (attribute 16 answers 160).
  EXPECT_EQ(l.grid[0], 160U);
  EXPECT_EQ(l.block[0], 384U);
  EXPECT_EQ(l.shared, static_cast<unsigned>(c.shared_bytes()));
  EXPECT_EQ(l.params[0], word(memory[0])) << "map_X: the fake driver writes the base address first";
  EXPECT_EQ(l.params[1], word(memory[1])) << "map_W";
  EXPECT_EQ(l.params[2], word(memory[0]));
  EXPECT_EQ(l.params[4], word(memory[2]));
  // Unaligned Y: the Hopper path refuses (status unsupported), as its C entry does.
  EXPECT_THROW(kernel.launch({memory[0], memory[1], memory[2] + 2}, {}, nullptr, nullptr), kernel_status_error);
  // A kernel the code object lacks is a gpu_error naming it.
  const auto other = dir.path() / "other.co";
  std::ofstream(other, std::ios::binary) << "nothing here" << '\0';
  const module_kernel missing(other, *caller.launch(), {}, {});
  try {
    missing.launch({memory[0], memory[1], memory[2]}, {}, nullptr, nullptr);
    ADD_FAILURE() << "no error";
  } catch (const gpu_error& e) {
    EXPECT_NE(std::string(e.what()).find("rocm_gemm_sm90"), std::string::npos) << e.what();
  }
}

// Hopper split-K (issue 10): the persistent kernel gets the workspace as its partials and split_k,
// its grid counts (K slice, tile) units and is capped at the SM count; the reduction follows.
TEST(ModuleLauncherFake, HopperSplitKGemmLaunchesThePersistentKernelThenTheReduction) {
  if (!use_fakes()) GTEST_SKIP() << "a real CUDA runtime is present";
  const sym_expr m = sym_expr::symbol("M");
  const sym_expr k = sym_expr::symbol("K");
  rocm_template<gemm_policy> t(gemm_policy(gemm_options{.runtime_split_k = true}),
                               {buffer("x", layout::row_major(dtype::f16, {m, k})),
                                buffer("w", layout::row_major(dtype::f16, {k, sym_expr(256)}))},
                               layout::row_major(dtype::f16, {m, sym_expr(256)}));
  const gemm_config c = gemm_test::hopper(128, 128, 6).with_split_k(3);
  const auto caller = t.generate(c, {{"M", 1000}, {"K", 512}});
  test::temp_dir dir;
  const module_kernel kernel(code_object_file(dir, caller), *caller.launch(), {1000, 512}, {3});
  const std::vector<std::int64_t> extra{1000, 512, 3};
  EXPECT_EQ(kernel.workspace_size(extra), 1000U * 256U * 4U * 3U);
  // The persistent kernel: map_X, map_W, X, W, Y, Partial, M, K, split_k; the reduction: X, W, Y,
  // Partial, M, K, split_k. The first 7 of each are recorded.
  expect_params(7);
  const int before = count("launches");
  alignas(16) static char memory[4][64];
  kernel.launch({memory[0], memory[1], memory[2]}, extra, memory[3], nullptr);
  ASSERT_EQ(count("launches"), before + 2);
  const auto main = seen(before, 7);
  EXPECT_EQ(main.kernel, "rocm_gemm_sm90");
  EXPECT_EQ(main.grid[0], 8U * 2U * 3U);  // cdiv(1000, 128) x cdiv(256, 128) tiles x 3 slices (under 160 SMs)
  EXPECT_EQ(main.block[0], 384U);
  EXPECT_EQ(main.params[2], word(memory[0]));
  EXPECT_EQ(main.params[4], word(memory[2]));
  EXPECT_EQ(main.params[5], word(memory[3])) << "Partial: the workspace";
  EXPECT_EQ(main.params[6], 1000U);
  const auto reduce = seen(before + 1, 7);
  EXPECT_EQ(reduce.kernel, "rocm_gemm_split_k_reduce");
  EXPECT_EQ(reduce.grid[0], 1000U);  // cdiv(1000 * 256, 256)
  EXPECT_EQ(reduce.params[3], word(memory[3]));
  EXPECT_EQ(static_cast<std::uint32_t>(reduce.params[6]), 3U);
  // 20 slices: 320 units, capped at the fake device's 160 SMs (a kernel is bound to its arguments).
  const module_kernel twenty(code_object_file(dir, caller), *caller.launch(), {1000, 512}, {20});
  twenty.launch({memory[0], memory[1], memory[2]}, {1000, 512, 20}, memory[3], nullptr);
  ASSERT_EQ(count("launches"), before + 4);
  EXPECT_EQ(seen(before + 2, 7).grid[0], 160U);
  // split_k 1: one launch, no workspace needed.
  const module_kernel one(code_object_file(dir, caller), *caller.launch(), {1000, 512}, {1});
  EXPECT_EQ(one.workspace_size({1000, 512, 1}), 0U);
  one.launch({memory[0], memory[1], memory[2]}, {1000, 512, 1}, nullptr, nullptr);
  ASSERT_EQ(count("launches"), before + 5);
  EXPECT_EQ(seen(before + 4, 7).grid[0], 16U);
  // split_k 3 without a workspace is refused.
  EXPECT_THROW(kernel.launch({memory[0], memory[1], memory[2]}, extra, nullptr, nullptr), kernel_status_error);
}

}  // namespace
