// SPDX-License-Identifier: MIT
// Hopper (sm_90a) fp16/bf16 GEMM: Y[M,N] = act(X[M,K] @ W[K,N] + bias[N]), X and W row-major.
//
// Main loop: a producer warpgroup (one thread) brings X and W tiles into a ring of shared-memory
// stages with the bulk tensor copy engine (TMA, 128-byte swizzle), completing on "full" mbarriers;
// two consumer warpgroups run wgmma.mma_async m64nNk16 (A = X tile, K-major; B = W tile, N-major
// through imm-trans-b) with fp32 accumulators in registers and hand each stage back on its "empty"
// mbarrier. Optional 2-CTA clusters along M share the W tile: each CTA loads half of it and
// multicasts it to both. Persistent grid, static tile schedule with group-M rasterization.
// Epilogue: bias along N, relu, cast, staged per warp through padded shared memory so that every
// global store is 16 bytes wide and each 8 lanes write one 128-byte row segment.
//
// Build: nvcc -gencode=arch=compute_90a,code=sm_90a -O3 -std=c++17 (see README in this folder).
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>

#include "wgmma_ops.cuh"

#ifndef HOPPER_WATCHDOG
#define HOPPER_WATCHDOG 1
#endif

namespace hopper {

// ---------------------------------------------------------------------------------------------
// PTX wrappers
// ---------------------------------------------------------------------------------------------
__device__ __forceinline__ uint32_t smem_addr(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}

__device__ __forceinline__ void mbar_init(uint32_t bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(bar), "r"(count) : "memory");
}

__device__ __forceinline__ void mbar_expect_tx(uint32_t bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes)
               : "memory");
}

__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
  uint32_t done = 0;
#if HOPPER_WATCHDOG
  uint32_t spins = 0;
#endif
  do {
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
#if HOPPER_WATCHDOG
    if (++spins == (1u << 30)) __trap();  // a lost arrival: fail instead of hanging
#endif
  } while (!done);
}

/// Arrive on the barrier at the same shared-memory offset in CTA `cta` of the cluster.
__device__ __forceinline__ void mbar_arrive_cluster(uint32_t bar, uint32_t cta) {
  uint32_t remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(bar), "r"(cta));
  asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" ::"r"(remote)
               : "memory");
}

__device__ __forceinline__ void mbar_arrive_local(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}

__device__ __forceinline__ void tma_load_2d(uint32_t dst, const CUtensorMap* map, uint32_t bar,
                                            int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4}], [%2];" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "r"(c0), "r"(c1)
      : "memory");
}

__device__ __forceinline__ void tma_load_2d_multicast(uint32_t dst, const CUtensorMap* map,
                                                      uint32_t bar, int c0, int c1,
                                                      uint16_t mask) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      ".multicast::cluster [%0], [%1, {%3, %4}], [%2], %5;" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "r"(c0), "r"(c1), "h"(mask)
      : "memory");
}

__device__ __forceinline__ uint32_t cluster_rank() {
  uint32_t r;
  asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
  return r;
}

__device__ __forceinline__ void cluster_sync() {
  asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;" ::: "memory");
}

template <uint32_t Regs>
__device__ __forceinline__ void regs_dec() {
  asm volatile("setmaxnreg.dec.sync.aligned.u32 %0;" ::"n"(Regs));
}
template <uint32_t Regs>
__device__ __forceinline__ void regs_inc() {
  asm volatile("setmaxnreg.inc.sync.aligned.u32 %0;" ::"n"(Regs));
}

__device__ __forceinline__ void wgmma_fence() {
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
}
__device__ __forceinline__ void wgmma_commit() {
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
}
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}

/// Shared-memory matrix descriptor, 128-byte swizzle (layout type 1 in bits 62-63).
__device__ __forceinline__ uint64_t make_desc(uint32_t addr, uint32_t lbo, uint32_t sbo) {
  return static_cast<uint64_t>((addr & 0x3FFFF) >> 4) |
         (static_cast<uint64_t>(lbo >> 4) << 16) | (static_cast<uint64_t>(sbo >> 4) << 32) |
         (1ull << 62);
}

