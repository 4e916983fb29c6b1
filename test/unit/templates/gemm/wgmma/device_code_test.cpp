// SPDX-License-Identifier: MIT
// templates/gemm/wgmma/device_code.hpp: the wgmma wrappers, the platform guards of the Hopper text,
// and what a rendered Hopper (wgmma_config) source holds: TMA maps through the driver entry
// point, the shared-memory opt-in, the epilogue's constants, the run-time refusals; problems the
// path cannot serve are refused when rendering.
#include <rocmtpl/templates/gemm/wgmma/device_code.hpp>

#include "support/gemm.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace {
using namespace gemm_test;
using rocmtpl::launch_value;
using rocmtpl::templates::detail::sm90_body_text;
using rocmtpl::templates::detail::sm90_head_text;
using rocmtpl::templates::detail::sm90_host_text;
using rocmtpl::templates::detail::sm90_wgmma_text;

TEST(GemmSm90DeviceCode, WgmmaWrapperHasOneRegisterPerAccumulator) {
  const auto f16 = sm90_wgmma_text(256, false);
  EXPECT_TRUE(contains(f16, "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 "));
  EXPECT_TRUE(contains(f16, "float (&d)[128]"));
  EXPECT_TRUE(contains(f16, "\"+f\"(d[127])"));
  EXPECT_FALSE(contains(f16, "d[128]"));
  EXPECT_TRUE(contains(f16, "setp.ne.b32 p, %130, 0;"));        // scale_d after the 128 accumulators and 2 descriptors
  EXPECT_TRUE(contains(f16, "}, %128, %129, p, 1, 1, 0, 1;"));  // imm-trans-b = 1: W is N-major
  const auto bf16 = sm90_wgmma_text(64, true);
  EXPECT_TRUE(contains(bf16, "m64n64k16.f32.bf16.bf16"));
  EXPECT_TRUE(contains(bf16, "float (&d)[32]"));
}

TEST(GemmSm90DeviceCode, DeviceCodeOnlyForNvidiaSm90a) {
  const std::string head(sm90_head_text);
  EXPECT_EQ(head.find("#if defined(ROCMTPL_PLATFORM_NVIDIA)"), head.find("#if"));
  EXPECT_TRUE(contains(head, "#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)"));
  EXPECT_TRUE(contains(head, "setmaxnreg.inc.sync.aligned.u32"));
  EXPECT_TRUE(contains(head, "cp.async.bulk.tensor.2d"));
  EXPECT_TRUE(contains(std::string(sm90_body_text), "#endif  // ROCMTPL_GEMM_SM90_DEVICE"));
  const std::string host(sm90_host_text);
  EXPECT_EQ(host.find("#if !defined(ROCMTPL_DEVICE_ONLY)"), 0U);
  EXPECT_TRUE(host.ends_with("#endif  // ROCMTPL_PLATFORM_NVIDIA: the Hopper block that sm90_head_text opens\n"));
  EXPECT_TRUE(contains(host, "cudaGetDriverEntryPointByVersion(\"cuTensorMapEncodeTiled\""));
  EXPECT_FALSE(contains(host, "cuTensorMapEncodeTiled("));  // never linked against libcuda
  EXPECT_TRUE(contains(host, "inline bool rocmtpl_make_tensor_map(CUtensorMap& map, int dtype_code"));
  EXPECT_TRUE(contains(host, "sms = major == 9 && minor == 0 ? count : 0;"));  // other devices: refused
  EXPECT_TRUE(contains(host, "static thread_local entry recent[4] = {};"));    // maps reused for the same operands
}

