// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The SIMT path's main loop (fp32 FMA on register tiles, any operand dtype,
/// double-buffered shared memory), embedded as text; it uses the names templates/gemm/device_code.hpp
/// lists.

#include <string>
#include <string_view>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/templates/gemm/device_code.hpp>

namespace rocmtpl::templates::detail {

// The SIMT main loop in order: head (tile constants, simt_stage up to its shared members), the
// shared members, store() around the slot loop, the main loop up to its block start, the rest.
inline constexpr std::string_view gemm_simt_head =
    R"hip(// ---- SIMT: fp32 FMA. thread_m x thread_n outputs per thread, in 4 x 4 quads spread over the
// block tile so that shared-memory reads are 16-byte vectors; shared memory double-buffered with
// the next K tile staged in registers while the current one is used.
constexpr int threads_m = block_m / thread_m;
constexpr int threads_n = block_n / thread_n;
constexpr int block_threads = threads_m * threads_n;
constexpr int smem_pad = 4;
// Two buffers of each fp32 tile, dynamic so that tiles above 48 KiB can opt in on NVIDIA.
constexpr int gemm_dynamic_shared = 2 * block_k * (block_m + smem_pad + block_n + smem_pad) * 4;

// One operand tile (Rows = block_m or block_n, by block_k) on its way to shared memory as fp32.
// Global reads run along K when K is contiguous (or nothing is), else along M/N. The tile is
// `lines` rows of `per_line` vectors; thread tid copies vectors tid, tid + block_threads, ...
// Vec > 1 (the entry point checked alignment): load() reads the next tile into registers, Vec
// elements at a time, while the current one is used; store() writes them. One pointer advances
// a K tile at a time; slot s sits s * lines_per_slot lines further (no 64-bit multiplies per slot).
// Vec == 1 (any strides): store() reads and writes element by element (a short loop, few registers).
template <class D, int Rows, int Vec, bool KContig, bool MnContig>
struct simt_stage {
    using T = typename D::storage;
    static constexpr bool along_k = KContig || !MnContig;
)hip";

inline constexpr std::string_view gemm_simt_store = R"hip(    // tile: [block_k][Rows + smem_pad]
    __device__ __forceinline__ void store(float (*tile)[Rows + smem_pad], int tid) const {
)hip";

inline constexpr std::string_view gemm_simt_store_rest = R"hip(#pragma unroll
                for (int e = 0; e < Vec; ++e) {
                    if (along_k) {
                        tile[k + e][r] = v[s][e];
                    } else {
                        tile[k][r + e] = v[s][e];
                    }
                }
            }
        } else {
            // Partly unrolled: fully rolled, ptxas spilled (CUDA 13.0, sm_90).
#pragma unroll 4
            for (int id = tid; id < total; id += block_threads) {
                const int line = id / per_line;
                const int e = id % per_line;
                const int64_t r = row0 + (along_k ? line : e);
                const int64_t k = k0 + (along_k ? e : line);
                const float x = (r < rows_total && k < k_total) ? D::to_float(base[r * stride_mn + k * stride_k]) : 0.0f;
                if (along_k) {
                    tile[e][line] = x;
                } else {
                    tile[line][e] = x;
                }
            }
        }
    }
};

// Count values of one shared-memory row for the thread at position t of Threads: its 4-value quads
// sit Threads * 4 apart, each one 16-byte read.
template <int Count, int Threads>
__device__ __forceinline__ void simt_quads(const float* row, int t, float (&out)[Count]) {
#pragma unroll
    for (int q = 0; q < Count / 4; ++q) {
        const float4 v = *reinterpret_cast<const float4*>(row + q * Threads * 4 + t * 4);
        out[q * 4 + 0] = v.x;
        out[q * 4 + 1] = v.y;
        out[q * 4 + 2] = v.z;
        out[q * 4 + 3] = v.w;
    }
}

// One K step's operands of thread (tx, ty) from shared memory.
__device__ __forceinline__ void simt_fragments(const float (*a_tile)[block_m + smem_pad], const float (*b_tile)[block_n + smem_pad],
                                               int kk, int tx, int ty, float (&a)[thread_m], float (&b)[thread_n]) {
    simt_quads<thread_m, threads_m>(a_tile[kk], ty, a);
    simt_quads<thread_n, threads_n>(b_tile[kk], tx, b);
}

// One K step's thread_m x thread_n multiply-adds: the inner loop runs along the longer side, back
// and forth, so that consecutive FMAs share an operand (fp32 4096^3 on the H100: 256x128 tiles of
// 16 x 8, 44.4 -> 47.9 TFLOP/s against rows outside; 128x256 of 8 x 16, 47.0 -> 47.3).
__device__ __forceinline__ void simt_step(float (&acc)[thread_m][thread_n], const float (&a)[thread_m], const float (&b)[thread_n]) {
    if constexpr (thread_m > thread_n) {
#pragma unroll
        for (int j = 0; j < thread_n; ++j) {
#pragma unroll
            for (int s = 0; s < thread_m; ++s) {
                const int i = (j & 1) != 0 ? thread_m - 1 - s : s;
                acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
            }
        }
    } else {
#pragma unroll
        for (int i = 0; i < thread_m; ++i) {
#pragma unroll
            for (int s = 0; s < thread_n; ++s) {
                const int j = (i & 1) != 0 ? thread_n - 1 - s : s;
                acc[i][j] = fmaf(a[i], b[j], acc[i][j]);
            }
        }
    }
}