template <int N, bool Bf16>
__device__ __forceinline__ void wgmma(float (&d)[N / 2], uint64_t a, uint64_t b, int scale_d) {
  if constexpr (N == 256) {
    if constexpr (Bf16) wgmma_m64n256k16_bf16(d, a, b, scale_d);
    else wgmma_m64n256k16_f16(d, a, b, scale_d);
  } else if constexpr (N == 192) {
    if constexpr (Bf16) wgmma_m64n192k16_bf16(d, a, b, scale_d);
    else wgmma_m64n192k16_f16(d, a, b, scale_d);
  } else {
    static_assert(N == 128, "BN must be 128, 192 or 256");
    if constexpr (Bf16) wgmma_m64n128k16_bf16(d, a, b, scale_d);
    else wgmma_m64n128k16_f16(d, a, b, scale_d);
  }
}

// ---------------------------------------------------------------------------------------------
// Configuration
// ---------------------------------------------------------------------------------------------
template <int BM_, int BN_, int Stages_, int ClusterM_>
struct config {
  static constexpr int bm = BM_;                 ///< rows of Y per CTA (2 consumers x mi x 64)
  static constexpr int bn = BN_;                 ///< columns of Y per CTA, one wgmma N
  static constexpr int bk = 64;                  ///< 64 x 16-bit = one 128-byte swizzle row
  static constexpr int stages = Stages_;
  static constexpr int cluster_m = ClusterM_;    ///< CTAs along M sharing the W tile
  static constexpr int consumers = 2;
  static constexpr int mi = bm / (64 * consumers);  ///< m64 blocks per consumer warpgroup
  static constexpr int threads = 128 * (consumers + 1);
  static constexpr int a_bytes = bm * bk * 2;
  static constexpr int b_chunk_bytes = 64 * bk * 2;  ///< one 64-column slab of W: 8 KB
  static constexpr int b_chunks = bn / 64;
  static constexpr int b_bytes = bn * bk * 2;
  static constexpr int stage_bytes = a_bytes + b_bytes;
  static constexpr int epi_row = 72;  ///< staged row: 64 values + 8 pad (144 B: no conflicts)
  static constexpr int epi_bytes = consumers * 4 * 16 * epi_row * 2;
  static constexpr int smem_bytes = 1024 + stages * stage_bytes + epi_bytes + 2 * stages * 8;
  static_assert(mi >= 1 && bm == 64 * consumers * mi, "bm must be 128 or 256");
  static_assert(bn % 64 == 0, "bn must be a multiple of 64");
  static_assert(smem_bytes <= 232448, "shared memory over the 227 KB a block may have");
};

struct problem {
  int m, n, k;
  const void* bias;  ///< nullptr: no bias
  int relu;
  void* y;
};

/// Tile t of the static schedule -> (m block of the cluster, n block), group-M rasterized.
__device__ __forceinline__ void tile_coords(int t, int tiles_m, int tiles_n, int group_m,
                                            int& tm, int& tn) {
  const int per_group = group_m * tiles_n;
  const int g = t / per_group;
  const int first_m = g * group_m;
  const int rows = min(tiles_m - first_m, group_m);
  const int r = t % per_group;
  tm = first_m + r % rows;
  tn = r / rows;
}

template <class T>
__device__ __forceinline__ uint32_t pack2(float a, float b);
template <>
__device__ __forceinline__ uint32_t pack2<__half>(float a, float b) {
  __half2 h = __floats2half2_rn(a, b);
  return *reinterpret_cast<uint32_t*>(&h);
}
template <>
__device__ __forceinline__ uint32_t pack2<__nv_bfloat16>(float a, float b) {
  __nv_bfloat162 h = __floats2bfloat162_rn(a, b);
  return *reinterpret_cast<uint32_t*>(&h);
}
template <class T>
__device__ __forceinline__ float to_f32(T v);
template <>
__device__ __forceinline__ float to_f32<__half>(__half v) { return __half2float(v); }
template <>
__device__ __forceinline__ float to_f32<__nv_bfloat16>(__nv_bfloat16 v) {
  return __bfloat162float(v);
}