TEST(GemmSm90DeviceCode, RenderedSourceCarriesTheConfigAndTheEpilogue) {
  // The README's main job: fp16 4096^3 + bias[N] + relu.
  rocmtpl::rocm_template<gemm_policy> t(
      gemm_policy({.act = activation::relu}),
      {buffer("x", layout::row_major(dtype::f16, {4096, 4096})),
       buffer("w", layout::row_major(dtype::f16, {4096, 4096})), buffer("bias", layout::row_major(dtype::f16, {4096}))},
      layout::row_major(dtype::f16, {4096, 4096}));
  const auto caller = t.generate(hopper(128, 256, 4));
  const auto& src = caller.source();
  EXPECT_TRUE(contains(src, "// gemm wgmma_bm128_bn256_bk64_wm64_wn256_g8_s4_v8: Y = relu(X @ W + Bias)"));
  EXPECT_TRUE(contains(src, "constexpr int gemm_dynamic_shared = 216144;"));
  EXPECT_TRUE(contains(src, "constexpr int gemm_sm90_bias_mode = 1;"));
  EXPECT_TRUE(contains(src, "#define ROCMTPL_GEMM_SM90_HAS_BIAS 1"));
  EXPECT_TRUE(contains(src, "#define ROCMTPL_GEMM_SM90_HAS_RESIDUAL 0"));
  EXPECT_TRUE(contains(src, "m64n256k16.f32.f16.f16"));
  EXPECT_TRUE(contains(src, "apply_activation(float v) { return v > 0.0f ? v : 0.0f; }"));  // relu
  // The kernel and the entry's launch come from the launch description.
  EXPECT_TRUE(contains(src,
                       "__global__ void __launch_bounds__(gemm_sm90::threads, 1) ROCMTPL_KERNEL_SYMBOL(sm90)(const "
                       "__grid_constant__ CUtensorMap map_X, const __grid_constant__ CUtensorMap map_W"));
  EXPECT_TRUE(contains(src, "__trap();  // built without sm_90a features"));
  // One launch (no split-K reduction): the sm90 kernel with 216144 bytes of dynamic shared memory
  // (above 48 KiB: opted into), over a persistent grid of the 32 x 16 tiles capped at the SM count.
  ASSERT_TRUE(caller.launch().has_value());
  const auto& d = *caller.launch();
  ASSERT_EQ(d.variants.size(), 1U);
  ASSERT_EQ(d.variants[0].launches.size(), 1U);
  const auto& sm90 = d.variants[0].launches[0];
  EXPECT_EQ(sm90.suffix, "sm90");
  EXPECT_EQ(sm90.shared_bytes, 216144);
  EXPECT_EQ(sm90.grid[0], (launch_value{.sizes = sym_expr(512), .at_most_sm_count = true}));
  EXPECT_TRUE(contains(src, "return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;  // the Hopper path exists on NVIDIA only"));
  EXPECT_FALSE(contains(src, "store_output("));  // the path has its own epilogue
  EXPECT_FALSE(contains(src, "mma.sync"));
  EXPECT_TRUE(contains(src, "gemm_sm90::mainloop(&map_X, &map_W, p, t, 1);"));  // no runtime split-K
  EXPECT_FALSE(contains(src, "split_k_reduce"));
  // Headers before the anonymous namespace (an include inside it would wrap std in it): in the
  // includes part, which the translation unit starts with, and none in the device code.
  const auto parts = render_parts(t, hopper(128, 256, 4));
  ASSERT_EQ(parts.str(), src);
  const auto included = [&](const std::string& header) {
    return std::any_of(parts.includes.begin(), parts.includes.end(),
                       [&](const std::string& block) { return contains(block, "#include " + header + "\n"); });
  };
  EXPECT_TRUE(included("<cuda.h>"));
  EXPECT_TRUE(included("<atomic>"));  // the shared-memory opt-in's once-per-device flag
  EXPECT_FALSE(contains(parts.device_code, "#include"));

  // bf16, alpha and beta, a Bias along M (f32), a residual, a bf16 -> f16 cast, runtime split-K.
  gemm_options o{.act = activation::gelu,
                 .alpha = 0.5F,
                 .beta = 2.0F,
                 .bias_along = rocmtpl::templates::bias_dim::m,
                 .residual = true,
                 .runtime_split_k = true};
  rocmtpl::rocm_template<gemm_policy> all(
      gemm_policy(o),
      {buffer("x", layout::row_major(dtype::bf16, {M, K})), buffer("w", layout::row_major(dtype::bf16, {K, N})),
       buffer("bias", layout::row_major(dtype::f32, {M})), buffer("res", layout::row_major(dtype::f32, {M, N}))},
      layout::row_major(dtype::f16, {M, N}));
  const auto c2 = all.generate(hopper(256, 128, 4), {{"M", 512}, {"N", 512}, {"K", 512}});
  const auto& s2 = c2.source();
  EXPECT_TRUE(contains(s2, "m64n128k16.f32.bf16.bf16"));
  EXPECT_TRUE(contains(s2, "constexpr int gemm_sm90_bias_mode = 2;"));
  EXPECT_TRUE(contains(s2, "constexpr int y_kind = 1;"));
  EXPECT_TRUE(contains(s2, "gemm_sm90_alpha = 0.5f;"));
  EXPECT_TRUE(contains(s2, "gemm_sm90_beta = 2.0f;"));
  EXPECT_TRUE(contains(s2, "#define ROCMTPL_GEMM_SM90_HAS_RESIDUAL 1"));
  // Runtime split-K (issue 10): the kernel takes the partials and split_k, the reduction follows
  // it, and the workspace holds split_k slices of fp32 partials above one slice.
  EXPECT_TRUE(contains(s2, "if (split_k < 1 || split_k > 65535) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;"));
  ASSERT_TRUE(c2.launch().has_value());
  const auto& d2 = *c2.launch();
  // The workspace: split_k slices of M x N fp32 partials.
  EXPECT_EQ(d2.workspace_bytes.sizes.evaluate({{"M", 3}, {"N", 5}, {"K", 7}}), 3 * 5 * 4);
  EXPECT_EQ(d2.workspace_bytes.times_runtime_arg, 0U);
  EXPECT_EQ(d2.workspace_bytes.only_when_runtime_arg_above_one, 0U);  // none for a single slice
  EXPECT_TRUE(contains(s2, "float* __restrict__ Partial"));
  EXPECT_TRUE(contains(s2, "gemm_sm90::mainloop(&map_X, &map_W, p, t, split_k);"));
  EXPECT_TRUE(contains(s2, "store_partial_m64(acc[i], slice, M, N, row0 + i * 64 + warp * 16, n0, lane);"));
  // The reduction is launched after the Hopper kernel.
  ASSERT_EQ(d2.variants.size(), 1U);
  ASSERT_EQ(d2.variants[0].launches.size(), 2U);
  EXPECT_EQ(d2.variants[0].launches[0].suffix, "sm90");
  EXPECT_EQ(d2.variants[0].launches[1].suffix, "split_k_reduce");
  EXPECT_TRUE(contains(s2, "store_output("));  // the reduction's epilogue
}

