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

#define ROCMTPL_KERNEL_SYMBOL(suffix) rocm_gemm_##suffix
// gemm bm64_bn64_bk16_tm4_tn4_g8_s2_v4: Y = none(X @ W)
// x float32[M, 64] strides [64, 1] offset 0
// w float32[64, N] strides [N, 1] offset 0
// buf_out float32[M, N] strides [ldy, 1] offset 0
namespace {

// Operand storage and conversions: 0 fp32, 1 fp16 (raw bits), 2 bf16 (raw bits).
template <int Kind>
struct gemm_dtype;
template <>
struct gemm_dtype<0> {
    using storage = float;
    static __device__ __forceinline__ float to_float(float v) { return v; }
    static __device__ __forceinline__ float from_float(float v) { return v; }
};
// Vec elements of T read or written as one access (16 bytes at most).
template <class T, int Vec>
struct alignas(sizeof(T) * Vec) gemm_vector {
    T v[Vec];
};

using x_type = gemm_dtype<0>;
using w_type = gemm_dtype<0>;
using y_type = gemm_dtype<0>;
[[maybe_unused]] constexpr int x_kind = 0;

__device__ __forceinline__ float apply_activation(float v) { return v; }

// Sizes, strides (0 where a tensor broadcasts) and offsets, in elements.
struct gemm_problem {
    int64_t m_size, n_size, k_size, batch;
    int64_t x_stride_b, x_stride_m, x_stride_k, x_offset;
    int64_t w_stride_b, w_stride_k, w_stride_n, w_offset;
    int64_t y_stride_b, y_stride_m, y_stride_n, y_offset;
};

__host__ __device__ __forceinline__ gemm_problem make_problem(int64_t u_M, int64_t u_N, int64_t u_ldy) {
    gemm_problem problem_{};
    problem_.m_size = u_M;
    problem_.n_size = u_N;
    problem_.k_size = 64;
    problem_.batch = 1;
    problem_.x_stride_b = 0;
    problem_.x_stride_m = 64;
    problem_.x_stride_k = 1;
    problem_.x_offset = 0;
    problem_.w_stride_b = 0;
    problem_.w_stride_k = u_N;
    problem_.w_stride_n = 1;
    problem_.w_offset = 0;
    problem_.y_stride_b = 0;
    problem_.y_stride_m = u_ldy;
    problem_.y_stride_n = 1;
    problem_.y_offset = 0;
    return problem_;
}

struct gemm_pointers {
    const x_type::storage* X;
    const w_type::storage* W;
    y_type::storage* Y;
    float* Partial;  // split-K slices
};

// The fused epilogue of one output element.
__device__ __forceinline__ void store_output(const gemm_problem& p, const gemm_pointers& t, int64_t batch,
                                             int64_t gm, int64_t gn, float acc) {
    float v = acc;
    v = apply_activation(v);
    t.Y[p.y_offset + batch * p.y_stride_b + gm * p.y_stride_m + gn * p.y_stride_n] = y_type::from_float(v);
}

constexpr int block_m = 64;
constexpr int block_n = 64;
constexpr int block_k = 16;
constexpr int thread_m = 4;
constexpr int thread_n = 4;
[[maybe_unused]] constexpr bool simt_prefetch = true;
constexpr int group_m = 8;
[[maybe_unused]] constexpr int stages = 2;
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

// ---- SIMT: fp32 FMA. thread_m x thread_n outputs per thread, in 4 x 4 quads spread over the
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
    static constexpr bool fast = Vec > 1;
    static constexpr int per_line = (along_k ? block_k : Rows) / Vec;
    static constexpr int total = (along_k ? Rows : block_k) * per_line;
    static constexpr int slots = fast ? (total + block_threads - 1) / block_threads : 1;
    static constexpr int lines_per_slot = block_threads / per_line > 0 ? block_threads / per_line : 1;
    static_assert(slots > 0 && lines_per_slot > 0, "rocmtpl: gemm: empty tile");
    static_assert(!fast || block_threads % per_line == 0, "rocmtpl: gemm: block threads must cover whole tile lines");
    float v[slots][Vec];
    const T* base;
    const T* ptr;  // fast: slot 0's first element in the tile being loaded
    int64_t row0, rows_total, k0, k_total, stride_mn, stride_k;

