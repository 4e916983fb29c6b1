// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The matrix-core path's main loops (f16/bf16 operands, fp32 accumulation), embedded
/// as text: NVIDIA (mma.sync m16n8k16, ldmatrix, a cp.async multi-stage pipeline; sm_80 and later)
/// and AMD (MFMA 32x32x8 f16 / bf16_1k, register-staged LDS tiles; gfx90a, gfx940) in one block,
/// chosen with `ROCMTPL_PLATFORM_NVIDIA` / `ROCMTPL_PLATFORM_AMD`; it uses the names
/// templates/gemm/device_code.hpp lists.

#include <string>
#include <string_view>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/templates/gemm/device_code.hpp>

namespace rocmtpl::templates::detail {

// The matrix-core text in order: NVIDIA head (up to the main loop's warp index), the warp/block
// start, the NVIDIA main loop's rest and the AMD head (up to gemm_lds_stage), the shared members,
// store() around the slot loop, the AMD main loop up to its warp index, the warp/block start, the rest.
inline constexpr std::string_view gemm_nvidia_head = R"hip(#if defined(ROCMTPL_PLATFORM_NVIDIA)
// ---- NVIDIA: mma.sync.m16n8k16 (fp32 accumulation), ldmatrix fragments, cp.async pipeline of
// `stages` shared-memory buffers (sm_80 and later).
constexpr int gemm_warps_m = block_m / warp_m;
constexpr int gemm_warps_n = block_n / warp_n;
constexpr int block_threads = gemm_warps_m * gemm_warps_n * 32;
constexpr int mma_tiles_m = warp_m / 16;
constexpr int mma_tiles_n = warp_n / 8;
constexpr int a_stage_elems = block_m * block_k;
constexpr int b_stage_elems = block_n * block_k;
constexpr int gemm_dynamic_shared = stages * (a_stage_elems + b_stage_elems) * 2;

// A shared-memory row of Len elements is Len / 8 chunks of 16 bytes. Chunk c of row r is stored at
// c ^ f(r), so that the 8 rows one ldmatrix phase reads (and cp.async writes) hit 8 different
// 16-byte bank groups.
template <int Len>
__device__ __forceinline__ int gemm_smem_index(int row, int col) {
    constexpr int chunks = Len / 8;
    int chunk = col >> 3;
    if (chunks >= 8) {
        chunk ^= row & 7;
    } else if (chunks == 4) {
        chunk ^= (row >> 1) & 3;
    } else if (chunks == 2) {
        chunk ^= (row >> 2) & 1;
    }
    return row * Len + (chunk << 3) + (col & 7);
}

__device__ __forceinline__ uint32_t gemm_smem_addr(const void* ptr) {
    return static_cast<uint32_t>(__cvta_generic_to_shared(ptr));
}

template <int Bytes>
__device__ __forceinline__ void gemm_cp_async(uint32_t dst, const void* src, int src_bytes) {
    if constexpr (Bytes == 16) {
        asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(src_bytes));
    } else {
        asm volatile("cp.async.ca.shared.global [%0], [%1], %2, %3;\n" ::"r"(dst), "l"(src), "n"(Bytes), "r"(src_bytes));
    }
}
__device__ __forceinline__ void gemm_cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }
template <int N>
__device__ __forceinline__ void gemm_cp_async_wait() {
    asm volatile("cp.async.wait_group %0;\n" ::"n"(N));
}

__device__ __forceinline__ void gemm_ldmatrix_x4(uint32_t (&r)[4], uint32_t addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}
__device__ __forceinline__ void gemm_ldmatrix_x4_trans(uint32_t (&r)[4], uint32_t addr) {
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0, %1, %2, %3}, [%4];\n"
                 : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
                 : "r"(addr));
}

__device__ __forceinline__ void gemm_mma(float (&d)[4], const uint32_t (&a)[4], const uint32_t (&b)[2]) {
    if constexpr (x_kind == 2) {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
            "{%0, %1, %2, %3};\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    } else {
        asm volatile(
            "mma.sync.aligned.m16n8k16.row.col.f32.f16.f16.f32 {%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, "
            "{%0, %1, %2, %3};\n"
            : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
            : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b[0]), "r"(b[1]));
    }
}

