// SPDX-License-Identifier: MIT
// The GEMM templates on a real GPU (label gpu; skips without one), checked against cuBLAS.
//
// cuBLAS is dlopen'ed from this test (libcublas.so.13 / libcublas.so; no headers needed) and
// computes the fp32 product with column-major conventions (Y^T = W^T X^T); the epilogue (alpha,
// beta * Bias, activation, Residual, output cast) is applied on the host. Layouts cuBLAS cannot
// describe (no unit stride), K = 0, and machines without cuBLAS use a double-precision host product.
// Every check draws fresh random inputs, poisons the output (and the padding around it) with NaN
// bytes, and requires every element written, nothing else touched, and the error within the dtype's
// tolerance. Covered: every shipped SIMT (f32) and matrix-core (f16, bf16) configuration on shapes
// that are not tile multiples, on the vector path and on the one-element fallback, and M, N or K = 1;
// then each layout (row/column-major X, W, Y, padded strides and offsets), each epilogue, batched
// operands (broadcast W), runtime split-K, static shapes, addmm order, and the status codes.
#include <rocmtpl/runtime.hpp>

#include "gpu/gemm_gpu_harness.hpp"
#include "support/cublas.hpp"
#include "support/gemm.hpp"
#include "support/gpu.hpp"
#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <functional>
#include <iostream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace {
using namespace rocmtpl::test::gemm_gpu;
namespace fs = std::filesystem;
using namespace rocmtpl;
using namespace rocmtpl::runtime;
using rocmtpl::test::cublas;
using templates::activation;
using templates::bias_dim;
using templates::gemm_config;
using templates::gemm_options;
using templates::gemm_policy;

const sym_expr sM = sym_expr::symbol("M");
const sym_expr sN = sym_expr::symbol("N");
const sym_expr sK = sym_expr::symbol("K");

std::shared_ptr<rocm_template<gemm_policy>> problem(gemm_options o, std::vector<buffer> inputs, layout y,
                                                    std::optional<std::vector<int>> reorder = std::nullopt) {
  return std::make_shared<rocm_template<gemm_policy>>(gemm_policy(o), std::move(inputs), std::move(y),
                                                      std::move(reorder));
}

std::shared_ptr<rocm_template<gemm_policy>> plain(dtype t, gemm_options o = {}) {
  return problem(o, {buffer("x", layout::row_major(t, {sM, sK})), buffer("w", layout::row_major(t, {sK, sN}))},
                 layout::row_major(t, {sM, sN}));
}

// Shapes every configuration runs: not tile multiples on the vector path; odd sizes (the
// one-element fallback); N = 1; M = 1 with K = 1.
const std::vector<size_hints> config_shapes{{{"M", 333}, {"N", 200}, {"K", 264}},
                                            {{"M", 67}, {"N", 37}, {"K", 45}},
                                            {{"M", 5}, {"N", 1}, {"K", 40}},
                                            {{"M", 1}, {"N", 72}, {"K", 1}}};

// Whether the device runs the Hopper path (wgmma_config): compute capability 9.0.
bool hopper_device() {
  const auto& rt = gpu_runtime::instance();
  return rt.properties(rt.current_device()).kind == platform::nvidia &&
         rt.properties(rt.current_device()).arch == "sm_90";
}

// The policy's first configuration this device runs (the Hopper ones only on an sm_90 device).
gemm_config top_config(const rocm_template<gemm_policy>& t, const size_hints& hints) {
  for (const auto& c : t.policy().configs(t.context(), hints)) {
    if (!c.holds<templates::wgmma_config>() || hopper_device()) return c;
  }
  throw std::runtime_error("no configuration");
}

// The first configuration off the Hopper path: for checks whose later shapes (N or K not a multiple
// of 8) the Hopper path refuses by design.
gemm_config top_portable(const rocm_template<gemm_policy>& t, const size_hints& hints) {
  for (const auto& c : t.policy().configs(t.context(), hints)) {
    if (!c.holds<templates::wgmma_config>()) return c;
  }
  throw std::runtime_error("no configuration");
}

// The first tiled configuration (SIMT or matrix cores): for checks of the tiled paths' runtime
// split-K and alignment refusals on shapes where the skinny paths rank first (issue 10 part 2).
gemm_config top_tiled(const rocm_template<gemm_policy>& t, const size_hints& hints) {
  for (const auto& c : t.policy().configs(t.context(), hints)) {
    if (!c.holds<templates::wgmma_config>() && !gemm_test::is_skinny(c)) return c;
  }
  throw std::runtime_error("no configuration");
}