    static __device__ __forceinline__ bool used(int tid, int s) {
        return total % block_threads == 0 || tid + s * block_threads < total;
    }
    // Row (M/N) and K offsets of slot s inside the tile.
    static __device__ __forceinline__ int row_offset(int tid, int s) {
        return along_k ? tid / per_line + s * lines_per_slot : (tid % per_line) * Vec;
    }
    static __device__ __forceinline__ int k_offset(int tid, int s) {
        return along_k ? (tid % per_line) * Vec : tid / per_line + s * lines_per_slot;
    }

    __device__ __forceinline__ void init(const T* base_, int64_t stride_mn_, int64_t stride_k_, int64_t rows_total_,
                                         int64_t k_total_, int64_t row0_, int64_t k0_, int tid) {
        base = base_;
        row0 = row0_;
        rows_total = rows_total_;
        k0 = k0_;
        k_total = k_total_;
        stride_mn = stride_mn_;
        stride_k = stride_k_;
        ptr = base + (row0 + row_offset(tid, 0)) * stride_mn + (k0 + k_offset(tid, 0)) * stride_k;
    }

    // Moves to the next K tile.
    __device__ __forceinline__ void advance() {
        k0 += block_k;
        ptr += block_k * stride_k;
    }

    __device__ __forceinline__ void load(int tid) {
        if constexpr (fast) {
            const int64_t slot_step = static_cast<int64_t>(lines_per_slot) * (along_k ? stride_mn : stride_k);
            const int64_t rows_left = rows_total - row0;
            const int64_t k_left = k_total - k0;
            // A tile wholly inside the operand (a branch the whole block takes): no edge checks.
            if (rows_left >= Rows && k_left >= block_k) {
#pragma unroll
                for (int s = 0; s < slots; ++s) {
                    if (!used(tid, s)) break;
                    const auto x = *reinterpret_cast<const gemm_vector<T, Vec>*>(ptr + s * slot_step);
#pragma unroll
                    for (int e = 0; e < Vec; ++e) v[s][e] = D::to_float(x.v[e]);
                }
                return;
            }
#pragma unroll
            for (int s = 0; s < slots; ++s) {
                if (!used(tid, s)) break;
                const T* const src = ptr + s * slot_step;
                const int64_t r_room = rows_left - row_offset(tid, s);
                const int64_t k_room = k_left - k_offset(tid, s);
                const bool full = along_k ? (r_room > 0 && k_room >= Vec) : (k_room > 0 && r_room >= Vec);
                if (full) {
                    const auto x = *reinterpret_cast<const gemm_vector<T, Vec>*>(src);
#pragma unroll
                    for (int e = 0; e < Vec; ++e) v[s][e] = D::to_float(x.v[e]);
                } else {
#pragma unroll
                    for (int e = 0; e < Vec; ++e) {
                        const bool valid = along_k ? (r_room > 0 && k_room > e) : (k_room > 0 && r_room > e);
                        v[s][e] = valid ? D::to_float(src[along_k ? e * stride_k : e * stride_mn]) : 0.0f;
                    }
                }
            }
        }
    }