/// Writes one consumer warp's 16 rows x bn columns of accumulators: bias, relu, cast, then
/// through a 16 x 64 staging tile so that the global stores are 16 bytes and coalesced.
template <class Cfg, class T>
__device__ __forceinline__ void epilogue_m64(const float (&d)[Cfg::bn / 2], T* stage,
                                             const problem& p, int row0, int col0, int lane) {
  const T* bias = static_cast<const T*>(p.bias);
  T* y = static_cast<T*>(p.y);
  const int qr = lane / 4;
  const int qc = (lane % 4) * 2;
#pragma unroll
  for (int c = 0; c < Cfg::bn / 64; ++c) {
#pragma unroll
    for (int jj = 0; jj < 8; ++jj) {
      const int j = c * 8 + jj;
      const int col = jj * 8 + qc;
      float v0 = d[4 * j + 0], v1 = d[4 * j + 1], v2 = d[4 * j + 2], v3 = d[4 * j + 3];
      if (bias != nullptr) {
        const int gcol = col0 + c * 64 + col;
        const float b0 = gcol < p.n ? to_f32<T>(bias[gcol]) : 0.f;
        const float b1 = gcol + 1 < p.n ? to_f32<T>(bias[gcol + 1]) : 0.f;
        v0 += b0, v1 += b1, v2 += b0, v3 += b1;
      }
      if (p.relu) {
        v0 = fmaxf(v0, 0.f), v1 = fmaxf(v1, 0.f), v2 = fmaxf(v2, 0.f), v3 = fmaxf(v3, 0.f);
      }
      *reinterpret_cast<uint32_t*>(stage + qr * Cfg::epi_row + col) = pack2<T>(v0, v1);
      *reinterpret_cast<uint32_t*>(stage + (qr + 8) * Cfg::epi_row + col) = pack2<T>(v2, v3);
    }
    __syncwarp();
#pragma unroll
    for (int it = 0; it < 4; ++it) {
      const int idx = it * 32 + lane;
      const int r = idx / 8, ch = idx % 8;
      const uint4 v = *reinterpret_cast<const uint4*>(stage + r * Cfg::epi_row + ch * 8);
      const int grow = row0 + r;
      const int gcol = col0 + c * 64 + ch * 8;
      if (grow < p.m && gcol < p.n) {
        *reinterpret_cast<uint4*>(y + static_cast<size_t>(grow) * p.n + gcol) = v;
      }
    }
    __syncwarp();
  }
}