TEST(GemmGpu, EverySimtConfigF32) {
  ROCMTPL_REQUIRE_GPU_AND_COMPILER();
  harness h;
  std::vector<check_case> cases;
  auto t = plain(dtype::f32);
  for (const auto& c : templates::simt_path::search_space()) cases.push_back({"f32", t, {}, c, config_shapes});
  run_all(h, cases);
}

TEST(GemmGpu, EveryMatrixCoreConfigF16AndBf16) {
  ROCMTPL_REQUIRE_GPU_AND_COMPILER();
  harness h;
  std::vector<check_case> cases;
  for (dtype d : {dtype::f16, dtype::bf16}) {
    auto t = plain(d);
    for (const auto& c : templates::mma_path::search_space()) {
      cases.push_back({std::string(name(d)), t, {}, c, config_shapes});
    }
  }
  // Bigger shapes (several waves, long K) on the ranked favourites.
  for (dtype d : {dtype::f16, dtype::bf16}) {
    auto t = plain(d);
    const size_hints big{{"M", 1000}, {"N", 1536}, {"K", 1032}};
    std::vector<gemm_config> ranked;
    for (const auto& c : t->policy().configs(t->context(), big)) {
      if (c.holds<templates::mma_config>()) ranked.push_back(c);  // the Hopper ones: EveryHopperConfig
    }
    for (std::size_t i = 0; i < 4 && i < ranked.size(); ++i) {
      cases.push_back({std::string(name(d)) + "-big", t, {}, ranked[i], {big, {{"M", 2048}, {"N", 512}, {"K", 4096}}}});
    }
  }
  run_all(h, cases);
}

TEST(GemmGpu, Layouts) {
  ROCMTPL_REQUIRE_GPU_AND_COMPILER();
  harness h;
  std::vector<check_case> cases;
  for (dtype d : {dtype::f32, dtype::f16, dtype::bf16}) {
    const std::string n(name(d));
    const size_hints hint{{"M", 300}, {"N", 136}, {"K", 200}};
    auto add = [&](const std::string& label, std::vector<buffer> in, layout y) {
      auto t = problem({}, std::move(in), std::move(y));
      cases.push_back({n + " " + label, t, {}, top_config(*t, hint), {hint, {{"M", 17}, {"N", 24}, {"K", 9}}}});
    };
    add("col-major X", {buffer("x", layout::col_major(d, {sM, sK})), buffer("w", layout::row_major(d, {sK, sN}))},
        layout::row_major(d, {sM, sN}));
    add("col-major W", {buffer("x", layout::row_major(d, {sM, sK})), buffer("w", layout::col_major(d, {sK, sN}))},
        layout::row_major(d, {sM, sN}));
    add("col-major X, W, Y", {buffer("x", layout::col_major(d, {sM, sK})), buffer("w", layout::col_major(d, {sK, sN}))},
        layout::col_major(d, {sM, sN}));
    // Padded leading dimensions and offsets (aligned: the vector path).
    add("padded",
        {buffer("x", layout(d, {sM, sK}, {sK + 8, 1}, 16)), buffer("w", layout(d, {sK, sN}, {sN + 16, 1}, 8))},
        layout(d, {sM, sN}, {sN + 5, 1}, 3));
    // Misaligned offsets (the fallback) and no unit stride at all (host product).
    add("misaligned",
        {buffer("x", layout(d, {sM, sK}, {sK + 3, 1}, 1)), buffer("w", layout(d, {sK, sN}, {1, sK + 1}, 5))},
        layout::row_major(d, {sM, sN}));
    add("no unit stride",
        {buffer("x", layout(d, {sM, sK}, {2 * sK, 2}, 0)), buffer("w", layout(d, {sK, sN}, {1, sK}, 0))},
        layout::row_major(d, {sM, sN}));
  }
  run_all(h, cases);
}

