#include "rocmtpl_hip_portable.h"
#include <cstddef>
#include <cstdint>

// We compile all models with -fvisibility=hidden. Any symbols that need to be
// exposed in the final shared library must be declared with PT_EXPORT to make
// them visible.
#ifdef __GNUC__ // Applies to any compiler with GNU extensions (clang and g++)
#define PT_EXPORT __attribute__((__visibility__("default")))
#else
#ifdef _WIN32
#define PT_EXPORT __declspec(dllexport)
#else
#define PT_EXPORT
#endif
#endif
using bfloat16 = hip_bfloat16;
#define ROCMTPL_STATUS_OK 0
#define ROCMTPL_STATUS_LAUNCH_FAILED 1
#define ROCMTPL_STATUS_NULL_ARGUMENT 2
#define ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT 3
#define ROCMTPL_STATUS_WORKSPACE_TOO_SMALL 4
#ifndef ROCMTPL_SYM_EXPR_HELPERS
#define ROCMTPL_SYM_EXPR_HELPERS
#include <cstdint>
#if defined(__HIPCC__) || defined(__CUDACC__)
#define ROCMTPL_SYM_HOST_DEVICE __host__ __device__
#else
#define ROCMTPL_SYM_HOST_DEVICE
#endif
// Python floor division: rounds toward negative infinity (C++ '/' truncates toward zero).
// One return statement each, so that the functions are constexpr under C++11 too (hipcc's default).
ROCMTPL_SYM_HOST_DEVICE inline constexpr int64_t rocmtpl_floordiv(int64_t a, int64_t b) {
  return (a / b) * b != a && ((a < 0) != (b < 0)) ? a / b - 1 : a / b;
}
// Python modulo: the result has the sign of the divisor (C++ '%' has the sign of the dividend).
// b == -1 is answered first because INT64_MIN % -1 traps on x86.
ROCMTPL_SYM_HOST_DEVICE inline constexpr int64_t rocmtpl_mod(int64_t a, int64_t b) {
  return b == -1 ? 0 : (a % b != 0 && ((a % b < 0) != (b < 0))) ? a % b + b : a % b;
}
// Checked size arithmetic (sym_expr::to_cpp_checked()): on int64 overflow or a zero divisor the
// result is 0 and *ok becomes false, so an entry point refuses the sizes instead of wrapping.
ROCMTPL_SYM_HOST_DEVICE inline int64_t rocmtpl_size_add(int64_t a, int64_t b, bool* ok) {
  if ((b > 0 && a > INT64_MAX - b) || (b < 0 && a < INT64_MIN - b)) {
    *ok = false;
    return 0;
  }
  return a + b;
}
ROCMTPL_SYM_HOST_DEVICE inline int64_t rocmtpl_size_sub(int64_t a, int64_t b, bool* ok) {
  if ((b < 0 && a > INT64_MAX + b) || (b > 0 && a < INT64_MIN + b)) {
    *ok = false;
    return 0;
  }
  return a - b;
}
ROCMTPL_SYM_HOST_DEVICE inline int64_t rocmtpl_size_mul(int64_t a, int64_t b, bool* ok) {
  if (a == 0 || b == 0) return 0;
  const bool fits = a > 0 ? (b > 0 ? a <= INT64_MAX / b : b >= INT64_MIN / a)
                          : (b > 0 ? a >= INT64_MIN / b : a >= INT64_MAX / b);
  if (!fits) {
    *ok = false;
    return 0;
  }
  return a * b;
}
ROCMTPL_SYM_HOST_DEVICE inline int64_t rocmtpl_size_floordiv(int64_t a, int64_t b, bool* ok) {
  if (b == 0 || (a == INT64_MIN && b == -1)) {
    *ok = false;
    return 0;
  }
  return rocmtpl_floordiv(a, b);
}
ROCMTPL_SYM_HOST_DEVICE inline int64_t rocmtpl_size_mod(int64_t a, int64_t b, bool* ok) {
  if (b == 0) {
    *ok = false;
    return 0;
  }
  return rocmtpl_mod(a, b);
}
#endif  // ROCMTPL_SYM_EXPR_HELPERS

