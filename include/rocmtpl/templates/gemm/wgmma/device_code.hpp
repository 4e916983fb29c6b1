// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Device and host code of the GEMM's Hopper path (templates/gemm/wgmma/), embedded as text.
///
/// The main loop of benchmark/hopper/hopper_gemm.cuh (measured there at 0.99x cuBLAS, fp16
/// 4096^3), cooperative and without clusters: a producer warpgroup (one thread) brings X and W
/// tiles into a ring of `stages` shared-memory stages with the bulk tensor copy engine (TMA,
/// 128-byte swizzle), completing on "full" mbarriers; two consumer warpgroups run
/// `wgmma.mma_async` m64nNk16 (A = X tile, K-major; B = W tile, N-major) with fp32 accumulators
/// and hand each stage back on its "empty" mbarrier. Persistent grid, group-M tile order. The two
/// consumer warpgroups share each tile (cooperative: `tile_consumers` 2) or take the block's tiles
/// in turn (ping-pong: `tile_consumers` 1): then one warpgroup's epilogue runs while the other's
/// wgmma use the tensor cores, and a pair of named barriers keeps the turns in ring order (a
/// warpgroup starts its tile's k-blocks only after the other has taken its last one). Runtime
/// split-K (gemm_options::runtime_split_k, split_k above 1): the grid walks (K slice, tile) units
/// and writes fp32 partials to the workspace; the GEMM's split-K reduction kernel (render.hpp)
/// sums them and applies the epilogue. The
/// epilogue (alpha, Bias along M or N prefetched when a tile starts, the activation, the cast to
/// Y's 16-bit type, then Residual) goes through a padded per-warp staging tile so that every store
/// to Y is 16 bytes wide. A fused epilogue chain (`ROCMTPL_GEMM_SM90_HAS_EPILOGUE`) is applied to
/// each staged row of 8 values after Residual, through the chain's vector form (codegen/epilogue.hpp:
/// the same statements as the scalar `rocmtpl_epilogue()` of every other path); its [M, N] operands
/// are brought into L2 when a tile starts and into registers a chunk ahead, and the chunk loop stays
/// rolled so that the chain's code fits the instruction cache (issue 12: the unrolled scalar chain
/// was 300 KB of code). With split_k above 1 the consumers store partials only: the reduction
/// applies the chain, once.
///
/// Everything is inside `#if defined(ROCMTPL_PLATFORM_NVIDIA)`; the device code only where
/// `__CUDA_ARCH_FEAT_SM90_ALL` is defined (built with `-gencode=arch=compute_90a,code=sm_90a`):
/// another NVIDIA target gets a kernel that traps (the host entry refuses such devices before
/// launching), and an AMD build gets an entry that returns ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT. The
/// kernel and its launch come from the launch description (templates/gemm/render.hpp).
/// The text uses the names of the GEMM prelude (templates/gemm/render.hpp): `block_m`, `block_n`,
/// `block_k`, `warp_m`, `warp_n`, `stages`, `group_m`, `gemm_dynamic_shared`, `x_kind`, `y_kind`,
/// `gemm_sm90_bias_mode`, `gemm_sm90_alpha`, `gemm_sm90_beta`, `gemm_problem`, `gemm_pointers`,
/// `apply_activation()` and the operand types.

#include <string>
#include <string_view>

#include <rocmtpl/core/config.hpp>

namespace rocmtpl::templates::detail {

/// The `gemm_sm90_wgmma()` wrapper of one wgmma shape: D[64 x n] (+)= A[64 x 16] B[16 x n], A
/// K-major and B N-major (imm-trans-b 1), both 128-byte swizzled, fp32 accumulators.
/// @param n the wgmma N (64, 128, 160, 192 or 256)
/// @param bf16 bf16 operands (else f16)
[[nodiscard]] std::string sm90_wgmma_text(int n, bool bf16);

/// The Hopper path's includes, written before the source's anonymous namespace.
inline constexpr std::string_view sm90_includes_text = R"sm90(#if defined(ROCMTPL_PLATFORM_NVIDIA)
#include <cuda.h>
#include <atomic>
#endif
)sm90";