TEST(GemmGpu, Epilogues) {
  ROCMTPL_REQUIRE_GPU_AND_COMPILER();
  harness h;
  std::vector<check_case> cases;
  const size_hints hint{{"M", 129}, {"N", 264}, {"K", 96}};
  struct variant {
    std::string label;
    gemm_options o;
    dtype in, out, bias;
    std::vector<sym_expr> bias_sizes;
  };
  const std::vector<variant> variants{
      {"bias[N] relu", {.act = activation::relu}, dtype::f16, dtype::f16, dtype::f32, {sN}},
      {"bias[M] gelu",
       {.act = activation::gelu, .bias_along = bias_dim::m},
       dtype::bf16,
       dtype::bf16,
       dtype::bf16,
       {sM}},
      {"bias[M,N] beta silu", {.act = activation::silu, .beta = 0.5F}, dtype::f32, dtype::f32, dtype::bf16, {sM, sN}},
      {"bias[1,N] sigmoid alpha",
       {.act = activation::sigmoid, .alpha = 2.0F},
       dtype::f16,
       dtype::f32,
       dtype::f16,
       {1, sN}},
      {"residual", {.residual = true}, dtype::f16, dtype::f16, dtype::f16, {}},
      {"bias + residual gelu", {.act = activation::gelu, .residual = true}, dtype::bf16, dtype::f32, dtype::f32, {sN}},
      {"f32 -> bf16", {.act = activation::relu}, dtype::f32, dtype::bf16, dtype::f32, {sN}},
      {"bf16 -> f16", {}, dtype::bf16, dtype::f16, dtype::f32, {sN}},
  };
  for (const auto& v : variants) {
    std::vector<buffer> in{buffer("x", layout::row_major(v.in, {sM, sK})),
                           buffer("w", layout::row_major(v.in, {sK, sN}))};
    if (!v.bias_sizes.empty()) in.emplace_back("bias", layout::row_major(v.bias, v.bias_sizes));
    if (v.o.residual) in.emplace_back("res", layout::row_major(v.bias, {sM, sN}));
    auto t = problem(v.o, std::move(in), layout::row_major(v.out, {sM, sN}));
    check_case c{v.label, t, v.o, top_portable(*t, hint), {hint, {{"M", 3}, {"N", 5}, {"K", 7}}}};
    c.bias_along_m = v.o.bias_along == bias_dim::m;
    cases.push_back(c);
    // The same epilogue on SIMT for 16-bit operands (mixed paths share the epilogue).
    if (v.in != dtype::f32) {
      c.config = gemm_config{};
      c.label += " simt";
      cases.push_back(c);
    }
  }
  // addmm order [bias, X, W].
  {
    gemm_options o{.beta = 1.0F};
    auto t = problem(
        o,
        {buffer("x", layout::row_major(dtype::f16, {sM, sK})), buffer("w", layout::row_major(dtype::f16, {sK, sN})),
         buffer("bias", layout::row_major(dtype::f16, {sN}))},
        layout::row_major(dtype::f16, {sM, sN}), std::vector<int>{2, 0, 1});
    cases.push_back({"addmm order", t, o, top_config(*t, hint), {hint}});
  }
  run_all(h, cases);
}

TEST(GemmGpu, BatchedAndBroadcast) {
  ROCMTPL_REQUIRE_GPU_AND_COMPILER();
  harness h;
  std::vector<check_case> cases;
  const auto sB = sym_expr::symbol("B");
  const size_hints hint{{"B", 3}, {"M", 100}, {"N", 72}, {"K", 136}};
  for (dtype d : {dtype::f32, dtype::f16, dtype::bf16}) {
    const std::string n(name(d));
    gemm_options o{.act = activation::relu, .residual = true};
    auto t = problem(
        o,
        {buffer("x", layout::row_major(d, {sB, sM, sK})), buffer("w", layout::row_major(d, {sB, sK, sN})),
         buffer("bias", layout::row_major(dtype::f32, {sB, 1, sN})), buffer("res", layout::row_major(d, {sB, sM, sN}))},
        layout::row_major(d, {sB, sM, sN}));
    cases.push_back({n + " bmm", t, o, top_config(*t, hint), {hint, {{"B", 2}, {"M", 1}, {"N", 9}, {"K", 1}}}});
    // A shared weight (rank 2) and a column-major batch of X.
    auto t2 = problem(
        {}, {buffer("x", layout(d, {sB, sM, sK}, {sM * sK, 1, sM}, 0)), buffer("w", layout::col_major(d, {sK, sN}))},
        layout::row_major(d, {sB, sM, sN}));
    cases.push_back({n + " broadcast W", t2, {}, top_config(*t2, hint), {hint}});
  }
  run_all(h, cases);
}

