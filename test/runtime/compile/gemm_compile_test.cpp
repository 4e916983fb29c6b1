// SPDX-License-Identifier: MIT
// The GEMM templates through the real compilers, without a GPU: the default (ranked) configurations
// of several problems build with hipcc for gfx90a and gfx940 without register spills and within
// the LDS budget, and with nvcc for sm_90 without spills; the AMD libraries load and answer the
// workspace query (split-K asks for its fp32 partials). Skips a compiler that is not installed.
//
// CI builds a handful of sources. ROCMTPL_GEMM_COMPILE_ALL=1 builds every shipped configuration
// (SIMT f32, matrix cores f16 and bf16) for both vendors instead, and every Hopper epilogue of the
// gpu label on every tiling for sm_90a, with nvcc and with NVRTC (288 device-only builds each, about
// 5 minutes each on 2 cores): the full spill check, to run before a device session that changes the
// Hopper device code.
#include <rocmtpl/runtime.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <future>
#include <iostream>
#include <string>
#include <vector>

#include "support/gemm.hpp"
#include "support/runtime.hpp"

namespace {
using namespace rocmtpl;
using namespace rocmtpl::runtime;
using templates::activation;
using templates::gemm_config;
using templates::gemm_options;
using templates::gemm_policy;

const sym_expr sM = sym_expr::symbol("M");
const sym_expr sN = sym_expr::symbol("N");
const sym_expr sK = sym_expr::symbol("K");

bool have(platform p) {
  try {
    (void)compiler::find(p).version();
    return true;
  } catch (const compiler_not_found_error&) {
    return false;
  }
}

compile_options nvidia_options() {
  compile_options o;
  o.platform = platform::nvidia;
  o.archs = {"sm_90"};
  o.include_dirs = {device_include_dir()};
  return o;
}

using gemm_test::compile_all;

struct build {
  std::string label;
  std::string source;
  entry_signature signature{};  // the entry's, where a test calls it
  int max_spill_bytes = 0;      // a measured spill the build tolerates (stores and loads each); 0: none
};

// Compiles every source (two at a time), then checks the resources of every kernel; returns the
// libraries. `nvidia_archs` replaces the default NVIDIA target (sm_90). `nvrtc`: NVIDIA code objects
// through NVRTC in this process (the tuner's device-only builds), else through nvcc (the gpu label's).
std::vector<std::filesystem::path> check_builds(const std::vector<build>& builds, runtime::platform platform,
                                                const std::vector<std::string>& nvidia_archs = {},
                                                compile_output output = compile_output::shared_library,
                                                bool nvrtc = false) {
  rocmtpl::test::temp_dir dir;
  code_cache cache(dir.path() / "kernels");
  const compiler cc = compiler::find(platform);
  compile_options opts = platform == platform::amd ? amd_compile_options({"gfx90a", "gfx940"}) : nvidia_options();
  if (platform == platform::nvidia && !nvidia_archs.empty()) opts.archs = nvidia_archs;
  opts.output = output;
  opts.in_process = nvrtc;
  std::vector<std::filesystem::path> libraries;
  const unsigned jobs = std::max(2U, std::thread::hardware_concurrency());
  std::size_t kernels = 0;
  for (std::size_t first = 0; first < builds.size(); first += jobs) {
    std::vector<std::future<compile_result>> running;
    for (std::size_t i = first; i < std::min(builds.size(), first + jobs); ++i) {
      running.push_back(
          std::async(std::launch::async, [&, i] { return cache.get_or_compile(cc, builds[i].source, opts); }));
    }
    for (std::size_t i = first; i < std::min(builds.size(), first + jobs); ++i) {
      compile_result r;
      try {
        r = running[i - first].get();
      } catch (const compile_error& e) {
        ADD_FAILURE() << builds[i].label << ": " << e.what();
        continue;
      }
      libraries.push_back(r.library);
      if (nvrtc) {
        EXPECT_EQ(r.argv.front(), "nvrtc") << builds[i].label;
      }
      EXPECT_FALSE(r.resources.empty()) << builds[i].label << ": no resource usage in the log:\n" << r.log;
      if (platform == platform::nvidia) {  // every target's kernels are read (several archs in one run)
        for (const auto& arch : opts.archs) {
          EXPECT_TRUE(
              std::any_of(r.resources.begin(), r.resources.end(), [&](const auto& k) { return k.arch == arch; }))
              << builds[i].label << ": no kernel built for " << arch;
        }
      }
      for (const auto& k : r.resources) {
        ++kernels;
        if (builds[i].max_spill_bytes == 0) {
          EXPECT_FALSE(k.spills()) << builds[i].label << ": " << to_string(k);
        } else {
          EXPECT_LE(std::max(k.spill_store_bytes, k.spill_load_bytes), builds[i].max_spill_bytes)
              << builds[i].label << ": " << to_string(k);
        }
        if (platform == platform::amd) {
          EXPECT_LE(k.lds_bytes, 64 * 1024) << builds[i].label << ": " << to_string(k);
          EXPECT_EQ(k.scratch_bytes, 0) << builds[i].label << ": " << to_string(k);
        } else {
          EXPECT_LE(k.registers, 255) << builds[i].label << ": " << to_string(k);
          EXPECT_EQ(k.stack_bytes, 0) << builds[i].label << ": " << to_string(k);
        }
      }
    }
  }
  std::cout << "[ gemm ] " << builds.size() << " sources, " << kernels << " kernel builds checked for "
            << to_string(platform) << "\n";
  // The libraries outlive the temporary cache: copy them out.
  static rocmtpl::test::temp_dir keep;
  for (auto& lib : libraries) {
    const auto copy = keep.path() / (std::to_string(std::hash<std::string>{}(lib.string())) + ".so");
    std::filesystem::copy_file(lib, copy, std::filesystem::copy_options::overwrite_existing);
    lib = copy;
  }
  return libraries;
}

rocm_template<gemm_policy> linear_f16() {
  return {gemm_policy({.act = activation::relu}),
          {buffer("x", layout::row_major(dtype::f16, {sM, sK})), buffer("w", layout::col_major(dtype::f16, {sK, sN})),
           buffer("bias", layout::row_major(dtype::f32, {sN}))},
          layout::row_major(dtype::f16, {sM, sN})};
}

rocm_template<gemm_policy> static_bf16() {
  return {gemm_policy({.act = activation::gelu, .residual = true}),
          {buffer("x", layout::row_major(dtype::bf16, {1000, 700})),
           buffer("w", layout::row_major(dtype::bf16, {700, 3000})),
           buffer("res", layout::row_major(dtype::bf16, {1000, 3000}))},
          layout::row_major(dtype::bf16, {1000, 3000})};
}

rocm_template<gemm_policy> simt_f32() {
  return {gemm_policy({.act = activation::gelu}),
          {buffer("x", layout::row_major(dtype::f32, {sM, sK})), buffer("w", layout::row_major(dtype::f32, {sK, sN})),
           buffer("bias", layout::row_major(dtype::f32, {sN}))},
          layout::row_major(dtype::f32, {sM, sN})};
}

rocm_template<gemm_policy> split_f16() {
  const auto b = sym_expr::symbol("B");
  return {gemm_policy({.runtime_split_k = true}),
          {buffer("x", layout::row_major(dtype::f16, {b, sM, 4096})),
           buffer("w", layout::row_major(dtype::f16, {4096, 128}))},
          layout::row_major(dtype::f16, {b, sM, 128})};
}

const size_hints square_4096{{"M", 4096}, {"N", 4096}, {"K", 4096}};

// The configuration of a list that needs the most registers (the spill risk).
gemm_config heaviest(const std::vector<gemm_config>& list) {
  return *std::max_element(list.begin(), list.end(), [](const gemm_config& a, const gemm_config& b) {
    return a.register_estimate() < b.register_estimate();
  });
}

// What CI builds: the first ranked configuration of each problem, and the heaviest of each path.
std::vector<build> default_builds() {
  std::vector<build> out;
  const auto add = [&](const std::string& label, const rocm_template<gemm_policy>& t, const gemm_config& c,
                       const size_hints& h) {
    out.push_back({label + " " + c.name(), t.generate(c, h).source()});
  };
  auto lin = linear_f16();
  add("f16 linear", lin, lin.policy().configs(lin.context(), square_4096).front(), square_4096);
  auto bf = static_bf16();
  add("bf16 static", bf, heaviest(bf.policy().configs(bf.context(), {})), {});
  auto f32 = simt_f32();
  add("f32", f32, heaviest(f32.policy().configs(f32.context(), square_4096)), square_4096);
  auto split = split_f16();
  const size_hints h{{"B", 2}, {"M", 128}};
  // The first mma/SIMT split-K configuration: a Hopper one ranks first since the batch folds into
  // M, and it builds no kernel for AMD (HopperSourcesBuildForAmdAndRefuseAtRunTime and the sm_90a
  // split-K build cover it).
  const auto ranked = split.policy().configs(split.context(), h);
  const auto tiled = std::find_if(ranked.begin(), ranked.end(), [](const gemm_config& c) {
    return !c.holds<templates::wgmma_config>() && c.split_k() > 1;
  });
  if (tiled == ranked.end()) {
    ADD_FAILURE() << "f16 split-K: no mma/SIMT configuration splits K";
  } else {
    add("f16 split-K", split, *tiled, h);
  }
  return out;
}

std::vector<build> every_build() {
  std::vector<build> out;
  auto f32 = simt_f32();
  for (const auto& c : f32.policy().configs(f32.context(), square_4096))
    out.push_back({"f32 " + c.name(), f32.generate(c, square_4096).source()});
  auto lin = linear_f16();
  for (const auto& c : lin.policy().configs(lin.context(), square_4096))
    out.push_back({"f16 " + c.name(), lin.generate(c, square_4096).source()});
  auto bf = static_bf16();
  for (const auto& c : bf.policy().configs(bf.context(), {}))
    out.push_back({"bf16 " + c.name(), bf.generate(c, {}).source()});
  return out;
}

TEST(GemmCompile, AmdBuildsWithoutSpills) {
  if (!have(platform::amd)) GTEST_SKIP() << "hipcc not found (apt-get install hipcc)";
  check_builds(compile_all() ? every_build() : default_builds(), platform::amd);
}

TEST(GemmCompile, NvidiaBuildsWithoutSpills) {
  if (!have(platform::nvidia)) GTEST_SKIP() << "nvcc not found";
  auto builds = compile_all() ? every_build() : default_builds();
  if (!compile_all()) builds.resize(2);  // CI: the f16 linear and the heaviest bf16
  check_builds(builds, platform::nvidia);
}

TEST(GemmCompile, AmdLibraryAnswersTheWorkspaceQuery) {
  if (!have(platform::amd)) GTEST_SKIP() << "hipcc not found (apt-get install hipcc)";
  rocmtpl::test::temp_dir dir;
  code_cache cache(dir.path() / "kernels");
  auto t = split_f16();
  const gemm_config c = t.policy().configs(t.context(), {{"B", 2}, {"M", 128}}).front().with_split_k(4);
  const auto caller = t.generate(c, {{"B", 2}, {"M", 128}});
  const auto lib =
      cache.get_or_compile(compiler::find(platform::amd), caller.source(), amd_compile_options({"gfx90a"}));
  kernel_entry k(std::make_shared<shared_library>(lib.library), "rocm_gemm", caller.bmreq().signature);
  // Sizes B = 2, M = 100, then split_k.
  EXPECT_EQ(k.workspace_size({2, 100, 4}), 4U * 2 * 100 * 128 * sizeof(float));
  EXPECT_EQ(k.workspace_size({2, 100, 1}), 0U);
  EXPECT_THROW((void)k.workspace_size({2, 100, 0}), kernel_status_error);
  EXPECT_THROW((void)k.workspace_size({-1, 100, 2}), kernel_status_error);
  // Null tensors with work to do: refused before anything is launched.
  std::vector<const void*> nulls(3, nullptr);
  EXPECT_EQ(k.call(nulls, {2, 100, 4}, nullptr, nullptr, nullptr), kernel_status::null_argument);
  // Issue 8: products of sizes that do not fit are refused with a status, never wrapped. B * M * N
  // overflows int64; with B = 1 the element count fits but split_k * count * sizeof(float) does not
  // fit size_t. The launch refuses them too, before anything reaches the GPU runtime.
  const std::int64_t big = std::int64_t{1} << 40;
  EXPECT_THROW((void)k.workspace_size({big, big, 2}), kernel_status_error);
  EXPECT_THROW((void)k.workspace_size({1, std::int64_t{1} << 55, 4}), kernel_status_error);
  int dummy = 0;
  std::vector<const void*> tensors(3, &dummy);
  EXPECT_EQ(k.call(tensors, {big, big, 1}, nullptr, nullptr, nullptr), kernel_status::unsupported_argument);
  EXPECT_EQ(k.call(tensors, {1, std::int64_t{1} << 55, 4}, nullptr, nullptr, nullptr),
            kernel_status::unsupported_argument);
}

// Issue 22 item 6: an output whose row stride is a symbol is checked for overlap by the entry point,
// before anything is launched: rows of N elements every ldy < N elements are refused (and so are
// batches that share rows); one row may have any stride. Runs without a GPU (the refusal comes
// before the launch).
TEST(GemmCompile, AmdLibraryRefusesOverlappingSymbolicOutputStrides) {
  if (!have(platform::amd)) GTEST_SKIP() << "hipcc not found (apt-get install hipcc)";
  rocmtpl::test::temp_dir dir;
  code_cache cache(dir.path() / "kernels");
  const auto b = sym_expr::symbol("B");
  const auto n = sym_expr::symbol("N");
  const auto ldy = sym_expr::symbol("ldy");
  const auto ldb = sym_expr::symbol("ldb");
  rocm_template<gemm_policy> t(
      gemm_policy(),
      {buffer("x", layout::row_major(dtype::f32, {b, sM, 64})), buffer("w", layout::row_major(dtype::f32, {64, n}))},
      layout(dtype::f32, {b, sM, n}, {ldb, ldy, 1}));
  const size_hints h{{"B", 2}, {"M", 8}, {"N", 8}, {"ldy", 8}, {"ldb", 64}};
  const auto caller = t.generate(t.policy().configs(t.context(), h).front(), h);
  const auto lib =
      cache.get_or_compile(compiler::find(platform::amd), caller.source(), amd_compile_options({"gfx90a"}));
  kernel_entry k(std::make_shared<shared_library>(lib.library), "rocm_gemm", caller.bmreq().signature);
  int dummy = 0;
  const std::vector<const void*> tensors(3, &dummy);
  // Sizes in first-appearance order: B, M, N, ldb, ldy.
  const auto call = [&](std::vector<std::int64_t> sizes) { return k.call(tensors, sizes, nullptr, nullptr, nullptr); };
  const auto unsupported = kernel_status::unsupported_argument;
  EXPECT_EQ(call({2, 8, 8, 64, 4}), unsupported);  // rows of 8 every 4 elements
  EXPECT_EQ(call({2, 8, 8, 32, 8}), unsupported);  // batches of 8 rows of 8 every 32 elements
  EXPECT_EQ(call({2, 8, 8, 64, 0}), unsupported);  // every row in one place
  EXPECT_EQ(call({1, 8, 8, 0, 4}), unsupported);   // one batch, rows still overlap
  // Disjoint: padded batches, one row of any stride (what happens next needs a GPU).
  EXPECT_NE(call({2, 8, 8, 64, 8}), unsupported);
  EXPECT_NE(call({2, 1, 8, 8, 0}), unsupported);
}

// The skinny paths (issue 10 part 2): the ranked first configuration of the benchmark's skinny
// shapes in each dtype and side, the heaviest skinny tile (most registers) of each kernel (the
// matrix-core one in f16 and bf16: 234 registers for 16-byte loads on sm_90a, CUDA 13), and
// the f32 streaming tiles of 4 K rows per step build for gfx90a, gfx940, sm_90 and sm_90a without
// spills; the workspace query answers the static K slices' partials. CI (without
// ROCMTPL_GEMM_COMPILE_ALL=1) builds the ones that come near spilling: the heaviest tiles (those
// of the skinny kernels in f16, of the matrix-core one in f16 and bf16) and, for sm_90a only, the
// f32 streaming tiles of 2, 8 and 16 rows in 13 slices (the two that once spilled there and the
// heaviest); the full set took 177 s of CI's 30 minutes.
std::vector<build> skinny_builds(bool all, platform target) {
  std::vector<build> out;
  for (dtype d : {dtype::f32, dtype::f16, dtype::bf16}) {
    for (bool col_w : {false, true}) {
      rocm_template<gemm_policy> t(
          gemm_policy({.act = activation::gelu, .bias_along = templates::bias_dim::m}),
          {buffer("x", layout::row_major(d, {sM, sK})),
           buffer("w", col_w ? layout::col_major(d, {sK, sN}) : layout::row_major(d, {sK, sN})),
           buffer("bias", layout::row_major(dtype::f32, {sM}))},
          layout::row_major(d, {sM, sN}));
      const std::string label = std::string(name(d)) + (col_w ? " col-major W " : " ");
      for (const size_hints& h :
           {size_hints{{"M", 8}, {"N", 8192}, {"K", 8192}}, size_hints{{"M", 8192}, {"N", 64}, {"K", 8192}}}) {
        const auto ranked = t.policy().configs(t.context(), h);
        if (all) out.push_back({label + ranked.front().name(), t.generate(ranked.front(), h).source()});
        std::vector<gemm_config> skinny;
        for (const auto& c : ranked) {
          if (gemm_test::is_skinny(c)) skinny.push_back(c);
        }
        if (d == dtype::f16) out.push_back({label + heaviest(skinny).name(), t.generate(heaviest(skinny), h).source()});
      }
      // The heaviest matrix-core tile (issue 10: 64 rows; row-major W only), K in 13 slices.
      if (!col_w && d != dtype::f32) {
        const auto tiles = templates::skinny_mma_path::search_space();
        const auto mma = heaviest({tiles.begin(), tiles.end()}).with_split_k(13);
        out.push_back({label + mma.name(), t.generate(mma, {{"M", 64}, {"N", 8192}, {"K", 8192}}).source()});
      }
    }
  }
  // The f32 streaming tiles of 4 K rows per step, K whole or in 13 slices (as in
  // GemmGpu.EverySkinnyConfigEveryDtype): their scalar fallback kernels spilled on sm_90a (bm2 and
  // bm8; CUDA 13, nvcc) until it stated one resident block per SM (render.hpp: write_skinny_code()).
  rocm_template<gemm_policy> f32(
      gemm_policy(),
      {buffer("x", layout::row_major(dtype::f32, {sM, sK})), buffer("w", layout::row_major(dtype::f32, {sK, sN}))},
      layout::row_major(dtype::f32, {sM, sN}));
  for (auto c : templates::skinny_path::search_space()) {
    if (c.p_threads < 32 || c.k_step != 4) continue;
    if (!all && (target != platform::nvidia || (c.rows != 2 && c.rows != 8 && c.rows != 16))) continue;
    c.vector = std::min(c.vector, 4);
    for (int split : {1, 13}) {
      c.split_k = split;
      if (c.invalid_reason() || !(all || split > 1)) continue;
      out.push_back({"f32 bk4 " + c.name_text().str(), f32.generate(c, {{"M", 7}, {"N", 333}, {"K", 520}}).source()});
    }
  }
  return out;
}

TEST(GemmCompile, SkinnyBuildsWithoutSpills) {
  if (have(platform::amd)) check_builds(skinny_builds(compile_all(), platform::amd), platform::amd);
  // sm_90a (the target the tuner and the GPU tests compile for on an H100, device_compile_arch()),
  // and with ROCMTPL_GEMM_COMPILE_ALL=1 sm_90 too, in one nvcc run per source.
  if (have(platform::nvidia)) {
    check_builds(skinny_builds(compile_all(), platform::nvidia), platform::nvidia,
                 compile_all() ? std::vector<std::string>{"sm_90", "sm_90a"} : std::vector<std::string>{"sm_90a"});
  }
  if (!have(platform::amd) && !have(platform::nvidia)) GTEST_SKIP() << "neither hipcc nor nvcc found";
}

TEST(GemmCompile, SkinnyLibraryAnswersTheWorkspaceQuery) {
  if (!have(platform::amd)) GTEST_SKIP() << "hipcc not found (apt-get install hipcc)";
  rocmtpl::test::temp_dir dir;
  code_cache cache(dir.path() / "kernels");
  rocm_template<gemm_policy> t(
      gemm_policy(),
      {buffer("x", layout::row_major(dtype::f16, {sM, sK})), buffer("w", layout::row_major(dtype::f16, {sK, sN}))},
      layout::row_major(dtype::f16, {sM, sN}));
  const size_hints h{{"M", 1}, {"N", 8192}, {"K", 8192}};
  const auto c = t.policy().configs(t.context(), h).front();
  ASSERT_EQ(gemm_test::side_of(c), templates::skinny_side::m) << c.name();
  ASSERT_GT(c.split_k(), 1);
  const auto caller = t.generate(c, h);
  const auto lib =
      cache.get_or_compile(compiler::find(platform::amd), caller.source(), amd_compile_options({"gfx90a"}));
  kernel_entry k(std::make_shared<shared_library>(lib.library), "rocm_gemm", caller.bmreq().signature);
  // The size arguments of M = 3, N = 1000, K = 64 in the entry's order.
  const auto sizes = t.generate(c, {{"M", 3}, {"N", 1000}, {"K", 64}}).bmreq().extra_args;
  EXPECT_EQ(k.workspace_size(sizes), static_cast<std::size_t>(c.split_k()) * 3 * 1000 * sizeof(float));
  std::vector<const void*> nulls(3, nullptr);
  EXPECT_EQ(k.call(nulls, sizes, nullptr, nullptr, nullptr), kernel_status::null_argument);
}

rocm_template<gemm_policy> plain_f16() {
  return {gemm_policy(),
          {buffer("x", layout::row_major(dtype::f16, {sM, sK})), buffer("w", layout::row_major(dtype::f16, {sK, sN}))},
          layout::row_major(dtype::f16, {sM, sN})};
}

// The Hopper path (wgmma_config): the README's main job (fp16 4096^3 + bias + relu) on every
// Hopper configuration, and a symbolic bf16 problem with Bias along M, a residual and runtime
// split-K, build for sm_90a (-gencode=arch=compute_90a,code=sm_90a) without spills; the SASS holds
// HGMMA when cuobjdump is installed. The same sources build for AMD, where the entry point
// answers the workspace query and refuses every launch.
std::vector<build> hopper_builds() {
  std::vector<build> out;
  rocm_template<gemm_policy> job(
      gemm_policy({.act = activation::relu}),
      {buffer("x", layout::row_major(dtype::f16, {4096, 4096})),
       buffer("w", layout::row_major(dtype::f16, {4096, 4096})), buffer("bias", layout::row_major(dtype::f16, {4096}))},
      layout::row_major(dtype::f16, {4096, 4096}));
  const auto ranked = job.policy().configs(job.context(), {});
  EXPECT_TRUE(ranked.front().holds<templates::wgmma_config>()) << ranked.front().name();
  for (const gemm_config c : templates::wgmma_path::search_space()) {
    const auto caller = job.generate(c);
    out.push_back({"f16 job " + c.name(), caller.source(), caller.bmreq().signature});
  }
  // The same job with runtime split-K on the largest tile (issue 10): the partial stores beside the
  // epilogue, and the reduction kernel.
  rocm_template<gemm_policy> split_job(
      gemm_policy({.act = activation::relu, .runtime_split_k = true}),
      {buffer("x", layout::row_major(dtype::f16, {1024, 1024})),
       buffer("w", layout::row_major(dtype::f16, {1024, 1024})), buffer("bias", layout::row_major(dtype::f16, {1024}))},
      layout::row_major(dtype::f16, {1024, 1024}));
  const auto split = gemm_config(templates::wgmma_path::search_space().front()).with_split_k(4);
  const auto split_caller = split_job.generate(split);
  out.push_back({"f16 job split-K " + split.name(), split_caller.source(), split_caller.bmreq().signature});
  // Stream-K on the largest tile, symbolic sizes (as GemmGpu.EveryHopperConfigF16AndBf16 builds it):
  // the partial tiles' stores and sums beside the epilogue.
  rocm_template<gemm_policy> stream_job(
      gemm_policy({.act = activation::relu}),
      {buffer("x", layout::row_major(dtype::f16, {sM, sK})), buffer("w", layout::row_major(dtype::f16, {sK, sN})),
       buffer("bias", layout::row_major(dtype::f16, {sN}))},
      layout::row_major(dtype::f16, {sM, sN}));
  // And on the ping-pong 64 x 256 tile (the 17-64-row problems' stream-K: one warpgroup's fix-up).
  auto stream = templates::wgmma_path::search_space().front();
  stream.stream_k = 2;
  auto stream_pp = templates::wgmma_path::search_space().back();
  stream_pp.stream_k = 8;
  for (const auto& c : {stream, stream_pp}) {
    const auto caller = stream_job.generate(c, square_4096);
    out.push_back({"f16 job stream-K " + gemm_config(c).name(), caller.source(), caller.bmreq().signature});
  }
  rocm_template<gemm_policy> sym(
      gemm_policy({.act = activation::sigmoid,
                   .bias_along = templates::bias_dim::m,
                   .residual = true,
                   .runtime_split_k = true}),
      {buffer("x", layout::row_major(dtype::bf16, {sM, sK})), buffer("w", layout::row_major(dtype::bf16, {sK, sN})),
       buffer("bias", layout::row_major(dtype::bf16, {sM})), buffer("res", layout::row_major(dtype::bf16, {sM, sN}))},
      layout::row_major(dtype::bf16, {sM, sN}));
  const gemm_config c = templates::wgmma_path::search_space().back();
  const auto sym_caller = sym.generate(c, square_4096);
  out.push_back({"bf16 symbolic " + c.name(), sym_caller.source(), sym_caller.bmreq().signature});
  // No Bias, no Residual.
  const auto plain = plain_f16();
  const gemm_config c2 = templates::wgmma_path::search_space()[1];
  const auto plain_caller = plain.generate(c2, square_4096);
  out.push_back({"f16 plain " + c2.name(), plain_caller.source(), plain_caller.bmreq().signature});
  return out;
}

// HGMMA instructions in a library's SASS, or -1 when cuobjdump is not installed.
int hgmma_count(const std::filesystem::path& lib) {
  if (std::system("command -v cuobjdump > /dev/null 2>&1") != 0) return -1;
  const std::string cmd = "cuobjdump -sass '" + lib.string() + "' | grep -c HGMMA";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (p == nullptr) return -1;
  int n = 0;
  if (std::fscanf(p, "%d", &n) != 1) n = 0;
  ::pclose(p);
  return n;
}

TEST(GemmCompile, HopperBuildsForSm90aWithWgmma) {
  if (!have(platform::nvidia)) GTEST_SKIP() << "nvcc not found";
  auto builds = hopper_builds();
  // CI: 128x256, the two ping-pong tilings, 128x256 split-K and stream-K, symbolic bf16, plain f16.
  if (!compile_all()) builds.erase(builds.begin() + 1, builds.begin() + 4);
  const auto libs = check_builds(builds, platform::nvidia, {"sm_90a"});
  ASSERT_EQ(libs.size(), builds.size());
  for (std::size_t i = 0; i < libs.size(); ++i) {
    const int n = hgmma_count(libs[i]);
    if (n < 0) {
      std::cout << "[ gemm ] cuobjdump not found: SASS not checked\n";
      break;
    }
    EXPECT_GT(n, 0) << builds[i].label << ": no HGMMA in the SASS";
  }
  // The host side refuses what the path cannot serve before it looks for a device, so the plain
  // f16 library answers without a GPU (where libcudart loads): workspace 0, a misaligned X, N or K
  // not a multiple of 8.
  std::shared_ptr<shared_library> so;
  try {
    so = std::make_shared<shared_library>(libs.back());
  } catch (const std::exception& e) {
    std::cout << "[ gemm ] the sm_90a library does not load here (" << e.what() << "): host checks skipped\n";
    return;
  }
  const auto plain = plain_f16();
  const gemm_config c = templates::wgmma_path::search_space()[1];
  const auto args = [&](std::int64_t m, std::int64_t n, std::int64_t k) {
    return plain.generate(c, {{"M", m}, {"N", n}, {"K", k}}).bmreq().extra_args;
  };
  ASSERT_EQ(plain.generate(c, square_4096).source(), builds.back().source);
  kernel_entry k(so, "rocm_gemm", builds.back().signature);
  EXPECT_EQ(k.workspace_size(args(64, 64, 64)), 0U);
  alignas(16) static std::uint8_t memory[64];
  const void* aligned = memory;
  const void* shifted = memory + 2;
  const auto unsupported = kernel_status::unsupported_argument;
  EXPECT_EQ(k.call({shifted, aligned, aligned}, args(64, 64, 64), nullptr, nullptr, nullptr), unsupported);
  EXPECT_EQ(k.call({aligned, aligned, aligned}, args(64, 60, 64), nullptr, nullptr, nullptr), unsupported);
  EXPECT_EQ(k.call({aligned, aligned, aligned}, args(64, 64, 60), nullptr, nullptr, nullptr), unsupported);
  EXPECT_EQ(k.call({aligned, aligned, aligned}, args(0, 64, 64), nullptr, nullptr, nullptr),
            kernel_status::ok);  // nothing to do
}

// Every epilogue the gpu label runs on the Hopper path (gemm_test::hopper_cases(): the sources
// GemmGpu.EveryHopperConfigF16AndBf16 renders, and HygieneGpu's gelu with runtime split-K), on every
// tiling it runs them on, in f16 and bf16. These kernels sit at the 168-register limit, where
// ptxas's spills move with small changes of the device code (the store form, where the
// accumulators are zeroed), and a spill fails the gpu label: this finds them without a GPU. `all`:
// every source (ROCMTPL_GEMM_COMPILE_ALL=1); else the three that were closest to spilling when the
// path last changed. Built device-only with nvcc (the gpu label's compiler) and with NVRTC (the
// tuner's): the two tests below.
std::vector<build> hopper_epilogue_builds(bool all) {
  std::vector<build> out;
  for (dtype d : {dtype::f16, dtype::bf16}) {
    for (const auto& c : gemm_test::hopper_cases(d)) {
      // CI: gelu with runtime split-K on ping-pong 128 x 128; a column-major Residual on 128 x 256;
      // gelu, Bias[M] and an f32 Residual on ping-pong 64 x 256 (f16, unsplit).
      const auto& t = c.config;
      const bool unsplit = t.split_k == 1 && t.stream_k == 0;
      const bool closest = d == dtype::f16 && unsplit &&
                           ((c.label.ends_with(" gelu runtime split-K") && t.pingpong != 0 && t.block_m == 128) ||
                            (c.label.ends_with(" silu column-major residual") && t.pingpong == 0 && t.block_n == 256) ||
                            (c.label.ends_with(" bias[M] gelu alpha beta residual") && t.pingpong != 0 &&
                             t.block_m == 64 && t.block_n == 256));
      if (all || closest)
        out.push_back({c.label + " " + gemm_config(t).name(), c.tpl->generate(t, c.shapes.front()).source()});
    }
  }
  return out;
}

TEST(GemmCompile, HopperEpiloguesBuildWithoutSpills) {
  if (!have(platform::nvidia)) GTEST_SKIP() << "nvcc not found";
  const auto builds = hopper_epilogue_builds(compile_all());
  // A dtype: 15 on each of the 9 tilings, 3 more on the 5 of at most 128 x 128, 2 more (strided and
  // misaligned Residual) on 128 x 256 and the 3 ping-pong ones, 1 more (a folded batch split) on 128 x 256.
  ASSERT_EQ(builds.size(), compile_all() ? 2U * (9 * 15 + 5 * 3 + 4 * 2 + 1) : 3U);
  check_builds(builds, platform::nvidia, {"sm_90a"}, compile_output::code_object);
}

// The same sources through NVRTC, which the tuner's device-only builds use. Its PTX is not nvcc's:
// it computes shared-window addresses in 64 bits (mov.u64 and cvt.u32.u64 where nvcc has mov.u32),
// and ptxas spills 4 bytes on its PTX of gelu with runtime split-K at 128 x 256 (split 1 and 3,
// f16 and bf16), where nvcc's PTX of the same source spills nothing (CUDA 13.0, 2026-11-29): those
// four are held to that, every other kernel to none. Every source with ROCMTPL_GEMM_COMPILE_ALL=1
// (288 sources, 5 min on the 2-core VM), else the three of CI.
TEST(GemmCompile, HopperEpiloguesBuildWithoutSpillsInNvrtc) {
  if (!have(platform::nvidia)) GTEST_SKIP() << "nvcc not found";
  if (runtime::nvrtc() == nullptr) GTEST_SKIP() << "libnvrtc not found";
  auto builds = hopper_epilogue_builds(compile_all());
  for (auto& b : builds) {
    if (b.label.find(" gelu runtime split-K wgmma_bm128_bn256_") != std::string::npos) b.max_spill_bytes = 4;
  }
  check_builds(builds, platform::nvidia, {"sm_90a"}, compile_output::code_object, true);
}

TEST(GemmCompile, HopperSourcesBuildForAmdAndRefuseAtRunTime) {
  if (!have(platform::amd)) GTEST_SKIP() << "hipcc not found (apt-get install hipcc)";
  rocmtpl::test::temp_dir dir;
  code_cache cache(dir.path() / "kernels");
  const auto builds = hopper_builds();
  const auto symbolic =
      std::find_if(builds.begin(), builds.end(), [](const build& b) { return b.label.starts_with("bf16 symbolic"); });
  ASSERT_NE(symbolic, builds.end());
  const auto lib =
      cache.get_or_compile(compiler::find(platform::amd), symbolic->source, amd_compile_options({"gfx90a", "gfx940"}));
  kernel_entry k(std::make_shared<shared_library>(lib.library), "rocm_gemm", symbolic->signature);
  EXPECT_EQ(k.workspace_size({64, 64, 64, 1}), 0U);
  int dummy[4] = {};
  std::vector<const void*> tensors(5, dummy);
  EXPECT_EQ(k.call(tensors, {64, 64, 64, 1}, nullptr, nullptr, nullptr), kernel_status::unsupported_argument);
}
}  // namespace
