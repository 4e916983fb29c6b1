#include "rocmtpl_hip_portable.h"
#include <cstddef>
#include <cstdint>
#if defined(ROCMTPL_PLATFORM_NVIDIA)
#include <cuda.h>
#include <atomic>
#endif
#if defined(ROCMTPL_PLATFORM_NVIDIA)
#include <atomic>
#endif

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
// gemm wgmma_bm128_bn256_bk64_wm64_wn256_g8_s4_v8: Y = relu(X @ W + Bias)
// x float16[4096, 4096] strides [4096, 1] offset 0
// w float16[4096, 4096] strides [4096, 1] offset 0
// bias float16[4096] strides [1] offset 0
// buf_out float16[4096, 4096] strides [4096, 1] offset 0
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
using bias_type = gemm_dtype<1>;
using y_type = gemm_dtype<1>;
[[maybe_unused]] constexpr int x_kind = 1;

__device__ __forceinline__ float apply_activation(float v) { return v > 0.0f ? v : 0.0f; }

// Sizes, strides (0 where a tensor broadcasts) and offsets, in elements.
struct gemm_problem {
    int64_t m_size, n_size, k_size, batch;
    int64_t x_stride_b, x_stride_m, x_stride_k, x_offset;
    int64_t w_stride_b, w_stride_k, w_stride_n, w_offset;
    int64_t bias_stride_b, bias_stride_m, bias_stride_n, bias_offset;
    int64_t y_stride_b, y_stride_m, y_stride_n, y_offset;
};

__host__ __device__ __forceinline__ gemm_problem make_problem() {
    gemm_problem problem_{};
    problem_.m_size = 4096;
    problem_.n_size = 4096;
    problem_.k_size = 4096;
    problem_.batch = 1;
    problem_.x_stride_b = 0;
    problem_.x_stride_m = 4096;
    problem_.x_stride_k = 1;
    problem_.x_offset = 0;
    problem_.w_stride_b = 0;
    problem_.w_stride_k = 4096;
    problem_.w_stride_n = 1;
    problem_.w_offset = 0;
    problem_.bias_stride_b = 0;
    problem_.bias_stride_m = 0;
    problem_.bias_stride_n = 1;
    problem_.bias_offset = 0;
    problem_.y_stride_b = 0;
    problem_.y_stride_m = 4096;
    problem_.y_stride_n = 1;
    problem_.y_offset = 0;
    return problem_;
}

struct gemm_pointers {
    const x_type::storage* X;
    const w_type::storage* W;
    const bias_type::storage* Bias;
    y_type::storage* Y;
    float* Partial;  // split-K slices
};

[[maybe_unused]] constexpr int block_m = 128;
[[maybe_unused]] constexpr int block_n = 256;
[[maybe_unused]] constexpr int block_k = 64;
[[maybe_unused]] constexpr int warp_m = 64;
[[maybe_unused]] constexpr int warp_n = 256;
[[maybe_unused]] constexpr int tile_consumers = 2;
[[maybe_unused]] constexpr int gemm_sm90_stream_k = 0;
[[maybe_unused]] constexpr int group_m = 8;
[[maybe_unused]] constexpr int stages = 4;
[[maybe_unused]] constexpr int gemm_dynamic_shared = 216144;
[[maybe_unused]] constexpr int y_kind = 1;
[[maybe_unused]] constexpr int gemm_sm90_bias_mode = 1;
[[maybe_unused]] constexpr float gemm_sm90_alpha = 1.0f;
[[maybe_unused]] constexpr float gemm_sm90_beta = 1.0f;
#define ROCMTPL_GEMM_SM90_HAS_BIAS 1
#define ROCMTPL_GEMM_SM90_HAS_RESIDUAL 0
#define ROCMTPL_GEMM_SM90_HAS_EPILOGUE 0

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

