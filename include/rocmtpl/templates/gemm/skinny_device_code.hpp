// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Device code of the GEMM's skinny paths (gemm_math::skinny_m, gemm_math::skinny_n, issue
/// 10 part 2): matrix-vector style kernels for problems with few rows (M up to 64) or few columns.
///
/// The problem is seen as Y[q, p] = sum_k S[q, k] * L[p, k] with a small operand S (Q rows: the
/// small dimension) and a large operand L (P rows): skinny_m has S = X, L = W^T (Q = M, P = N),
/// skinny_n has S = W^T, L = X (Q = N, P = M). L is read once, with 16-byte loads along its
/// contiguous axis, by two kernels chosen by its layout at render time:
/// - streaming (L contiguous along P: row-major W for skinny_m): each thread owns `thread_n` groups
///   of Vec consecutive p and `block_k` rows of K per step, reads S from the L1 cache (every lane
///   of a warp reads the same element), and the K threads of a block reduce through shared memory;
/// - dot (L contiguous along K, or no unit stride: row-major X for skinny_n, nn.Linear weights for
///   skinny_m): each thread owns `thread_n` rows of P and `block_k` consecutive K elements per
///   step, S is staged in shared memory per step, and the `warp_m` K lanes reduce with shuffles.
/// Blocks cover (block_m rows of Q) x (block_n units of P), the Q tiles next to each other in
/// launch order (they read the same L tile, which L2 then serves once); blockIdx.y is the batch and
/// blockIdx.z the K slice: with split_k above 1 each slice writes fp32 partials to the workspace
/// and the split-K reduction the tiled paths share (render.hpp: write_split_k_reduce_body(), with
/// the slice count a constant here) sums them in slice order (deterministic) and applies the
/// epilogue.
/// Accumulation is fp32; the output goes through the shared epilogue store_output().
///
/// Names the prelude defines and these blocks use: `gemm_problem`, `gemm_pointers`,
/// `store_output()`, `gemm_vector`, `gemm_cdiv()` (common block), `skinny_l_type`,
/// `skinny_s_type`, and the skinny_* constants (rendered by write_skinny_code(), render.hpp).

#include <string>
#include <string_view>