// Copies one operand tile (Rows = block_m or block_n, by block_k) into a shared-memory stage.
// KMajor: the stage is [Rows][block_k], else [block_k][Rows]; `lines` stage rows of `per_line`
// vectors, thread tid copying vectors tid, tid + block_threads, ... Vec > 1: cp.async of Vec
// elements along the contiguous axis, zero-filled past the edges (the entry point checked
// alignment); one pointer advances a K tile at a time and slot s sits s * lines_per_slot lines
// further. Vec == 1: plain loads with both strides (any layout), in a short loop that leaves the
// registers to the MMAs.
template <int Rows, int Vec, bool KMajor>
struct gemm_copier {
    static constexpr int len = KMajor ? block_k : Rows;  // elements per stage row
    static constexpr int lines = KMajor ? Rows : block_k;
    static constexpr int per_line = len / Vec;
    static constexpr int total = lines * per_line;
    static constexpr int slots = (total + block_threads - 1) / block_threads;
    static constexpr int lines_per_slot = block_threads / per_line > 0 ? block_threads / per_line : 1;
    static_assert(slots > 0 && lines_per_slot > 0, "rocmtpl: gemm: empty tile");
    static_assert(Vec == 1 || block_threads % per_line == 0, "rocmtpl: gemm: block threads must cover whole tile lines");
    const uint16_t* base;
    const uint16_t* ptr;  // Vec > 1: slot 0's element in the next tile to copy
    int64_t row0;

    static __device__ __forceinline__ bool used(int tid, int s) {
        return total % block_threads == 0 || tid + s * block_threads < total;
    }

    __device__ __forceinline__ void init(const uint16_t* base_, int64_t stride_mn, int64_t stride_k, int64_t row0_,
                                         int64_t k0, int tid) {
        base = base_;
        row0 = row0_;
        const int line = tid / per_line;
        const int e = (tid % per_line) * Vec;
        ptr = KMajor ? base + (row0 + line) * stride_mn + (k0 + e) : base + (row0 + e) + (k0 + line) * stride_k;
    }

    __device__ __forceinline__ void advance(int64_t stride_k) { ptr += block_k * stride_k; }

    // Copies the tile whose first K index is k0 (ptr points there when Vec > 1).
    __device__ __forceinline__ void copy(uint16_t* stage, int64_t stride_mn, int64_t stride_k, int64_t rows_total,
                                         int64_t k_total, int64_t k0, int tid) const {
        if constexpr (Vec > 1) {
            const int64_t k_left = k_total - k0;
            const int64_t rows_left = rows_total - row0;
            const int64_t slot_step = static_cast<int64_t>(lines_per_slot) * (KMajor ? stride_mn : stride_k);
            const int line0 = tid / per_line;
            const int e = (tid % per_line) * Vec;
#pragma unroll
            for (int s = 0; s < slots; ++s) {
                if (!used(tid, s)) break;
                const int line = line0 + s * lines_per_slot;
                const int64_t row_room = rows_left - (KMajor ? line : e);
                const int64_t k_room = k_left - (KMajor ? e : line);
                const int64_t room = KMajor ? k_room : row_room;
                const bool inside = (KMajor ? row_room > 0 : k_room > 0) && room > 0;
                const int bytes = inside ? 2 * static_cast<int>(room < Vec ? room : Vec) : 0;
                gemm_cp_async<2 * Vec>(gemm_smem_addr(stage + gemm_smem_index<len>(line, e)), inside ? ptr + s * slot_step : base,
                                       bytes);
            }
        } else {
            // Partly unrolled: fully rolled, ptxas spilled the small tiles (CUDA 13.0, sm_90).
#pragma unroll 4
            for (int id = tid; id < total; id += block_threads) {
                const int line = id / per_line;
                const int e = id % per_line;
                const int64_t r = row0 + (KMajor ? line : e);
                const int64_t k = k0 + (KMajor ? e : line);
                stage[gemm_smem_index<len>(line, e)] =
                    (r < rows_total && k < k_total) ? base[r * stride_mn + k * stride_k] : static_cast<uint16_t>(0);
            }
        }
    }
};