/// Start of the Hopper block: the platform guards and the PTX wrappers (mbarriers, TMA loads,
/// setmaxnreg, wgmma fences and shared-memory descriptors).
inline constexpr std::string_view sm90_head_text = R"sm90(// ---- Hopper path (sm_90a): TMA + wgmma warpgroups ----
#if defined(ROCMTPL_PLATFORM_NVIDIA)
#if defined(__CUDA_ARCH__) && defined(__CUDA_ARCH_FEAT_SM90_ALL)
#define ROCMTPL_GEMM_SM90_DEVICE 1
#endif
namespace gemm_sm90 {
[[maybe_unused]] constexpr int consumers = 2;
[[maybe_unused]] constexpr int threads = 128 * (consumers + 1);
[[maybe_unused]] constexpr int mi = warp_m / 64;  // m64 blocks per consumer warpgroup
[[maybe_unused]] constexpr int a_bytes = block_m * block_k * 2;
[[maybe_unused]] constexpr int b_chunk_bytes = 64 * block_k * 2;  // one 64-column slab of W: 8 KB
// W's 64-column slabs of a stage: a tile of 160 columns loads three (the wgmma reads 2.5 of them;
// the third slab's last 32 columns belong to the next tile and are not used).
[[maybe_unused]] constexpr int b_chunks = (block_n + 63) / 64;
[[maybe_unused]] constexpr int stage_bytes = a_bytes + b_chunks * b_chunk_bytes;
// The epilogue's 64-column chunks of a tile; the last one of a 160-column tile holds 32 columns.
[[maybe_unused]] constexpr int epi_chunks = (block_n + 63) / 64;
[[maybe_unused]] constexpr int epi_row = 72;  // staged row: 64 values + 8 of padding (144 B: no bank conflicts)
[[maybe_unused]] constexpr int epi_bytes = consumers * 4 * 16 * epi_row * 2;
[[maybe_unused]] constexpr int smem_bytes = 1024 + stages * stage_bytes + epi_bytes + 2 * stages * 8 + 16;
static_assert(block_k == 64 && warp_n == block_n && block_m == tile_consumers * warp_m && mi >= 1 && block_n % 32 == 0,
              "wgmma tiling");
static_assert(tile_consumers == 1 || tile_consumers == consumers, "cooperative or ping-pong");
static_assert(smem_bytes == gemm_dynamic_shared && smem_bytes <= 232448, "wgmma shared memory");
}  // namespace gemm_sm90
// Stream-K's first launch: the tile counters at the workspace's start back to zero (one block).
__device__ __forceinline__ void gemm_sm90_zero_counters(const gemm_problem& p, const gemm_pointers& t) {
    const int64_t tiles = (p.batch * p.m_size + block_m - 1) / block_m * ((p.n_size + block_n - 1) / block_n);
    unsigned* counters = reinterpret_cast<unsigned*>(t.Partial);
    for (int64_t i = threadIdx.x; i < tiles; i += blockDim.x) counters[i] = 0u;
}
#if defined(ROCMTPL_GEMM_SM90_DEVICE)
namespace gemm_sm90 {
__device__ __forceinline__ uint32_t smem_addr(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count) {
    asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_expect_tx(uint32_t bar, uint32_t bytes) {
    asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint32_t bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}
// Waits for a phase; a lost arrival traps after 4 s instead of hanging.
__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
    uint32_t done = 0;
    uint32_t spins = 0;
    uint64_t start = 0;
    do {
        asm volatile("{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\nselp.u32 %0, 1, 0, p;\n}\n"
                     : "=r"(done)
                     : "r"(bar), "r"(parity)
                     : "memory");
        if (!done && (++spins & 0x3FFu) == 0) {
            uint64_t now;
            asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
            if (start == 0) {
                start = now;
            } else if (now - start > 4000000000ull) {
                __trap();
            }
        }
    } while (!done);
}
__device__ __forceinline__ void tma_load_2d(uint32_t dst, const CUtensorMap* map, uint32_t bar, int c0, int c1) {
    asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%3, %4}], [%2];"
                 ::"r"(dst), "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "r"(c0), "r"(c1)
                 : "memory");
}
template <uint32_t Regs>
__device__ __forceinline__ void regs_dec() { asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(Regs)); }
template <uint32_t Regs>
__device__ __forceinline__ void regs_inc() { asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(Regs)); }
__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wgmma_wait() { asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory"); }
// Shared-memory matrix descriptor, 128-byte swizzle (layout type 1 in bits 62-63).
__device__ __forceinline__ uint64_t make_desc(uint32_t addr, uint32_t lbo, uint32_t sbo) {
    return static_cast<uint64_t>((addr & 0x3FFFF) >> 4) | (static_cast<uint64_t>(lbo >> 4) << 16) |
           (static_cast<uint64_t>(sbo >> 4) << 32) | (1ull << 62);
}
)sm90";

/// The tile schedule, the epilogue and the kernel body (device code, sm_90a only).
inline constexpr std::string_view sm90_body_text =
    R"sm90(// Tile t of the static schedule -> (m block, n block), group-M rasterized.