#define ROCMTPL_KERNEL_SYMBOL(suffix) rocm_fused_gemm_pointwise_0_##suffix
// gemm mma_bm64_bn64_bk32_wm32_wn32_g8_s3_v8: Y = none(X @ W), then cast(float16) -> add(in0 row_vector) -> gelu -> mul(in1 full)
// x float16[M, 128] strides [128, 1] offset 0
// w float16[128, 256] strides [256, 1] offset 0
// rocmtpl_epilogue_out float16[M, 256] strides [256, 1] offset 0
namespace {

// Operand storage and conversions: 0 fp32, 1 fp16 (raw bits), 2 bf16 (raw bits).
template <int Kind>
struct gemm_dtype;
template <>
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
// Vec elements of T read or written as one access (16 bytes at most).
template <class T, int Vec>
struct alignas(sizeof(T) * Vec) gemm_vector {
    T v[Vec];
};

using x_type = gemm_dtype<1>;
using w_type = gemm_dtype<1>;
using y_type = gemm_dtype<1>;
[[maybe_unused]] constexpr int x_kind = 1;

__device__ __forceinline__ float apply_activation(float v) { return v; }

// Sizes, strides (0 where a tensor broadcasts) and offsets, in elements.
struct gemm_problem {
    int64_t m_size, n_size, k_size, batch;
    int64_t x_stride_b, x_stride_m, x_stride_k, x_offset;
    int64_t w_stride_b, w_stride_k, w_stride_n, w_offset;
    int64_t y_stride_b, y_stride_m, y_stride_n, y_offset;
};

__host__ __device__ __forceinline__ gemm_problem make_problem(int64_t u_M) {
    gemm_problem problem_{};
    problem_.m_size = u_M;
    problem_.n_size = 256;
    problem_.k_size = 128;
    problem_.batch = 1;
    problem_.x_stride_b = 0;
    problem_.x_stride_m = 128;
    problem_.x_stride_k = 1;
    problem_.x_offset = 0;
    problem_.w_stride_b = 0;
    problem_.w_stride_k = 256;
    problem_.w_stride_n = 1;
    problem_.w_offset = 0;
    problem_.y_stride_b = 0;
    problem_.y_stride_m = 256;
    problem_.y_stride_n = 1;
    problem_.y_offset = 0;
    return problem_;
}

// Fused epilogue: cast(float16) -> add(in0 row_vector) -> gelu -> mul(in1 full)
struct rocmtpl_epilogue_args {
    const float* e0;
    int64_t e0_offset, e0_stride_b, e0_stride_r, e0_stride_c;
    const uint16_t* e1;
    int64_t e1_offset, e1_stride_b, e1_stride_r, e1_stride_c;
};
[[maybe_unused]] __host__ __device__ __forceinline__ rocmtpl_epilogue_args rocmtpl_epilogue_make(const float* E0, const uint16_t* E1, int64_t u_M) {
    rocmtpl_epilogue_args a{};
    a.e0 = E0;
    a.e0_offset = 0;
    a.e0_stride_b = 0;
    a.e0_stride_r = 0;
    a.e0_stride_c = 1;
    a.e1 = E1;
    a.e1_offset = 0;
    a.e1_stride_b = 0;
    a.e1_stride_r = 256;
    a.e1_stride_c = 1;
    (void)u_M;
    return a;
}
__device__ __forceinline__ float rocmtpl_epi_f16(uint16_t b) {
#if defined(ROCMTPL_PLATFORM_NVIDIA)
    return __half2float(__ushort_as_half(b));
#else
    _Float16 h;
    __builtin_memcpy(&h, &b, sizeof h);
    return static_cast<float>(h);
#endif
}
__device__ __forceinline__ float rocmtpl_epi_bf16(uint16_t b) { return rocmtpl_dev::bf16_bits_to_float(b); }
__device__ __forceinline__ float rocmtpl_epi_round_f16(float v) {
#if defined(ROCMTPL_PLATFORM_NVIDIA)
    return __half2float(__float2half_rn(v));
#else
    return static_cast<float>(static_cast<_Float16>(v));
#endif
}
__device__ __forceinline__ float rocmtpl_epi_round_bf16(float v) {
#if defined(ROCMTPL_PLATFORM_NVIDIA)
    return __bfloat162float(__float2bfloat16_rn(v));
#else
    return rocmtpl_dev::bf16_bits_to_float(rocmtpl_dev::float_to_bf16_bits(v));
#endif
}
// The two 16-bit values of a word (low half first) as floats.
__device__ __forceinline__ void rocmtpl_epi_f16x2(uint32_t w, float& lo, float& hi) {
#if defined(ROCMTPL_PLATFORM_NVIDIA)
    __half2 h;
    __builtin_memcpy(&h, &w, sizeof h);
    const float2 f = __half22float2(h);
    lo = f.x, hi = f.y;
#else
    lo = rocmtpl_epi_f16(static_cast<uint16_t>(w & 0xFFFFu)), hi = rocmtpl_epi_f16(static_cast<uint16_t>(w >> 16));
#endif
}
__device__ __forceinline__ void rocmtpl_epi_bf16x2(uint32_t w, float& lo, float& hi) {
    lo = rocmtpl_dev::bits_as_float(w << 16), hi = rocmtpl_dev::bits_as_float(w & 0xFFFF0000u);
}
// Brings the line of p into L2 (NVIDIA; nothing elsewhere).
__device__ __forceinline__ void rocmtpl_epi_prefetch(const void* p) {
#if defined(ROCMTPL_PLATFORM_NVIDIA)
    asm volatile("prefetch.L2 [%0];" ::"l"(p));
#else
    (void)p;
#endif
}
__device__ __forceinline__ float rocmtpl_epilogue(const rocmtpl_epilogue_args& ea, int64_t batch, int64_t row,
                                                  int64_t col, float v) {
    (void)ea, (void)batch, (void)row, (void)col;
    v = rocmtpl_epi_round_f16(v);
    v = v + static_cast<float>(ea.e0[ea.e0_offset + batch * ea.e0_stride_b + col * ea.e0_stride_c]);
    v = rocmtpl_dev::gelu(v);
    v = v * rocmtpl_epi_f16(ea.e1[ea.e1_offset + batch * ea.e1_stride_b + row * ea.e1_stride_r + col * ea.e1_stride_c]);
    return v;
}
// Vector form: the chain on 8 consecutive columns of one row (codegen/epilogue.hpp).
struct rocmtpl_epilogue_row {
    const uint16_t* e1;  // element (batch, row, 0)
};
struct rocmtpl_epilogue_cols {
    uint32_t e0[8];
};
struct rocmtpl_epilogue_seg {
    uint32_t e1[4];
};
__device__ __forceinline__ rocmtpl_epilogue_row rocmtpl_epilogue_row_at(const rocmtpl_epilogue_args& ea, int64_t batch,
                                                             int64_t row) {
    rocmtpl_epilogue_row r{};
    (void)ea, (void)batch, (void)row;
    r.e1 = ea.e1 + (0 + batch * 0 + row * 256);
    return r;
}
__device__ __forceinline__ rocmtpl_epilogue_cols rocmtpl_epilogue_cols_at(const rocmtpl_epilogue_args& ea, int col) {
    rocmtpl_epilogue_cols c;
    (void)ea, (void)col;
    rocmtpl_dev::load8(ea.e0 + (0 + static_cast<int64_t>(col) * 1), 1, c.e0);
    return c;
}
__device__ __forceinline__ rocmtpl_epilogue_seg rocmtpl_epilogue_seg_at(const rocmtpl_epilogue_args& ea,
                                                             const rocmtpl_epilogue_row& r, int col) {
    rocmtpl_epilogue_seg s;
    (void)ea, (void)r, (void)col;
    rocmtpl_dev::load8(r.e1 + static_cast<int64_t>(col) * 1, 1, s.e1);
    return s;
}
__device__ __forceinline__ void rocmtpl_epilogue_prefetch(const rocmtpl_epilogue_args& ea, const rocmtpl_epilogue_row& r,
                                                          int col) {
    (void)ea, (void)r, (void)col;
    rocmtpl_epi_prefetch(r.e1 + static_cast<int64_t>(col) * 1);
}
__device__ __forceinline__ void rocmtpl_epilogue8(const rocmtpl_epilogue_row& er, const rocmtpl_epilogue_cols& ec,
                                                  const rocmtpl_epilogue_seg& es, float (&vs)[8]) {
    (void)er, (void)ec, (void)es;
    float x0[8];
#pragma unroll
    for (int e = 0; e < 8; ++e) x0[e] = rocmtpl_dev::bits_as_float(ec.e0[e]);
    float x1[8];
#pragma unroll
    for (int e = 0; e < 4; ++e) rocmtpl_epi_f16x2(es.e1[e], x1[2 * e], x1[2 * e + 1]);
#pragma unroll
    for (int e = 0; e < 8; ++e) {
        float v = vs[e];
        v = v + x0[e];
        v = rocmtpl_dev::gelu(v);
        v = v * x1[e];
        vs[e] = v;
    }
}

struct gemm_pointers {
    const x_type::storage* X;
    const w_type::storage* W;
    y_type::storage* Y;
    float* Partial;  // split-K slices
    rocmtpl_epilogue_args epi;  // the fused epilogue's operands
};

// The fused epilogue of one output element.
__device__ __forceinline__ void store_output(const gemm_problem& p, const gemm_pointers& t, int64_t batch,
                                             int64_t gm, int64_t gn, float acc) {
    float v = acc;
    v = apply_activation(v);
    v = rocmtpl_epilogue(t.epi, batch, gm, gn, v);
    t.Y[p.y_offset + batch * p.y_stride_b + gm * p.y_stride_m + gn * p.y_stride_n] = y_type::from_float(v);
}

constexpr int block_m = 64;
constexpr int block_n = 64;
constexpr int block_k = 32;
constexpr int warp_m = 32;
constexpr int warp_n = 32;
constexpr int group_m = 8;
[[maybe_unused]] constexpr int stages = 3;
[[maybe_unused]] constexpr bool x_k_contiguous = true;
[[maybe_unused]] constexpr bool x_m_contiguous = false;
[[maybe_unused]] constexpr bool x_k_major = true;
[[maybe_unused]] constexpr bool w_k_contiguous = false;
[[maybe_unused]] constexpr bool w_n_contiguous = true;
[[maybe_unused]] constexpr bool w_k_major = false;

__host__ __device__ __forceinline__ int64_t gemm_cdiv(int64_t a, int64_t b) { return (a + b - 1) / b; }

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

#if defined(ROCMTPL_PLATFORM_NVIDIA)
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
    const int warp_row = (warp / gemm_warps_n) * warp_m;
    const int warp_col = (warp % gemm_warps_n) * warp_n;
    int64_t block_row, block_col;
    gemm_tile_origin(p, block_row, block_col);
    const int64_t batch = static_cast<int64_t>(blockIdx.y);
    int64_t k_begin;
    int k_tiles;
    gemm_k_range(p, split_k, k_begin, k_tiles);
    const uint16_t* const x_base = t.X + p.x_offset + batch * p.x_stride_b;
    const uint16_t* const w_base = t.W + p.w_offset + batch * p.w_stride_b;
    float acc[mma_tiles_m][mma_tiles_n][4];
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
    static constexpr bool fast = Vec > 1;
    static constexpr int per_line = (AlongK ? block_k : Rows) / Vec;
    static constexpr int total = (AlongK ? Rows : block_k) * per_line;
    static constexpr int slots = fast ? (total + block_threads - 1) / block_threads : 1;
    static constexpr int lines_per_slot = block_threads / per_line > 0 ? block_threads / per_line : 1;
    static_assert(slots > 0 && lines_per_slot > 0, "rocmtpl: gemm: empty tile");
    static_assert(!fast || block_threads % per_line == 0, "rocmtpl: gemm: block threads must cover whole tile lines");
    uint16_t v[slots][Vec];
    const uint16_t* base;
    const uint16_t* ptr;
    int64_t row0, rows_total, k0, k_total, stride_mn, stride_k;

