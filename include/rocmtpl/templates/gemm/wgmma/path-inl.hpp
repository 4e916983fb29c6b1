// SPDX-License-Identifier: MIT
#pragma once

// The implementation of templates/gemm/wgmma/path.hpp: included at its end (header-only) or compiled
// once by src/templates.cpp, after it (so it does not include it back).

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/ir/dtype.hpp>
#include <rocmtpl/templates/detail/source_parts.hpp>
#include <rocmtpl/templates/gemm/cost_model.hpp>
#include <rocmtpl/templates/gemm/wgmma/device_code.hpp>

namespace rocmtpl::templates::detail {

// The Hopper constants, device code and host helpers (then the split-K reduction's body).
void write_wgmma_code(indented_buffer& src, const gemm_plan& plan, const wgmma_config& c);
// The Hopper kernel (NVIDIA only) and the split-K reduction.
void write_wgmma_kernel(indented_buffer& src, const gemm_plan& plan, const launch_description& d);
// The Hopper tilings, in the order search_space() lists them: the cooperative tiles, then the
// ping-pong ones (one consumer warpgroup's accumulators: at most 64 x 256 or 128 x 128). Each gets
// as many stages as fit, up to its cap: 8 for the large tiles; 16 for ping-pong 64 x 64 (12 fit),
// which streams W where X has 64 rows or fewer (32 x 8192 x 8192: 128 tiles, one a block over the
// whole of K, as cuBLAS's nvjet kernel for that shape does; a deep ring keeps enough of W in
// flight). `few_tiles_only`: offered only where 128 x 256 leaves SMs idle. That is 128 x 192, which
// fills the SMs where 128 x 256 leaves them half idle and 128 x 128 takes two waves (3072 x 768 and
// 1536 x 1536: 96 tiles against 72 and 144 on 132 SMs); on large problems it was no faster and less
// steady (8192^3 f16 0.976x, 0.988x and 0.909x of cuBLAS in three runs on the H200, where 128 x 256
// gives 0.98-1.0x). And 128 x 160, cuBLAS's tile at 3072 x 768 x 4096 (nvjet 128x160, 120 tiles:
// 120 of 132 SMs busy; 128 x 192 makes 96), which loads W in three 64-column slabs of which its
// wgmma reads two and a half.
struct wgmma_tiling {
  int block_m, block_n, pingpong, stage_cap;
  bool few_tiles_only;
};
inline constexpr wgmma_tiling wgmma_tilings[] = {
    {128, 256, 0, 8, false}, {256, 128, 0, 8, false}, {128, 128, 0, 8, false},
    {128, 64, 0, 8, false},  {128, 192, 0, 8, true},  {128, 160, 0, 8, true},
    {128, 128, 1, 8, false}, {64, 256, 1, 8, false},  {64, 64, 1, 16, false}};

// The table's row of a configuration's tiling.
ROCMTPL_INLINE const wgmma_tiling& wgmma_tiling_of(const wgmma_config& c) {
  for (const auto& t : wgmma_tilings) {
    if (t.block_m == c.block_m && t.block_n == c.block_n && t.pingpong == c.pingpong) return t;
  }
  throw invalid_argument_error("rocmtpl: gemm: wgmma tiling " + std::to_string(c.block_m) + "x" +
                               std::to_string(c.block_n) + (c.pingpong != 0 ? " ping-pong" : "") +
                               " is not in the search space's table");
}

// The tiles of a problem for a tiling (the batch folded into M).
sym_expr wgmma_tiles(const gemm_view& v, const wgmma_config& c);
// Whether the split-K reduction kernel follows: K split into fp32 slices (stream-K sums its
// partial tiles in the main kernel).
bool wgmma_reduces(const gemm_plan& plan);

ROCMTPL_INLINE bool wgmma_reduces(const gemm_plan& plan) { return plan.partials && plan.config.stream_k == 0; }

ROCMTPL_INLINE void write_wgmma_code(indented_buffer& src, const gemm_plan& plan, const wgmma_config& c) {
  const auto line = [&](const std::string& name, int value) {
    src.writeline("[[maybe_unused]] constexpr int " + name + " = " + std::to_string(value) + ";");
  };
  line("block_m", c.block_m);
  line("block_n", c.block_n);
  line("block_k", c.block_k);
  line("warp_m", c.warp_m());
  line("warp_n", c.warp_n());
  line("tile_consumers", c.tile_consumers());
  line("gemm_sm90_stream_k", c.stream_k);
  line("group_m", c.group_m);
  line("stages", c.stages);
  line("gemm_dynamic_shared", c.shared_bytes());
  line("y_kind", dtype_kind(plan.v.y.node->type()));
  line("gemm_sm90_bias_mode", wgmma_bias_mode(plan.v));
  src.writeline("[[maybe_unused]] constexpr float gemm_sm90_alpha = " + float_literal(plan.options.alpha) + ";");
  src.writeline("[[maybe_unused]] constexpr float gemm_sm90_beta = " + float_literal(plan.options.beta) + ";");
  src.writeline(std::string("#define ROCMTPL_GEMM_SM90_HAS_BIAS ") + (plan.v.bias.node != nullptr ? "1" : "0"));
  src.writeline(std::string("#define ROCMTPL_GEMM_SM90_HAS_RESIDUAL ") + (plan.v.residual.node != nullptr ? "1" : "0"));
  src.writeline(std::string("#define ROCMTPL_GEMM_SM90_HAS_EPILOGUE ") + (plan.v.fused != nullptr ? "1" : "0"));
  src.writeline("");
  src.write_verbatim(checked_size_helpers_text);
  src.writeline("");
  src.write_verbatim(sm90_head_text);
  src.write_verbatim(sm90_wgmma_text(c.block_n, plan.v.x.node->type() == dtype::bf16));
  src.write_verbatim(sm90_body_text);
  src.writeline("");
  src.write_verbatim(sm90_host_text);
  if (wgmma_reduces(plan)) write_split_k_reduce_body(src, plan);
  src.write_verbatim(launch_cpp_helpers);
  src.writeline("");
  src.writeline("}  // namespace");
  src.writeline("");
}

ROCMTPL_INLINE sym_expr wgmma_tiles(const gemm_view& v, const wgmma_config& c) {
  return floor_div(v.batch * v.m + sym_expr(c.block_m - 1), sym_expr(c.block_m)) *
         floor_div(v.n + sym_expr(c.block_n - 1), sym_expr(c.block_n));
}

ROCMTPL_INLINE void write_wgmma_kernel(indented_buffer& src, const gemm_plan& plan, const launch_description& d) {
  const auto& launches = d.variants.front().launches;
  const bool stream_k = plan.config.stream_k > 0;
  src.writeline("#if defined(ROCMTPL_PLATFORM_NVIDIA)");
  if (stream_k) {
    // Stream-K's first launch: the tile counters at the workspace's start back to zero.
    src.writeline("extern \"C\" __global__ void __launch_bounds__(256) " + device_symbol_ref(launches.front().suffix) +
                  "(" + plan.params + ") {");
    src.writeline("    const gemm_problem p = make_problem(" + plan.sym_args + ");");
    src.writeline("    const gemm_pointers t" + plan.pointers + ";");
    src.writeline("    gemm_sm90_zero_counters(p, t);");
    src.writeline("}");
  }
  const auto& main = launches.at(stream_k ? 1 : 0);
  src.writeline(
      "extern \"C\" __global__ void __launch_bounds__(gemm_sm90::threads, 1) " + device_symbol_ref(main.suffix) +
      "(const __grid_constant__ CUtensorMap map_X, const __grid_constant__ CUtensorMap map_W, " + plan.params + ") {");
  src.writeline("#if defined(ROCMTPL_GEMM_SM90_DEVICE)");
  src.writeline("    const gemm_problem p = make_problem(" + plan.sym_args + ");");
  src.writeline("    const gemm_pointers t" + plan.pointers + ";");
  src.writeline(std::string("    gemm_sm90::mainloop(&map_X, &map_W, p, t, ") +
                (plan.split_arg ? std::string("split_k") : std::to_string(plan.config.split_k)) + ");");
  src.writeline("#elif defined(__CUDA_ARCH__)");
  src.writeline("    __trap();  // built without sm_90a features: the entry refuses other devices");
  src.writeline("#endif");
  src.writeline("}");
  if (wgmma_reduces(plan)) write_split_k_reduce_kernel(src, plan, launches.back().suffix);
  src.writeline("#endif  // ROCMTPL_PLATFORM_NVIDIA");
  src.writeline("");
}

}  // namespace rocmtpl::templates::detail