TEST(GemmGpu, RuntimeSplitK) {
  ROCMTPL_REQUIRE_GPU_AND_COMPILER();
  harness h;
  std::vector<check_case> cases;
  const auto sB = sym_expr::symbol("B");
  for (dtype d : {dtype::f32, dtype::f16, dtype::bf16}) {
    gemm_options o{.act = activation::gelu, .runtime_split_k = true};
    auto t = problem(o,
                     {buffer("x", layout::row_major(d, {sB, sM, sK})), buffer("w", layout::row_major(d, {sK, sN})),
                      buffer("bias", layout::row_major(d, {sN}))},
                     layout::row_major(d, {sB, sM, sN}));
    const size_hints hint{{"B", 2}, {"M", 64}, {"N", 96}, {"K", 1000}};
    auto base = top_tiled(*t, hint);  // M = 64 ranks the skinny path first: EverySkinnyConfig covers it
    for (int s : {1, 2, 3, 7, 40}) {
      const auto c = base.with_split_k(s);
      cases.push_back({std::string(name(d)) + " split " + std::to_string(s),
                       t,
                       o,
                       c,
                       {hint, {{"B", 1}, {"M", 33}, {"N", 8}, {"K", 40}}}});
    }
  }
  run_all(h, cases);
}

TEST(GemmGpu, StaticShapesAndEdgeSizes) {
  ROCMTPL_REQUIRE_GPU_AND_COMPILER();
  harness h;
  std::vector<check_case> cases;
  for (dtype d : {dtype::f32, dtype::f16, dtype::bf16}) {
    const std::string n(name(d));
    for (auto [m, nn, k] : std::vector<std::tuple<int, int, int>>{
             {256, 384, 512}, {100, 200, 300}, {1, 64, 64}, {64, 1, 64}, {64, 64, 1}, {65, 33, 0}, {3, 5, 7}}) {
      gemm_options o{.act = activation::relu};
      auto t = problem(o,
                       {buffer("x", layout::row_major(d, {m, k})), buffer("w", layout::row_major(d, {k, nn})),
                        buffer("bias", layout::row_major(d, {nn}))},
                       layout::row_major(d, {m, nn}));
      cases.push_back({n + " static", t, o, top_config(*t, {}), {size_hints{}}});
    }
  }
  run_all(h, cases);
}

TEST(GemmGpu, StatusCodes) {
  ROCMTPL_REQUIRE_GPU_AND_COMPILER();
  harness h;
  std::vector<check_case> cases;
  // Static, aligned layout: one vector instantiation, a misaligned pointer is refused.
  auto t = problem(
      {}, {buffer("x", layout::row_major(dtype::f16, {64, 64})), buffer("w", layout::row_major(dtype::f16, {64, 64}))},
      layout::row_major(dtype::f16, {64, 64}));
  cases.push_back({"static", t, {}, top_tiled(*t, {}), {size_hints{}}});
  gemm_options o{.runtime_split_k = true};
  auto s = problem(
      o, {buffer("x", layout::row_major(dtype::f16, {64, 256})), buffer("w", layout::row_major(dtype::f16, {256, 64}))},
      layout::row_major(dtype::f16, {64, 64}));
  cases.push_back({"split", s, o, top_tiled(*s, {}), {size_hints{}}});
  h.prepare(cases);
  ASSERT_TRUE(cases[0].lib && cases[1].lib);
  device_buffer a(64 * 64 * 2 + 16), b(64 * 64 * 2), y(64 * 64 * 2);
  const auto* shifted = static_cast<const std::uint8_t*>(a.get()) + 2;
  EXPECT_EQ(h.call(cases[0], {a.get(), b.get(), y.get()}, {}, nullptr), kernel_status::ok);
  EXPECT_EQ(h.call(cases[0], {shifted, b.get(), y.get()}, {}, nullptr), kernel_status::unsupported_argument);
  EXPECT_EQ(h.call(cases[1], {a.get(), b.get(), y.get()}, {2}, nullptr), kernel_status::workspace_too_small);
  EXPECT_EQ(h.call(cases[1], {a.get(), b.get(), y.get()}, {0}, nullptr), kernel_status::unsupported_argument);
  EXPECT_EQ(h.call(cases[1], {a.get(), b.get(), y.get()}, {1}, nullptr), kernel_status::ok);
}

