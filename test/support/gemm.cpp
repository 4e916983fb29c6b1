// SPDX-License-Identifier: MIT
#include "support/gemm.hpp"

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

}  // namespace gemm_test
