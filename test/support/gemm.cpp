// SPDX-License-Identifier: MIT
#include "support/gemm.hpp"

#include <cstdlib>

namespace gemm_test {

rocmtpl::rocm_template<gemm_policy> make(dtype t, activation act, bool bias) {
  std::vector<buffer> in{buffer("x", layout::row_major(t, {M, 96})), buffer("w", layout::row_major(t, {96, 80}))};
  if (bias) in.emplace_back("b", layout::row_major(dtype::f32, {80}));
  return {gemm_policy({act}), in, layout::row_major(t, {M, 80})};
}

rocmtpl::rocm_template<gemm_policy> square(dtype t, sym_expr m, sym_expr n, sym_expr k, gemm_options o) {
  return {gemm_policy(o),
          {buffer("x", layout::row_major(t, {m, k})), buffer("w", layout::row_major(t, {k, n}))},
          layout::row_major(t, {m, n})};
}

rocmtpl::rocm_template<gemm_policy> epilogue_problem(bool col_major_w, bool runtime_split_k) {
  gemm_options o{.act = activation::gelu,
                 .alpha = 0.5F,
                 .beta = 2.0F,
                 .bias_along = bias_dim::m,
                 .residual = true,
                 .runtime_split_k = runtime_split_k};
  return {gemm_policy(o),
          {buffer("x", layout::row_major(dtype::f16, {M, 64})),
           buffer("w", col_major_w ? layout::col_major(dtype::f16, {64, 48}) : layout::row_major(dtype::f16, {64, 48})),
           buffer("b", layout::row_major(dtype::f32, {M})), buffer("r", layout::row_major(dtype::bf16, {M, 48}))},
          layout::row_major(dtype::f32, {M, 48})};
}

gemm_config mma(int bm, int bn, int bk, int wm, int wn, int stages) {
  return mma_config{.block_m = bm, .block_n = bn, .block_k = bk, .warp_m = wm, .warp_n = wn, .stages = stages};
}

gemm_config hopper(int bm, int bn, int stages) { return wgmma_config{.block_m = bm, .block_n = bn, .stages = stages}; }

gemm_config skinny(skinny_side side, int bm, int wm, int wn, int tn, int bk, int vector, int split) {
  return skinny_config{.side = side,
                       .rows = bm,
                       .k_threads = wm,
                       .p_threads = wn,
                       .p_units = tn,
                       .k_step = bk,
                       .vector = vector,
                       .split_k = split};
}

rocmtpl::rendered_source render_parts(const rocmtpl::rocm_template<gemm_policy>& t, const gemm_config& c) {
  rocmtpl::rocm_template_kernel kernel("rocm_" + std::string(t.name()), t.get_runtime_arg_info(),
                                       t.get_runtime_arg_values(c));
  return t.render(kernel, c);
}

bool is_skinny(const gemm_config& c) { return c.holds<skinny_config>() || c.holds<skinny_mma_config>(); }

std::optional<skinny_side> side_of(const gemm_config& c) {
  return c.visit([](const auto& x) -> std::optional<skinny_side> {
    if constexpr (requires { x.side; }) {
      return x.side;
    } else {
      return std::nullopt;
    }
  });
}

gemm_config with_side(const gemm_config& c, skinny_side side) {
  return c.visit([side](auto x) {
    if constexpr (requires { x.side; }) x.side = side;
    return gemm_config(x);
  });
}

int vector_of(const gemm_config& c) {
  return c.visit([](const auto& x) { return x.vector; });
}

rocmtpl::templates::gemm_rank_request rank_request(const rocmtpl::templates::detail::gemm_view& v,
                                                   const size_hints& hints, bool split) {
  namespace td = rocmtpl::templates::detail;
  return {.m = td::size_value(v.m, hints, 1024),
          .n = td::size_value(v.n, hints, 1024),
          .k = td::size_value(v.k, hints, 1024),
          .batch = td::size_value(v.batch, hints, 1),
          .hints = &hints,
          .runtime_split_k = split,
          .split_variants = split};
}

std::vector<gemm_config> every_space_config() {
  std::vector<gemm_config> out;
  rocmtpl::templates::gemm_path_list::for_each([&out](auto p) {
    for (const auto& c : decltype(p)::type::search_space()) out.emplace_back(c);
  });
  return out;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

std::size_t count(const std::string& s, const std::string& part) {
  std::size_t n = 0;
  for (auto i = s.find(part); i != std::string::npos; i = s.find(part, i + part.size())) ++n;
  return n;
}

bool compile_all() {
  const char* v = std::getenv("ROCMTPL_GEMM_COMPILE_ALL");
  return v != nullptr && std::string(v) == "1";
}

std::vector<hopper_case> hopper_cases(dtype d) {
  using rocmtpl::rocm_template;
  const auto problem = [](gemm_options o, std::vector<buffer> inputs, layout y,
                          std::optional<std::vector<int>> reorder = std::nullopt) {
    return std::make_shared<rocm_template<gemm_policy>>(gemm_policy(o), std::move(inputs), std::move(y),
                                                        std::move(reorder));
  };
  const std::string n(rocmtpl::name(d));
  const dtype other = d == dtype::f16 ? dtype::bf16 : dtype::f16;
  const auto x = buffer("x", layout::row_major(d, {M, K}));
  const auto w = buffer("w", layout::row_major(d, {K, N}));
  const auto y = layout::row_major(d, {M, N});
  const auto bias_n = buffer("bias", layout::row_major(d, {N}));
  const std::vector<size_hints> shapes{{{"M", 333}, {"N", 200}, {"K", 264}},
                                       {{"M", 1000}, {"N", 1536}, {"K", 1032}},
                                       {{"M", 1}, {"N", 72}, {"K", 64}},
                                       {{"M", 70}, {"N", 8}, {"K", 0}}};
  const size_hints wide{{"M", 129}, {"N", 264}, {"K", 96}};
  // More tiles than SMs: each block takes 2 or 3 tiles, so ping-pong's turns (a warpgroup's second
  // tile after the other's) run.
  const size_hints many{{"M", 2100}, {"N", 2056}, {"K", 520}};
  auto plain = problem({}, {x, w}, y);
  // bias[N] (16-bit) + relu, the README's job; also statically split (the few-tile problems' variants).
  const gemm_options relu{.act = activation::relu};
  auto biased = problem(relu, {x, w, bias_n}, y);
  // silu + bias[N] of the other 16-bit dtype + residual, output cast to the other dtype; the same
  // with Residual read one value at a time (the Hopper path's rolled fallback): column-major, and
  // row-major at an offset of 3 elements (not 16-byte aligned).
  const gemm_options silu{.act = activation::silu, .residual = true};
  const auto silu_in = [&](layout res) {
    return std::vector<buffer>{x, w, buffer("bias", layout::row_major(other, {N})), buffer("res", std::move(res))};
  };
  auto cast = problem(silu, silu_in(layout::row_major(d, {M, N})), layout::row_major(other, {M, N}));
  auto strided_res = problem(silu, silu_in(layout(d, {M, N}, {sym_expr(1), M})), layout::row_major(other, {M, N}));
  auto offset_res =
      problem(silu, silu_in(layout(d, {M, N}, {N, sym_expr(1)}, sym_expr(3))), layout::row_major(other, {M, N}));
  // alpha, beta, bias[M] (f32), gelu, an f32 residual; also with runtime split-K.
  const gemm_options heavy{
      .act = activation::gelu, .alpha = 0.5F, .beta = 2.0F, .bias_along = bias_dim::m, .residual = true};
  gemm_options split_heavy = heavy;
  split_heavy.runtime_split_k = true;
  const std::vector<buffer> heavy_in{x, w, buffer("bias", layout::row_major(dtype::f32, {M})),
                                     buffer("res", layout::row_major(dtype::f32, {M, N}))};
  auto all = problem(heavy, heavy_in, y);
  auto split_all = problem(split_heavy, heavy_in, y);
  // sigmoid through the addmm order [bias, X, W], runtime split-K at 1.
  const gemm_options sig{.act = activation::sigmoid, .runtime_split_k = true};
  auto addmm = problem(sig, {x, w, bias_n}, y, std::vector<int>{2, 0, 1});
  // Runtime split-K: bias[N] + relu on every tile.
  const gemm_options split_relu{.act = activation::relu, .runtime_split_k = true};
  auto split = problem(split_relu, {x, w, bias_n}, y);
  // A batch with a shared W folds into M (rows of one batch straddle tiles and the next batch's
  // rows): bias[N] + relu + a batched residual.
  const auto B = sym_expr::symbol("B");
  const gemm_options fold_relu{.act = activation::relu, .residual = true, .runtime_split_k = true};
  auto fold =
      problem(fold_relu,
              {buffer("x", layout::row_major(d, {B, M, K})), w, bias_n, buffer("res", layout::row_major(d, {B, M, N}))},
              layout::row_major(d, {B, M, N}));
  const std::vector<size_hints> fold_shapes{{{"B", 3}, {"M", 100}, {"N", 264}, {"K", 200}},
                                            {{"B", 2}, {"M", 1}, {"N", 72}, {"K", 64}}};
  // HygieneGpu's gelu with runtime split-K over a batch (built only).
  const gemm_options gelu_split{.act = activation::gelu, .runtime_split_k = true};
  auto hygiene =
      problem(gelu_split, {buffer("x", layout::row_major(d, {B, M, K})), w, bias_n}, layout::row_major(d, {B, M, N}));
  const size_hints hygiene_shape{{"B", 2}, {"M", 129}, {"N", 264}, {"K", 96}};

  std::vector<hopper_case> out;
  const auto add = [&](const std::string& label, const auto& tpl, const gemm_options& o, const wgmma_config& c,
                       std::vector<size_hints> at) -> hopper_case& {
    return out.emplace_back(hopper_case{n + " hopper" + label, tpl, o, c, std::move(at)});
  };
  const auto tilings = rocmtpl::templates::wgmma_path::search_space();
  for (const auto& base : tilings) {
    // The gelu + bias[M] + residual epilogue spills 20-28 bytes on the 128 x 256 and 256 x 128
    // tiles (as in benchmark/hopper/NOTES.md): checked on the tiles of at most 128 x 128.
    const bool small = base.block_m * base.block_n <= 128 * 128;
    // Stream-K (ping-pong deals a block's segments to its two warpgroups in turn): 2 and 4 blocks
    // per tile, tiles split between blocks at any k-block (K = 264: 5 k-blocks; 1032: 17), one
    // k-block (blocks with empty shares), K = 0 (each tile's block stores the epilogue of zero);
    // the heavy epilogue after the owner's sum on the smaller tiles.
    for (int sk : {2, 4}) {
      auto c = base;
      c.stream_k = sk;
      add(" stream-K bias[N] relu", biased, relu, c, shapes);
      if (sk == 2 && small)
        add(" stream-K bias[M] gelu alpha beta residual", all, heavy, c, {wide, shapes[1]}).bias_along_m = true;
    }
    add(" batch folded into M", fold, fold_relu, base, fold_shapes);
    add(" gelu runtime split-K", hygiene, gelu_split, base, {hygiene_shape}).gpu = false;
    // K = 1032 (17 k-blocks) over 2 and 3 slices; K = 64 (one k-block) over 3 and 7 slices: the
    // empty slices write zeros; K = 0: every slice is empty. Runtime and static slices.
    for (int s : {2, 3, 7}) {
      auto c = base;
      c.split_k = s;
      add(" split-K bias[N] relu", split, split_relu, c, shapes);
      add(" static split-K bias[N] relu", biased, relu, c, shapes);
      if (s == 3 && &base == &tilings.front()) add(" batch folded into M split-K", fold, fold_relu, c, fold_shapes);
      if (s == 3) add(" gelu runtime split-K", hygiene, gelu_split, c, {hygiene_shape}).gpu = false;
      if (s == 3 && small) {
        add(" split-K bias[M] gelu alpha beta residual", split_all, split_heavy, c, {wide, shapes[1]}).bias_along_m =
            true;
      }
    }
    auto plain_shapes = shapes;
    if (base.pingpong != 0) plain_shapes.push_back(many);
    add("", plain, {}, base, plain_shapes);
    add(" bias[N] relu", biased, relu, base, {wide, base.pingpong != 0 ? many : shapes[0]});
    add(" silu residual cast", cast, silu, base, {wide});
    if (&base == &tilings.front() || base.pingpong != 0) {
      add(" silu column-major residual", strided_res, silu, base, {wide});
      add(" silu residual at an offset", offset_res, silu, base, {wide});
    }
    // No spill on any tiling (sigmoid on __expf and __frcp_rn; the libm form spilled 4 bytes on
    // 128 x 256).
    add(" addmm sigmoid", addmm, sig, base, {wide});
    if (small) add(" bias[M] gelu alpha beta residual", all, heavy, base, {wide, shapes[0]}).bias_along_m = true;
  }
  return out;
}

}  // namespace gemm_test
