// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Device code of the GEMM templates (templates/gemm.hpp), embedded as text.
///
/// gemm_policy::render() writes, in order: the problem prelude (tile constants, operand types,
/// `gemm_problem`, `make_problem()`, `gemm_pointers`, the fused epilogue `store_output()`), then
/// `common`, then one main loop (`simt` or `matrix_core`), then the kernel wrappers and the C entry
/// point. The blocks below only use names the prelude defines:
///
/// - tile constants `block_m`, `block_n`, `block_k`, `group_m`, `stages`; SIMT: `thread_m`,
///   `thread_n`; matrix cores: `warp_m`, `warp_n`;
/// - operand types `x_type`, `w_type` (`gemm_dtype<Kind>`: 0 fp32, 1 fp16 bits, 2 bf16 bits);
/// - layout flags `x_k_contiguous`, `x_m_contiguous`, `w_k_contiguous`, `w_n_contiguous` (the
///   operand's stride along that axis is statically 1) and `x_k_major`, `w_k_major` (tile order in
///   shared memory: along K unless only the M/N axis is contiguous);
/// - `gemm_problem` (sizes, strides, offsets, batch) and `gemm_pointers` (X, W, Y, Partial, ...).
///
/// One source builds for both vendors: the matrix-core block holds an NVIDIA main loop (mma.sync
/// m16n8k16 with fp32 accumulation, ldmatrix, a cp.async multi-stage shared-memory pipeline;
/// sm_80 and later) and an AMD one (MFMA 32x32x8 f16 / bf16_1k, register-staged LDS tiles;
/// gfx90a, gfx940), chosen with `ROCMTPL_PLATFORM_NVIDIA` / `ROCMTPL_PLATFORM_AMD`.

#include <string>
#include <string_view>

#include <rocmtpl/core/config.hpp>

namespace rocmtpl::templates::detail {

/// Operand storage types and conversions, usable in device code on both platforms.
inline constexpr std::string_view gemm_dtype_text =
    R"(// Operand storage and conversions: 0 fp32, 1 fp16 (raw bits), 2 bf16 (raw bits).
template <int Kind>
struct gemm_dtype;
)";

/// The gemm_dtype specialisation of each kind (a source holds only those it uses).
inline constexpr std::string_view gemm_dtype_kind_text[3] = {
    R"(template <>
struct gemm_dtype<0> {
    using storage = float;
    static __device__ __forceinline__ float to_float(float v) { return v; }
    static __device__ __forceinline__ float from_float(float v) { return v; }
};
)",
    R"(template <>
struct gemm_dtype<1> {
    using storage = uint16_t;
    static __device__ __forceinline__ float to_float(uint16_t v) {
#if defined(ROCMTPL_PLATFORM_NVIDIA)
        return __half2float(__ushort_as_half(v));
#else
        _Float16 h;
        __builtin_memcpy(&h, &v, sizeof h);
        return static_cast<float>(h);
#endif
    }
    static __device__ __forceinline__ uint16_t from_float(float v) {
#if defined(ROCMTPL_PLATFORM_NVIDIA)
        return __half_as_ushort(__float2half_rn(v));
#else
        const _Float16 h = static_cast<_Float16>(v);
        uint16_t u;
        __builtin_memcpy(&u, &h, sizeof u);
        return u;
#endif
    }
};
)",
    R"(template <>
struct gemm_dtype<2> {
    using storage = uint16_t;
    static __device__ __forceinline__ float to_float(uint16_t v) { return rocmtpl_dev::bf16_bits_to_float(v); }
    static __device__ __forceinline__ uint16_t from_float(float v) { return rocmtpl_dev::float_to_bf16_bits(v); }
};
)"};

inline constexpr std::string_view gemm_vector_text =
    R"(// Vec elements of T read or written as one access (16 bytes at most).
template <class T, int Vec>
struct alignas(sizeof(T) * Vec) gemm_vector {
    T v[Vec];
};
)";

/// Tile order, split-K ranges and the per-element output step, shared by every main loop.
inline constexpr std::string_view gemm_common_text =
    R"(__host__ __device__ __forceinline__ int64_t gemm_cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