__device__ __forceinline__ void tile_coords(int t, int tiles_m, int tiles_n, int& tm, int& tn) {
    const int per_group = group_m * tiles_n;
    const int first_m = (t / per_group) * group_m;
    const int rows = min(tiles_m - first_m, group_m);
    const int r = t % per_group;
    tm = first_m + r % rows;
    tn = r / rows;
}
__device__ __forceinline__ uint32_t pack2(float a, float b) {
    if constexpr (y_kind == 2) {
        __nv_bfloat162 h = __floats2bfloat162_rn(a, b);
        return *reinterpret_cast<uint32_t*>(&h);
    } else {
        __half2 h = __floats2half2_rn(a, b);
        return *reinterpret_cast<uint32_t*>(&h);
    }
}
// Bias values of one consumer thread for a tile, loaded when the tile starts (their latency hides
// behind the main loop): columns n0 + 8j + 2(lane%4) (+1) along N, or rows lane/4 (+8) of each m64 block along M.
struct tile_bias {
    uint32_t n2[gemm_sm90_bias_mode == 1 ? block_n / 8 : 1];
    float m[gemm_sm90_bias_mode == 2 ? mi : 1][2];
    __device__ __forceinline__ void load(const gemm_problem& p, const gemm_pointers& t, int M, int N, int row0, int n0, int lane) {
        (void)p, (void)t, (void)M, (void)N, (void)row0, (void)n0, (void)lane;
#if ROCMTPL_GEMM_SM90_HAS_BIAS
        if constexpr (gemm_sm90_bias_mode == 1) {
#pragma unroll
            for (int j = 0; j < block_n / 8; ++j) {
                const int64_t c = n0 + 8 * j + (lane % 4) * 2;
                const auto* b = t.Bias + p.bias_offset + c * p.bias_stride_n;
                const uint32_t lo = c < N ? static_cast<uint32_t>(__ldg(b)) : 0u;
                const uint32_t hi = c + 1 < N ? static_cast<uint32_t>(__ldg(b + p.bias_stride_n)) : 0u;
                n2[j] = lo | (hi << 16);
            }
        }
        if constexpr (gemm_sm90_bias_mode == 2) {
#pragma unroll
            for (int i = 0; i < mi; ++i) {
#pragma unroll
                for (int h = 0; h < 2; ++h) {
                    const int64_t r = row0 + i * 64 + lane / 4 + 8 * h;
                    m[i][h] = r < M ? bias_type::to_float(__ldg(t.Bias + p.bias_offset + r * p.bias_stride_m)) : 0.f;
                }
            }
        }
#endif
    }
};
// Accumulator group j (4 values: rows lane / 4 and + 8, columns 8j + 2 (lane % 4) and + 1) of one
// consumer warp's m64 block i after alpha, bias, the activation and the cast to Y's type: two words.
__device__ __forceinline__ uint2 packed_group(const float (&d)[block_n / 2], const tile_bias& tb, int i, int j) {
    (void)tb, (void)i;
    float v0 = gemm_sm90_alpha * d[4 * j + 0], v1 = gemm_sm90_alpha * d[4 * j + 1];
    float v2 = gemm_sm90_alpha * d[4 * j + 2], v3 = gemm_sm90_alpha * d[4 * j + 3];
#if ROCMTPL_GEMM_SM90_HAS_BIAS
    if constexpr (gemm_sm90_bias_mode == 2) {
        v0 += gemm_sm90_beta * tb.m[i][0], v1 += gemm_sm90_beta * tb.m[i][0];
        v2 += gemm_sm90_beta * tb.m[i][1], v3 += gemm_sm90_beta * tb.m[i][1];
    } else if constexpr (gemm_sm90_bias_mode == 1) {
        const float b0 = gemm_sm90_beta * bias_type::to_float(static_cast<uint16_t>(tb.n2[j] & 0xFFFFu));
        const float b1 = gemm_sm90_beta * bias_type::to_float(static_cast<uint16_t>(tb.n2[j] >> 16));
        v0 += b0, v1 += b1, v2 += b0, v3 += b1;
    }
#endif
    v0 = apply_activation(v0), v1 = apply_activation(v1);
    v2 = apply_activation(v2), v3 = apply_activation(v3);
    return make_uint2(pack2(v0, v1), pack2(v2, v3));
}
// One consumer warp's m64 block i, packed: 2 values of Y's type a word, in accumulator order.
using packed_m64 = uint32_t[block_n / 4];
// The 8-column groups of epilogue chunk C: 8, or 4 in the last chunk of a 160-column tile.
template <int C>
inline constexpr int chunk_groups = block_n - C * 64 < 64 ? (block_n - C * 64) / 8 : 8;
// Chunk C (64 columns) of one consumer warp's 16 rows x block_n accumulators (m64 block i): alpha,
// bias, activation and the cast in registers, into the warp's 16 x 64 staging tile. With a fused
// chain the accumulators were packed before (packed_group()): the chain then runs with half the
// tile's registers free instead of none (register-starved, its values did not overlap).
template <int C>
__device__ __forceinline__ void stage_chunk(const float (&d)[block_n / 2], const tile_bias& tb, int i, uint16_t* stage,
                                            int lane) {
    const int qr = lane / 4;
    const int qc = (lane % 4) * 2;
#pragma unroll
    for (int jj = 0; jj < chunk_groups<C>; ++jj) {
        const uint2 h = packed_group(d, tb, i, C * 8 + jj);
        *reinterpret_cast<uint32_t*>(stage + qr * epi_row + jj * 8 + qc) = h.x;
        *reinterpret_cast<uint32_t*>(stage + (qr + 8) * epi_row + jj * 8 + qc) = h.y;
    }
}
template <int C>
__device__ __forceinline__ void stage_chunk(const packed_m64& h, const tile_bias&, int, uint16_t* stage, int lane) {
    const int qr = lane / 4;
    const int qc = (lane % 4) * 2;
#pragma unroll
    for (int jj = 0; jj < chunk_groups<C>; ++jj) {
        *reinterpret_cast<uint32_t*>(stage + qr * epi_row + jj * 8 + qc) = h[2 * (C * 8 + jj)];
        *reinterpret_cast<uint32_t*>(stage + (qr + 8) * epi_row + jj * 8 + qc) = h[2 * (C * 8 + jj) + 1];
    }
}
// Chunk c of a rolled chunk loop: one branch per chunk keeps the accumulators' indices constants
// (registers) while the chain code after it exists once.
template <int C = 0, class Tile>
__device__ __forceinline__ void stage_chunk_at(int c, const Tile& d, const tile_bias& tb, int i, uint16_t* stage,
                                               int lane) {
    if constexpr (C < epi_chunks) {
        if (c == C) {
            stage_chunk<C>(d, tb, i, stage, lane);
        } else {
            stage_chunk_at<C + 1>(c, d, tb, i, stage, lane);
        }
    }
}
#if ROCMTPL_GEMM_SM90_HAS_EPILOGUE
// The fused chain's rows of one consumer lane in an m64 block: staged rows it * 4 + lane / 8
// (it = 0..3) of the warp's 16 from row0, a folded batch split back out of the row (a row outside
// M reads row 0: its results are never stored). Their starts are computed once per block.
struct chain_rows {
    rocmtpl_epilogue_row r[4];
    __device__ __forceinline__ chain_rows(const gemm_problem& p, const gemm_pointers& t, int M, int row0, int lane) {
        const int rows = static_cast<int>(p.m_size);
#pragma unroll
        for (int it = 0; it < 4; ++it) {
            int g = row0 + it * 4 + lane / 8;
            g = g < M ? g : 0;
            const int b = p.batch == 1 ? 0 : g / rows;
            r[it] = rocmtpl_epilogue_row_at(t.epi, b, g - b * rows);
        }
    }
};
// The chain's [M, N] operands of one lane's 8 columns at gcol for its 4 rows (16 bytes a row);
// zeros for a row outside M or columns outside N and the tile (`cols_in` false; the chain runs on
// every row: epilogue_m64()).
struct chain_segs {
    rocmtpl_epilogue_seg s[4];
    __device__ __forceinline__ void load(const gemm_pointers& t, const chain_rows& cr, int M, int row0, int gcol,
                                         bool cols_in, int lane) {
#pragma unroll
        for (int it = 0; it < 4; ++it) {
            s[it] = rocmtpl_epilogue_seg{};
            if (cols_in && row0 + it * 4 + lane / 8 < M) s[it] = rocmtpl_epilogue_seg_at(t.epi, cr.r[it], gcol);
        }
    }
};
// Brings the chain's full operands of a tile into L2 when the tile starts (its main loop hides
// the latency): per lane, its 4 rows of each m64 block, one line a 64-column chunk.
__device__ __forceinline__ void prefetch_chain(const gemm_problem& p, const gemm_pointers& t, int M, int N, int row0,
                                               int n0, int lane) {
#pragma unroll
    for (int i = 0; i < mi; ++i) {
        const chain_rows cr(p, t, M, row0 + i * 64, lane);
#pragma unroll
        for (int it = 0; it < 4; ++it) {
            if (row0 + i * 64 + it * 4 + lane / 8 >= M) continue;
#pragma unroll
            for (int c = 0; c < epi_chunks; ++c) {
                const int col = n0 + c * 64 + (lane % 8) * 8;
                if (col < N && c * 64 + (lane % 8) * 8 < block_n) rocmtpl_epilogue_prefetch(t.epi, cr.r[it], col);
            }
        }
    }
}
#endif
// One 16-byte store to Y (p is 16-byte aligned: N is a multiple of 8). A uint4 store through a
// pointer came out as four 4-byte stores in the ping-pong kernel (four times the L2 sectors). With
// Residual the plain store stays: these kernels are at the 168-register limit, and ptxas spilled
// 4-16 bytes with the inline store there (a column-major Residual) and 4-8 bytes without it in the
// gelu epilogues without Residual (ping-pong tiles); checked with ptxas on every tiling of the gpu
// label's Hopper epilogues.
__device__ __forceinline__ void st_global16(void* p, const uint4& v) {
#if ROCMTPL_GEMM_SM90_HAS_RESIDUAL
    *reinterpret_cast<uint4*>(p) = v;
#else
    asm volatile("st.global.v4.b32 [%0], {%1, %2, %3, %4};" ::"l"(p), "r"(v.x), "r"(v.y), "r"(v.z), "r"(v.w) : "memory");
#endif
}
#if ROCMTPL_GEMM_SM90_HAS_RESIDUAL
// Value e of 8 Residual values as load8() gives them: 8 words of fp32, or 4 words of 16-bit pairs
// (low half first). A template, so that only the branch of Residual's width is compiled.
template <int Words>
__device__ __forceinline__ float residual_value(const uint32_t (&w)[Words], int e) {
    if constexpr (Words == 8) {
        return __uint_as_float(w[e]);
    } else {
        return residual_type::to_float(static_cast<uint16_t>(w[e / 2] >> (16 * (e % 2))));
    }
}
// Residual's 8 values at r, r + stride, ... as floats (rocmtpl_dev::load8(): 16-byte loads when
// they are contiguous and 16-byte aligned, else a rolled loop of one load a value).
__device__ __forceinline__ void residual8(const residual_type::storage* r, int64_t stride, float (&rv)[8]) {
    uint32_t w[sizeof(residual_type::storage) * 2];
    rocmtpl_dev::load8(r, stride, w);
#pragma unroll
    for (int e = 0; e < 8; ++e) rv[e] = residual_value(w, e);
}
#endif
// 2 values of Y's 16-bit type (a word, low half first) as floats.
__device__ __forceinline__ float2 unpack2(uint32_t w) {
    if constexpr (y_kind == 2) {
        __nv_bfloat162 h;
        __builtin_memcpy(&h, &w, sizeof h);
        return __bfloat1622float2(h);
    } else {
        __half2 h;
        __builtin_memcpy(&h, &w, sizeof h);
        return __half22float2(h);
    }
}
// One consumer warp's 16 rows x block_n columns (m64 block i), a 64-column chunk at a time: staged
// (stage_chunk()), then each lane takes 8 consecutive columns of 4 rows so that every store to Y is
// 16 bytes wide. Residual and the fused chain apply there. With a chain the chunk loop stays rolled
// (the chain's code exists once: instruction-cache footprint) and its loads for a chunk are issued
// before the chunk is staged.
template <class Tile>
__device__ __forceinline__ void epilogue_m64(const Tile& d, const tile_bias& tb, int i, uint16_t* stage,
                                             const gemm_problem& p, const gemm_pointers& t, int M, int N, int row0,
                                             int col0, int lane) {
    (void)p;
    const int sr = lane / 8;        // staged row of pass it: it * 4 + sr
    const int sc = (lane % 8) * 8;  // staged column
#if ROCMTPL_GEMM_SM90_HAS_EPILOGUE
    const chain_rows cr(p, t, M, row0, lane);
    chain_segs cur;  // the [M, N] operands of the chunk in hand
    cur.load(t, cr, M, row0, col0 + sc, col0 + sc < N, lane);  // sc < 64 <= block_n
#pragma unroll 1
#else
#pragma unroll
#endif
    for (int c = 0; c < epi_chunks; ++c) {
        const int gcol = col0 + c * 64 + sc;
        // The lane's columns inside the tile and inside N (a 160-column tile's last chunk has 32).
        const bool cols_in = gcol < N && c * 64 + sc < block_n;
#if ROCMTPL_GEMM_SM90_HAS_EPILOGUE
        // The [N] operands of this lane's 8 columns, once for its 4 rows (issued before staging so
        // that their latency overlaps it).
        rocmtpl_epilogue_cols ec{};
        if (cols_in) ec = rocmtpl_epilogue_cols_at(t.epi, gcol);
#endif
        stage_chunk_at(c, d, tb, i, stage, lane);
        __syncwarp();
#if ROCMTPL_GEMM_SM90_HAS_EPILOGUE
        // The next chunk's [M, N] operands, in flight while this chunk's chain runs.
        chain_segs next;
        if (c + 1 < epi_chunks) next.load(t, cr, M, row0, gcol + 64, gcol + 64 < N && (c + 1) * 64 + sc < block_n, lane);
#endif
        // Passes: every row's values (and the Residual they read) first, then the chain, then the
        // stores; loads of later rows are not held behind stores to Y that might alias them, so a
        // warp has all its global loads in flight at once.
        uint4 out[4];
#pragma unroll
        for (int it = 0; it < 4; ++it) {
            const int r = it * 4 + sr;
            uint4 v = *reinterpret_cast<const uint4*>(stage + r * epi_row + sc);
#if ROCMTPL_GEMM_SM90_HAS_RESIDUAL
            const int64_t grow = row0 + r;
            if (grow < M && cols_in) {
                // Residual after the activation (Y's type rounds once before, once after the add).
                const uint16_t* a = reinterpret_cast<const uint16_t*>(&v);
                uint32_t* o = reinterpret_cast<uint32_t*>(&v);
                float rv[8];
                residual8(t.Residual + p.residual_offset + grow * p.residual_stride_m + gcol * p.residual_stride_n,
                          p.residual_stride_n, rv);
#pragma unroll
                for (int e = 0; e < 4; ++e) {
                    o[e] = pack2(y_type::to_float(a[2 * e]) + rv[2 * e], y_type::to_float(a[2 * e + 1]) + rv[2 * e + 1]);
                }
            }
#endif
            out[it] = v;
        }
#if ROCMTPL_GEMM_SM90_HAS_EPILOGUE
        // The fused epilogue chain (codegen/epilogue.hpp, vector form) on the 8 values of Y's type
        // of each row (N is a multiple of 8 here). It runs on all 4 rows, inside M and N or not (a
        // row outside reads zeros and is not stored): a guard per row made each row's chain a block
        // of its own, and with one warp a scheduler the dependent steps of a row's 8 values then
        // stalled on each other (ncu: 35% fixed-latency waits in the epilogue, 2026-11-29); the 4
        // rows' 32 values interleave.
#pragma unroll
        for (int it = 0; it < 4; ++it) {
            uint32_t* w = reinterpret_cast<uint32_t*>(&out[it]);
            float ev[8];
#pragma unroll
            for (int e = 0; e < 4; ++e) {
                const float2 f = unpack2(w[e]);
                ev[2 * e] = f.x, ev[2 * e + 1] = f.y;
            }
            rocmtpl_epilogue8(cr.r[it], ec, cur.s[it], ev);
#pragma unroll
            for (int e = 0; e < 4; ++e) w[e] = pack2(ev[2 * e], ev[2 * e + 1]);
        }
#endif
#pragma unroll
        for (int it = 0; it < 4; ++it) {
            const int64_t grow = row0 + it * 4 + sr;
            if (grow < M && cols_in) st_global16(t.Y + p.y_offset + grow * p.y_stride_m + gcol, out[it]);
        }
#if ROCMTPL_GEMM_SM90_HAS_EPILOGUE
        cur = next;
#endif
        __syncwarp();
    }
}
// Split-K: one consumer warp's 16 rows x block_n columns (m64 block i) as fp32 partials into its
// slice of the workspace (row-major M x N; the reduction kernel applies the epilogue). Each store
// is 8 bytes; the 4 lanes of a row write 32 contiguous bytes. N is a multiple of 8 and the column
// even, so a column inside N has its neighbour inside too.
__device__ __forceinline__ void store_partial_m64(const float (&d)[block_n / 2], float* slice, int M, int N, int row0,
                                                  int col0, int lane) {
    const int64_t r0 = row0 + lane / 4;
    const int64_t r1 = r0 + 8;
#pragma unroll
    for (int j = 0; j < block_n / 8; ++j) {
        const int64_t col = col0 + 8 * j + (lane % 4) * 2;
        if (col < N) {
            if (r0 < M) *reinterpret_cast<float2*>(slice + r0 * N + col) = make_float2(d[4 * j + 0], d[4 * j + 1]);
            if (r1 < M) *reinterpret_cast<float2*>(slice + r1 * N + col) = make_float2(d[4 * j + 2], d[4 * j + 3]);
        }
    }
}
// Ping-pong turns: consumer warpgroup c waits on named barrier 1 + c until the other one passes it
// (bar.arrive: no wait) after taking the last k-block of the unit before.
__device__ __forceinline__ void turn_wait(int c) {
    asm volatile("bar.sync %0, 256;" ::"r"(1 + c) : "memory");
}
__device__ __forceinline__ void turn_pass(int c) {
    asm volatile("bar.arrive %0, 256;" ::"r"(2 - c) : "memory");
}
// Work unit u = z * tiles + tile: K slice z (k-blocks [kb_begin, kb_end), balanced, so no slice is
// empty while split_k <= kblocks) of output tile `tile`. Without split-K one slice holds all of K.
// A stream-K segment is a unit too: k-blocks [kb_begin, kb_end) of `tile`, z = 0.
struct work_unit {
    int tile, tm, tn, z, kb_begin, kb_end;
};
// The units of one block, in order. Data-parallel and split-K: u = blockIdx.x, blockIdx.x +
// gridDim.x, ... below tiles x split_k. Stream-K (gemm_sm90_stream_k, K not empty): the block's
// equal share [pos, end) of the tiles x kblocks (tile, k-block) iterations, cut at tile boundaries.
struct work_walk {
    int64_t pos, end;
    int tiles, tiles_m, tiles_n, kblocks, split_k;
    bool stream;
    __device__ __forceinline__ work_walk(int tiles_, int tiles_m_, int tiles_n_, int kblocks_, int split_k_)
        : tiles(tiles_), tiles_m(tiles_m_), tiles_n(tiles_n_), kblocks(kblocks_), split_k(split_k_),
          stream(gemm_sm90_stream_k > 0 && kblocks_ > 0) {
        const int64_t total = static_cast<int64_t>(tiles) * (stream ? kblocks : split_k);
        pos = stream ? blockIdx.x * total / gridDim.x : blockIdx.x;
        end = stream ? (blockIdx.x + 1) * total / gridDim.x : total;
    }
    __device__ __forceinline__ bool more() const { return pos < end; }
    __device__ __forceinline__ bool next(work_unit& w) {
        if (pos >= end) return false;
        if (stream) {
            w.tile = static_cast<int>(pos / kblocks);
            w.z = 0;
            w.kb_begin = static_cast<int>(pos - static_cast<int64_t>(w.tile) * kblocks);
            w.kb_end = static_cast<int>(min(static_cast<int64_t>(kblocks), w.kb_begin + (end - pos)));
            pos += w.kb_end - w.kb_begin;
        } else {
            w.z = static_cast<int>(pos / tiles);
            w.tile = static_cast<int>(pos - static_cast<int64_t>(w.z) * tiles);
            w.kb_begin = static_cast<int>(static_cast<int64_t>(w.z) * kblocks / split_k);
            w.kb_end = static_cast<int>(static_cast<int64_t>(w.z + 1) * kblocks / split_k);
            pos += gridDim.x;
        }
        tile_coords(w.tile, tiles_m, tiles_n, w.tm, w.tn);
        return true;
    }
};
// The threads computing one tile: the 256 consumer threads' named barrier 3 (cooperative), or
// consumer warpgroup c's 128 on barrier 4 + c (ping-pong).
__device__ __forceinline__ void tile_sync(int c) {
    if constexpr (tile_consumers == 1) {
        asm volatile("bar.sync %0, 128;" ::"r"(4 + c) : "memory");
    } else {
        (void)c;
        asm volatile("bar.sync 3, 256;" ::: "memory");
    }
}
// Stream-K: this block holds k-blocks [kb_begin, kb_end) of tile w.tile in `acc` (thread ct of the
// tile_consumers x 128 computing it; consumer warpgroup c), short of the whole tile. The tile's
// owner is the block whose share holds its first k-block; every other block's part of a tile is
// the first segment of its share, so it never waits before storing it. Another block stores its
// part in fp32 to slot tile + blockIdx.x of the workspace (after the tile counters; distinct for
// every (tile, block) pair that can share a tile), adds its k-blocks to the tile's counter and
// returns false. The owner waits for the others' k-blocks (in practice they finished long before:
// their part came first in their shares; all blocks are resident, one per SM; a lost one traps
// after over 4 s instead of hanging), adds their slots and returns true: it runs the epilogue.
__device__ __forceinline__ bool stream_k_fixup(float (&acc)[mi][block_n / 2], const gemm_pointers& t, int tiles,
                                               int kblocks, const work_unit& w, int ct, int c) {
    constexpr int groups = block_n / 8;  // float4s of one m64 block's accumulators
    constexpr int threads = tile_consumers * 128;
    constexpr int64_t slot_floats = static_cast<int64_t>(block_m) * block_n;
    unsigned* counters = reinterpret_cast<unsigned*>(t.Partial);
    float* slots = t.Partial + (tiles + 63) / 64 * 64;  // the counters take whole 256-byte lines
    if (w.kb_begin != 0) {
        float4* mine = reinterpret_cast<float4*>(slots + (w.tile + static_cast<int64_t>(blockIdx.x)) * slot_floats) + ct;
#pragma unroll
        for (int i = 0; i < mi; ++i) {
#pragma unroll
            for (int g = 0; g < groups; ++g) {
                mine[(i * groups + g) * threads] = make_float4(acc[i][4 * g], acc[i][4 * g + 1], acc[i][4 * g + 2], acc[i][4 * g + 3]);
            }
        }
        __threadfence();
        tile_sync(c);
        if (ct == 0) atomicAdd(&counters[w.tile], static_cast<unsigned>(w.kb_end - w.kb_begin));
        return false;
    }
    if (ct == 0) {
        const unsigned others = static_cast<unsigned>(kblocks - w.kb_end);
        for (uint32_t spins = 0;; ++spins) {
            unsigned done;
            asm volatile("ld.acquire.gpu.global.u32 %0, [%1];" : "=r"(done) : "l"(&counters[w.tile]) : "memory");
            if (done >= others) break;
            if (spins == (1u << 25)) __trap();  // 2^25 sleeps of at least 128 ns: over 4 s
            __nanosleep(128);
        }
    }
    tile_sync(c);
    // The other blocks whose shares meet the tile: owner(i) = the last block whose share starts at
    // or before i; the tile's first k-block is this block's.
    const int64_t total = static_cast<int64_t>(tiles) * kblocks;
    const int64_t g_blocks = gridDim.x;
    const int64_t first = static_cast<int64_t>(w.tile) * kblocks, last_it = first + kblocks - 1;
    const int b1 = static_cast<int>(((last_it + 1) * g_blocks - 1) / total);
    int64_t e = (blockIdx.x + 1) * total / g_blocks;  // where block b's share starts (b = blockIdx.x + 1)
    for (int b = static_cast<int>(blockIdx.x) + 1; b <= b1; ++b) {
        const int64_t s = e;
        e = (b + 1) * total / g_blocks;
        if (s == e) continue;  // an empty share (more blocks than k-blocks)
        const float4* other = reinterpret_cast<const float4*>(slots + (w.tile + static_cast<int64_t>(b)) * slot_floats) + ct;
        // Eight loads in flight at a time: all of them at once would need 4 registers per
        // accumulator on top of the accumulators (128 x 256: spills).
#pragma unroll
        for (int i = 0; i < mi; ++i) {
#pragma unroll
            for (int g = 0; g < groups; ++g) {
                const float4 v = __ldcg(other + (i * groups + g) * threads);
                acc[i][4 * g] += v.x, acc[i][4 * g + 1] += v.y, acc[i][4 * g + 2] += v.z, acc[i][4 * g + 3] += v.w;
                if (g % 8 == 7) asm volatile("" ::: "memory");
            }
        }
    }
    return true;
}
// The persistent kernel body: warpgroup 0 produces, warpgroups 1 and 2 consume, sharing each unit
// (cooperative) or taking the block's units in turn (ping-pong, tile_consumers == 1).
// Work units are dealt out statically (u = blockIdx.x, blockIdx.x + gridDim.x, ...); producer and
// consumers walk the same units in the same order, so the ring's stage and phase follow from the
// number of k-blocks taken before (work_walk: data-parallel, split-K or stream-K units). With
// stream-K a tile split between blocks is finished by its owner (stream_k_fixup()). With split_k above 1 the consumers write fp32 partials
// (Partial + z * M * N) instead of running the epilogue. A batch folds into M: row b * M + m
// (the launch's requirements hold W shared and X, Y, Residual with back-to-back batches).
__device__ __forceinline__ void mainloop(const CUtensorMap* map_x, const CUtensorMap* map_w, const gemm_problem& p,
                                         const gemm_pointers& t, int split_k) {
    extern __shared__ __align__(1024) uint8_t smem_raw[];
    // 128-byte swizzled tiles want 1024-byte aligned bases. The offset is taken from the shared
    // window address and added to smem_raw, so that every pointer below stays one into shared memory
    // for the compiler (ld.shared / st.shared for the staging tiles; a pointer rounded through an
    // integer made them generic loads and stores, whose latency the epilogue waited for).
    uint8_t* ring = smem_raw + ((1024u - (smem_addr(smem_raw) & 1023u)) & 1023u);
    uint16_t* epi = reinterpret_cast<uint16_t*>(ring + stages * stage_bytes);
    uint64_t* full = reinterpret_cast<uint64_t*>(ring + stages * stage_bytes + epi_bytes);
    uint64_t* empty = full + stages;
    // The warpgroup index broadcast from lane 0: ptxas then knows it is the same in every lane of a
    // warp, so the units, stages and phases derived from it (ping-pong skips every other unit on it,
    // the cooperative A tile starts at it) and the wgmma descriptors built from them stay in uniform
    // registers instead of being moved there before every wgmma.
    const int wg = __shfl_sync(0xFFFFFFFFu, static_cast<int>(threadIdx.x / 128), 0);
    const int tid_wg = threadIdx.x % 128;
    if (threadIdx.x == 0) {
        for (int s = 0; s < stages; ++s) {
            mbar_init(smem_addr(&full[s]), 1);
            mbar_init(smem_addr(&empty[s]), tile_consumers * 4);  // one arrival per warp computing the tile
        }
        asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
    }
    __syncthreads();
    const int M = static_cast<int>(p.batch * p.m_size);  // a batch folds into M (launch requirements)
    const int N = static_cast<int>(p.n_size);
    const int tiles_m = (M + block_m - 1) / block_m;
    const int tiles_n = (N + block_n - 1) / block_n;
    const int tiles = tiles_m * tiles_n;
    const int kblocks = static_cast<int>((p.k_size + block_k - 1) / block_k);
    if (wg == 0) {
        regs_dec<40>();
        if (tid_wg == 0) {
            int stage = 0;
            uint32_t phase = 0;
            // X's box holds at most M rows rounded up to 8 (the tensor map's fit_box_rows): a problem
            // shorter than the tile copies no out-of-bounds rows, and the A rows past the box, never
            // written, only reach output rows that are not stored.
            const uint32_t tx_bytes =
                static_cast<uint32_t>((M < block_m ? (M + 7) / 8 * 8 : block_m) * block_k * 2 + b_chunks * b_chunk_bytes);
            work_walk walk(tiles, tiles_m, tiles_n, kblocks, split_k);
            work_unit w;
            while (walk.next(w)) {
                for (int kb = w.kb_begin; kb < w.kb_end; ++kb) {
                    mbar_wait(smem_addr(&empty[stage]), phase ^ 1);
                    const uint32_t bar = smem_addr(&full[stage]);
                    mbar_expect_tx(bar, tx_bytes);
                    const uint32_t a_dst = smem_addr(ring + stage * stage_bytes);
                    tma_load_2d(a_dst, map_x, bar, kb * block_k, w.tm * block_m);
#pragma unroll
                    for (int j = 0; j < b_chunks; ++j) {
                        tma_load_2d(a_dst + a_bytes + j * b_chunk_bytes, map_w, bar, w.tn * block_n + 64 * j, kb * block_k);
                    }
                    if (++stage == stages) stage = 0, phase ^= 1;
                }
            }
        }
    } else {
        regs_inc<232>();
        const int c = wg - 1;
        const int warp = tid_wg / 32, lane = tid_wg % 32;
        uint16_t* stage_buf = epi + (c * 4 + warp) * 16 * epi_row;
#if !ROCMTPL_GEMM_SM90_HAS_EPILOGUE
        float acc[mi][block_n / 2];
#endif
        // Shared-window addresses of the ring and the barriers, converted once.
        const uint32_t ring_s = smem_addr(ring), full_s = smem_addr(full), empty_s = smem_addr(empty);
        uint64_t taken = 0;  // k-blocks this block consumed before the unit
        work_walk walk(tiles, tiles_m, tiles_n, kblocks, split_k);
        work_unit w;
        for (int turn = 0; walk.next(w); ++turn) {  // turn: units of this block before this one
            // The producer fills the ring with every unit's k-blocks in order.
            int stage = static_cast<int>(taken % stages);
            uint32_t phase = static_cast<uint32_t>((taken / stages) & 1u);
            taken += static_cast<uint64_t>(w.kb_end - w.kb_begin);
            if (tile_consumers == 1 && turn % consumers != c) continue;  // ping-pong: the other warpgroup's unit
#if ROCMTPL_GEMM_SM90_HAS_EPILOGUE
            // With a fused chain, a unit's accumulators are zeroed here although the first wgmma of
            // its first k-block ignores them: so they are not live from one unit to the next (an
            // unset register that a wgmma reads is live from the kernel's start on for ptxas), and
            // the chain can use their registers once they are packed. (Without a chain that made
            // ptxas spill the unrolled gelu epilogue of ping-pong 128 x 128: 100 bytes.)
            float acc[mi][block_n / 2];
            const bool zero = true;
#else
            const bool zero = w.kb_end == w.kb_begin;  // no k-block: the epilogue of zero
#endif
            if (zero) {
#pragma unroll
                for (int i = 0; i < mi; ++i) {
#pragma unroll
                    for (int e = 0; e < block_n / 2; ++e) acc[i][e] = 0.f;
                }
            }
            const int row0 = w.tm * block_m + (tile_consumers == 1 ? 0 : c * warp_m);
            const int n0 = w.tn * block_n;
            // A stream-K segment short of the whole tile ends in stream_k_fixup(); its bias waits
            // until then (registers: the accumulators and the fix-up's sums come first).
            const bool whole = !walk.stream || (w.kb_begin == 0 && w.kb_end == kblocks);
            tile_bias tb;
            if (whole) tb.load(p, t, M, N, row0 + warp * 16, n0, lane);
#if ROCMTPL_GEMM_SM90_HAS_EPILOGUE
            if (split_k == 1) prefetch_chain(p, t, M, N, row0 + warp * 16, n0, lane);
#endif
            // Ping-pong: this unit's k-blocks follow the other warpgroup's previous unit in the ring,
            // so its full barriers can be two phases behind; wait until that warpgroup has taken
            // its last k-block (then each stage's previous fill is complete and the parity is exact).
            if (tile_consumers == 1 && turn > 0) turn_wait(c);
            int prev = -1;
            for (int kb = w.kb_begin; kb < w.kb_end; ++kb) {
                mbar_wait(full_s + 8 * stage, phase);
                const uint32_t a_base = ring_s + stage * stage_bytes + (tile_consumers == 1 ? 0 : c * warp_m * 128);
                const uint32_t b_base = ring_s + stage * stage_bytes + a_bytes;
                wgmma_fence();
#pragma unroll
                for (int kk = 0; kk < block_k / 16; ++kk) {
                    // B: N-major; 8 K-rows of 128 B apart by 1024 B (SBO), 64-column slabs by 8 KB (LBO).
                    const uint64_t db = make_desc(b_base + kk * 16 * 128, b_chunk_bytes, 1024);
#pragma unroll
                    for (int i = 0; i < mi; ++i) {
                        // A: K-major; k16 step = 32 B inside the swizzled 128-B row; 8-row groups 1024 B.
                        const uint64_t da = make_desc(a_base + i * 64 * 128 + kk * 32, 16, 1024);
                        gemm_sm90_wgmma(acc[i], da, db, (kb > w.kb_begin || kk > 0) ? 1 : 0);
                    }
                }
                wgmma_commit();
                if (prev >= 0) {
                    wgmma_wait<1>();
                    if (lane == 0) mbar_arrive(empty_s + 8 * prev);
                }
                prev = stage;
                if (++stage == stages) stage = 0, phase ^= 1;
            }
            if (tile_consumers == 1 && walk.more()) turn_pass(c);  // the next unit may start
            wgmma_wait<0>();
            if (prev >= 0 && lane == 0) mbar_arrive(empty_s + 8 * prev);
            if (split_k > 1) {
                float* slice = t.Partial + static_cast<int64_t>(w.z) * M * N;
#pragma unroll
                for (int i = 0; i < mi; ++i) store_partial_m64(acc[i], slice, M, N, row0 + i * 64 + warp * 16, n0, lane);
            } else {
                // A stream-K segment short of the whole tile: only the tile's owner goes on.
                if (!whole) {
                    if (!stream_k_fixup(acc, t, tiles, kblocks, w, (tile_consumers == 1 ? 0 : c * 128) + tid_wg, c)) {
                        continue;
                    }
                    tb.load(p, t, M, N, row0 + warp * 16, n0, lane);
                }
#if ROCMTPL_GEMM_SM90_HAS_EPILOGUE
                // The chain's tiles: every accumulator packed first (their registers free up).
                packed_m64 h[mi];
#pragma unroll
                for (int i = 0; i < mi; ++i) {
#pragma unroll
                    for (int j = 0; j < block_n / 8; ++j) {
                        const uint2 g = packed_group(acc[i], tb, i, j);
                        h[i][2 * j] = g.x, h[i][2 * j + 1] = g.y;
                    }
                }
#pragma unroll
                for (int i = 0; i < mi; ++i) {
                    epilogue_m64(h[i], tb, i, stage_buf, p, t, M, N, row0 + i * 64 + warp * 16, n0, lane);
                }
#else
#pragma unroll
                for (int i = 0; i < mi; ++i) {
                    epilogue_m64(acc[i], tb, i, stage_buf, p, t, M, N, row0 + i * 64 + warp * 16, n0, lane);
                }
#endif
            }
        }
    }
}
}  // namespace gemm_sm90
#endif  // ROCMTPL_GEMM_SM90_DEVICE
)sm90";

