// SPDX-License-Identifier: MIT
// Tests of include/rocmtpl/codegen/launch.hpp: binding a launch description to concrete sizes,
// choosing a variant by pointer alignment, the launch limits, and the rendered launch lines.
#include <rocmtpl/codegen/launch.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#ifdef RTLD_NOW
#error "codegen/launch.hpp is pure: it must not pull in <dlfcn.h>"
#endif

namespace {

using namespace rocmtpl;

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// A GEMM-like description: sizes M and N, runtime argument split_k; a vectorised main kernel that
// needs X 16-byte aligned and N a multiple of 8, a scalar fallback, a reduction when split_k > 1.
launch_description two_variants() {
  const auto m = sym_expr::symbol("M");
  const auto n = sym_expr::symbol("N");
  launch_description d;
  d.kernel_name = "k";
  d.size_symbols = {"M", "N"};
  d.runtime_args = {"split_k"};
  d.tensor_types = {dtype::f16, dtype::f16, dtype::f32};
  d.workspace_bytes = {.sizes = m * n * sym_expr(4), .times_runtime_arg = 0, .only_when_runtime_arg_above_one = 0};
  const auto main = [&](const std::string& suffix) {
    kernel_launch l;
    l.suffix = suffix;
    l.grid[0].sizes = floor_div(m + sym_expr(63), sym_expr(64)) * floor_div(n + sym_expr(127), sym_expr(128));
    l.grid[2].times_runtime_arg = 0;
    l.block = {256, 1, 1};
    l.shared_bytes = 64 * 1024;
    l.amd_block = {512, 1, 1};
    l.amd_shared_bytes = 0;
    l.params = {{.kind = launch_param_kind::tensor, .index = 0, .name = "X"},
                {.kind = launch_param_kind::tensor, .index = 2, .name = "Y"},
                {.kind = launch_param_kind::workspace, .name = "Partial", .byte_offset = 16, .cpp_type = "float*"},
                {.kind = launch_param_kind::size, .index = 1, .name = "u_N"},
                {.kind = launch_param_kind::runtime_arg, .index = 0, .name = "split_k", .scalar = launch_scalar::i32}};
    return l;
  };
  kernel_launch reduce;
  reduce.suffix = "reduce";
  reduce.grid[0] = {
      .sizes = floor_div(m * n + sym_expr(255), sym_expr(256)), .only_when_runtime_arg_above_one = 0, .at_most = 1000};
  reduce.block = {256, 1, 1};
  launch_variant fast;
  fast.requirements = {
      {.kind = launch_requirement_kind::aligned_pointer, .tensor = 0, .expr = sym_expr(8), .value = 16},
      {.kind = launch_requirement_kind::multiple_of, .expr = n, .value = 8}};
  fast.launches = {main("v8"), reduce};
  d.variants.push_back(fast);
  d.variants.push_back({{}, {main("v1"), reduce}});
  return d;
}

TEST(Launch, BindEvaluatesGridsWorkspaceAndParameters) {
  const auto d = two_variants();
  const auto b = bind(d, {1000, 512}, {3});
  EXPECT_EQ(b.workspace_bytes, 1000 * 512 * 4 * 3);
  ASSERT_EQ(b.variants.size(), 2U);  // N = 512 is a multiple of 8: both variants stay
  const auto& main = b.variants[0].launches[0];
  EXPECT_EQ(main.symbol, "k_v8");  // the description's kernel name, '_', the launch's suffix
  EXPECT_EQ(main.grid, (std::array<std::int64_t, 3>{16 * 4, 1, 3}));  // cdiv(1000, 64) * cdiv(512, 128), split_k
  EXPECT_EQ(main.block, (std::array<std::int64_t, 3>{256, 1, 1}));
  EXPECT_EQ(main.shared_bytes, 64 * 1024);
  ASSERT_EQ(main.params.size(), 5U);
  EXPECT_EQ(main.params[2].value, 16);   // workspace byte offset
  EXPECT_EQ(main.params[3].value, 512);  // size N
  EXPECT_EQ(main.params[4].value, 3);    // split_k
  EXPECT_EQ(main.params[4].scalar, launch_scalar::i32);
  EXPECT_EQ(b.variants[0].launches[1].grid[0], 1000);  // cdiv(512000, 256) = 2000, capped at 1000
  EXPECT_EQ(b.variants[0].alignments, (std::vector<bound_alignment>{{0, 16, 16}}));  // 8 f16 elements = 16 bytes
  // AMD: its own block and shared memory.
  const auto amd = bind(d, {1000, 512}, {3}, true);
  EXPECT_EQ(amd.variants[0].launches[0].block[0], 512);
  EXPECT_EQ(amd.variants[0].launches[0].shared_bytes, 0);
}

TEST(Launch, RuntimeArgumentSwitchesWorkspaceAndLaunchOff) {
  const auto b = bind(two_variants(), {64, 64}, {1});
  EXPECT_EQ(b.workspace_bytes, 0);
  EXPECT_EQ(b.variants[0].launches[1].grid[0], 0);
  EXPECT_EQ(launch_grid(b.variants[0].launches[1], 132), (std::array<std::int64_t, 3>{0, 0, 0}));  // skipped
}

TEST(Launch, SizeRequirementsDropVariantsAndPointersPickOne) {
  const auto d = two_variants();
  const auto odd = bind(d, {64, 100}, {1});  // N % 8 != 0
  ASSERT_EQ(odd.variants.size(), 1U);
  EXPECT_EQ(odd.variants[0].index, 1U);
  const auto b = bind(d, {64, 128}, {1});
  EXPECT_EQ(select_variant(b, {4096 - 16, 0, 0}).launches[0].symbol, "k_v8");  // 4080 + 16 is 16-aligned
  EXPECT_EQ(select_variant(b, {4096 - 8, 0, 0}).launches[0].symbol, "k_v1");
  launch_description only_fast = d;
  only_fast.variants.pop_back();
  EXPECT_THROW((void)select_variant(bind(only_fast, {64, 128}, {1}), {4098, 0, 0}), launch_unsupported_error);
}

TEST(Launch, GridLimitsAndSmCountCap) {
  bound_kernel_launch l;
  l.symbol = "k";
  l.grid = {5000, 1, 1};
  l.grid_x_at_most_sm_count = true;
  EXPECT_EQ(launch_grid(l, 132)[0], 132);
  l.grid_x_at_most_sm_count = false;
  EXPECT_EQ(launch_grid(l, 132)[0], 5000);
  l.grid = {1, 70000, 1};
  EXPECT_THROW((void)launch_grid(l, 132), launch_unsupported_error);
}

TEST(Launch, BindChecksArgumentCounts) {
  EXPECT_THROW((void)bind(two_variants(), {1}, {1}), invalid_argument_error);
  EXPECT_THROW((void)bind(two_variants(), {1, 2}, {}), invalid_argument_error);
}

TEST(Launch, TensorMapPitchOfOneRow) {
  launch_description d;
  d.size_symbols = {"M", "K"};
  d.tensor_types = {dtype::bf16};
  kernel_launch l;
  l.suffix = "k";
  l.params.push_back({.kind = launch_param_kind::tensor_map,
                      .map = tensor_map_spec{.tensor = 0,
                                             .element = dtype::bf16,
                                             .rows = sym_expr::symbol("M"),
                                             .cols = sym_expr::symbol("K"),
                                             .pitch = sym_expr(3),
                                             .box_rows = 128,
                                             .box_cols = 64,
                                             .pitch_if_one_row = sym_expr(8)}});
  d.variants.push_back({{}, {l}});
  EXPECT_EQ(bind(d, {1, 5}, {}).variants[0].launches[0].params[0].map->pitch, 8);
  const auto map = *bind(d, {7, 5}, {}).variants[0].launches[0].params[0].map;
  EXPECT_EQ(map, (bound_tensor_map{0, dtype::bf16, 0, 7, 5, 3, 128, 64}));
  indented_buffer src;
  write_launches(src, d, {"A"});
  EXPECT_TRUE(
      contains(src.str(), "rocmtpl_make_tensor_map(rocmtpl_map_0_0, 1, A, u_M, u_K, (u_M <= 1 ? 8 : 3), 128, 64)"));
}

// fit_box_rows: boxes of at most the rows rounded up to 8, where the rows are fewer than a box (the
// Hopper path's X map for 24-64-row problems): bound with the sizes, rendered as an expression of
// symbolic rows and as a number of static ones.
TEST(Launch, TensorMapBoxFitsTheRows) {
  launch_description d;
  d.size_symbols = {"M", "K"};
  d.tensor_types = {dtype::f16};
  const auto with_rows = [&](sym_expr rows) {
    kernel_launch l;
    l.suffix = "k";
    l.params.push_back({.kind = launch_param_kind::tensor_map,
                        .map = tensor_map_spec{.tensor = 0,
                                               .rows = std::move(rows),
                                               .cols = sym_expr::symbol("K"),
                                               .pitch = sym_expr::symbol("K"),
                                               .box_rows = 128,
                                               .box_cols = 64,
                                               .fit_box_rows = true}});
    auto out = d;
    out.variants.push_back({{}, {l}});
    return out;
  };
  const auto sym = with_rows(sym_expr::symbol("M"));
  const auto box = [&](std::int64_t m) {
    return bind(sym, {m, 64}, {}).variants[0].launches[0].params[0].map->box_rows;
  };
  EXPECT_EQ(box(1), 8);
  EXPECT_EQ(box(30), 32);
  EXPECT_EQ(box(64), 64);
  EXPECT_EQ(box(127), 128);
  EXPECT_EQ(box(5000), 128);
  EXPECT_EQ(box(0), 128);  // an empty matrix: nothing is encoded or loaded
  indented_buffer src;
  write_launches(src, sym, {"A"});
  EXPECT_TRUE(contains(src.str(),
                       "rocmtpl_make_tensor_map(rocmtpl_map_0_0, 0, A, u_M, u_K, u_K, "
                       "rocmtpl_launch_min(128, (u_M + 7) / 8 * 8), 64)"))
      << src.str();
  indented_buffer fixed;
  write_launches(fixed, with_rows(sym_expr(40)), {"A"});
  EXPECT_TRUE(contains(fixed.str(), "rocmtpl_make_tensor_map(rocmtpl_map_0_0, 0, A, 40, u_K, u_K, 40, 64)"))
      << fixed.str();
}

TEST(Launch, RenderedLinesFollowTheDescription) {
  const auto d = two_variants();
  indented_buffer src;
  write_workspace_query(src, d);
  write_launches(src, d, {"X", "W", "Y"});
  const std::string s = src.str();
  EXPECT_TRUE(contains(s, "*workspace_size = static_cast<size_t>(rocmtpl_workspace_bytes);"));
  EXPECT_TRUE(contains(s, "(split_k > 1 ? rocmtpl_size_mul("));
  EXPECT_TRUE(contains(s, "if ((reinterpret_cast<uintptr_t>(X + (8)) % 16 == 0) && (rocmtpl_mod(u_N, 8) == 0)) {"));
  EXPECT_TRUE(contains(s, "} else {"));
  EXPECT_FALSE(contains(s, "return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;\n}\nreturn"));  // the last variant always runs
  // 64 KiB of shared memory: the opt-in, once per device (a function-local bit set per launch).
  EXPECT_TRUE(contains(s, "static std::atomic<uint64_t> rocmtpl_shared_raised{0};  // a bit per device\n")) << s;
  EXPECT_TRUE(contains(s,
                       "if (!rocmtpl_raise_shared_limit(reinterpret_cast<const void*>(&ROCMTPL_KERNEL_SYMBOL(v8)), "
                       "65536, rocmtpl_shared_raised)) return ROCMTPL_STATUS_LAUNCH_FAILED;"))
      << s;
  EXPECT_FALSE(contains(s, "hipFuncSetAttribute")) << s;  // only inside the helper
  EXPECT_EQ(launch_includes(d),
            (std::vector<std::string>{"#if defined(ROCMTPL_PLATFORM_NVIDIA)\n#include <atomic>\n#endif\n"}));
  EXPECT_TRUE(contains(s, "#if defined(ROCMTPL_PLATFORM_AMD)"));
  EXPECT_TRUE(
      contains(s, "dim3(512, 1, 1), 0, stream, X, Y, reinterpret_cast<float*>(workspace + 16), u_N, split_k);"));
  EXPECT_TRUE(contains(s,
                       "dim3(256, 1, 1), 65536, stream, X, Y, reinterpret_cast<float*>(workspace + 16), u_N, "
                       "split_k);"));
  EXPECT_FALSE(contains(s, "<<<")) << "launches go through hipLaunchKernelGGL (issue 23: `<<<` is not C++)";
  EXPECT_TRUE(contains(s, "rocmtpl_launch_min("));
  // Launches name their kernel through the device-symbol macro, never by the entry's name.
  EXPECT_TRUE(contains(s, "hipLaunchKernelGGL(ROCMTPL_KERNEL_SYMBOL(reduce), "));
  EXPECT_FALSE(contains(s, "k_v8")) << s;
}

// A symbol is the entry's name and the launch's suffix; the description's name is the one field
// that renaming a kernel sets.
TEST(Launch, SymbolsFollowTheDescriptionsKernelName) {
  auto d = two_variants();
  EXPECT_EQ(device_symbol(d, d.variants[0].launches[0]), "k_v8");
  d.kernel_name = "rocm_fused_gemm_3";
  const auto b = bind(d, {64, 128}, {2});
  EXPECT_EQ(b.variants[0].launches[0].symbol, "rocm_fused_gemm_3_v8");
  EXPECT_EQ(b.variants[1].launches[1].symbol, "rocm_fused_gemm_3_reduce");
  EXPECT_EQ(device_symbol_ref("v8_8"), "ROCMTPL_KERNEL_SYMBOL(v8_8)");
  EXPECT_THROW((void)device_symbol_ref(""), invalid_argument_error);
  EXPECT_THROW((void)device_symbol_ref("v8)(x"), invalid_argument_error);
}

// The helper the opt-in calls sets the attribute once per device: a bit per device, checked before
// and set after the attribute; devices past 63 have no bit.
TEST(Launch, SharedLimitHelperRaisesOncePerDevice) {
  const std::string h(launch_cpp_helpers);
  EXPECT_TRUE(
      contains(h, "static inline bool rocmtpl_raise_shared_limit(const void* kernel, int bytes, Bits& raised)"));
  const auto check = h.find("(raised.load() & bit) != 0) return true;");
  const auto set = h.find("hipFuncSetAttribute(kernel, hipFuncAttributeMaxDynamicSharedMemorySize, bytes)");
  const auto mark = h.find("raised.fetch_or(bit);");
  ASSERT_NE(check, std::string::npos);
  ASSERT_NE(set, std::string::npos);
  ASSERT_NE(mark, std::string::npos);
  EXPECT_LT(check, set);
  EXPECT_LT(set, mark);
  EXPECT_TRUE(contains(h, "device >= 0 && device < 64 ? uint64_t{1} << device : uint64_t{0}"));
  // No opt-in, no include.
  auto small = two_variants();
  for (auto& v : small.variants) {
    for (auto& l : v.launches) l.shared_bytes = 48 * 1024;
  }
  EXPECT_TRUE(launch_includes(small).empty());
  indented_buffer src;
  write_launches(src, small, {"X", "W", "Y"});
  EXPECT_FALSE(contains(src.str(), "rocmtpl_raise_shared_limit"));
}

TEST(Launch, DescriptionHeadFromKernelArguments) {
  kernel_args args;
  args.add_input(buffer("a", layout::row_major(dtype::f16, {sym_expr::symbol("M"), sym_expr(8)})), "A");
  args.add_output(buffer("y", layout::row_major(dtype::f32, {sym_expr::symbol("M"), sym_expr(8)})), "Y");
  const auto d = launch_description_for("rocm_a", args);
  EXPECT_EQ(d.kernel_name, "rocm_a");
  EXPECT_EQ(d.size_symbols, (std::vector<std::string>{"M"}));
  EXPECT_EQ(d.tensor_types, (std::vector<dtype>{dtype::f16, dtype::f32}));
  EXPECT_EQ(abi_tensor_index(args, "Y"), 1U);
  EXPECT_EQ(abi_tensor_names(args), (std::vector<std::string>{"A", "Y"}));
  EXPECT_THROW((void)abi_tensor_index(args, "Z"), invalid_argument_error);
}

}  // namespace