// Grouped block order: group_m block rows run next to each other and share W's columns in L2.
__device__ __forceinline__ void gemm_tile_origin(const gemm_problem& p, int64_t& block_row, int64_t& block_col) {
    const int64_t grid_m = gemm_cdiv(p.m_size, block_m);
    const int64_t grid_n = gemm_cdiv(p.n_size, block_n);
    const int64_t pid = static_cast<int64_t>(blockIdx.x);
    const int64_t blocks_in_group = static_cast<int64_t>(group_m) * grid_n;
    const int64_t first_m = (pid / blocks_in_group) * group_m;
    const int64_t group_rows = (grid_m - first_m) < group_m ? (grid_m - first_m) : group_m;
    block_row = (first_m + (pid % blocks_in_group) % group_rows) * block_m;
    block_col = ((pid % blocks_in_group) / group_rows) * block_n;
}

// Split-K: slice blockIdx.z takes whole K tiles [first, first + per) of the problem.
__device__ __forceinline__ void gemm_k_range(const gemm_problem& p, int split_k, int64_t& k_begin, int& k_tiles) {
    const int64_t total = gemm_cdiv(p.k_size, block_k);
    const int64_t per = gemm_cdiv(total, split_k);
    const int64_t first = static_cast<int64_t>(blockIdx.z) * per;
    const int64_t last = first + per < total ? first + per : total;
    k_begin = first * block_k;
    k_tiles = last > first ? static_cast<int>(last - first) : 0;
}

// One accumulator: the fused epilogue, or an fp32 partial sum when K is split.
__device__ __forceinline__ void gemm_emit(const gemm_problem& p, const gemm_pointers& t, int split_k, int64_t batch,
                                          int64_t gm, int64_t gn, float acc) {
    if (gm >= p.m_size || gn >= p.n_size) return;
    if (split_k > 1) {
        t.Partial[((static_cast<int64_t>(blockIdx.z) * p.batch + batch) * p.m_size + gm) * p.n_size + gn] = acc;
        return;
    }
    store_output(p, t, batch, gm, gn, acc);
}
)";

/// The start of every main loop after its thread indices: the block's tile origin, its batch and
/// its K range (split-K slice).
inline constexpr std::string_view gemm_block_start_text = R"hip(    int64_t block_row, block_col;
    gemm_tile_origin(p, block_row, block_col);
    const int64_t batch = static_cast<int64_t>(blockIdx.y);
    int64_t k_begin;
    int k_tiles;
    gemm_k_range(p, split_k, k_begin, k_tiles);
)hip";

/// The matrix-core loops' warp origin, block start and operand bases (NVIDIA and AMD alike).
inline constexpr std::string_view gemm_warp_block_start_head =
    R"hip(    const int warp_row = (warp / gemm_warps_n) * warp_m;
    const int warp_col = (warp % gemm_warps_n) * warp_n;
)hip";

inline constexpr std::string_view gemm_warp_block_start_tail =
    R"hip(    const uint16_t* const x_base = t.X + p.x_offset + batch * p.x_stride_b;
    const uint16_t* const w_base = t.W + p.w_offset + batch * p.w_stride_b;
)hip";

/// The start of a register-staged copy's store(): the loop over its slots (SIMT and AMD alike).
inline constexpr std::string_view gemm_store_slots_head = R"hip(        if constexpr (fast) {
#pragma unroll
            for (int s = 0; s < slots; ++s) {
                if (!used(tid, s)) break;
                const int r = row_offset(tid, s);
                const int k = k_offset(tid, s);
)hip";

