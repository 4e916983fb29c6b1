// SPDX-License-Identifier: MIT
#pragma once

// The implementation of templates/gemm/skinny/device_code.hpp: included at its end (header-only) or compiled once by
// src/templates.cpp, after it (so it does not include it back).

#include <string>

#include <rocmtpl/core/config.hpp>

namespace rocmtpl::templates::detail {

ROCMTPL_INLINE std::string skinny_view_text(bool q_is_m) {
  std::string s = R"hip(struct skinny_view {
    const skinny_l_type::storage* l;
    const skinny_s_type::storage* s;
    int64_t l_sp, l_sk, s_sq, s_sk;
    int64_t p_size, q_size, k_size;
};

__device__ __forceinline__ skinny_view skinny_make_view(const gemm_problem& p, const gemm_pointers& t, int64_t batch) {
    skinny_view v;
)hip";
  if (q_is_m) {
    s += R"hip(    v.l = t.W + p.w_offset + batch * p.w_stride_b;
    v.l_sp = p.w_stride_n;
    v.l_sk = p.w_stride_k;
    v.s = t.X + p.x_offset + batch * p.x_stride_b;
    v.s_sq = p.x_stride_m;
    v.s_sk = p.x_stride_k;
    v.p_size = p.n_size;
    v.q_size = p.m_size;
)hip";
  } else {
    s += R"hip(    v.l = t.X + p.x_offset + batch * p.x_stride_b;
    v.l_sp = p.x_stride_m;
    v.l_sk = p.x_stride_k;
    v.s = t.W + p.w_offset + batch * p.w_stride_b;
    v.s_sq = p.w_stride_n;
    v.s_sk = p.w_stride_k;
    v.p_size = p.m_size;
    v.q_size = p.n_size;
)hip";
  }
  s += R"hip(    v.k_size = p.k_size;
    return v;
}
)hip";
  return s;
}

}  // namespace rocmtpl::templates::detail