    static __device__ __forceinline__ bool used(int tid, int s) {
        return total % block_threads == 0 || tid + s * block_threads < total;
    }
    static __device__ __forceinline__ int row_offset(int tid, int s) {
        return AlongK ? tid / per_line + s * lines_per_slot : (tid % per_line) * Vec;
    }
    static __device__ __forceinline__ int k_offset(int tid, int s) {
        return AlongK ? (tid % per_line) * Vec : tid / per_line + s * lines_per_slot;
    }

    __device__ __forceinline__ void init(const uint16_t* base_, int64_t stride_mn_, int64_t stride_k_,
                                         int64_t rows_total_, int64_t k_total_, int64_t row0_, int64_t k0_, int tid) {
        base = base_;
        row0 = row0_;
        rows_total = rows_total_;
        k0 = k0_;
        k_total = k_total_;
        stride_mn = stride_mn_;
        stride_k = stride_k_;
        ptr = base + (row0 + row_offset(tid, 0)) * stride_mn + (k0 + k_offset(tid, 0)) * stride_k;
    }

    __device__ __forceinline__ void advance() {
        k0 += block_k;
        ptr += block_k * stride_k;
    }

    __device__ __forceinline__ void load(int tid) {
        if constexpr (fast) {
            const int64_t slot_step = static_cast<int64_t>(lines_per_slot) * (AlongK ? stride_mn : stride_k);
            const int64_t rows_left = rows_total - row0;
            const int64_t k_left = k_total - k0;
            // A tile wholly inside the operand (a branch the whole block takes): no edge checks.
            if (rows_left >= Rows && k_left >= block_k) {
#pragma unroll
                for (int s = 0; s < slots; ++s) {
                    if (!used(tid, s)) break;
                    const auto x = *reinterpret_cast<const gemm_vector<uint16_t, Vec>*>(ptr + s * slot_step);
#pragma unroll
                    for (int e = 0; e < Vec; ++e) v[s][e] = x.v[e];
                }
                return;
            }
#pragma unroll
            for (int s = 0; s < slots; ++s) {
                if (!used(tid, s)) break;
                const uint16_t* const src = ptr + s * slot_step;
                const int64_t r_room = rows_left - row_offset(tid, s);
                const int64_t k_room = k_left - k_offset(tid, s);
                const bool full = AlongK ? (r_room > 0 && k_room >= Vec) : (k_room > 0 && r_room >= Vec);
                if (full) {
                    const auto x = *reinterpret_cast<const gemm_vector<uint16_t, Vec>*>(src);
#pragma unroll
                    for (int e = 0; e < Vec; ++e) v[s][e] = x.v[e];
                } else {
#pragma unroll
                    for (int e = 0; e < Vec; ++e) {
                        const bool valid = AlongK ? (r_room > 0 && k_room > e) : (k_room > 0 && r_room > e);
                        v[s][e] = valid ? src[AlongK ? e * stride_k : e * stride_mn] : static_cast<uint16_t>(0);
                    }
                }
            }
        }
    }