/// How one register-staged copy struct spells what differs between the SIMT one (`simt_stage`:
/// any dtype, converted to fp32 on load) and the AMD matrix-core one (`gemm_lds_stage`: raw 16-bit
/// elements): the along-K flag, element and staged value types, the conversion, and comments.
struct gemm_stage_spelling {
  std::string_view along;           // the compile-time flag: reads run along K
  std::string_view elem;            // element type in global memory
  std::string_view value;           // type of the staged registers
  std::string_view ptr_note;        // comment after the `ptr` member
  std::string_view offsets_note;    // comment line before row_offset()
  std::string_view init_signature;  // the init() declaration (two lines)
  std::string_view advance_note;    // comment line before advance()
  std::string_view to_float;        // conversion of a loaded element: prefix
  std::string_view to_float_end;    // and suffix
  std::string_view zero;            // the staged value of an element past the edges
};

inline constexpr gemm_stage_spelling simt_stage_spelling{
    .along = "along_k",
    .elem = "T",
    .value = "float",
    .ptr_note = "  // fast: slot 0's first element in the tile being loaded",
    .offsets_note = R"hip(    // Row (M/N) and K offsets of slot s inside the tile.
)hip",
    .init_signature =
        R"hip(    __device__ __forceinline__ void init(const T* base_, int64_t stride_mn_, int64_t stride_k_, int64_t rows_total_,
                                         int64_t k_total_, int64_t row0_, int64_t k0_, int tid) {
)hip",
    .advance_note = R"hip(    // Moves to the next K tile.
)hip",
    .to_float = "D::to_float(",
    .to_float_end = ")",
    .zero = "0.0f"};

inline constexpr gemm_stage_spelling lds_stage_spelling{
    .along = "AlongK",
    .elem = "uint16_t",
    .value = "uint16_t",
    .ptr_note = "",
    .offsets_note = "",
    .init_signature =
        R"hip(    __device__ __forceinline__ void init(const uint16_t* base_, int64_t stride_mn_, int64_t stride_k_,
                                         int64_t rows_total_, int64_t k_total_, int64_t row0_, int64_t k0_, int tid) {
)hip",
    .advance_note = "",
    .to_float = "",
    .to_float_end = "",
    .zero = "static_cast<uint16_t>(0)"};

// One piece of the shared members: fixed text, then (unless null) a field of the spelling.
struct gemm_stage_piece {
  std::string_view text;
  std::string_view gemm_stage_spelling::*field;
};

/// The members both copy structs share: tile geometry, the staged registers, init(), advance()
/// and load() (the next tile into registers, Vec elements at a time, zero past the edges).
inline constexpr gemm_stage_piece gemm_stage_members_pieces[] = {
    {R"hip(    static constexpr bool fast = Vec > 1;
    static constexpr int per_line = ()hip",
     &gemm_stage_spelling::along},
    {R"hip( ? block_k : Rows) / Vec;
    static constexpr int total = ()hip",
     &gemm_stage_spelling::along},
    {R"hip( ? Rows : block_k) * per_line;
    static constexpr int slots = fast ? (total + block_threads - 1) / block_threads : 1;
    static constexpr int lines_per_slot = block_threads / per_line > 0 ? block_threads / per_line : 1;
    static_assert(slots > 0 && lines_per_slot > 0, "rocmtpl: gemm: empty tile");
    static_assert(!fast || block_threads % per_line == 0, "rocmtpl: gemm: block threads must cover whole tile lines");
    )hip",
     &gemm_stage_spelling::value},
    {R"hip( v[slots][Vec];
    const )hip",
     &gemm_stage_spelling::elem},
    {R"hip(* base;
    const )hip",
     &gemm_stage_spelling::elem},
    {R"hip(* ptr;)hip", &gemm_stage_spelling::ptr_note},
    {R"hip(
    int64_t row0, rows_total, k0, k_total, stride_mn, stride_k;

    static __device__ __forceinline__ bool used(int tid, int s) {
        return total % block_threads == 0 || tid + s * block_threads < total;
    }
)hip",
     &gemm_stage_spelling::offsets_note},
    {R"hip(    static __device__ __forceinline__ int row_offset(int tid, int s) {
        return )hip",
     &gemm_stage_spelling::along},
    {R"hip( ? tid / per_line + s * lines_per_slot : (tid % per_line) * Vec;
    }
    static __device__ __forceinline__ int k_offset(int tid, int s) {
        return )hip",
     &gemm_stage_spelling::along},
    {R"hip( ? (tid % per_line) * Vec : tid / per_line + s * lines_per_slot;
    }

)hip",
     &gemm_stage_spelling::init_signature},
    {R"hip(        base = base_;
        row0 = row0_;
        rows_total = rows_total_;
        k0 = k0_;
        k_total = k_total_;
        stride_mn = stride_mn_;
        stride_k = stride_k_;
        ptr = base + (row0 + row_offset(tid, 0)) * stride_mn + (k0 + k_offset(tid, 0)) * stride_k;
    }

)hip",
     &gemm_stage_spelling::advance_note},
    {R"hip(    __device__ __forceinline__ void advance() {
        k0 += block_k;
        ptr += block_k * stride_k;
    }

    __device__ __forceinline__ void load(int tid) {
        if constexpr (fast) {
            const int64_t slot_step = static_cast<int64_t>(lines_per_slot) * ()hip",
     &gemm_stage_spelling::along},
    {R"hip( ? stride_mn : stride_k);
            const int64_t rows_left = rows_total - row0;
            const int64_t k_left = k_total - k0;
            // A tile wholly inside the operand (a branch the whole block takes): no edge checks.
            if (rows_left >= Rows && k_left >= block_k) {
#pragma unroll
                for (int s = 0; s < slots; ++s) {
                    if (!used(tid, s)) break;
                    const auto x = *reinterpret_cast<const gemm_vector<)hip",
     &gemm_stage_spelling::elem},
    {R"hip(, Vec>*>(ptr + s * slot_step);
#pragma unroll
                    for (int e = 0; e < Vec; ++e) v[s][e] = )hip",
     &gemm_stage_spelling::to_float},
    {R"hip(x.v[e])hip", &gemm_stage_spelling::to_float_end},
    {R"hip(;
                }
                return;
            }
