// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Device code of the GEMM's skinny paths (skinny_path, skinny_mma_path; sides m and n, issue
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
/// A third kernel runs the streaming layout on matrix cores (the skinny_mma path,
/// skinny_mma_config: NVIDIA mma.sync m16n8k16, sm_80 and later, 16-bit X and W): D[p][q] =
/// L[p][k] * S^T[k][q], so that the large dimension fills the MMA's 16 rows and the small one its
/// 8 columns (Q padded to 8). Per 16 bytes of L it spends four byte permutes and a quarter of an
/// MMA per tile of 8 rows, where the fp32 kernel spends 8 conversions and 8 FMAs per row: at
/// 8 rows that kernel was instruction-bound (30% of the copy bandwidth on the H100).
///
/// Names the prelude defines and these blocks use: `gemm_problem`, `gemm_pointers`,
/// `store_output()`, `gemm_vector`, `gemm_cdiv()` (common block), `skinny_l_type`,
/// `skinny_s_type`, and the skinny_* constants (rendered by write_skinny_code(), render.hpp).

#include <string>
#include <string_view>

#include <rocmtpl/core/config.hpp>

namespace rocmtpl::templates::detail {

/// The view of one batch as (S, L) of the skinny paths: pointers and strides, in elements; the
/// body differs for skinny_m (S = X, L = W) and skinny_n (S = W, L = X).
[[nodiscard]] std::string skinny_view_text(bool q_is_m);

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

/// The matrix-core streaming kernel (skinny_mma_config; L contiguous along P,
/// 16-bit X and W of one dtype). NVIDIA only: AMD builds compile an empty body (the entry point
/// refuses there), NVIDIA targets before sm_80 a trap.
inline constexpr std::string_view skinny_mma_stream_text = R"hip(
#if defined(ROCMTPL_PLATFORM_NVIDIA) && (!defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 800)
#define ROCMTPL_SKINNY_MMA 1
// Matrix cores: lane (g, c) of a warp (g = lane / 4, c = lane % 4) owns the 8 elements p = pw + 8g
// + [0, 8) of P (pw: the warp's 64) and, per K step of the warp (4 * skinny_u), the skinny_u rows
// k = k0 + c * skinny_u + [0, skinny_u): one 16-byte load of L per row (the warp reads whole
// 128-byte lines), and skinny_u elements of each of its S rows q0 + 8t + g (one load when S is
// contiguous along K). The K order inside an MMA is free (A and B follow the same one): K chunk h
// of MMA j takes the lane's k = 4h + [0, 4) with P rows p + 2j (fragment row g) and p + 2j + 1 (row
// g + 8), so each A register pairs two L rows' halves with one byte permute and each B register is
// a pair of S as loaded. The next step's loads are issued before the current step's MMAs.
constexpr int skinny_mma_tiles = skinny_q / 8;
constexpr int skinny_mma_block_p = skinny_warps_p * 64;
constexpr int skinny_mma_warp_step = 4 * skinny_u;
constexpr int skinny_mma_block_step = skinny_warps_k * skinny_mma_warp_step;

struct skinny_mma_regs {
    uint32_t l[skinny_u][4];                       // skinny_u rows of L, 8 elements each (pairs)
    uint32_t s[skinny_mma_tiles][skinny_u / 2];    // per tile, skinny_u elements of the lane's S row
};

__device__ __forceinline__ void skinny_mma(float (&d)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
    if constexpr (x_kind == 2) {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
            "{%0, %1, %2, %3};\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    } else {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
            "{%0, %1, %2, %3};\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
    }
}

// The lane's loads of one step at K row k: rows past k_end and elements past P read as zero; the
// 16-byte loads of L bypass L1 (read once), S's go through it (every warp of the block reads them).
template <int Vec>
__device__ __forceinline__ void skinny_mma_load(skinny_mma_regs& r, const skinny_view& v, const skinny_l_type::storage* lp,
                                                const skinny_s_type::storage* const (&srow)[skinny_mma_tiles],
                                                int64_t k, int64_t k_end, int64_t valid_p) {
#pragma unroll
    for (int u = 0; u < skinny_u; ++u) {
        const skinny_l_type::storage* ptr = lp + (k + u) * v.l_sk;
        const int64_t valid = k + u < k_end ? valid_p : 0;
        if (Vec == 8 && valid == 8) {
            asm("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
                : "=r"(r.l[u][0]), "=r"(r.l[u][1]), "=r"(r.l[u][2]), "=r"(r.l[u][3])
                : "l"(ptr));
        } else {
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                const uint32_t lo = 2 * e < valid ? ptr[2 * e * v.l_sp] : 0u;
                const uint32_t hi = 2 * e + 1 < valid ? ptr[(2 * e + 1) * v.l_sp] : 0u;
                r.l[u][e] = lo | (hi << 16);
            }
        }
    }
#pragma unroll
    for (int t = 0; t < skinny_mma_tiles; ++t) {
        if (Vec == 8 && skinny_s_vector && k + skinny_u <= k_end) {
            const auto s = *reinterpret_cast<const gemm_vector<uint32_t, skinny_u / 2>*>(srow[t] + k);
#pragma unroll
            for (int e = 0; e < skinny_u / 2; ++e) r.s[t][e] = s.v[e];
        } else {
#pragma unroll
            for (int e = 0; e < skinny_u / 2; ++e) {
                const uint32_t lo = k + 2 * e < k_end ? srow[t][(k + 2 * e) * v.s_sk] : 0u;
                const uint32_t hi = k + 2 * e + 1 < k_end ? srow[t][(k + 2 * e + 1) * v.s_sk] : 0u;
                r.s[t][e] = lo | (hi << 16);
            }
        }
    }
}