/// The host side of the Hopper path (inside the source's anonymous namespace): the two functions
/// the launch lines of codegen/launch.hpp call, `rocmtpl_make_tensor_map()` (the driver's
/// cuTensorMapEncodeTiled through the runtime's entry-point query: no libcuda link) and
/// `rocmtpl_sm_count()` (the SM count of the current device when it is a compute capability 9.0
/// device, else 0: the entry then refuses the call). An AMD build gets neither. Ends the
/// `#if defined(ROCMTPL_PLATFORM_NVIDIA)` block that sm90_head_text opens.
inline constexpr std::string_view sm90_host_text = R"sm90(#if !defined(ROCMTPL_DEVICE_ONLY)
using rocmtpl_tensor_map_encoder = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                                const cuuint64_t*, const cuuint32_t*, const cuuint32_t*,
                                                CUtensorMapInterleave, CUtensorMapSwizzle, CUtensorMapL2promotion,
                                                CUtensorMapFloatOOBfill);
// The driver's cuTensorMapEncodeTiled through the runtime; nullptr when absent.
inline rocmtpl_tensor_map_encoder rocmtpl_encoder() {
    static const rocmtpl_tensor_map_encoder fn = [] {
        void* f = nullptr;
        cudaDriverEntryPointQueryResult q{};
        if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &f, 12000, cudaEnableDefault, &q) != cudaSuccess ||
            q != cudaDriverEntryPointSuccess) {
            f = nullptr;
        }
        return reinterpret_cast<rocmtpl_tensor_map_encoder>(f);
    }();
    return fn;
}
// 2-D map of a [rows, cols] 16-bit matrix (dtype code: 2 bf16, else f16) with unit column stride
// and row pitch `pitch` elements; box = box_rows x box_cols, 128-byte swizzle, out-of-bounds
// elements read as zero. An empty matrix leaves the map zeroed (nothing is loaded from it).
// The last maps a thread encoded are reused for the same arguments (encoding is host work on
// every call otherwise).
inline bool rocmtpl_make_tensor_map(CUtensorMap& map, int dtype_code, const void* base, int64_t rows, int64_t cols,
                                    int64_t pitch, int64_t box_rows, int64_t box_cols) {
    if (rows == 0 || cols == 0) return true;
    struct entry {
        CUtensorMap map;
        const void* base;
        int64_t rows, cols, pitch, box_rows, box_cols;
        int dtype_code;
        bool valid;
    };
    static thread_local entry recent[4] = {};
    static thread_local int next = 0;
    for (const entry& e : recent) {
        if (e.valid && e.base == base && e.rows == rows && e.cols == cols && e.pitch == pitch && e.box_rows == box_rows &&
            e.box_cols == box_cols && e.dtype_code == dtype_code) {
            map = e.map;
            return true;
        }
    }
    const rocmtpl_tensor_map_encoder encode = rocmtpl_encoder();
    if (encode == nullptr || rows < 0 || cols < 0 || pitch <= 0) return false;
    const cuuint64_t dims[2] = {static_cast<cuuint64_t>(cols), static_cast<cuuint64_t>(rows)};
    const cuuint64_t strides[1] = {static_cast<cuuint64_t>(pitch) * 2};
    const cuuint32_t box[2] = {static_cast<cuuint32_t>(box_cols), static_cast<cuuint32_t>(box_rows)};
    const cuuint32_t elem_strides[2] = {1, 1};
    if (encode(&map, dtype_code == 1 /* bfloat16, rocmtpl::dtype_code() */ ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2,
               const_cast<void*>(base), dims, strides, box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
               CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
               CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE) != CUDA_SUCCESS) {
        return false;
    }
    recent[next] = entry{map, base, rows, cols, pitch, box_rows, box_cols, dtype_code, true};
    next = (next + 1) % 4;
    return true;
}
// The current device's SM count when it has compute capability 9.0, else 0; looked up once per
// thread and device. That first look-up also makes the device's primary context current in this
// thread (cudaSetDevice initialises it): the driver's tensor-map encoder runs next, and on the H100
// a thread's first call was refused without it (LaunchGpu.SharedMemoryOptInOncePerDeviceFromManyThreads).
inline int64_t rocmtpl_sm_count() {
    static thread_local int known = -1;
    static thread_local int64_t sms = 0;
    int device = 0;
    if (cudaGetDevice(&device) != cudaSuccess) return 0;
    if (known != device) {
        if (cudaSetDevice(device) != cudaSuccess) return 0;
        int major = 0, minor = 0, count = 0;
        if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
            cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess ||
            cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) {
            return 0;
        }
        known = device;
        sms = major == 9 && minor == 0 ? count : 0;
    }
    return sms;
}
#endif  // !ROCMTPL_DEVICE_ONLY
#endif  // ROCMTPL_PLATFORM_NVIDIA: the Hopper block that sm90_head_text opens
)sm90";

}  // namespace rocmtpl::templates::detail

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/templates/gemm/wgmma/device_code-inl.hpp>
#endif