#pragma unroll
            for (int s = 0; s < slots; ++s) {
                if (!used(tid, s)) break;
                const )hip",
     &gemm_stage_spelling::elem},
    {R"hip(* const src = ptr + s * slot_step;
                const int64_t r_room = rows_left - row_offset(tid, s);
                const int64_t k_room = k_left - k_offset(tid, s);
                const bool full = )hip",
     &gemm_stage_spelling::along},
    {R"hip( ? (r_room > 0 && k_room >= Vec) : (k_room > 0 && r_room >= Vec);
                if (full) {
                    const auto x = *reinterpret_cast<const gemm_vector<)hip",
     &gemm_stage_spelling::elem},
    {R"hip(, Vec>*>(src);
#pragma unroll
                    for (int e = 0; e < Vec; ++e) v[s][e] = )hip",
     &gemm_stage_spelling::to_float},
    {R"hip(x.v[e])hip", &gemm_stage_spelling::to_float_end},
    {R"hip(;
                } else {
#pragma unroll
                    for (int e = 0; e < Vec; ++e) {
                        const bool valid = )hip",
     &gemm_stage_spelling::along},
    {R"hip( ? (r_room > 0 && k_room > e) : (k_room > 0 && r_room > e);
                        v[s][e] = valid ? )hip",
     &gemm_stage_spelling::to_float},
    {R"hip(src[)hip", &gemm_stage_spelling::along},
    {R"hip( ? e * stride_k : e * stride_mn])hip", &gemm_stage_spelling::to_float_end},
    {R"hip( : )hip", &gemm_stage_spelling::zero},
    {R"hip(;
                    }
                }
            }
        }
    }

)hip",
     nullptr},
};

/// The shared members in one struct's spelling.
std::string gemm_stage_members_text(const gemm_stage_spelling& s);

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

/// SIMT main loop: fp32 FMA on register tiles, any operand dtype, double-buffered shared memory.
const std::string& gemm_simt_text();

/// Matrix-core main loops (fp16/bf16 operands, fp32 accumulation): NVIDIA and AMD.
const std::string& gemm_matrix_core_text();

}  // namespace rocmtpl::templates::detail

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/templates/gemm/device_code-inl.hpp>
#endif