// The launch description of a Hopper split-K configuration, evaluated for concrete sizes: a
// persistent grid over (K slice, tile) units capped at the SM count, then the reduction over every
// output element; the workspace is split_k slices of M x N floats; split_k 1 skips the reduction
// and needs no workspace.
TEST(GemmSm90DeviceCode, SplitKLaunchDescription) {
  auto t = square(dtype::f16, M, N, K, {.act = activation::relu, .runtime_split_k = true});
  const auto c = hopper(128, 128, 6).with_split_k(3);
  const auto caller = t.generate(c, {{"M", 1000}, {"N", 1024}, {"K", 4096}});
  ASSERT_TRUE(caller.launch().has_value());
  const auto& d = *caller.launch();
  ASSERT_EQ(d.variants.size(), 1U);
  ASSERT_EQ(d.variants[0].launches.size(), 2U);
  std::vector<std::int64_t> sizes;
  for (const auto& s : d.size_symbols) sizes.push_back(s == "M" ? 1000 : (s == "N" ? 1024 : 4096));
  const auto three = rocmtpl::bind(d, sizes, {3});
  EXPECT_EQ(three.workspace_bytes, 3 * 1000 * 1024 * 4);
  ASSERT_EQ(three.variants.size(), 1U);
  const auto& main = three.variants[0].launches[0];
  EXPECT_EQ(main.symbol, "rocm_gemm_sm90");
  EXPECT_EQ(main.grid[0], 8 * 8 * 3);  // cdiv(1000, 128) x cdiv(1024, 128) tiles x 3 slices
  EXPECT_TRUE(main.grid_x_at_most_sm_count);
  EXPECT_EQ(rocmtpl::launch_grid(main, 132)[0], 132);
  EXPECT_EQ(main.block[0], 384);
  // map_X, map_W, X, W, Y, Partial (the workspace), the sizes, split_k.
  ASSERT_EQ(main.params.size(), 6 + sizes.size() + 1);
  EXPECT_EQ(main.params[0].kind, rocmtpl::launch_param_kind::tensor_map);
  EXPECT_EQ(main.params[1].kind, rocmtpl::launch_param_kind::tensor_map);
  EXPECT_EQ(main.params[5].kind, rocmtpl::launch_param_kind::workspace);
  EXPECT_EQ(main.params.back().kind, rocmtpl::launch_param_kind::runtime_arg);
  EXPECT_EQ(main.params.back().value, 3);
  const auto& reduce = three.variants[0].launches[1];
  EXPECT_EQ(reduce.symbol, "rocm_gemm_split_k_reduce");
  EXPECT_EQ(reduce.grid[0], 1000 * 1024 / 256);
  EXPECT_EQ(reduce.block[0], 256);
  EXPECT_EQ(reduce.params.size(), main.params.size() - 2);  // the same, without the maps
  const auto one = rocmtpl::bind(d, sizes, {1});
  EXPECT_EQ(one.workspace_bytes, 0);
  EXPECT_EQ(one.variants[0].launches[0].grid[0], 8 * 8);
  EXPECT_EQ(rocmtpl::launch_grid(one.variants[0].launches[1], 132)[0], 0);  // skipped
  // The policy's workspace formula agrees with the description.
  EXPECT_EQ(t.policy().workspace_bytes(t.context(), c).evaluate({{"M", 1000}, {"N", 1024}, {"K", 4096}}),
            three.workspace_bytes);
}