namespace rocmtpl::templates {

ROCMTPL_INLINE std::vector<wgmma_config> wgmma_path::search_space() {
  std::vector<wgmma_config> out;
  for (const auto& t : detail::wgmma_tilings) {
    wgmma_config c{.block_m = t.block_m, .block_n = t.block_n, .group_m = 8, .stages = 2, .pingpong = t.pingpong};
    while (c.stages < t.stage_cap) {
      auto more = c;
      ++more.stages;
      if (more.invalid_reason()) break;
      c = more;
    }
    if (!c.invalid_reason()) out.push_back(c);
  }
  return out;
}

ROCMTPL_INLINE double wgmma_path::estimate_cost(const wgmma_config& c, std::int64_t m, std::int64_t n, std::int64_t k,
                                                std::int64_t batch) {
  const auto t = detail::gemm_tiles(c.block_m, c.block_n, c.block_k, c.split_k, m, n, k, batch);
  const double area = static_cast<double>(c.block_m) * c.block_n;
  const double intensity = area / (c.block_m + c.block_n);
  const double eff = 2.2 * std::pow(std::min(1.0, intensity / 85.0), 0.8);
  // Reading X and W and writing Y once from DRAM (16-bit values at about 3 TB/s, in the model's
  // units: 4096^3 in 128 x 256 tiles is 2.6e8 units, 0.21 ms on the H100) bounds every schedule;
  // a quarter of the shorter of that and the compute time stays exposed (fill, drain, the last
  // blocks). Where W streams (24-64 x 8192 x 8192) it narrows the K splits' gap: 2 slices measured
  // 0.0474 ms and 4 slices 0.0481 on the H200, where the compute terms alone gave 4 slices half the
  // time and ranked 2 slices 171st. (With 0.15 or less exposed, the 128 x 64 tile, which
  // computes four times the rows asked for, would rank above the 64-row one, against what the
  // same measurement of every configuration found.)
  const auto dim = [](std::int64_t x) { return static_cast<double>(std::max<std::int64_t>(x, 1)); };
  const double memory = (dim(m) * dim(k) + dim(k) * dim(n) + dim(m) * dim(n)) * dim(batch) * 2.0 * 0.41;
  const auto bound = [&](double compute) { return std::max(compute, memory) + 0.25 * std::min(compute, memory); };
  if (c.stream_k > 0 && t.k_steps > 0) {
    // Equal shares of every tile's k-blocks over min(SMs, tiles x stream_k) blocks, a fill and an
    // epilogue share per block, a partial tile written by one block and read back by the tile's
    // owner in fp32 (~300 units a value, fitted to the H200: 3072x768x4096 stream-K 128x256 ran
    // 0.98x of the unsplit tile where equal shares alone would give 0.6x), and the launch that
    // zeroes the counters.
    const double blocks = std::min(detail::gemm_cost_sms, t.tiles * c.stream_k);
    const double iterations = std::ceil(t.tiles * t.k_steps / blocks);
    const double epilogues = std::ceil(t.tiles / blocks);
    return bound((iterations * c.block_k + 64.0 + 64.0 * 2 * epilogues) * area / eff) + 2.0 * area * 300.0 + 2.2e6;
  }
  // Rounds of tiles over the SMs; per tile the pipeline fill and the epilogue, in K steps of 64
  // (ping-pong: the epilogue runs under the other warpgroup's main loop, the fill stays).
  const double rounds = std::ceil(t.tiles / detail::gemm_cost_sms);
  const double tail = c.pingpong != 0 ? 64.0 : 64.0 * 3;
  double time = bound(rounds * (area * (t.k_steps * c.block_k + tail)) / eff);
  if (c.split_k > 1) {
    time += static_cast<double>(c.split_k) * dim(m) * dim(n) * dim(batch) * 8.0 * 0.33 + 3.3e6;
  }
  return time;
}

ROCMTPL_INLINE std::vector<std::pair<double, wgmma_config>> wgmma_path::problem_configs(const detail::gemm_view& v,
                                                                                        const gemm_rank_request& r) {
  if (detail::wgmma_static_reason(v) || !detail::wgmma_fits_hints(v, *r.hints)) return {};
  // A tile whose last m64 blocks lie wholly past M (M <= 64 in a 128-row tile, M <= 192 in a 256-row
  // one): those blocks' wgmma compute nothing that is stored, and the smaller tilings do the same
  // work without them. Not offered: on 48 x 8192 x 8192 the tuner picked cooperative 128 x 64 from a
  // tie of minima (0.0441 ms against the 64 x 64 tile's 0.0444), and in back-to-back calls it ran
  // 0.0409 ms where the 64 x 64 tile had run 0.0374-0.0377 (H200). Tuning every configuration at
  // 24-64 rows (before X's box was fitted to M) never found such a tile fastest.
  const std::int64_t rows = std::max<std::int64_t>(r.m, 1) * std::max<std::int64_t>(r.batch, 1);
  const auto idle_rows = [rows](const wgmma_config& c) { return (rows + 63) / 64 * 64 < c.block_m; };
  auto out = detail::rank_tiled<wgmma_path>(r, [](wgmma_config&) {});  // TMA rows and 16-byte stores: no width to fit
  std::erase_if(out, [&](const auto& e) { return idle_rows(e.second); });
  // The few-tile tilings only where 128 x 256 leaves SMs idle (fewer than two waves of its tiles).
  if (detail::gemm_tiles(128, 256, wgmma_config::block_k, 1, r.m, r.n, r.k, r.batch).tiles >=
      2 * detail::gemm_cost_sms) {
    std::erase_if(out, [](const auto& e) { return detail::wgmma_tiling_of(e.second).few_tiles_only; });
  }
  if (r.runtime_split_k) return out;
  // Stream-K for every tiling with fewer tiles than two waves: the fewest blocks per tile (2, 4,
  // 8 or 16) that give every SM a block, where K has 4 k-blocks or more.
  for (auto c : search_space()) {
    const auto t = detail::gemm_tiles(c.block_m, c.block_n, c.block_k, 1, r.m, r.n, r.k, r.batch);
    if (t.tiles >= 2 * detail::gemm_cost_sms || t.k_steps < 4 || idle_rows(c)) continue;
    c.stream_k = 2;
    while (c.stream_k < 16 && t.tiles * c.stream_k < detail::gemm_cost_sms) c.stream_k *= 2;
    out.emplace_back(estimate_cost(c, r.m, r.n, r.k, r.batch), c);
  }
  return out;
}

ROCMTPL_INLINE std::optional<std::string> wgmma_path::unsupported(const wgmma_config& c, const detail::gemm_view& v,
                                                                  const gemm_options& o) {
  if (c.stream_k > 0 && o.runtime_split_k) {
    return "rocmtpl: gemm: wgmma config " + c.name_text().str() +
           " is stream-K, which splits K itself; gemm_options::runtime_split_k asks for the entry's split_k instead "
           "(use a configuration without stream_k)";
  }
  const auto why = detail::wgmma_static_reason(v);
  if (!why) return std::nullopt;
  return "rocmtpl: gemm: wgmma config " + c.name_text().str() + ": " + *why + "; use a matrix_core or simt config";
}

ROCMTPL_INLINE std::optional<std::string> wgmma_path::unsupported_fusion(const wgmma_config& c,
                                                                         const template_context& ctx,
                                                                         const fused_epilogue& e) {
  if (e.output.type() == ctx.output_node().type()) return std::nullopt;
  return "rocmtpl: gemm: wgmma config " + c.name_text().str() +
         " stages the output in its own dtype before a fused epilogue; the epilogue's output (" +
         std::string(rocmtpl::name(e.output.type())) + ") must have the GEMM's output dtype (" +
         std::string(rocmtpl::name(ctx.output_node().type())) + ")";
}

ROCMTPL_INLINE gemm_config_fields wgmma_path::describe(const wgmma_config& c) {
  gemm_config_fields out{
      {"math", std::string(wgmma_config::math)},        {"block_m", std::to_string(c.block_m)},
      {"block_n", std::to_string(c.block_n)},           {"block_k", std::to_string(wgmma_config::block_k)},
      {"warp_m", std::to_string(c.warp_m())},           {"warp_n", std::to_string(c.warp_n())},
      {"group_m", std::to_string(c.group_m)},           {"stages", std::to_string(c.stages)},
      {"vector", std::to_string(wgmma_config::vector)}, {"split_k", std::to_string(c.split_k)}};
  if (c.pingpong != 0) out.emplace_back("pingpong", std::to_string(c.pingpong));  // absent: cooperative (older records)
  if (c.stream_k != 0) out.emplace_back("stream_k", std::to_string(c.stream_k));
  return out;
}

ROCMTPL_INLINE std::optional<wgmma_config> wgmma_path::parse(const gemm_config_fields& fields) {
  if (fields.empty() || fields.front().second != wgmma_config::math) return std::nullopt;
  wgmma_config c;
  int warp_m = -1;
  int warp_n = -1;
  detail::parse_config_fields(fields, name, [&](std::string_view f, int v) {
    if (f == "block_k") return v == wgmma_config::block_k;
    if (f == "vector") return v == wgmma_config::vector;
    int* field = f == "block_m"    ? &c.block_m
                 : f == "block_n"  ? &c.block_n
                 : f == "group_m"  ? &c.group_m
                 : f == "stages"   ? &c.stages
                 : f == "split_k"  ? &c.split_k
                 : f == "pingpong" ? &c.pingpong
                 : f == "stream_k" ? &c.stream_k
                 : f == "warp_m"   ? &warp_m
                 : f == "warp_n"   ? &warp_n
                                   : nullptr;
    if (field != nullptr) *field = v;
    return field != nullptr;
  });
  if ((warp_m >= 0 && warp_m != c.warp_m()) || (warp_n >= 0 && warp_n != c.warp_n())) {
    throw invalid_argument_error("rocmtpl: gemm: wgmma config fields warp_m=" + std::to_string(warp_m) +
                                 " warp_n=" + std::to_string(warp_n) + " are not block_m / " +
                                 std::to_string(c.tile_consumers()) + " and block_n");
  }
  return c;
}

ROCMTPL_INLINE std::vector<launch_requirement> wgmma_path::requirements(const rocm_template_kernel& kernel,
                                                                        const detail::gemm_view& v) {
  using namespace detail;
  std::vector<launch_requirement> req;
  const auto add = [&](launch_requirement r) {
    const auto c = r.expr.constant();
    if (c && r.kind == launch_requirement_kind::equals && *c == r.value) return;
    if (c && r.kind == launch_requirement_kind::at_most && *c <= r.value) return;
    if (c && r.kind == launch_requirement_kind::multiple_of && *c % r.value == 0) return;
    req.push_back(std::move(r));
  };
  const sym_expr rows = v.batch * v.m;  // X's and Y's rows with the batch folded in
  if (const auto b = v.batch.constant(); !b || *b != 1) {
    for (auto& c : wgmma_fold_conditions(v)) {
      add({.kind = launch_requirement_kind::equals, .expr = std::move(c), .value = 0, .unless_at_most_one = v.batch});
    }
  }
  for (const sym_expr* e : {&rows, &v.n, &v.k}) {
    add({.kind = launch_requirement_kind::at_most, .expr = *e, .value = 2147483647});
  }
  add({.kind = launch_requirement_kind::multiple_of, .expr = v.n, .value = 8});
  add({.kind = launch_requirement_kind::multiple_of, .expr = v.x.stride_r, .value = 8, .unless_at_most_one = rows});
  add({.kind = launch_requirement_kind::multiple_of, .expr = v.w.stride_r, .value = 8, .unless_at_most_one = v.k});
  add({.kind = launch_requirement_kind::multiple_of, .expr = v.y.stride_r, .value = 8});
  for (const auto& [name, op] : {std::pair{"X", &v.x}, std::pair{"W", &v.w}, std::pair{"Y", &v.y}}) {
    req.push_back({.kind = launch_requirement_kind::aligned_pointer,
                   .tensor = abi_tensor_index(kernel.args(), name),
                   .expr = op->offset,
                   .value = 16});
  }
  return req;
}

ROCMTPL_INLINE std::optional<sym_expr> wgmma_path::workspace_bytes(const wgmma_config& c, const detail::gemm_view& v) {
  if (c.stream_k == 0) return std::nullopt;
  const sym_expr tiles = detail::wgmma_tiles(v, c);
  const sym_expr counters = floor_div(tiles * sym_expr(4) + sym_expr(255), sym_expr(256)) * sym_expr(256);
  return counters + tiles * sym_expr(c.stream_k + 1) * sym_expr(static_cast<std::int64_t>(c.block_m) * c.block_n * 4);
}

ROCMTPL_INLINE launch_description wgmma_path::describe_launch(const rocm_template_kernel& kernel,
                                                              const detail::gemm_plan& plan, const wgmma_config& c) {
  using namespace detail;
  const auto& v = plan.v;
  launch_description d = launch_description_for(kernel.kernel_name(), kernel.args());
  if (c.stream_k > 0) {
    d.workspace_bytes = {.sizes = *workspace_bytes(c, v)};
  } else if (plan.split) {
    d.workspace_bytes = {.sizes = split_k_slice_bytes(v), .times_runtime_arg = 0, .only_when_runtime_arg_above_one = 0};
  } else if (plan.partials) {
    d.workspace_bytes = {.sizes = sym_expr(plan.config.split_k) * split_k_slice_bytes(v)};
  }
  kernel_launch l;
  l.suffix = "sm90";
  const sym_expr rows = v.batch * v.m;  // the batch folds into M (sm90_requirements())
  l.grid[0] = {.sizes = floor_div(rows + sym_expr(c.block_m - 1), sym_expr(c.block_m)) *
                        floor_div(v.n + sym_expr(c.block_n - 1), sym_expr(c.block_n)),
               .at_most_sm_count = true};
  if (plan.split) l.grid[0].times_runtime_arg = 0;
  if (!plan.split && plan.partials) l.grid[0].sizes = l.grid[0].sizes * sym_expr(plan.config.split_k);
  if (c.stream_k > 0) l.grid[0].sizes = wgmma_tiles(v, c) * sym_expr(c.stream_k);  // at most tiles x stream_k blocks
  l.block = {128 * 3, 1, 1};  // gemm_sm90::threads: a producer and two consumer warpgroups
  l.shared_bytes = c.shared_bytes();
  const auto map = [&](const std::string& name, const gemm_operand& op, const sym_expr& rows, const sym_expr& cols,
                       std::int64_t box_rows, bool fit_box_rows, sym_expr one_row_pitch) {
    const auto index = abi_tensor_index(kernel.args(), name);
    l.params.push_back({.kind = launch_param_kind::tensor_map,
                        .index = index,
                        .name = "map_" + name,
                        .map = tensor_map_spec{.tensor = index,
                                               .element = op.node->type(),
                                               .offset = op.offset,
                                               .rows = rows,
                                               .cols = cols,
                                               .pitch = op.stride_r,
                                               .box_rows = box_rows,
                                               .box_cols = 64,
                                               .fit_box_rows = fit_box_rows,
                                               .pitch_if_one_row = std::move(one_row_pitch)}});
  };
  // X's box: at most M rows rounded up to 8 (the producer's expected bytes in mainloop() follow the
  // same rule): 24-64-row problems in 64-row tiles read no out-of-bounds rows; the tile's rows past
  // the box are never stored.
  map("X", v.x, rows, v.k, c.block_m, true, floor_div(v.k + sym_expr(7), sym_expr(8)) * sym_expr(8));
  map("W", v.w, v.k, v.n, 64, false, v.n);
  const auto params = gemm_launch_params(kernel, plan);  // the kernel's parameters after the maps: plan.params
  l.params.insert(l.params.end(), params.begin(), params.end());
  std::vector<kernel_launch> launches;
  if (c.stream_k > 0) {
    kernel_launch zero;  // the tile counters back to zero (gemm_sm90_zero_counters())
    zero.suffix = "sm90_zero";
    zero.grid[0] = {.sizes = sym_expr(1)};
    zero.block = {256, 1, 1};
    zero.params = params;
    launches.push_back(std::move(zero));
  }
  launches.push_back(std::move(l));
  if (detail::wgmma_reduces(plan)) launches.push_back(split_k_reduce_launch(plan, params));
  d.variants.push_back({requirements(kernel, v), std::move(launches)});
  return d;
}

ROCMTPL_INLINE void wgmma_path::render(rendered_source& out, rocm_template_kernel& kernel,
                                       const detail::gemm_plan& plan, const wgmma_config& c,
                                       const launch_description& d) {
  indented_buffer src;
  src.reserve(48 * 1024);
  indented_buffer entry;
  detail::write_source_head(src, plan, plan.partials);  // its own epilogue; split-K's reduction uses store_output()
  out.includes.emplace_back(detail::sm90_includes_text);
  detail::write_wgmma_code(src, plan, c);
  detail::write_wgmma_kernel(src, plan, d);
  detail::write_nvidia_only_entry(entry, kernel, plan, d, "Hopper path", detail::entry_split_k::none);
  out.device_code = std::move(src).str();
  out.entry_body = std::move(entry).str();
}

}  // namespace rocmtpl::templates