// ---------------------------------------------------------------------------------------------
// Kernel
// ---------------------------------------------------------------------------------------------
template <class Cfg, class T>
__global__ void __launch_bounds__(Cfg::threads, 1)
    gemm_kernel(const __grid_constant__ CUtensorMap map_x, const __grid_constant__ CUtensorMap map_w,
                const problem p, int group_m) {
  constexpr bool is_bf16 = std::is_same_v<T, __nv_bfloat16>;
  constexpr int cm = Cfg::cluster_m;
  extern __shared__ __align__(1024) uint8_t smem_raw[];
  // 128-byte swizzled tiles want 1024-byte aligned bases.
  uint8_t* smem = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) &
                                             ~uintptr_t(1023));
  uint8_t* ring = smem;
  T* epi = reinterpret_cast<T*>(smem + Cfg::stages * Cfg::stage_bytes);
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + Cfg::stages * Cfg::stage_bytes +
                                               Cfg::epi_bytes);
  uint64_t* empty = full + Cfg::stages;

  const int wg = threadIdx.x / 128;
  const int tid_wg = threadIdx.x % 128;
  const uint32_t rank = cm > 1 ? cluster_rank() : 0;

  if (threadIdx.x == 0) {
    for (int s = 0; s < Cfg::stages; ++s) {
      mbar_init(smem_addr(&full[s]), 1);
      mbar_init(smem_addr(&empty[s]), Cfg::consumers * 4 * cm);  // one per consumer warp
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  if constexpr (cm > 1) cluster_sync();
  else __syncthreads();

  const int tiles_m = (p.m + Cfg::bm * cm - 1) / (Cfg::bm * cm);
  const int tiles_n = (p.n + Cfg::bn - 1) / Cfg::bn;
  const int tiles = tiles_m * tiles_n;
  const int kblocks = (p.k + Cfg::bk - 1) / Cfg::bk;
  const int cluster_id = blockIdx.x / cm;
  const int clusters = gridDim.x / cm;

  if (wg == 0) {
    // ---------------- producer ----------------
    regs_dec<40>();
    if (tid_wg == 0) {
      int stage = 0;
      uint32_t phase = 0;
      for (int t = cluster_id; t < tiles; t += clusters) {
        int tm, tn;
        tile_coords(t, tiles_m, tiles_n, group_m, tm, tn);
        const int m0 = (tm * cm + rank) * Cfg::bm;
        const int n0 = tn * Cfg::bn;
        for (int kb = 0; kb < kblocks; ++kb) {
          mbar_wait(smem_addr(&empty[stage]), phase ^ 1);
          const uint32_t bar = smem_addr(&full[stage]);
          mbar_expect_tx(bar, Cfg::stage_bytes);
          const uint32_t a_dst = smem_addr(ring + stage * Cfg::stage_bytes);
          const uint32_t b_dst = a_dst + Cfg::a_bytes;
          tma_load_2d(a_dst, &map_x, bar, kb * Cfg::bk, m0);
#pragma unroll
          for (int j = 0; j < Cfg::b_chunks; ++j) {
            if constexpr (cm > 1) {
              if (j % cm == static_cast<int>(rank)) {
                tma_load_2d_multicast(b_dst + j * Cfg::b_chunk_bytes, &map_w, bar, n0 + 64 * j,
                                      kb * Cfg::bk, static_cast<uint16_t>((1u << cm) - 1));
              }
            } else {
              tma_load_2d(b_dst + j * Cfg::b_chunk_bytes, &map_w, bar, n0 + 64 * j,
                          kb * Cfg::bk);
            }
          }
          if (++stage == Cfg::stages) stage = 0, phase ^= 1;
        }
      }
    }
  } else {
    // ---------------- consumers ----------------
    regs_inc<232>();
    const int c = wg - 1;
    const int warp = tid_wg / 32, lane = tid_wg % 32;
    T* stage_buf = epi + (c * 4 + warp) * 16 * Cfg::epi_row;
    float acc[Cfg::mi][Cfg::bn / 2];
    int stage = 0;
    uint32_t phase = 0;
    for (int t = cluster_id; t < tiles; t += clusters) {
      int tm, tn;
      tile_coords(t, tiles_m, tiles_n, group_m, tm, tn);
      const int m0 = (tm * cm + rank) * Cfg::bm;
      const int n0 = tn * Cfg::bn;
      int prev = -1;
      for (int kb = 0; kb < kblocks; ++kb) {
        mbar_wait(smem_addr(&full[stage]), phase);
        const uint32_t a_base =
            smem_addr(ring + stage * Cfg::stage_bytes) + c * Cfg::mi * 64 * 128;
        const uint32_t b_base = smem_addr(ring + stage * Cfg::stage_bytes) + Cfg::a_bytes;
        wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < Cfg::bk / 16; ++kk) {
          // B: N-major; 8 K-rows of 128 B apart by 1024 B (SBO), 64-column slabs by 8 KB (LBO).
          const uint64_t db = make_desc(b_base + kk * 16 * 128, Cfg::b_chunk_bytes, 1024);
#pragma unroll
          for (int i = 0; i < Cfg::mi; ++i) {
            // A: K-major; k16 step = 32 B inside the swizzled 128-B row; 8-row groups 1024 B.
            const uint64_t da = make_desc(a_base + i * 64 * 128 + kk * 32, 16, 1024);
            wgmma<Cfg::bn, is_bf16>(acc[i], da, db, (kb > 0 || kk > 0) ? 1 : 0);
          }
        }
        wgmma_commit();
        if (prev >= 0) {
          wgmma_wait<1>();
          if (lane == 0) {
            if constexpr (cm > 1) {
              for (int r = 0; r < cm; ++r) mbar_arrive_cluster(smem_addr(&empty[prev]), r);
            } else {
              mbar_arrive_local(smem_addr(&empty[prev]));
            }
          }
        }
        prev = stage;
        if (++stage == Cfg::stages) stage = 0, phase ^= 1;
      }
      wgmma_wait<0>();
      if (prev >= 0 && lane == 0) {
        if constexpr (cm > 1) {
          for (int r = 0; r < cm; ++r) mbar_arrive_cluster(smem_addr(&empty[prev]), r);
        } else {
          mbar_arrive_local(smem_addr(&empty[prev]));
        }
      }
#pragma unroll
      for (int i = 0; i < Cfg::mi; ++i) {
        epilogue_m64<Cfg, T>(acc[i], stage_buf, p, m0 + (c * Cfg::mi + i) * 64 + warp * 16,
                             n0, lane);
      }
    }
  }
  // No CTA may leave while its cluster peer can still multicast into it or arrive on it.
  if constexpr (cm > 1) cluster_sync();
}

}  // namespace hopper