// The Hopper path (sm_90a TMA + wgmma): every shipped configuration, f16 and bf16, against cuBLAS,
// with partial tiles in M, N and K, one row, K = 0, several waves; each epilogue (Bias along N
// or M, relu/gelu/silu/sigmoid, alpha and beta, Residual, output casts), runtime split-K at 1, and
// runtime split-K above 1 (issue 10: fp32 partials per (K slice, tile) unit, then the reduction
// applies the epilogue; slices that get no k-block, K = 0, one row), a batch with a shared W folded
// into M; then the run-time refusals
// (split_k 0, a missing workspace, misaligned pointers, N not a multiple of 8).
TEST(GemmGpu, EveryHopperConfigF16AndBf16) {
  ROCMTPL_REQUIRE_GPU_AND_COMPILER();
  if (!hopper_device()) GTEST_SKIP() << "the Hopper path needs an sm_90 device";
  harness h;
  ASSERT_EQ(templates::wgmma_path::search_space().size(), 9U);  // six cooperative tilings, three ping-pong ones
  // The cases (support/gemm.hpp) are also GemmCompile.HopperEpiloguesBuildWithoutSpills's.
  std::vector<check_case> cases;
  for (dtype d : {dtype::f16, dtype::bf16}) {
    for (auto& c : gemm_test::hopper_cases(d)) {
      if (!c.gpu) continue;
      check_case k{std::move(c.label), std::move(c.tpl), c.options, c.config, std::move(c.shapes)};
      k.bias_along_m = c.bias_along_m;
      cases.push_back(std::move(k));
    }
  }
  const size_hints at{{"M", 333}, {"N", 200}, {"K", 264}}, wide{{"M", 129}, {"N", 264}, {"K", 96}};
  // The README's main job ranks a Hopper config first.
  const auto first_plain =
      std::find_if(cases.begin(), cases.end(), [](const check_case& c) { return c.label == "float16 hopper"; });
  ASSERT_NE(first_plain, cases.end());
  const std::size_t p0 = static_cast<std::size_t>(first_plain - cases.begin());  // plain, then bias relu, ...
  const auto first_addmm = std::find_if(first_plain, cases.end(),
                                        [](const check_case& c) { return c.label == "float16 hopper addmm sigmoid"; });
  ASSERT_NE(first_addmm, cases.end());
  EXPECT_TRUE(top_config(*cases[p0 + 1].tpl, {{"M", 4096}, {"N", 4096}, {"K", 4096}}).holds<templates::wgmma_config>());
  run_all(h, cases);

  // Refusals, never a wrong result: split_k 0, split_k above 1 without a workspace, misaligned X or
  // Y, N or K pitches not multiples of 8.
  const check_case& plain_case = cases[p0];
  const check_case& addmm_case = *first_addmm;
  ASSERT_TRUE(plain_case.lib && addmm_case.lib);
  device_buffer a(333 * 264 * 2 + 16), b(264 * 200 * 2 + 16), y(333 * 200 * 2 + 16), bias(264 * 2 + 16);
  const auto* xs = static_cast<const std::uint8_t*>(a.get()) + 2;
  auto* ys = static_cast<std::uint8_t*>(y.get()) + 2;
  const auto unsupported = kernel_status::unsupported_argument;
  // The entry point's size arguments (and split_k) for a shape, in the caller's order.
  const auto args = [](const check_case& c, const size_hints& hints) {
    return c.tpl->generate(c.config, hints).bmreq().extra_args;
  };
  const auto plain_args = args(plain_case, at);
  EXPECT_EQ(h.call(plain_case, {a.get(), b.get(), y.get()}, plain_args, nullptr), kernel_status::ok);
  EXPECT_EQ(h.call(plain_case, {xs, b.get(), y.get()}, plain_args, nullptr), unsupported);
  EXPECT_EQ(h.call(plain_case, {a.get(), b.get(), ys}, plain_args, nullptr), unsupported);
  EXPECT_EQ(
      h.call(plain_case, {a.get(), b.get(), y.get()}, args(plain_case, {{"M", 333}, {"N", 196}, {"K", 264}}), nullptr),
      unsupported);
  EXPECT_EQ(
      h.call(plain_case, {a.get(), b.get(), y.get()}, args(plain_case, {{"M", 333}, {"N", 200}, {"K", 260}}), nullptr),
      unsupported);
  // addmm: [bias, X, W] then Y; the sizes, then split_k.
  auto split_args = args(addmm_case, wide);
  EXPECT_EQ(h.call(addmm_case, {bias.get(), a.get(), b.get(), y.get()}, split_args, nullptr), kernel_status::ok);
  split_args.back() = 2;
  EXPECT_EQ(h.call(addmm_case, {bias.get(), a.get(), b.get(), y.get()}, split_args, nullptr),
            kernel_status::workspace_too_small);
  split_args.back() = 0;
  EXPECT_EQ(h.call(addmm_case, {bias.get(), a.get(), b.get(), y.get()}, split_args, nullptr), unsupported);
}
// ---------------------------------------------------------------------------------------------
// The skinny paths (skinny_config and skinny_mma_config, on side m or n; issue 10 part 2).
// ---------------------------------------------------------------------------------------------