template <int VecA, int VecB>
__device__ __forceinline__ void gemm_mainloop(const gemm_problem& p, const gemm_pointers& t, int split_k) {
    HIP_DYNAMIC_SHARED(float, gemm_smem);
    float (*const a_tile)[block_k][block_m + smem_pad] = reinterpret_cast<float (*)[block_k][block_m + smem_pad]>(gemm_smem);
    float (*const b_tile)[block_k][block_n + smem_pad] =
        reinterpret_cast<float (*)[block_k][block_n + smem_pad]>(gemm_smem + 2 * block_k * (block_m + smem_pad));
    const int tid = static_cast<int>(threadIdx.x);
    const int tx = tid % threads_n;
    const int ty = tid / threads_n;
)hip";

inline constexpr std::string_view gemm_simt_tail =
    R"hip(    const typename x_type::storage* const x_base = t.X + p.x_offset + batch * p.x_stride_b;
    const typename w_type::storage* const w_base = t.W + p.w_offset + batch * p.w_stride_b;
    typename y_type::storage* const Y = t.Y;
    (void)Y;
    float acc[thread_m][thread_n];
#pragma unroll
    for (int i = 0; i < thread_m; ++i) {
#pragma unroll
        for (int j = 0; j < thread_n; ++j) acc[i][j] = 0.0f;
    }
    simt_stage<x_type, block_m, VecA, x_k_contiguous, x_m_contiguous> a_stage;
    simt_stage<w_type, block_n, VecB, w_k_contiguous, w_n_contiguous> b_stage;
    a_stage.init(x_base, p.x_stride_m, p.x_stride_k, p.m_size, p.k_size, block_row, k_begin, tid);
    b_stage.init(w_base, p.w_stride_n, p.w_stride_k, p.n_size, p.k_size, block_col, k_begin, tid);
    if (k_tiles > 0) {
        a_stage.load(tid);
        b_stage.load(tid);
        a_stage.store(a_tile[0], tid);
        b_stage.store(b_tile[0], tid);
    }
    __syncthreads();
    // Operands of K step kk + 1 are read while step kk computes, across tiles too: the next tile
    // is stored and the block waits before the current tile's last step, whose operands are
    // already in registers (fp32 4096^3, 128x256 tiles, H100: 44.4 -> 47.0 TFLOP/s). Taken where
    // `simt_prefetch` says so (gemm_simt_prefetch(), render.hpp: register room for a second
    // operand set); not on AMD, where clang hoists the reads of a fully unrolled step past 256 VGPRs.
#if defined(ROCMTPL_PLATFORM_AMD)
    constexpr bool prefetch = false;
#else
    constexpr bool prefetch = simt_prefetch;
#endif
    float a[2][thread_m];
    float b[2][thread_n];
    if (prefetch && k_tiles > 0) simt_fragments(a_tile[0], b_tile[0], 0, tx, ty, a[0], b[0]);
    for (int kt = 0; kt < k_tiles; ++kt) {
        const int cur = kt & 1;
        const bool more = kt + 1 < k_tiles;
        if (more) {
            a_stage.advance();
            b_stage.advance();
            a_stage.load(tid);
            b_stage.load(tid);
        }
        if constexpr (prefetch) {
#pragma unroll
            for (int kk = 0; kk < block_k; ++kk) {
                if (kk == block_k - 1) {
                    if (more) {
                        a_stage.store(a_tile[cur ^ 1], tid);
                        b_stage.store(b_tile[cur ^ 1], tid);
                    }
                    __syncthreads();
                    if (more) simt_fragments(a_tile[cur ^ 1], b_tile[cur ^ 1], 0, tx, ty, a[(kk + 1) & 1], b[(kk + 1) & 1]);
                } else {
                    simt_fragments(a_tile[cur], b_tile[cur], kk + 1, tx, ty, a[(kk + 1) & 1], b[(kk + 1) & 1]);
                }
                simt_step(acc, a[kk & 1], b[kk & 1]);
            }
        } else {
#if defined(ROCMTPL_PLATFORM_AMD)
#pragma unroll 2
#else
#pragma unroll
#endif
            for (int kk = 0; kk < block_k; ++kk) {
                simt_fragments(a_tile[cur], b_tile[cur], kk, tx, ty, a[0], b[0]);
                simt_step(acc, a[0], b[0]);
            }
            if (more) {
                a_stage.store(a_tile[cur ^ 1], tid);
                b_stage.store(b_tile[cur ^ 1], tid);
            }
            __syncthreads();
        }
    }
#pragma unroll
    for (int i = 0; i < thread_m; ++i) {
        const int64_t gm = block_row + (i / 4) * threads_m * 4 + ty * 4 + (i % 4);
#pragma unroll
        for (int j = 0; j < thread_n; ++j) {
            const int64_t gn = block_col + (j / 4) * threads_n * 4 + tx * 4 + (j % 4);
            gemm_emit(p, t, split_k, batch, gm, gn, acc[i][j]);
        }
    }
}
)hip";

/// SIMT main loop: fp32 FMA on register tiles, any operand dtype, double-buffered shared memory.
const std::string& gemm_simt_text();

}  // namespace rocmtpl::templates::detail

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/templates/gemm/simt/device_code-inl.hpp>
#endif