// The MMAs of one step: K chunk h, P pair j, S tile t.
__device__ __forceinline__ void skinny_mma_step(float (&acc)[skinny_mma_tiles][4][4], const skinny_mma_regs& r) {
#pragma unroll
    for (int h = 0; h < skinny_u / 4; ++h) {
#pragma unroll
        for (int j = 0; j < 4; ++j) {
            const uint32_t a[4] = {__byte_perm(r.l[4 * h][j], r.l[4 * h + 1][j], 0x5410),
                                   __byte_perm(r.l[4 * h][j], r.l[4 * h + 1][j], 0x7632),
                                   __byte_perm(r.l[4 * h + 2][j], r.l[4 * h + 3][j], 0x5410),
                                   __byte_perm(r.l[4 * h + 2][j], r.l[4 * h + 3][j], 0x7632)};
#pragma unroll
            for (int t = 0; t < skinny_mma_tiles; ++t) skinny_mma(acc[t][j], a, r.s[t][2 * h], r.s[t][2 * h + 1]);
        }
    }
}

// The results: accumulator e of (t, j) is row q0 + 8t + 2c + (e & 1), element p + 2j + (e >> 1).
// With several K warps they go through shared memory 8 rows at a time and are summed in warp
// order (deterministic), consecutive threads taking consecutive elements of P.
__device__ __forceinline__ void skinny_mma_finish(const gemm_problem& p, const gemm_pointers& t, int64_t batch,
                                                  int64_t q0, int64_t p0, const float (&acc)[skinny_mma_tiles][4][4]) {
    const int lane = static_cast<int>(threadIdx.x) % 32;
    const int warp = static_cast<int>(threadIdx.x) / 32;
    const int g = lane / 4;
    const int c = lane % 4;
    const int pl = (warp % skinny_warps_p) * 64 + g * 8;
    if constexpr (skinny_warps_k == 1) {
#pragma unroll
        for (int tt = 0; tt < skinny_mma_tiles; ++tt)
#pragma unroll
            for (int j = 0; j < 4; ++j)
#pragma unroll
                for (int e = 0; e < 4; ++e)
                    skinny_emit(p, t, batch, q0 + 8 * tt + 2 * c + (e & 1), p0 + pl + 2 * j + (e >> 1), acc[tt][j][e]);
    } else {
        __shared__ float red[skinny_warps_k][8][skinny_mma_block_p];
        const int wk = warp / skinny_warps_p;
#pragma unroll
        for (int tt = 0; tt < skinny_mma_tiles; ++tt) {
#pragma unroll
            for (int j = 0; j < 4; ++j)
#pragma unroll
                for (int e = 0; e < 4; ++e) red[wk][2 * c + (e & 1)][pl + 2 * j + (e >> 1)] = acc[tt][j][e];
            __syncthreads();
            for (int i = static_cast<int>(threadIdx.x); i < 8 * skinny_mma_block_p; i += block_threads) {
                float sum = 0.0f;
#pragma unroll
                for (int w = 0; w < skinny_warps_k; ++w) sum += red[w][i / skinny_mma_block_p][i % skinny_mma_block_p];
                skinny_emit(p, t, batch, q0 + 8 * tt + i / skinny_mma_block_p, p0 + i % skinny_mma_block_p, sum);
            }
            __syncthreads();
        }
    }
}
#endif