// A skinny tile for one dtype and side: vector capped at 16 bytes, K split `split` ways.
templates::skinny_config skinny_for(templates::skinny_config c, dtype d, bool n_side, int split) {
  c.side = n_side ? templates::skinny_side::n : templates::skinny_side::m;
  c.vector = std::min(c.vector, static_cast<int>(16 / element_size(d)));
  c.split_k = split;
  return c;
}

// Shapes of one side: M (or N) in {1, 7, 32, 64} with the other sizes not multiples of the
// tiles or vectors' multiples, then odd sizes (the one-element fallback) and K = 1.
std::vector<size_hints> skinny_shapes(bool n_side) {
  std::vector<std::tuple<std::int64_t, std::int64_t, std::int64_t>> small_large_k{
      {1, 1000, 1030}, {7, 333, 520}, {32, 264, 96}, {64, 136, 2000}, {5, 37, 45}, {3, 40, 1}};
  std::vector<size_hints> out;
  for (auto [q, p, k] : small_large_k) {
    out.push_back(n_side ? size_hints{{"M", p}, {"N", q}, {"K", k}} : size_hints{{"M", q}, {"N", p}, {"K", k}});
  }
  return out;
}

// Every shipped skinny tile in every dtype, K whole or split (4 and 13 slices), against cuBLAS, on
// the side whose kernel the problem's space gives it (row-major operands: tiles with 32 or more
// threads along the large dimension stream W for few rows, tiles with 8 or more lanes along K
// take dot products of X's rows for few columns; the tiles with both run both sides, on alternate
// dtypes); no spills (the harness checks).
TEST(GemmGpu, EverySkinnyConfigEveryDtype) {
  ROCMTPL_REQUIRE_GPU_AND_COMPILER();
  harness h;
  std::vector<check_case> cases;
  const auto tiles = templates::skinny_path::search_space();
  const dtype dtypes[] = {dtype::f32, dtype::f16, dtype::bf16};
  for (std::size_t di = 0; di < 3; ++di) {
    const dtype d = dtypes[di];
    auto t = plain(d);
    for (std::size_t i = 0; i < tiles.size(); ++i) {
      const bool streams = tiles[i].p_threads >= 32;
      const bool dots = tiles[i].k_threads >= 8;
      const bool n_side = streams && dots ? (i + di) % 2 == 1 : dots;
      const int split = i % 3 == 0 ? 1 : (i % 3 == 1 ? 4 : 13);
      const auto c = skinny_for(tiles[i], d, n_side, split);
      if (c.invalid_reason()) continue;
      cases.push_back({std::string(name(d)) + (n_side ? " N-skinny" : " M-skinny"), t, {}, c, skinny_shapes(n_side)});
    }
  }
  EXPECT_EQ(cases.size(), 3 * tiles.size());
  run_all(h, cases);
}

// Every skinny matrix-core tile (issue 10; skinny_mma_config, NVIDIA mma.sync), f16 and bf16: few rows of a
// row-major W, or few columns of a column-major X (the large operand contiguous along its large
// dimension), on alternate tiles (few rows only for the heaviest); K whole or split (4 and 13
// slices), against cuBLAS; no spills.
// Shapes whose N (M) or K is not a multiple of 8 run the element-wise fallback, the others 16-byte
// loads of W (X) and vector loads of X (element-wise for W^T, contiguous along N).
TEST(GemmGpu, EverySkinnyMmaConfigBothSides) {
  ROCMTPL_REQUIRE_GPU_AND_COMPILER();
  harness h;
  std::vector<check_case> cases;
  const auto mma_tiles = templates::skinny_mma_path::search_space();
  for (dtype d : {dtype::f16, dtype::bf16}) {
    const auto col_x =
        problem({}, {buffer("x", layout::col_major(d, {sM, sK})), buffer("w", layout::row_major(d, {sK, sN}))},
                layout::row_major(d, {sM, sN}));
    for (std::size_t i = 0; i < mma_tiles.size(); ++i) {
      // The heaviest tiles run few rows only: with W^T as the small operand (read element by
      // element) they spilled, and the problem's space leaves them out there.
      const bool n_side = (i + (d == dtype::bf16 ? 1 : 0)) % 2 == 1 && mma_tiles[i].register_estimate() < 200;
      auto c = mma_tiles[i];
      c.side = n_side ? templates::skinny_side::n : templates::skinny_side::m;
      c.split_k = i % 3 == 0 ? 1 : (i % 3 == 1 ? 4 : 13);
      cases.push_back({std::string(name(d)) + (n_side ? " N-skinny mma" : " M-skinny mma"),
                       n_side ? col_x : plain(d),
                       {},
                       c,
                       skinny_shapes(n_side)});
    }
  }
  run_all(h, cases);
}