namespace rocmtpl::templates::detail {

/// The view of one batch as (S, L) of the skinny paths: pointers and strides, in elements; the
/// body differs for skinny_m (S = X, L = W) and skinny_n (S = W, L = X).
[[nodiscard]] inline std::string skinny_view_text(bool q_is_m) {
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

/// Shared by both kernels: the block's tiles and K range, the emission of one result (epilogue or
/// fp32 partial), and the guarded load of Vec elements of L.
inline constexpr std::string_view skinny_common_text = R"hip(
// The block's first row of Q, first unit of P, batch and K range [k_begin, k_end) (whole steps of
// the block, split into skinny_split slices).
struct skinny_block {
    int64_t q0, unit0, batch, k_begin, k_end;
};

__device__ __forceinline__ skinny_block skinny_block_of(const skinny_view& v) {
    skinny_block b;
    const int64_t tiles_q = gemm_cdiv(v.q_size, skinny_q);
    b.q0 = (static_cast<int64_t>(blockIdx.x) % tiles_q) * skinny_q;
    b.unit0 = (static_cast<int64_t>(blockIdx.x) / tiles_q) * (skinny_tp * skinny_units);
    b.batch = static_cast<int64_t>(blockIdx.y);
    constexpr int64_t step = static_cast<int64_t>(skinny_tk) * skinny_u;
    const int64_t per = gemm_cdiv(gemm_cdiv(v.k_size, step), skinny_split) * step;
    b.k_begin = static_cast<int64_t>(blockIdx.z) * per;
    b.k_end = b.k_begin + per < v.k_size ? b.k_begin + per : v.k_size;
    return b;
}

// One result at (q, p): the fused epilogue, or the fp32 partial of this K slice.
__device__ __forceinline__ void skinny_emit(const gemm_problem& p, const gemm_pointers& t, int64_t batch, int64_t q,
                                            int64_t pp, float acc) {
    const int64_t gm = skinny_q_is_m ? q : pp;
    const int64_t gn = skinny_q_is_m ? pp : q;
    if (gm >= p.m_size || gn >= p.n_size) return;
    if constexpr (skinny_split > 1) {
        t.Partial[((static_cast<int64_t>(blockIdx.z) * p.batch + batch) * p.m_size + gm) * p.n_size + gn] = acc;
    } else {
        store_output(p, t, batch, gm, gn, acc);
    }
}

// Vec elements of L from `ptr` (step `step` apart), the first `valid` of them in range (zero
// after); one 16-byte load when Vec is above 1 and all are in range (the vectorised instantiation
// only exists where the contiguous stride is 1 and the launch checked the alignment).
template <int Vec>
__device__ __forceinline__ gemm_vector<skinny_l_type::storage, Vec> skinny_load(const skinny_l_type::storage* ptr,
                                                                              int64_t step, int64_t valid) {
    gemm_vector<skinny_l_type::storage, Vec> out;
    if (Vec > 1 && valid >= Vec) {
        out = *reinterpret_cast<const gemm_vector<skinny_l_type::storage, Vec>*>(ptr);
    } else {
#pragma unroll
        for (int e = 0; e < Vec; ++e) out.v[e] = e < valid ? ptr[e * step] : static_cast<skinny_l_type::storage>(0);
    }
    return out;
}
)hip";

/// The streaming kernel (L contiguous along P).
inline constexpr std::string_view skinny_stream_text = R"hip(
// Streaming: thread (tk, tp) takes K rows k0 + tk * skinny_u + [0, skinny_u) of each block step
// and the P groups unit0 + tp + r * skinny_tp (r < skinny_units) of Vec elements each, one group
// per pass over the block's K range: only that group's accumulators and skinny_u loads are live
// (all groups in one pass kept the block_m x block_k values of S live across them as well, and
// spilled with thread_n 2 and 4: CUDA 13, sm_90 and sm_90a).
template <int Vec>
__device__ __forceinline__ void skinny_mainloop(const gemm_problem& p, const gemm_pointers& t) {
    const int tid = static_cast<int>(threadIdx.x);
    const int tp = tid % skinny_tp;
    const int tk = tid / skinny_tp;
    const skinny_block b = skinny_block_of(skinny_make_view(p, t, static_cast<int64_t>(blockIdx.y)));
    const skinny_view v = skinny_make_view(p, t, b.batch);
    const skinny_s_type::storage* srow[skinny_q];
#pragma unroll
    for (int q = 0; q < skinny_q; ++q) {
        // Rows past Q read the last row: their results are dropped.
        const int64_t row = b.q0 + q < v.q_size ? b.q0 + q : v.q_size - 1;
        srow[q] = v.s + row * v.s_sq;
    }
    constexpr int64_t step = static_cast<int64_t>(skinny_tk) * skinny_u;
    for (int r = 0; r < skinny_units; ++r) {
        const int64_t pp = (b.unit0 + tp + r * skinny_tp) * Vec;
        const int64_t left = v.p_size - pp;
        float acc[skinny_q][Vec];
#pragma unroll
        for (int q = 0; q < skinny_q; ++q)
#pragma unroll
            for (int e = 0; e < Vec; ++e) acc[q][e] = 0.0f;
        for (int64_t k0 = b.k_begin + static_cast<int64_t>(tk) * skinny_u; k0 < b.k_end; k0 += step) {
            gemm_vector<skinny_l_type::storage, Vec> l[skinny_u];
#pragma unroll
            for (int u = 0; u < skinny_u; ++u) {
                const int64_t valid = k0 + u < b.k_end ? (left < Vec ? left : Vec) : 0;
                l[u] = skinny_load<Vec>(v.l + (k0 + u) * v.l_sk + pp * v.l_sp, v.l_sp, valid);
            }
#pragma unroll
            for (int u = 0; u < skinny_u; ++u) {
                const bool in_k = k0 + u < b.k_end;
#pragma unroll
                for (int q = 0; q < skinny_q; ++q) {
                    const float s = in_k ? skinny_s_type::to_float(srow[q][(k0 + u) * v.s_sk]) : 0.0f;
#pragma unroll
                    for (int e = 0; e < Vec; ++e) acc[q][e] += s * skinny_l_type::to_float(l[u].v[e]);
                }
            }
        }
        if constexpr (skinny_tk == 1) {
#pragma unroll
            for (int q = 0; q < skinny_q; ++q)
#pragma unroll
                for (int e = 0; e < Vec; ++e) skinny_emit(p, t, b.batch, b.q0 + q, pp + e, acc[q][e]);
        } else {
            // The K threads' sums, one row q at a time, in a fixed order.
            __shared__ float red[skinny_tk][skinny_tp * Vec];
#pragma unroll
            for (int q = 0; q < skinny_q; ++q) {
#pragma unroll
                for (int e = 0; e < Vec; ++e) red[tk][tp * Vec + e] = acc[q][e];
                __syncthreads();
                for (int i = tid; i < skinny_tp * Vec; i += block_threads) {
                    float sum = 0.0f;
#pragma unroll
                    for (int j = 0; j < skinny_tk; ++j) sum += red[j][i];
                    skinny_emit(p, t, b.batch, b.q0 + q, (b.unit0 + r * skinny_tp) * Vec + i, sum);
                }
                __syncthreads();
            }
        }
    }
}
)hip";