TEST(GemmSm90DeviceCode, RenderRefusesProblemsThePathCannotServe) {
  const auto c = hopper(128, 128, 6);
  auto f32 = square(dtype::f32, M, N, K);
  EXPECT_THROW((void)f32.generate(c), rocmtpl::invalid_argument_error);
  rocmtpl::rocm_template<gemm_policy> col_w(
      gemm_policy(),
      {buffer("x", layout::row_major(dtype::f16, {M, K})), buffer("w", layout::col_major(dtype::f16, {K, N}))},
      layout::row_major(dtype::f16, {M, N}));
  try {
    (void)col_w.generate(c);
    ADD_FAILURE() << "no error";
  } catch (const rocmtpl::invalid_argument_error& e) {
    EXPECT_TRUE(contains(e.what(), "row-major")) << e.what();
    EXPECT_TRUE(contains(e.what(), "wgmma config wgmma_bm128_bn128")) << e.what();
  }
  rocmtpl::rocm_template<gemm_policy> batched(
      gemm_policy(),
      {buffer("x", layout::row_major(dtype::f16, {2, M, K})), buffer("w", layout::row_major(dtype::f16, {2, K, N}))},
      layout::row_major(dtype::f16, {2, M, N}));
  EXPECT_THROW((void)batched.generate(c), rocmtpl::invalid_argument_error);
  rocmtpl::rocm_template<gemm_policy> full_bias(
      gemm_policy(),
      {buffer("x", layout::row_major(dtype::f16, {M, K})), buffer("w", layout::row_major(dtype::f16, {K, N})),
       buffer("bias", layout::row_major(dtype::f16, {M, N}))},
      layout::row_major(dtype::f16, {M, N}));
  EXPECT_THROW((void)full_bias.generate(c), rocmtpl::invalid_argument_error);
}
// A batch with a shared W folds into M (issue 10): the grid and X's tensor map count batch * M
// rows; a symbolic batch comes with run-time checks that X and Y hold their batches back to back.
TEST(GemmSm90DeviceCode, SharedWeightBatchFoldsIntoM) {
  const auto b = sym_expr::symbol("B");
  rocmtpl::rocm_template<gemm_policy> t(
      gemm_policy({.act = activation::relu}),
      {buffer("x", layout::row_major(dtype::f16, {b, M, K})), buffer("w", layout::row_major(dtype::f16, {K, N})),
       buffer("bias", layout::row_major(dtype::f16, {N}))},
      layout::row_major(dtype::f16, {b, M, N}));
  const size_hints h{{"B", 3}, {"M", 100}, {"N", 256}, {"K", 128}};
  const auto caller = t.generate(hopper(128, 128, 6), h);
  EXPECT_TRUE(contains(caller.source(), "const int M = static_cast<int>(p.batch * p.m_size);"));
  const auto& d = *caller.launch();
  std::vector<std::int64_t> sizes;
  for (const auto& s : d.size_symbols) sizes.push_back(h.at(s));
  const auto bound = rocmtpl::bind(d, sizes, {});
  ASSERT_EQ(bound.variants.size(), 1U);
  const auto& l = bound.variants[0].launches[0];
  EXPECT_EQ(l.grid[0], 3 * 2);  // cdiv(3 * 100, 128) x cdiv(256, 128)
  ASSERT_TRUE(l.params[0].map.has_value());
  EXPECT_EQ(l.params[0].map->rows, 300);  // X as [B * M, K]
  EXPECT_EQ(l.params[0].map->cols, 128);
  // Static row-major layouts fold without a run-time check; a padded X batch is refused at run time.
  rocmtpl::rocm_template<gemm_policy> padded(
      gemm_policy(),
      {buffer("x", layout(dtype::f16, {b, M, K}, {sym_expr::symbol("S"), K, sym_expr(1)})),
       buffer("w", layout::row_major(dtype::f16, {K, N}))},
      layout::row_major(dtype::f16, {b, M, N}));
  const size_hints ph{{"B", 3}, {"M", 100}, {"N", 256}, {"K", 128}, {"S", 12800}};
  const auto pc = padded.generate(hopper(128, 128, 6), ph);
  const auto& pd = *pc.launch();
  const auto with_s = [&](std::int64_t s_value, std::int64_t batch) {
    std::vector<std::int64_t> v;
    for (const auto& s : pd.size_symbols) v.push_back(s == "S" ? s_value : (s == "B" ? batch : ph.at(s)));
    return rocmtpl::bind(pd, v, {}).variants.size();
  };
  EXPECT_EQ(with_s(12800, 3), 1U);  // S = M * K: back to back
  EXPECT_EQ(with_s(12864, 3), 0U);  // padded batches: no variant, the entry refuses
  EXPECT_EQ(with_s(12864, 1), 1U);  // one batch: its stride is never stepped
}
}  // namespace