// The ranked favourite of each side on other layouts (nn.Linear weights: the dot kernel for few
// rows; column-major X: the streaming kernel for few columns; padded and misaligned strides; no
// unit stride), batched with a broadcast weight, and every epilogue.
TEST(GemmGpu, SkinnyLayoutsBatchesAndEpilogues) {
  ROCMTPL_REQUIRE_GPU_AND_COMPILER();
  harness h;
  std::vector<check_case> cases;
  const size_hints m_hint{{"M", 7}, {"N", 1000}, {"K", 1030}};
  const size_hints n_hint{{"M", 1000}, {"N", 7}, {"K", 1030}};
  const auto add = [&](const std::string& label, gemm_options o, std::vector<buffer> in, layout y,
                       bool bias_m = false) {
    auto t = problem(o, std::move(in), std::move(y));
    for (const auto* hint : {&m_hint, &n_hint}) {
      const auto c = top_config(*t, *hint);
      EXPECT_TRUE(gemm_test::is_skinny(c)) << label << ": " << c.name();
      check_case cc{label + (hint == &m_hint ? " M-skinny" : " N-skinny"), t, o, c, {*hint}};
      for (const auto& s : skinny_shapes(hint == &n_hint)) cc.shapes.push_back(s);
      cc.bias_along_m = bias_m;
      cases.push_back(cc);
    }
  };
  for (dtype d : {dtype::f32, dtype::f16, dtype::bf16}) {
    const std::string n(name(d));
    add(n + " col-major W", {},
        {buffer("x", layout::row_major(d, {sM, sK})), buffer("w", layout::col_major(d, {sK, sN}))},
        layout::row_major(d, {sM, sN}));
    add(n + " col-major X, Y", {},
        {buffer("x", layout::col_major(d, {sM, sK})), buffer("w", layout::row_major(d, {sK, sN}))},
        layout::col_major(d, {sM, sN}));
    add(n + " padded", {},
        {buffer("x", layout(d, {sM, sK}, {sK + 8, 1}, 16)), buffer("w", layout(d, {sK, sN}, {sN + 16, 1}, 8))},
        layout(d, {sM, sN}, {sN + 5, 1}, 3));
    add(n + " misaligned", {},
        {buffer("x", layout(d, {sM, sK}, {sK + 3, 1}, 1)), buffer("w", layout(d, {sK, sN}, {sN + 1, 1}, 5))},
        layout::row_major(d, {sM, sN}));
    add(n + " no unit stride", {},
        {buffer("x", layout(d, {sM, sK}, {2 * sK, 2}, 0)), buffer("w", layout(d, {sK, sN}, {1, sK}, 0))},
        layout::row_major(d, {sM, sN}));
  }
  // Epilogues: Bias along N or M, activations, alpha and beta, Residual, output casts.
  add("f16 bias[N] relu", {.act = activation::relu},
      {buffer("x", layout::row_major(dtype::f16, {sM, sK})), buffer("w", layout::row_major(dtype::f16, {sK, sN})),
       buffer("bias", layout::row_major(dtype::f32, {sN}))},
      layout::row_major(dtype::f16, {sM, sN}));
  add("bf16 bias[M] gelu", {.act = activation::gelu, .bias_along = bias_dim::m},
      {buffer("x", layout::row_major(dtype::bf16, {sM, sK})), buffer("w", layout::row_major(dtype::bf16, {sK, sN})),
       buffer("bias", layout::row_major(dtype::bf16, {sM}))},
      layout::row_major(dtype::bf16, {sM, sN}), true);
  add("f32 bias[M,N] beta alpha silu", {.act = activation::silu, .alpha = 2.0F, .beta = 0.5F},
      {buffer("x", layout::row_major(dtype::f32, {sM, sK})), buffer("w", layout::row_major(dtype::f32, {sK, sN})),
       buffer("bias", layout::row_major(dtype::bf16, {sM, sN}))},
      layout::row_major(dtype::f32, {sM, sN}));
  add("f16 residual sigmoid -> f32", {.act = activation::sigmoid, .residual = true},
      {buffer("x", layout::row_major(dtype::f16, {sM, sK})), buffer("w", layout::row_major(dtype::f16, {sK, sN})),
       buffer("res", layout::row_major(dtype::f16, {sM, sN}))},
      layout::row_major(dtype::f32, {sM, sN}));
  add("bf16 bias + residual gelu -> f16, runtime split-K",
      {.act = activation::gelu, .residual = true, .runtime_split_k = true},
      {buffer("x", layout::row_major(dtype::bf16, {sM, sK})), buffer("w", layout::row_major(dtype::bf16, {sK, sN})),
       buffer("bias", layout::row_major(dtype::f32, {sN})), buffer("res", layout::row_major(dtype::bf16, {sM, sN}))},
      layout::row_major(dtype::f16, {sM, sN}));
  // Batched: X [B, M, K] @ W [K, N] (broadcast) and bmm with a per-batch W.
  const auto sB = sym_expr::symbol("B");
  for (dtype d : {dtype::f32, dtype::f16}) {
    for (bool shared_w : {true, false}) {
      auto w = shared_w ? buffer("w", layout::row_major(d, {sK, sN})) : buffer("w", layout::row_major(d, {sB, sK, sN}));
      auto t = problem({.act = activation::relu}, {buffer("x", layout::row_major(d, {sB, sM, sK})), w},
                       layout::row_major(d, {sB, sM, sN}));
      for (bool n_side : {false, true}) {
        const size_hints hint = n_side ? size_hints{{"B", 3}, {"M", 500}, {"N", 9}, {"K", 300}}
                                       : size_hints{{"B", 3}, {"M", 9}, {"N", 500}, {"K", 300}};
        const auto c = top_config(*t, hint);
        EXPECT_TRUE(gemm_test::is_skinny(c)) << c.name();
        cases.push_back({std::string(name(d)) + (shared_w ? " broadcast W" : " bmm") + (n_side ? " N" : " M"),
                         t,
                         {.act = activation::relu},
                         c,
                         {hint}});
      }
    }
  }
  run_all(h, cases);
}