// ---- Hopper path (sm_90a): TMA + wgmma warpgroups ----
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
// D[64 x 256] (+)= A[64 x 16] * B[16 x 256], f16, A K-major, B N-major (both 128-byte swizzled).
__device__ __forceinline__ void gemm_sm90_wgmma(float (&d)[128], uint64_t desc_a, uint64_t desc_b, int scale_d) {
    asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %130, 0;\n"
                 "wgmma.mma_async.sync.aligned.m64n256k16.f32.f16.f16 "
                 "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, %64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, %80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, %96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, %112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, %128, %129, p, 1, 1, 0, 1;\n}\n"
                 : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63]), "+f"(d[64]), "+f"(d[65]), "+f"(d[66]), "+f"(d[67]), "+f"(d[68]), "+f"(d[69]), "+f"(d[70]), "+f"(d[71]), "+f"(d[72]), "+f"(d[73]), "+f"(d[74]), "+f"(d[75]), "+f"(d[76]), "+f"(d[77]), "+f"(d[78]), "+f"(d[79]), "+f"(d[80]), "+f"(d[81]), "+f"(d[82]), "+f"(d[83]), "+f"(d[84]), "+f"(d[85]), "+f"(d[86]), "+f"(d[87]), "+f"(d[88]), "+f"(d[89]), "+f"(d[90]), "+f"(d[91]), "+f"(d[92]), "+f"(d[93]), "+f"(d[94]), "+f"(d[95]), "+f"(d[96]), "+f"(d[97]), "+f"(d[98]), "+f"(d[99]), "+f"(d[100]), "+f"(d[101]), "+f"(d[102]), "+f"(d[103]), "+f"(d[104]), "+f"(d[105]), "+f"(d[106]), "+f"(d[107]), "+f"(d[108]), "+f"(d[109]), "+f"(d[110]), "+f"(d[111]), "+f"(d[112]), "+f"(d[113]), "+f"(d[114]), "+f"(d[115]), "+f"(d[116]), "+f"(d[117]), "+f"(d[118]), "+f"(d[119]), "+f"(d[120]), "+f"(d[121]), "+f"(d[122]), "+f"(d[123]), "+f"(d[124]), "+f"(d[125]), "+f"(d[126]), "+f"(d[127])
                 : "l"(desc_a), "l"(desc_b), "r"(scale_d));
}
// Tile t of the static schedule -> (m block, n block), group-M rasterized.
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

#if !defined(ROCMTPL_DEVICE_ONLY)
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

#if defined(ROCMTPL_PLATFORM_NVIDIA)
extern "C" __global__ void __launch_bounds__(gemm_sm90::threads, 1) ROCMTPL_KERNEL_SYMBOL(sm90)(const __grid_constant__ CUtensorMap map_X, const __grid_constant__ CUtensorMap map_W, const uint16_t* __restrict__ X, const uint16_t* __restrict__ W, const uint16_t* __restrict__ Bias, uint16_t* __restrict__ Y) {
#if defined(ROCMTPL_GEMM_SM90_DEVICE)
    const gemm_problem p = make_problem();
    const gemm_pointers t{X, W, Bias, Y, nullptr};
    gemm_sm90::mainloop(&map_X, &map_W, p, t, 1);
#elif defined(__CUDA_ARCH__)
    __trap();  // built without sm_90a features: the entry refuses other devices
#endif
}
#endif  // ROCMTPL_PLATFORM_NVIDIA