// Blocks: (Q tiles of skinny_q rows, next to each other) x (skinny_mma_block_p elements of P);
// blockIdx.y the batch, blockIdx.z the K slice (whole block steps). Warp w takes the P elements
// (w % skinny_warps_p) * 64 + [0, 64) and every skinny_warps_k-th step from w / skinny_warps_p on.
template <int Vec>
__device__ __forceinline__ void skinny_mainloop(const gemm_problem& p, const gemm_pointers& t) {
#if defined(ROCMTPL_SKINNY_MMA)
    const int lane = static_cast<int>(threadIdx.x) % 32;
    const int warp = static_cast<int>(threadIdx.x) / 32;
    const int64_t batch = static_cast<int64_t>(blockIdx.y);
    const skinny_view v = skinny_make_view(p, t, batch);
    const int64_t tiles_q = gemm_cdiv(v.q_size, skinny_q);
    const int64_t q0 = (static_cast<int64_t>(blockIdx.x) % tiles_q) * skinny_q;
    const int64_t p0 = (static_cast<int64_t>(blockIdx.x) / tiles_q) * skinny_mma_block_p;
    const int64_t per = gemm_cdiv(gemm_cdiv(v.k_size, skinny_mma_block_step), skinny_split) * skinny_mma_block_step;
    const int64_t k_begin = static_cast<int64_t>(blockIdx.z) * per;
    const int64_t k_end = k_begin + per < v.k_size ? k_begin + per : v.k_size;
    const int64_t pl = p0 + (warp % skinny_warps_p) * 64 + (lane / 4) * 8;
    const int64_t valid_p = v.p_size - pl < 8 ? (v.p_size > pl ? v.p_size - pl : 0) : 8;
    const skinny_l_type::storage* lp = v.l + pl * v.l_sp;
    const skinny_s_type::storage* srow[skinny_mma_tiles];
#pragma unroll
    for (int tt = 0; tt < skinny_mma_tiles; ++tt) {
        // Rows past Q read the last row: their results are dropped.
        const int64_t row = q0 + 8 * tt + lane / 4;
        srow[tt] = v.s + (row < v.q_size ? row : v.q_size - 1) * v.s_sq;
    }
    float acc[skinny_mma_tiles][4][4];
#pragma unroll
    for (int tt = 0; tt < skinny_mma_tiles; ++tt)
#pragma unroll
        for (int j = 0; j < 4; ++j)
#pragma unroll
            for (int e = 0; e < 4; ++e) acc[tt][j][e] = 0.0f;
    const int64_t lane_k = (lane % 4) * skinny_u;
    int64_t k0 = k_begin + (warp / skinny_warps_p) * skinny_mma_warp_step;
    skinny_mma_regs cur;
    if (k0 < k_end) skinny_mma_load<Vec>(cur, v, lp, srow, k0 + lane_k, k_end, valid_p);
    for (; k0 < k_end; k0 += skinny_mma_block_step) {
        skinny_mma_regs next;
        if (k0 + skinny_mma_block_step < k_end) {
            skinny_mma_load<Vec>(next, v, lp, srow, k0 + skinny_mma_block_step + lane_k, k_end, valid_p);
        }
        skinny_mma_step(acc, cur);
        cur = next;
    }
    skinny_mma_finish(p, t, batch, q0, p0, acc);
#elif defined(ROCMTPL_PLATFORM_NVIDIA) && defined(__CUDA_ARCH__)
    (void)p;
    (void)t;
    __trap();  // mma.sync m16n8k16 needs sm_80
#else
    (void)p;
    (void)t;  // AMD: the entry point refuses the launch
#endif
}
)hip";

}  // namespace rocmtpl::templates::detail

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/templates/gemm/skinny/device_code-inl.hpp>
#endif