// The benchmark's shapes (M in {1, 8, 32, 64}, N = K = 8192, and N-skinny twins) in every
// dtype: the ranked first configuration is skinny and matches cuBLAS at full size.
TEST(GemmGpu, SkinnyRanksFirstAndMatchesCublasAtBenchmarkSizes) {
  ROCMTPL_REQUIRE_GPU_AND_COMPILER();
  harness h;
  std::vector<check_case> cases;
  for (dtype d : {dtype::f32, dtype::f16, dtype::bf16}) {
    auto t = plain(d);
    for (std::int64_t m : {1, 8, 32, 64}) {
      for (bool n_side : {false, true}) {
        const size_hints hint =
            n_side ? size_hints{{"M", 8192}, {"N", m}, {"K", 8192}} : size_hints{{"M", m}, {"N", 8192}, {"K", 8192}};
        const auto c = top_config(*t, hint);
        EXPECT_EQ(gemm_test::side_of(c), n_side ? templates::skinny_side::n : templates::skinny_side::m) << c.name();
        cases.push_back({std::string(name(d)) + " " + std::to_string(m), t, {}, c, {hint}});
      }
    }
  }
  run_all(h, cases);
}

// fp32 with 32 and 64 rows (columns): the ranked top 16 holds SIMT configurations that split K
// statically (no runtime split-K: the workspace and the reduction come with the configuration);
// the first two of them match cuBLAS at the benchmark's size and at sizes off every tile.
TEST(GemmGpu, StaticSplitKSimtOnFewRows) {
  ROCMTPL_REQUIRE_GPU_AND_COMPILER();
  harness h;
  std::vector<check_case> cases;
  auto t = plain(dtype::f32);
  for (std::int64_t m : {32, 64}) {
    for (bool n_side : {false, true}) {
      const size_hints hint =
          n_side ? size_hints{{"M", 8192}, {"N", m}, {"K", 8192}} : size_hints{{"M", m}, {"N", 8192}, {"K", 8192}};
      const size_hints edge = n_side ? size_hints{{"M", 1000}, {"N", m + 5}, {"K", 999}}
                                     : size_hints{{"M", m + 5}, {"N", 1000}, {"K", 999}};
      const auto ranked = t->policy().configs(t->context(), hint);
      int taken = 0;
      for (std::size_t i = 0; i < std::min<std::size_t>(16, ranked.size()) && taken < 2; ++i) {
        const auto& c = ranked[i];
        if (!c.holds<templates::simt_config>() || c.split_k() == 1) continue;
        cases.push_back({"f32 " + std::to_string(m) + (n_side ? " N " : " M ") + c.name(), t, {}, c, {hint, edge}});
        ++taken;
      }
      EXPECT_EQ(taken, 2) << "f32 " << m << (n_side ? " N" : " M") << ": static split-K SIMT in the top 16";
    }
  }
  run_all(h, cases);
}
}  // namespace