#if !defined(ROCMTPL_DEVICE_ONLY)
extern "C" PT_EXPORT int rocm_gemm(const uint16_t* X, const uint16_t* W, const uint16_t* Bias, uint16_t* Y, size_t* workspace_size, uint8_t* workspace, hipStream_t stream) {
    const gemm_problem p = make_problem();
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
    if (!X) return ROCMTPL_STATUS_NULL_ARGUMENT;
    if (!W) return ROCMTPL_STATUS_NULL_ARGUMENT;
    if (!Bias) return ROCMTPL_STATUS_NULL_ARGUMENT;
    if (!Y) return ROCMTPL_STATUS_NULL_ARGUMENT;
    if (p.m_size == 0 || p.n_size == 0 || p.batch == 0) return ROCMTPL_STATUS_OK;
    #if defined(ROCMTPL_PLATFORM_NVIDIA)
    if (rocmtpl_workspace_bytes > 0 && workspace == nullptr) return ROCMTPL_STATUS_WORKSPACE_TOO_SMALL;
    const int64_t rocmtpl_sms = rocmtpl_sm_count();
    if (rocmtpl_sms <= 0) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;
    if ((reinterpret_cast<uintptr_t>(X) % 16 == 0) && (reinterpret_cast<uintptr_t>(W) % 16 == 0) && (reinterpret_cast<uintptr_t>(Y) % 16 == 0)) {
        {
            bool rocmtpl_grid_0_ok = true;
            const int64_t rocmtpl_grid_0_x = rocmtpl_launch_min(512, rocmtpl_sms);
            const int64_t rocmtpl_grid_0_y = 1;
            const int64_t rocmtpl_grid_0_z = 1;
            if (!rocmtpl_grid_0_ok || rocmtpl_grid_0_x > 2147483647 || rocmtpl_grid_0_y > 65535 || rocmtpl_grid_0_z > 65535) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;
            if (rocmtpl_grid_0_x > 0 && rocmtpl_grid_0_y > 0 && rocmtpl_grid_0_z > 0) {
                CUtensorMap rocmtpl_map_0_0{};
                if (!rocmtpl_make_tensor_map(rocmtpl_map_0_0, 0, X, 4096, 4096, 4096, 128, 64)) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;
                CUtensorMap rocmtpl_map_0_1{};
                if (!rocmtpl_make_tensor_map(rocmtpl_map_0_1, 0, W, 4096, 4096, 4096, 64, 64)) return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;
                #if defined(ROCMTPL_PLATFORM_NVIDIA)
                static std::atomic<uint64_t> rocmtpl_shared_raised{0};  // a bit per device
                if (!rocmtpl_raise_shared_limit(reinterpret_cast<const void*>(&ROCMTPL_KERNEL_SYMBOL(sm90)), 216144, rocmtpl_shared_raised)) return ROCMTPL_STATUS_LAUNCH_FAILED;
                #endif
                hipLaunchKernelGGL(ROCMTPL_KERNEL_SYMBOL(sm90), dim3(static_cast<unsigned>(rocmtpl_grid_0_x), static_cast<unsigned>(rocmtpl_grid_0_y), static_cast<unsigned>(rocmtpl_grid_0_z)), dim3(384, 1, 1), 216144, stream, rocmtpl_map_0_0, rocmtpl_map_0_1, X, W, Bias, Y);
                if (hipGetLastError() != hipSuccess) return ROCMTPL_STATUS_LAUNCH_FAILED;
            }
        }
    } else {
        return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;
    }
    return ROCMTPL_STATUS_OK;
    #else
    (void)workspace;
    (void)stream;
    return ROCMTPL_STATUS_UNSUPPORTED_ARGUMENT;  // the Hopper path exists on NVIDIA only
    #endif
}
// The uniform entry: args[i] points to parameter i's value (a tensor's address as a void*).
extern "C" PT_EXPORT int rocm_gemm_packed(void* const* args, size_t* workspace_size, uint8_t* workspace, void* stream) {
    return rocm_gemm(static_cast<const uint16_t*>(*static_cast<void* const*>(args[0])),
        static_cast<const uint16_t*>(*static_cast<void* const*>(args[1])),
        static_cast<const uint16_t*>(*static_cast<void* const*>(args[2])),
        static_cast<uint16_t*>(*static_cast<void* const*>(args[3])),
        workspace_size, workspace, static_cast<hipStream_t>(stream));
}
// The entry's declaration, for loaders that check a library they did not render.
extern "C" PT_EXPORT const char* rocm_gemm_signature(void) { return "int rocm_gemm(const uint16_t* X, const uint16_t* W, const uint16_t* Bias, uint16_t* Y, size_t* workspace_size, uint8_t* workspace, hipStream_t stream)"; }
#endif  // !ROCMTPL_DEVICE_ONLY
#undef ROCMTPL_KERNEL_SYMBOL