    __device__ __forceinline__ void store(uint16_t (*lds)[lds_row], int tid) const {
        if constexpr (fast) {
#pragma unroll
            for (int s = 0; s < slots; ++s) {
                if (!used(tid, s)) break;
                const int r = row_offset(tid, s);
                const int k = k_offset(tid, s);
                if constexpr (AlongK) {
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
    const int warp_row = (warp / gemm_warps_n) * warp_m;
    const int warp_col = (warp % gemm_warps_n) * warp_n;
    int64_t block_row, block_col;
    gemm_tile_origin(p, block_row, block_col);
    const int64_t batch = static_cast<int64_t>(blockIdx.y);
    int64_t k_begin;
    int k_tiles;
    gemm_k_range(p, split_k, k_begin, k_tiles);
    const uint16_t* const x_base = t.X + p.x_offset + batch * p.x_stride_b;
    const uint16_t* const w_base = t.W + p.w_offset + batch * p.w_stride_b;
    gemm_float16 acc[mfma_tiles_m][mfma_tiles_n];
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

#if defined(ROCMTPL_PLATFORM_NVIDIA)
#define ROCMTPL_GEMM_LAUNCH_BOUNDS __launch_bounds__(block_threads, 1)
#else
#define ROCMTPL_GEMM_LAUNCH_BOUNDS __launch_bounds__(block_threads)
#endif
template <int VecA, int VecB>
__device__ __forceinline__ void gemm_kernel_body(const uint16_t* __restrict__ X, const uint16_t* __restrict__ W, const float* __restrict__ E0, const uint16_t* __restrict__ E1, uint16_t* __restrict__ Y, int64_t u_M) {
    const gemm_problem p = make_problem(u_M);
    const gemm_pointers t{X, W, Y, nullptr, rocmtpl_epilogue_make(E0, E1, u_M)};
    gemm_mainloop<VecA, VecB>(p, t, 1);
}

// Overflow-checked size products (host): false when the exact result does not fit.
#if !defined(ROCMTPL_DEVICE_ONLY)
[[maybe_unused]] inline bool rocmtpl_checked_mul(int64_t a, int64_t b, int64_t& out) { return !__builtin_mul_overflow(a, b, &out); }
[[maybe_unused]] inline bool rocmtpl_checked_bytes(int64_t count, int64_t factor, size_t element_size, size_t& out) {
    size_t n = 0;
    return count >= 0 && factor >= 0 &&
           !__builtin_mul_overflow(static_cast<size_t>(count), static_cast<size_t>(factor), &n) &&
           !__builtin_mul_overflow(n, element_size, &out);
}
// Ceiling division of a non-negative size that cannot wrap (a + b - 1 could).
[[maybe_unused]] inline int64_t rocmtpl_cdiv(int64_t a, int64_t b) { return a / b + (a % b != 0 ? 1 : 0); }
#endif  // !ROCMTPL_DEVICE_ONLY
#if !defined(ROCMTPL_DEVICE_ONLY)
[[maybe_unused]] static inline int64_t rocmtpl_launch_min(int64_t a, int64_t b) { return a < b ? a : b; }
#if defined(ROCMTPL_PLATFORM_NVIDIA)
// Raises a kernel's dynamic shared-memory limit (an attribute of the kernel on each device) once
// per device: `raised` holds a bit per device (an atomic the launch lines keep), set after the
// attribute is. Threads that find the bit clear at the same time all set the attribute (the same
// value: harmless); devices past 63 set it on every launch.
template <class Bits>
static inline bool rocmtpl_raise_shared_limit(const void* kernel, int bytes, Bits& raised) {
    int device = 0;
    if (hipGetDevice(&device) != hipSuccess) return false;
    const uint64_t bit = device >= 0 && device < 64 ? uint64_t{1} << device : uint64_t{0};
    if (bit != 0 && (raised.load() & bit) != 0) return true;
    if (hipFuncSetAttribute(kernel, hipFuncAttributeMaxDynamicSharedMemorySize, bytes) != hipSuccess) return false;
    raised.fetch_or(bit);
    return true;
}
#endif
#endif

}  // namespace

extern "C" __global__ void ROCMTPL_GEMM_LAUNCH_BOUNDS ROCMTPL_KERNEL_SYMBOL(v8_8)(const uint16_t* __restrict__ X, const uint16_t* __restrict__ W, const float* __restrict__ E0, const uint16_t* __restrict__ E1, uint16_t* __restrict__ Y, int64_t u_M) {
    gemm_kernel_body<8, 8>(X, W, E0, E1, Y, u_M);
}

#if !defined(ROCMTPL_DEVICE_ONLY)
extern "C" PT_EXPORT int rocm_fused_gemm_pointwise_0(const uint16_t* X, const uint16_t* W, const float* E0, const uint16_t* E1, uint16_t* Y, int64_t u_M, size_t* workspace_size, uint8_t* workspace, hipStream_t stream) {
    if (u_M < 0) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;
    constexpr int32_t split_k = 1;
    const gemm_problem p = make_problem(u_M);
    int64_t rocmtpl_elements = 0;
    if (!rocmtpl_checked_mul(p.batch, p.m_size, rocmtpl_elements) ||
        !rocmtpl_checked_mul(rocmtpl_elements, p.n_size, rocmtpl_elements)) {
        return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;
    }
    bool rocmtpl_ws_ok = true;
    const int64_t rocmtpl_workspace_bytes = 0;
    if (!rocmtpl_ws_ok || rocmtpl_workspace_bytes < 0) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;
    if (workspace_size) {
        *workspace_size = static_cast<size_t>(rocmtpl_workspace_bytes);
        return ROCMTPL_STATUS_OK;
    }
    {
        bool rocmtpl_ok = true;
        const int64_t rocmtpl_numel = rocmtpl_size_mul(128, u_M, &rocmtpl_ok);
        if (!rocmtpl_ok) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;
        if (!X && rocmtpl_numel > 0) return ROCMTPL_STATUS_NULL_ARGUMENT;
    }
    if (!W) return ROCMTPL_STATUS_NULL_ARGUMENT;
    {
        bool rocmtpl_ok = true;
        const int64_t rocmtpl_numel = rocmtpl_size_mul(256, u_M, &rocmtpl_ok);
        if (!rocmtpl_ok) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;
        if (!Y && rocmtpl_numel > 0) return ROCMTPL_STATUS_NULL_ARGUMENT;
    }
    if (!E0) return ROCMTPL_STATUS_NULL_ARGUMENT;
    {
        bool rocmtpl_ok = true;
        const int64_t rocmtpl_numel = rocmtpl_size_mul(256, u_M, &rocmtpl_ok);
        if (!rocmtpl_ok) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;
        if (!E1 && rocmtpl_numel > 0) return ROCMTPL_STATUS_NULL_ARGUMENT;
    }
    if (p.m_size == 0 || p.n_size == 0 || p.batch == 0) return ROCMTPL_STATUS_OK;
    if (rocmtpl_workspace_bytes > 0 && workspace == nullptr) return ROCMTPL_STATUS_WORKSPACE_TOO_SMALL;
    if ((reinterpret_cast<uintptr_t>(X) % 16 == 0) && (reinterpret_cast<uintptr_t>(W) % 16 == 0)) {
        {
            bool rocmtpl_grid_0_ok = true;
            const int64_t rocmtpl_grid_0_x = rocmtpl_size_mul(4, rocmtpl_size_floordiv(rocmtpl_size_add(u_M, 63, &rocmtpl_grid_0_ok), 64, &rocmtpl_grid_0_ok), &rocmtpl_grid_0_ok);
            const int64_t rocmtpl_grid_0_y = 1;
            const int64_t rocmtpl_grid_0_z = 1;
            if (!rocmtpl_grid_0_ok || rocmtpl_grid_0_x > 2147483647 || rocmtpl_grid_0_y > 65535 || rocmtpl_grid_0_z > 65535) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;
            if (rocmtpl_grid_0_x > 0 && rocmtpl_grid_0_y > 0 && rocmtpl_grid_0_z > 0) {
                #if defined(ROCMTPL_PLATFORM_AMD)
                hipLaunchKernelGGL(ROCMTPL_KERNEL_SYMBOL(v8_8), dim3(static_cast<unsigned>(rocmtpl_grid_0_x), static_cast<unsigned>(rocmtpl_grid_0_y), static_cast<unsigned>(rocmtpl_grid_0_z)), dim3(256, 1, 1), 0, stream, X, W, E0, E1, Y, u_M);
                #else
                hipLaunchKernelGGL(ROCMTPL_KERNEL_SYMBOL(v8_8), dim3(static_cast<unsigned>(rocmtpl_grid_0_x), static_cast<unsigned>(rocmtpl_grid_0_y), static_cast<unsigned>(rocmtpl_grid_0_z)), dim3(128, 1, 1), 24576, stream, X, W, E0, E1, Y, u_M);
                #endif
                if (hipGetLastError() != hipSuccess) return ROCMTPL_STATUS_LAUNCH_FAILED;
            }
        }
    } else {
        return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;
    }
    return ROCMTPL_STATUS_OK;
}
// The uniform entry: args[i] points to parameter i's value (a tensor's address as a void*).
extern "C" PT_EXPORT int rocm_fused_gemm_pointwise_0_packed(void* const* args, size_t* workspace_size, uint8_t* workspace, void* stream) {
    return rocm_fused_gemm_pointwise_0(static_cast<const uint16_t*>(*static_cast<void* const*>(args[0])),
        static_cast<const uint16_t*>(*static_cast<void* const*>(args[1])),
        static_cast<const float*>(*static_cast<void* const*>(args[2])),
        static_cast<const uint16_t*>(*static_cast<void* const*>(args[3])),
        static_cast<uint16_t*>(*static_cast<void* const*>(args[4])),
        *static_cast<const int64_t*>(args[5]),
        workspace_size, workspace, static_cast<hipStream_t>(stream));
}
// The entry's declaration, for loaders that check a library they did not render.
extern "C" PT_EXPORT const char* rocm_fused_gemm_pointwise_0_signature(void) { return "int rocm_fused_gemm_pointwise_0(const uint16_t* X, const uint16_t* W, const float* E0, const uint16_t* E1, uint16_t* Y, int64_t u_M, size_t* workspace_size, uint8_t* workspace, hipStream_t stream)"; }
#endif  // !ROCMTPL_DEVICE_ONLY
#undef ROCMTPL_KERNEL_SYMBOL