// Reads the A and B fragments of K step kk (16 wide) of a warp's tile from one stage.
__device__ __forceinline__ void gemm_load_fragments(uint32_t (&a_frag)[mma_tiles_m][4], uint32_t (&b_frag)[mma_tiles_n][2],
                                                    const uint16_t* a_s, const uint16_t* b_s, int kk, int warp_row,
                                                    int warp_col, int lane) {
#pragma unroll
    for (int i = 0; i < mma_tiles_m; ++i) {
        if constexpr (x_k_major) {
            const int row = warp_row + i * 16 + (lane & 15);
            const int col = kk * 16 + (lane >> 4) * 8;
            gemm_ldmatrix_x4(a_frag[i], gemm_smem_addr(a_s + gemm_smem_index<block_k>(row, col)));
        } else {
            const int row = kk * 16 + (lane >> 4) * 8 + (lane & 7);
            const int col = warp_row + i * 16 + ((lane >> 3) & 1) * 8;
            gemm_ldmatrix_x4_trans(a_frag[i], gemm_smem_addr(a_s + gemm_smem_index<block_m>(row, col)));
        }
    }
#pragma unroll
    for (int j = 0; j < mma_tiles_n / 2; ++j) {
        uint32_t r[4];
        if constexpr (w_k_major) {
            const int row = warp_col + j * 16 + (lane >> 4) * 8 + (lane & 7);
            const int col = kk * 16 + ((lane >> 3) & 1) * 8;
            gemm_ldmatrix_x4(r, gemm_smem_addr(b_s + gemm_smem_index<block_k>(row, col)));
        } else {
            const int row = kk * 16 + ((lane >> 3) & 1) * 8 + (lane & 7);
            const int col = warp_col + j * 16 + (lane >> 4) * 8;
            gemm_ldmatrix_x4_trans(r, gemm_smem_addr(b_s + gemm_smem_index<block_n>(row, col)));
        }
        b_frag[2 * j][0] = r[0];
        b_frag[2 * j][1] = r[1];
        b_frag[2 * j + 1][0] = r[2];
        b_frag[2 * j + 1][1] = r[3];
    }
}

// Copies the next tile of both operands into one stage and moves the copiers a K tile on.
template <class ACopy, class BCopy>
__device__ __forceinline__ void gemm_load_stage(ACopy& a_copy, BCopy& b_copy, uint16_t* a_stage, uint16_t* b_stage,
                                                int64_t k0, const gemm_problem& p, int tid) {
    a_copy.copy(a_stage, p.x_stride_m, p.x_stride_k, p.m_size, p.k_size, k0, tid);
    b_copy.copy(b_stage, p.w_stride_n, p.w_stride_k, p.n_size, p.k_size, k0, tid);
    a_copy.advance(p.x_stride_k);
    b_copy.advance(p.w_stride_k);
}

template <int VecA, int VecB>
__device__ __forceinline__ void gemm_mainloop(const gemm_problem& p, const gemm_pointers& t, int split_k) {
    HIP_DYNAMIC_SHARED(uint16_t, gemm_smem);
    uint16_t* const a_smem = gemm_smem;
    uint16_t* const b_smem = gemm_smem + stages * a_stage_elems;
    const int tid = static_cast<int>(threadIdx.x);
    const int lane = tid & 31;
    const int warp = tid >> 5;
)hip";

inline constexpr std::string_view gemm_nvidia_tail_amd_head = R"hip(    float acc[mma_tiles_m][mma_tiles_n][4];
#pragma unroll
    for (int i = 0; i < mma_tiles_m; ++i) {
#pragma unroll
        for (int j = 0; j < mma_tiles_n; ++j) {
#pragma unroll
            for (int e = 0; e < 4; ++e) acc[i][j][e] = 0.0f;
        }
    }
    gemm_copier<block_m, VecA, x_k_major> a_copy;
    gemm_copier<block_n, VecB, w_k_major> b_copy;
    a_copy.init(x_base, p.x_stride_m, p.x_stride_k, block_row, k_begin, tid);
    b_copy.init(w_base, p.w_stride_n, p.w_stride_k, block_col, k_begin, tid);
    // Tiles are loaded in order 0, 1, 2, ...: each load copies at the pointers, then advances them.