/// The dot kernel (L contiguous along K, or no unit stride).
inline constexpr std::string_view skinny_dot_text = R"hip(
// Dot: lane tk of a group of skinny_tk lanes takes K elements kc + tk * skinny_u + [0, skinny_u) of
// each block step, for the P rows unit0 + g + r * groups (r < skinny_units) of its group g; the
// step's S tile is staged in shared memory as [q][u][tk] (conflict-free reads), the lanes of a
// group reduce with shuffles at the end.
template <int Vec>
__device__ __forceinline__ void skinny_mainloop(const gemm_problem& p, const gemm_pointers& t) {
    constexpr int step = skinny_tk * skinny_u;
    constexpr int loads = skinny_u / Vec;
    static_assert(skinny_u % Vec == 0, "rocmtpl: gemm skinny: block_k must be a multiple of the vector");
    const int tid = static_cast<int>(threadIdx.x);
    const int tk = tid % skinny_tk;
    const int g = tid / skinny_tk;
    const skinny_block b = skinny_block_of(skinny_make_view(p, t, static_cast<int64_t>(blockIdx.y)));
    const skinny_view v = skinny_make_view(p, t, b.batch);
    __shared__ float s_tile[skinny_q][skinny_u][skinny_tk];
    float acc[skinny_units][skinny_q];
#pragma unroll
    for (int r = 0; r < skinny_units; ++r)
#pragma unroll
        for (int q = 0; q < skinny_q; ++q) acc[r][q] = 0.0f;
    for (int64_t kc = b.k_begin; kc < b.k_end; kc += step) {
        for (int i = tid; i < skinny_q * step; i += block_threads) {
            const int q = i / step;
            const int u = (i % step) / skinny_tk;
            const int lane = i % skinny_tk;
            const int64_t k = kc + static_cast<int64_t>(lane) * skinny_u + u;
            const bool in = b.q0 + q < v.q_size && k < b.k_end;
            s_tile[q][u][lane] = in ? skinny_s_type::to_float(v.s[(b.q0 + q) * v.s_sq + k * v.s_sk]) : 0.0f;
        }
        const int64_t kt = kc + static_cast<int64_t>(tk) * skinny_u;
        gemm_vector<skinny_l_type::storage, Vec> l[skinny_units][loads];
#pragma unroll
        for (int r = 0; r < skinny_units; ++r) {
            const int64_t pp = b.unit0 + g + r * (block_threads / skinny_tk);
#pragma unroll
            for (int j = 0; j < loads; ++j) {
                const int64_t k = kt + j * Vec;
                const int64_t left = b.k_end - k;
                const int64_t valid = pp < v.p_size ? (left < Vec ? left : Vec) : 0;
                l[r][j] = skinny_load<Vec>(v.l + pp * v.l_sp + k * v.l_sk, v.l_sk, valid);
            }
        }
        __syncthreads();
#pragma unroll
        for (int q = 0; q < skinny_q; ++q) {
#pragma unroll
            for (int j = 0; j < loads; ++j) {
#pragma unroll
                for (int e = 0; e < Vec; ++e) {
                    const float s = s_tile[q][j * Vec + e][tk];
#pragma unroll
                    for (int r = 0; r < skinny_units; ++r) acc[r][q] += s * skinny_l_type::to_float(l[r][j].v[e]);
                }
            }
        }
        __syncthreads();
    }
#pragma unroll
    for (int r = 0; r < skinny_units; ++r) {
#pragma unroll
        for (int q = 0; q < skinny_q; ++q) {
#pragma unroll
            for (int off = skinny_tk / 2; off > 0; off /= 2) acc[r][q] += __shfl_xor(acc[r][q], off, skinny_tk);
            if ((r * skinny_q + q) % skinny_tk == tk) {
                skinny_emit(p, t, b.batch, b.q0 + q, b.unit0 + g + r * (block_threads / skinny_tk), acc[r][q]);
            }
        }
    }
}
)hip";

}  // namespace rocmtpl::templates::detail