    // tile: [block_k][Rows + smem_pad]
    __device__ __forceinline__ void store(float (*tile)[Rows + smem_pad], int tid) const {
        if constexpr (fast) {
#pragma unroll
            for (int s = 0; s < slots; ++s) {
                if (!used(tid, s)) break;
                const int r = row_offset(tid, s);
                const int k = k_offset(tid, s);
#pragma unroll
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
    int64_t block_row, block_col;
    gemm_tile_origin(p, block_row, block_col);
    const int64_t batch = static_cast<int64_t>(blockIdx.y);
    int64_t k_begin;
    int k_tiles;
    gemm_k_range(p, split_k, k_begin, k_tiles);
    const typename x_type::storage* const x_base = t.X + p.x_offset + batch * p.x_stride_b;
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

#if defined(ROCMTPL_PLATFORM_NVIDIA)
#define ROCMTPL_GEMM_LAUNCH_BOUNDS __launch_bounds__(block_threads, 2)
#else
#define ROCMTPL_GEMM_LAUNCH_BOUNDS __launch_bounds__(block_threads)
#endif
template <int VecA, int VecB>
__device__ __forceinline__ void gemm_kernel_body(const float* __restrict__ X, const float* __restrict__ W, float* __restrict__ Y, int64_t u_M, int64_t u_N, int64_t u_ldy) {
    const gemm_problem p = make_problem(u_M, u_N, u_ldy);
    const gemm_pointers t{X, W, Y, nullptr};
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

extern "C" __global__ void ROCMTPL_GEMM_LAUNCH_BOUNDS ROCMTPL_KERNEL_SYMBOL(v4_4)(const float* __restrict__ X, const float* __restrict__ W, float* __restrict__ Y, int64_t u_M, int64_t u_N, int64_t u_ldy) {
    gemm_kernel_body<4, 4>(X, W, Y, u_M, u_N, u_ldy);
}
extern "C" __global__ void ROCMTPL_GEMM_LAUNCH_BOUNDS ROCMTPL_KERNEL_SYMBOL(v1_1)(const float* __restrict__ X, const float* __restrict__ W, float* __restrict__ Y, int64_t u_M, int64_t u_N, int64_t u_ldy) {
    gemm_kernel_body<1, 1>(X, W, Y, u_M, u_N, u_ldy);
}

#if !defined(ROCMTPL_DEVICE_ONLY)
extern "C" PT_EXPORT int rocm_gemm(const float* X, const float* W, float* Y, int64_t u_M, int64_t u_N, int64_t u_ldy, size_t* workspace_size, uint8_t* workspace, hipStream_t stream) {
    if (u_M < 0) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;
    if (u_N < 0) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;
    if (u_ldy < 0) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;
    constexpr int32_t split_k = 1;
    const gemm_problem p = make_problem(u_M, u_N, u_ldy);
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
        const int64_t rocmtpl_numel = rocmtpl_size_mul(64, u_M, &rocmtpl_ok);
        if (!rocmtpl_ok) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;
        if (!X && rocmtpl_numel > 0) return ROCMTPL_STATUS_NULL_ARGUMENT;
    }
    {
        bool rocmtpl_ok = true;
        const int64_t rocmtpl_numel = rocmtpl_size_mul(64, u_N, &rocmtpl_ok);
        if (!rocmtpl_ok) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;
        if (!W && rocmtpl_numel > 0) return ROCMTPL_STATUS_NULL_ARGUMENT;
    }
    {
        bool rocmtpl_ok = true;
        const int64_t rocmtpl_numel = rocmtpl_size_mul(u_M, u_N, &rocmtpl_ok);
        if (rocmtpl_numel > 0) {
            (void)rocmtpl_size_add(rocmtpl_size_sub(u_N, u_ldy, &rocmtpl_ok), rocmtpl_size_mul(u_M, u_ldy, &rocmtpl_ok), &rocmtpl_ok);
            if (u_M > 1 && u_ldy <= 0) rocmtpl_ok = false;
            {  // no two indices address one element: by stride, each at least the previous stride * size
                const int64_t rocmtpl_sizes[2] = {u_M, u_N};
                const int64_t rocmtpl_strides[2] = {u_ldy, 1};
                bool rocmtpl_taken[2] = {};
                int64_t rocmtpl_extent = 1;
                for (int rocmtpl_i = 0; rocmtpl_i < 2 && rocmtpl_ok; ++rocmtpl_i) {
                    int rocmtpl_next = -1;
                    for (int rocmtpl_j = 0; rocmtpl_j < 2; ++rocmtpl_j) {
                        if (!rocmtpl_taken[rocmtpl_j] && rocmtpl_sizes[rocmtpl_j] > 1 &&
                            (rocmtpl_next < 0 || rocmtpl_strides[rocmtpl_j] < rocmtpl_strides[rocmtpl_next])) {
                            rocmtpl_next = rocmtpl_j;
                        }
                    }
                    if (rocmtpl_next < 0) break;
                    rocmtpl_taken[rocmtpl_next] = true;
                    if (rocmtpl_strides[rocmtpl_next] < rocmtpl_extent) rocmtpl_ok = false;
                    rocmtpl_extent = rocmtpl_size_mul(rocmtpl_strides[rocmtpl_next], rocmtpl_sizes[rocmtpl_next], &rocmtpl_ok);
                }
            }
        }
        if (!rocmtpl_ok) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;
        if (!Y && rocmtpl_numel > 0) return ROCMTPL_STATUS_NULL_ARGUMENT;
    }
    if (p.m_size == 0 || p.n_size == 0 || p.batch == 0) return ROCMTPL_STATUS_OK;
    if (rocmtpl_workspace_bytes > 0 && workspace == nullptr) return ROCMTPL_STATUS_WORKSPACE_TOO_SMALL;
    if ((reinterpret_cast<uintptr_t>(X) % 16 == 0) && (reinterpret_cast<uintptr_t>(W) % 16 == 0) && (rocmtpl_mod(u_N, 4) == 0)) {
        {
            bool rocmtpl_grid_0_ok = true;
            const int64_t rocmtpl_grid_0_x = rocmtpl_size_mul(rocmtpl_size_floordiv(rocmtpl_size_add(u_M, 63, &rocmtpl_grid_0_ok), 64, &rocmtpl_grid_0_ok), rocmtpl_size_floordiv(rocmtpl_size_add(u_N, 63, &rocmtpl_grid_0_ok), 64, &rocmtpl_grid_0_ok), &rocmtpl_grid_0_ok);
            const int64_t rocmtpl_grid_0_y = 1;
            const int64_t rocmtpl_grid_0_z = 1;
            if (!rocmtpl_grid_0_ok || rocmtpl_grid_0_x > 2147483647 || rocmtpl_grid_0_y > 65535 || rocmtpl_grid_0_z > 65535) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;
            if (rocmtpl_grid_0_x > 0 && rocmtpl_grid_0_y > 0 && rocmtpl_grid_0_z > 0) {
                hipLaunchKernelGGL(ROCMTPL_KERNEL_SYMBOL(v4_4), dim3(static_cast<unsigned>(rocmtpl_grid_0_x), static_cast<unsigned>(rocmtpl_grid_0_y), static_cast<unsigned>(rocmtpl_grid_0_z)), dim3(256, 1, 1), 17408, stream, X, W, Y, u_M, u_N, u_ldy);
                if (hipGetLastError() != hipSuccess) return ROCMTPL_STATUS_LAUNCH_FAILED;
            }
        }
    } else {
        {
            bool rocmtpl_grid_0_ok = true;
            const int64_t rocmtpl_grid_0_x = rocmtpl_size_mul(rocmtpl_size_floordiv(rocmtpl_size_add(u_M, 63, &rocmtpl_grid_0_ok), 64, &rocmtpl_grid_0_ok), rocmtpl_size_floordiv(rocmtpl_size_add(u_N, 63, &rocmtpl_grid_0_ok), 64, &rocmtpl_grid_0_ok), &rocmtpl_grid_0_ok);
            const int64_t rocmtpl_grid_0_y = 1;
            const int64_t rocmtpl_grid_0_z = 1;
            if (!rocmtpl_grid_0_ok || rocmtpl_grid_0_x > 2147483647 || rocmtpl_grid_0_y > 65535 || rocmtpl_grid_0_z > 65535) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;
            if (rocmtpl_grid_0_x > 0 && rocmtpl_grid_0_y > 0 && rocmtpl_grid_0_z > 0) {
                hipLaunchKernelGGL(ROCMTPL_KERNEL_SYMBOL(v1_1), dim3(static_cast<unsigned>(rocmtpl_grid_0_x), static_cast<unsigned>(rocmtpl_grid_0_y), static_cast<unsigned>(rocmtpl_grid_0_z)), dim3(256, 1, 1), 17408, stream, X, W, Y, u_M, u_N, u_ldy);
                if (hipGetLastError() != hipSuccess) return ROCMTPL_STATUS_LAUNCH_FAILED;
            }
        }
    }
    return ROCMTPL_STATUS_OK;
}
// The uniform entry: args[i] points to parameter i's value (a tensor's address as a void*).
extern "C" PT_EXPORT int rocm_gemm_packed(void* const* args, size_t* workspace_size, uint8_t* workspace, void* stream) {
    return rocm_gemm(static_cast<const float*>(*static_cast<void* const*>(args[0])),
        static_cast<const float*>(*static_cast<void* const*>(args[1])),
        static_cast<float*>(*static_cast<void* const*>(args[2])),
        *static_cast<const int64_t*>(args[3]),
        *static_cast<const int64_t*>(args[4]),
        *static_cast<const int64_t*>(args[5]),
        workspace_size, workspace, static_cast<hipStream_t>(stream));
}
// The entry's declaration, for loaders that check a library they did not render.
extern "C" PT_EXPORT const char* rocm_gemm_signature(void) { return "int rocm_gemm(const float* X, const float* W, float* Y, int64_t u_M, int64_t u_N, int64_t u_ldy, size_t* workspace_size, uint8_t* workspace, hipStream_t stream)"; }
#endif  // !ROCMTPL_DEVICE_ONLY
#undef ROCMTPL_KERNEL_SYMBOL