#pragma unroll
    for (int s = 0; s < stages - 1; ++s) {
        if (s < k_tiles) {
            gemm_load_stage(a_copy, b_copy, a_smem + s * a_stage_elems, b_smem + s * b_stage_elems,
                            k_begin + static_cast<int64_t>(s) * block_k, p, tid);
        }
        gemm_cp_async_commit();
    }
    // One barrier per K tile: wait for tile kt, then refill the stage tile kt - 1 used (every warp
    // is past it) while the MMAs of tile kt run. (Double-buffering the fragments across K steps as
    // well measured 8% slower on an H100 and forced shorter K tiles to stay under 255 registers.)
    int read_stage = 0;
    int write_stage = stages - 1;
    for (int kt = 0; kt < k_tiles; ++kt) {
        gemm_cp_async_wait<stages - 2>();
        __syncthreads();
        if (kt + stages - 1 < k_tiles) {
            gemm_load_stage(a_copy, b_copy, a_smem + write_stage * a_stage_elems, b_smem + write_stage * b_stage_elems,
                            k_begin + static_cast<int64_t>(kt + stages - 1) * block_k, p, tid);
        }
        gemm_cp_async_commit();
        const uint16_t* const a_s = a_smem + read_stage * a_stage_elems;
        const uint16_t* const b_s = b_smem + read_stage * b_stage_elems;
#pragma unroll
        for (int kk = 0; kk < block_k / 16; ++kk) {
            uint32_t a_frag[mma_tiles_m][4];
            uint32_t b_frag[mma_tiles_n][2];
            gemm_load_fragments(a_frag, b_frag, a_s, b_s, kk, warp_row, warp_col, lane);
#pragma unroll
            for (int i = 0; i < mma_tiles_m; ++i) {
#pragma unroll
                for (int j = 0; j < mma_tiles_n; ++j) gemm_mma(acc[i][j], a_frag[i], b_frag[j]);
            }
        }
        read_stage = read_stage + 1 == stages ? 0 : read_stage + 1;
        write_stage = write_stage + 1 == stages ? 0 : write_stage + 1;
    }
    gemm_cp_async_wait<0>();
    // Accumulator layout of m16n8: rows lane / 4 (+ 8), columns 2 * (lane % 4) (+ 1).
#pragma unroll
    for (int i = 0; i < mma_tiles_m; ++i) {
#pragma unroll
        for (int half = 0; half < 2; ++half) {
            const int64_t gm = block_row + warp_row + i * 16 + (lane >> 2) + half * 8;
#pragma unroll
            for (int j = 0; j < mma_tiles_n; ++j) {
                const int64_t gn = block_col + warp_col + j * 8 + (lane & 3) * 2;
                gemm_emit(p, t, split_k, batch, gm, gn, acc[i][j][half * 2]);
                gemm_emit(p, t, split_k, batch, gm, gn + 1, acc[i][j][half * 2 + 1]);
            }
        }
    }
}

#elif defined(ROCMTPL_PLATFORM_AMD)
// ---- AMD: MFMA 32x32x8 (f16, or bf16_1k on gfx90a and later), fp32 accumulation. Operand tiles
// are staged through registers into one K-major LDS buffer: the next tile's global loads are in
// flight while the current tile is multiplied.
constexpr int gemm_warps_m = block_m / warp_m;
constexpr int gemm_warps_n = block_n / warp_n;
constexpr int block_threads = gemm_warps_m * gemm_warps_n * 64;
constexpr int mfma_tiles_m = warp_m / 32;
constexpr int mfma_tiles_n = warp_n / 32;
constexpr int lds_row = block_k + 8;  // elements; keeps rows 16-byte aligned and staggers banks
constexpr int gemm_dynamic_shared = 0;
typedef _Float16 gemm_half4 __attribute__((ext_vector_type(4)));
typedef short gemm_short4 __attribute__((ext_vector_type(4)));
typedef float gemm_float16 __attribute__((ext_vector_type(16)));

__device__ __forceinline__ gemm_float16 gemm_mfma(gemm_short4 a, gemm_short4 b, gemm_float16 c) {
    if constexpr (x_kind == 2) {
        return __builtin_amdgcn_mfma_f32_32x32x8bf16_1k(a, b, c, 0, 0, 0);
    } else {
        return __builtin_amdgcn_mfma_f32_32x32x8f16(__builtin_bit_cast(gemm_half4, a), __builtin_bit_cast(gemm_half4, b),
                                                   c, 0, 0, 0);
    }
}

// One operand tile (Rows by block_k) on its way to LDS as [Rows][lds_row] (K-major).
// AlongK: global reads run along K (K contiguous, or nothing is), else along M/N. Vec > 1: the
// next tile is read into registers while the current one is multiplied, through one pointer
// that advances a K tile at a time (slot s sits s * lines_per_slot lines further); Vec == 1
// (any strides): store() copies element by element.
template <int Rows, int Vec, bool AlongK>
struct gemm_lds_stage {
)hip";

inline constexpr std::string_view gemm_amd_store =
    R"hip(    __device__ __forceinline__ void store(uint16_t (*lds)[lds_row], int tid) const {
)hip";

inline constexpr std::string_view gemm_amd_store_rest = R"hip(                if constexpr (AlongK) {
                    gemm_vector<uint16_t, Vec> x;
