// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Device code the block-tiled GEMM paths share (SIMT: simt/device_code.hpp, matrix cores:
/// mma/device_code.hpp), embedded as text.
///
/// The block-tiled render (render.hpp) writes, in order: the problem prelude (tile constants, operand types,
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

}  // namespace rocmtpl::templates::detail

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/templates/gemm/device_code-inl.hpp>
#endif