#pragma unroll
                    for (int e = 0; e < Vec; ++e) x.v[e] = v[s][e];
                    *reinterpret_cast<gemm_vector<uint16_t, Vec>*>(&lds[r][k]) = x;
                } else {
#pragma unroll
                    for (int e = 0; e < Vec; ++e) lds[r + e][k] = v[s][e];
                }
            }
        } else {
#pragma unroll 1
            for (int id = tid; id < total; id += block_threads) {
                const int line = id / per_line;
                const int e = id % per_line;
                const int64_t r = row0 + (AlongK ? line : e);
                const int64_t k = k0 + (AlongK ? e : line);
                const uint16_t x = (r < rows_total && k < k_total) ? base[r * stride_mn + k * stride_k] : static_cast<uint16_t>(0);
                if (AlongK) {
                    lds[line][e] = x;
                } else {
                    lds[e][line] = x;
                }
            }
        }
    }
};

template <int VecA, int VecB>
__device__ __forceinline__ void gemm_mainloop(const gemm_problem& p, const gemm_pointers& t, int split_k) {
    __shared__ __align__(16) uint16_t a_lds[block_m][lds_row];
    __shared__ __align__(16) uint16_t b_lds[block_n][lds_row];
    const int tid = static_cast<int>(threadIdx.x);
    const int lane = tid & 63;
    const int warp = tid >> 6;
)hip";

inline constexpr std::string_view gemm_amd_tail = R"hip(    gemm_float16 acc[mfma_tiles_m][mfma_tiles_n];
#pragma unroll
    for (int i = 0; i < mfma_tiles_m; ++i) {
#pragma unroll
        for (int j = 0; j < mfma_tiles_n; ++j) acc[i][j] = static_cast<gemm_float16>(0.0f);
    }
    gemm_lds_stage<block_m, VecA, x_k_major> a_stage;
    gemm_lds_stage<block_n, VecB, w_k_major> b_stage;
    a_stage.init(x_base, p.x_stride_m, p.x_stride_k, p.m_size, p.k_size, block_row, k_begin, tid);
    b_stage.init(w_base, p.w_stride_n, p.w_stride_k, p.n_size, p.k_size, block_col, k_begin, tid);
    if (k_tiles > 0) {
        a_stage.load(tid);
        b_stage.load(tid);
    }
    for (int kt = 0; kt < k_tiles; ++kt) {
        if (kt > 0) __syncthreads();
        a_stage.store(a_lds, tid);
        b_stage.store(b_lds, tid);
        __syncthreads();
        if (kt + 1 < k_tiles) {
            a_stage.advance();
            b_stage.advance();
            a_stage.load(tid);
            b_stage.load(tid);
        }
#pragma unroll
        for (int kk = 0; kk < block_k / 8; ++kk) {
            gemm_short4 a[mfma_tiles_m];
            gemm_short4 b[mfma_tiles_n];
            // Operand layout of 32x32x8: lane holds row lane % 32, K elements 4 * (lane / 32) + 0..3.
#pragma unroll
            for (int i = 0; i < mfma_tiles_m; ++i) {
                a[i] = *reinterpret_cast<const gemm_short4*>(&a_lds[warp_row + i * 32 + (lane & 31)][kk * 8 + (lane >> 5) * 4]);
            }
#pragma unroll
            for (int j = 0; j < mfma_tiles_n; ++j) {
                b[j] = *reinterpret_cast<const gemm_short4*>(&b_lds[warp_col + j * 32 + (lane & 31)][kk * 8 + (lane >> 5) * 4]);
            }
#pragma unroll
            for (int i = 0; i < mfma_tiles_m; ++i) {
#pragma unroll
                for (int j = 0; j < mfma_tiles_n; ++j) acc[i][j] = gemm_mfma(a[i], b[j], acc[i][j]);
            }
        }
    }
    // Accumulator layout of 32x32: column lane % 32; element e is row 8 * (e / 4) + 4 * (lane / 32) + e % 4.
#pragma unroll
    for (int i = 0; i < mfma_tiles_m; ++i) {
#pragma unroll
        for (int j = 0; j < mfma_tiles_n; ++j) {
            const int64_t gn = block_col + warp_col + j * 32 + (lane & 31);
#pragma unroll
            for (int e = 0; e < 16; ++e) {
                const int64_t gm = block_row + warp_row + i * 32 + 8 * (e / 4) + 4 * (lane >> 5) + (e % 4);
                gemm_emit(p, t, split_k, batch, gm, gn, acc[i][j][e]);
            }
        }
    }
}
#endif
)hip";

/// Matrix-core main loops (fp16/bf16 operands, fp32 accumulation): NVIDIA and AMD.
const std::string& gemm_matrix_core_text();

}  // namespace rocmtpl::templates::detail

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/templates/gemm/mma/device_code-inl.hpp>
#endif
