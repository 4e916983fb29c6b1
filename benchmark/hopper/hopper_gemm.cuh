// SPDX-License-Identifier: MIT
// Hopper (sm_90a) fp16/bf16 GEMM: Y[M,N] = act(alpha * X[M,K] @ W[K,N] + beta * bias) + residual,
// all row-major, bias along N or M, act none/relu/gelu/silu/sigmoid (compile-time epilogue).
//
// Main loop: a producer warpgroup (one thread) brings X and W tiles into a ring of shared-memory
// stages with the bulk tensor copy engine (TMA, 128-byte swizzle), completing on "full" mbarriers;
// two consumer warpgroups run wgmma.mma_async m64nNk16 (A = X tile, K-major; B = W tile, N-major
// through imm-trans-b) with fp32 accumulators in registers and hand each stage back on its "empty"
// mbarrier. Cooperative (both consumers on a tile) or ping-pong (alternate tiles). Optional 2-CTA
// clusters along M share the W tile: each CTA loads half of it and multicasts it to both.
// Persistent grid, static tile schedule with group-M rasterization.
// Epilogue: bias prefetched into registers at tile start, alpha/bias/activation/cast in registers,
// staged per warp through padded shared memory so that every global store (and residual load) is
// 16 bytes wide and each 8 lanes cover one 128-byte row segment.
//
// Constraints: K % 8 == 0 and N % 8 == 0 (TMA row pitch, 8-column epilogue groups); X, W, Y and
// residual 16-byte aligned, bias 4-byte aligned. Measurements and design notes: NOTES.md.
// Build: nvcc -gencode=arch=compute_90a,code=sm_90a -O3 -std=c++17 (see NOTES.md in this folder).
#pragma once

#include <cuda.h>
#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime.h>

#include <cstdint>
#include <type_traits>

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
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(bar), "r"(bytes) : "memory");
}

__device__ __forceinline__ void mbar_wait(uint32_t bar, uint32_t parity) {
  uint32_t done = 0;
#if HOPPER_WATCHDOG
  uint32_t spins = 0;
  uint64_t start = 0;
#endif
  do {
    asm volatile(
        "{\n.reg .pred p;\nmbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n"
        "selp.u32 %0, 1, 0, p;\n}\n"
        : "=r"(done)
        : "r"(bar), "r"(parity)
        : "memory");
#if HOPPER_WATCHDOG
    if (!done && (++spins & 0x3FFu) == 0) {  // a lost arrival: fail after 2 s, do not hang
      uint64_t now;
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
      if (start == 0)
        start = now;
      else if (now - start > 2000000000ull)
        __trap();
    }
#endif
  } while (!done);
}

/// Arrive on the barrier at the same shared-memory offset in CTA `cta` of the cluster
/// (default .release.cta semantics: what is released is the wgmma reads, already complete).
__device__ __forceinline__ void mbar_arrive_cluster(uint32_t bar, uint32_t cta) {
  uint32_t remote;
  asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(bar), "r"(cta));
  asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" ::"r"(remote) : "memory");
}

__device__ __forceinline__ void mbar_arrive_local(uint32_t bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(bar) : "memory");
}

__device__ __forceinline__ void tma_load_2d(uint32_t dst, const CUtensorMap* map, uint32_t bar, int c0, int c1) {
  asm volatile(
      "cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
      " [%0], [%1, {%3, %4}], [%2];" ::"r"(dst),
      "l"(reinterpret_cast<uint64_t>(map)), "r"(bar), "r"(c0), "r"(c1)
      : "memory");
}

__device__ __forceinline__ void tma_load_2d_multicast(uint32_t dst, const CUtensorMap* map, uint32_t bar, int c0,
                                                      int c1, uint16_t mask) {
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

__device__ __forceinline__ void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ __forceinline__ void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int N>
__device__ __forceinline__ void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(N) : "memory");
}

/// Shared-memory matrix descriptor, 128-byte swizzle (layout type 1 in bits 62-63).
__device__ __forceinline__ uint64_t make_desc(uint32_t addr, uint32_t lbo, uint32_t sbo) {
  return static_cast<uint64_t>((addr & 0x3FFFF) >> 4) | (static_cast<uint64_t>(lbo >> 4) << 16) |
         (static_cast<uint64_t>(sbo >> 4) << 32) | (1ull << 62);
}

template <int N, bool Bf16>
__device__ __forceinline__ void wgmma(float (&d)[N / 2], uint64_t a, uint64_t b, int scale_d) {
  if constexpr (N == 256) {
    if constexpr (Bf16)
      wgmma_m64n256k16_bf16(d, a, b, scale_d);
    else
      wgmma_m64n256k16_f16(d, a, b, scale_d);
  } else if constexpr (N == 192) {
    if constexpr (Bf16)
      wgmma_m64n192k16_bf16(d, a, b, scale_d);
    else
      wgmma_m64n192k16_f16(d, a, b, scale_d);
  } else if constexpr (N == 128) {
    if constexpr (Bf16)
      wgmma_m64n128k16_bf16(d, a, b, scale_d);
    else
      wgmma_m64n128k16_f16(d, a, b, scale_d);
  } else {
    static_assert(N == 64, "BN must be 64, 128, 192 or 256");
    if constexpr (Bf16)
      wgmma_m64n64k16_bf16(d, a, b, scale_d);
    else
      wgmma_m64n64k16_f16(d, a, b, scale_d);
  }
}

/// Hands a stage back: one arrival on its empty barrier in every CTA of the cluster.
template <int ClusterM>
__device__ __forceinline__ void release(uint32_t bar, uint32_t rank) {
  mbar_arrive_local(bar);
#pragma unroll
  for (int r = 0; r < ClusterM; ++r) {
    if (r != static_cast<int>(rank)) mbar_arrive_cluster(bar, r);
  }
}

// ---------------------------------------------------------------------------------------------
// Configuration
// ---------------------------------------------------------------------------------------------
/// BM_ x BN_ is one tile of the schedule (what the producer loads per k-block).
/// Cooperative (PingPong_ false): both consumer warpgroups work on each tile, BM_/2 rows each.
/// Ping-pong (PingPong_ true): the consumers take alternate tiles, BM_ rows each, so that one
/// warpgroup's epilogue overlaps the other's main loop.
template <int BM_, int BN_, int Stages_, int ClusterM_, bool PingPong_ = false>
struct config {
  static constexpr int bm = BM_;  ///< rows of Y per tile
  static constexpr int bn = BN_;  ///< columns of Y per tile, one wgmma N
  static constexpr int bk = 64;   ///< 64 x 16-bit = one 128-byte swizzle row
  static constexpr int stages = Stages_;
  static constexpr int cluster_m = ClusterM_;  ///< CTAs along M sharing the W tile
  static constexpr bool pingpong = PingPong_;
  static constexpr int consumers = 2;
  static constexpr int wg_rows = pingpong ? bm : bm / consumers;  ///< rows per consumer
  static constexpr int mi = wg_rows / 64;                         ///< m64 blocks per consumer warpgroup
  static constexpr int releasers = pingpong ? 1 : consumers;      ///< warpgroups freeing a stage
  static constexpr int threads = 128 * (consumers + 1);
  static constexpr int a_bytes = bm * bk * 2;
  static constexpr int b_chunk_bytes = 64 * bk * 2;  ///< one 64-column slab of W: 8 KB
  static constexpr int b_chunks = bn / 64;
  static constexpr int b_bytes = bn * bk * 2;
  static constexpr int stage_bytes = a_bytes + b_bytes;
  static constexpr int epi_row = 72;  ///< staged row: 64 values + 8 pad (144 B: no conflicts)
  static constexpr int epi_bytes = consumers * 4 * 16 * epi_row * 2;
  static constexpr int smem_bytes = 1024 + stages * stage_bytes + epi_bytes + 2 * stages * 8 + 16;
  static_assert(mi >= 1 && wg_rows == 64 * mi, "rows per consumer must be a multiple of 64");
  static_assert(bm <= 256, "one TMA box holds at most 256 rows");
  static_assert(mi * bn / 2 + bn / 8 <= 176, "accumulators + bias over the register budget");
  static_assert(bn % 64 == 0, "bn must be a multiple of 64");
  static_assert(smem_bytes <= 232448, "shared memory over the 227 KB a block may have");
};

/// Elementwise function applied after the bias (the library's `activation`, same formulas).
enum class act : int { none = 0, relu = 1, gelu = 2, silu = 3, sigmoid = 4 };
/// Which dimension a bias vector runs along.
enum class bias_kind : int { none = 0, n = 1, m = 2 };

/// The fused epilogue, fixed at compile time (a run-time switch per element multiplied the
/// epilogue's code and made even the plain product 9% slower, see NOTES.md):
/// Y = Act(alpha * X @ W + beta * Bias) + Residual.
template <act Act = act::none, bias_kind Bias = bias_kind::none, bool Residual = false>
struct epilogue {
  static constexpr act activation = Act;
  static constexpr bias_kind bias = Bias;
  static constexpr bool residual = Residual;
};

/// One GEMM, everything row-major, T = the input and output type: X[M, K], W[K, N], Y[M, N],
/// Bias T[N] or T[M] (as the epilogue says), Residual T[M, N].
struct problem {
  int m, n, k;
  const void* bias = nullptr;
  const void* residual = nullptr;
  float alpha = 1.f, beta = 1.f;
  void* y = nullptr;
};

/// Tile t of the static schedule -> (m block of the cluster, n block), group-M rasterized.
__device__ __forceinline__ void tile_coords(int t, int tiles_m, int tiles_n, int group_m, int& tm, int& tn) {
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
__device__ __forceinline__ float to_f32<__half>(__half v) {
  return __half2float(v);
}
template <>
__device__ __forceinline__ float to_f32<__nv_bfloat16>(__nv_bfloat16 v) {
  return __bfloat162float(v);
}

template <act A>
__device__ __forceinline__ float activate(float v) {
  if constexpr (A == act::relu)
    return fmaxf(v, 0.f);
  else if constexpr (A == act::gelu)
    return 0.5f * v * (1.f + erff(v * 0.70710678118654752f));
  else if constexpr (A == act::silu)
    return v / (1.f + expf(-v));
  else if constexpr (A == act::sigmoid)
    return 1.f / (1.f + expf(-v));
  else
    return v;
}

/// Bias values one consumer thread needs for a tile, loaded when the tile starts so that their
/// latency hides behind the main loop: pairs of columns n0 + 8j + 2(lane%4) (+1) for a bias
/// along N, or rows (lane/4) and (lane/4 + 8) of each of its m64 blocks for a bias along M.
template <class Cfg, class T, class Epi>
struct tile_bias {
  uint32_t n2[Epi::bias == bias_kind::n ? Cfg::bn / 8 : 1];
  float m[Epi::bias == bias_kind::m ? Cfg::mi : 1][2];

  __device__ __forceinline__ void load(const problem& p, int row0, int n0, int lane) {
    const T* bias = static_cast<const T*>(p.bias);
    if constexpr (Epi::bias == bias_kind::n) {
#pragma unroll
      for (int j = 0; j < Cfg::bn / 8; ++j) {
        const int gcol = n0 + 8 * j + (lane % 4) * 2;
        n2[j] = gcol < p.n ? __ldg(reinterpret_cast<const unsigned int*>(bias + gcol)) : 0u;
      }
    }
    if constexpr (Epi::bias == bias_kind::m) {
#pragma unroll
      for (int i = 0; i < Cfg::mi; ++i) {
#pragma unroll
        for (int h = 0; h < 2; ++h) {
          const int grow = row0 + i * 64 + lane / 4 + 8 * h;
          m[i][h] = grow < p.m ? to_f32<T>(bias[grow]) : 0.f;
        }
      }
    }
  }
};

/// Writes one consumer warp's 16 rows x bn columns of accumulators (m64 block `i`, rows row0..+15):
/// alpha, bias, activation and cast in registers, then through a 16 x 64 staging tile so that the
/// global stores (and the residual loads) are 16 bytes wide and coalesced.
template <class Cfg, class T, class Epi>
__device__ __forceinline__ void epilogue_m64(const float (&d)[Cfg::bn / 2], const tile_bias<Cfg, T, Epi>& tb, int i,
                                             T* stage, const problem& p, int row0, int col0, int lane) {
  T* y = static_cast<T*>(p.y);
  const T* res = static_cast<const T*>(p.residual);
  const int qr = lane / 4;
  const int qc = (lane % 4) * 2;
#pragma unroll
  for (int c = 0; c < Cfg::bn / 64; ++c) {
#pragma unroll
    for (int jj = 0; jj < 8; ++jj) {
      const int j = c * 8 + jj;
      const int col = jj * 8 + qc;
      float v0 = p.alpha * d[4 * j + 0], v1 = p.alpha * d[4 * j + 1];
      float v2 = p.alpha * d[4 * j + 2], v3 = p.alpha * d[4 * j + 3];
      if constexpr (Epi::bias == bias_kind::m) {
        v0 += p.beta * tb.m[i][0], v1 += p.beta * tb.m[i][0];
        v2 += p.beta * tb.m[i][1], v3 += p.beta * tb.m[i][1];
      } else if constexpr (Epi::bias == bias_kind::n) {
        const T* b2 = reinterpret_cast<const T*>(&tb.n2[j]);
        const float b0 = p.beta * to_f32<T>(b2[0]), b1 = p.beta * to_f32<T>(b2[1]);
        v0 += b0, v1 += b1, v2 += b0, v3 += b1;
      }
      v0 = activate<Epi::activation>(v0), v1 = activate<Epi::activation>(v1);
      v2 = activate<Epi::activation>(v2), v3 = activate<Epi::activation>(v3);
      *reinterpret_cast<uint32_t*>(stage + qr * Cfg::epi_row + col) = pack2<T>(v0, v1);
      *reinterpret_cast<uint32_t*>(stage + (qr + 8) * Cfg::epi_row + col) = pack2<T>(v2, v3);
    }
    __syncwarp();
#pragma unroll
    for (int it = 0; it < 4; ++it) {
      const int idx = it * 32 + lane;
      const int r = idx / 8, ch = idx % 8;
      uint4 v = *reinterpret_cast<const uint4*>(stage + r * Cfg::epi_row + ch * 8);
      const int grow = row0 + r;
      const int gcol = col0 + c * 64 + ch * 8;
      if (grow < p.m && gcol < p.n) {
        const size_t off = static_cast<size_t>(grow) * p.n + gcol;
        if constexpr (Epi::residual) {
          // Residual after the activation (rounded to T once before, once after the add).
          const uint4 rv = __ldg(reinterpret_cast<const uint4*>(res + off));
          const T* a = reinterpret_cast<const T*>(&v);
          const T* b = reinterpret_cast<const T*>(&rv);
          uint32_t* o = reinterpret_cast<uint32_t*>(&v);
#pragma unroll
          for (int e = 0; e < 4; ++e) {
            o[e] =
                pack2<T>(to_f32<T>(a[2 * e]) + to_f32<T>(b[2 * e]), to_f32<T>(a[2 * e + 1]) + to_f32<T>(b[2 * e + 1]));
          }
        }
        *reinterpret_cast<uint4*>(y + off) = v;
      }
    }
    __syncwarp();
  }
}

// ---------------------------------------------------------------------------------------------
// Kernel
// ---------------------------------------------------------------------------------------------
template <class Cfg, class T, class Epi = epilogue<>>
__global__ void __launch_bounds__(Cfg::threads, 1)
    gemm_kernel(const __grid_constant__ CUtensorMap map_x, const __grid_constant__ CUtensorMap map_w, const problem p,
                int group_m) {
  constexpr bool is_bf16 = std::is_same_v<T, __nv_bfloat16>;
  constexpr int cm = Cfg::cluster_m;
  extern __shared__ __align__(1024) uint8_t smem_raw[];
  // 128-byte swizzled tiles want 1024-byte aligned bases.
  uint8_t* smem = reinterpret_cast<uint8_t*>((reinterpret_cast<uintptr_t>(smem_raw) + 1023) & ~uintptr_t(1023));
  uint8_t* ring = smem;
  T* epi = reinterpret_cast<T*>(smem + Cfg::stages * Cfg::stage_bytes);
  uint64_t* full = reinterpret_cast<uint64_t*>(smem + Cfg::stages * Cfg::stage_bytes + Cfg::epi_bytes);
  uint64_t* empty = full + Cfg::stages;
  uint64_t* order = empty + Cfg::stages;  // ping-pong: consumer c finished a main loop

  const int wg = threadIdx.x / 128;
  const int tid_wg = threadIdx.x % 128;
  const uint32_t rank = cm > 1 ? cluster_rank() : 0;

  if (threadIdx.x == 0) {
    for (int s = 0; s < Cfg::stages; ++s) {
      mbar_init(smem_addr(&full[s]), 1);
      mbar_init(smem_addr(&empty[s]), Cfg::releasers * 4 * cm);  // one per consumer warp
    }
    mbar_init(smem_addr(&order[0]), 1);
    mbar_init(smem_addr(&order[1]), 1);
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  if constexpr (cm > 1)
    cluster_sync();
  else
    __syncthreads();

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
                tma_load_2d_multicast(b_dst + j * Cfg::b_chunk_bytes, &map_w, bar, n0 + 64 * j, kb * Cfg::bk,
                                      static_cast<uint16_t>((1u << cm) - 1));
              }
            } else {
              tma_load_2d(b_dst + j * Cfg::b_chunk_bytes, &map_w, bar, n0 + 64 * j, kb * Cfg::bk);
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
    int local = -1;  // index of the tile in this CTA's sequence
    for (int t = cluster_id; t < tiles; t += clusters) {
      ++local;
      if (Cfg::pingpong && local % Cfg::consumers != c) continue;
      // Position in the ring: the producer fills it with every tile's k-blocks in order.
      const uint32_t first = static_cast<uint32_t>(local) * kblocks;
      int stage = static_cast<int>(first % Cfg::stages);
      uint32_t phase = (first / Cfg::stages) & 1u;
      int tm, tn;
      tile_coords(t, tiles_m, tiles_n, group_m, tm, tn);
      const int m0 = (tm * cm + rank) * Cfg::bm;
      const int n0 = tn * Cfg::bn;
      const int wg_row0 = m0 + (Cfg::pingpong ? 0 : c * Cfg::wg_rows);
      tile_bias<Cfg, T, Epi> tb;
      tb.load(p, wg_row0 + warp * 16, n0, lane);
      if (Cfg::pingpong && local > 0) {
        // Start waiting on this tile's stages only once the other consumer has taken all of
        // the previous tile's: a full barrier is then at most one phase behind what we wait
        // for, so its parity cannot alias an older lap of the ring.
        mbar_wait(smem_addr(&order[1 - c]), static_cast<uint32_t>((local - 1) / 2) & 1u);
      }
      int prev = -1;
      for (int kb = 0; kb < kblocks; ++kb) {
        mbar_wait(smem_addr(&full[stage]), phase);
        const uint32_t a_base =
            smem_addr(ring + stage * Cfg::stage_bytes) + (Cfg::pingpong ? 0 : c * Cfg::wg_rows * 128);
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
          if (lane == 0) release<cm>(smem_addr(&empty[prev]), rank);
        }
        prev = stage;
        if (++stage == Cfg::stages) stage = 0, phase ^= 1;
      }
      if (Cfg::pingpong && tid_wg == 0) mbar_arrive_local(smem_addr(&order[c]));
      wgmma_wait<0>();
      if (prev >= 0 && lane == 0) release<cm>(smem_addr(&empty[prev]), rank);
#pragma unroll
      for (int i = 0; i < Cfg::mi; ++i) {
        epilogue_m64<Cfg, T, Epi>(acc[i], tb, i, stage_buf, p, wg_row0 + i * 64 + warp * 16, n0, lane);
      }
    }
  }
  // No CTA may leave while its cluster peer can still multicast into it or arrive on it.
  if constexpr (cm > 1) cluster_sync();
}

// ---------------------------------------------------------------------------------------------
// Host side: tensor maps, grid, launch
// ---------------------------------------------------------------------------------------------
using tensor_map_encoder = CUresult (*)(CUtensorMap*, CUtensorMapDataType, cuuint32_t, void*, const cuuint64_t*,
                                        const cuuint64_t*, const cuuint32_t*, const cuuint32_t*, CUtensorMapInterleave,
                                        CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

/// The driver's cuTensorMapEncodeTiled through the runtime (no -lcuda needed); nullptr if absent.
inline tensor_map_encoder get_tensor_map_encoder() {
  static tensor_map_encoder fn = [] {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult q{};
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &p, 12000, cudaEnableDefault, &q) != cudaSuccess ||
        q != cudaDriverEntryPointSuccess) {
      p = nullptr;
    }
    return reinterpret_cast<tensor_map_encoder>(p);
  }();
  return fn;
}

/// 2-D map of a row-major [rows, cols] 16-bit matrix; box = box_rows x 64 columns (128 bytes,
/// the widest a 128-byte swizzle allows), 128-byte swizzle, out-of-bounds elements read as zero.
inline cudaError_t make_tensor_map(CUtensorMap& map, const void* base, bool bf16, uint64_t rows, uint64_t cols,
                                   uint32_t box_rows) {
  const tensor_map_encoder encode = get_tensor_map_encoder();
  if (encode == nullptr) return cudaErrorNotSupported;
  const cuuint64_t dims[2] = {cols, rows};
  const cuuint64_t strides[1] = {cols * 2};
  const cuuint32_t box[2] = {64, box_rows};
  const cuuint32_t elem_strides[2] = {1, 1};
  const CUresult r =
      encode(&map, bf16 ? CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 : CU_TENSOR_MAP_DATA_TYPE_FLOAT16, 2,
             const_cast<void*>(base), dims, strides, box, elem_strides, CU_TENSOR_MAP_INTERLEAVE_NONE,
             CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  return r == CUDA_SUCCESS ? cudaSuccess : cudaErrorInvalidValue;
}

/// Everything one launch needs, prepared once per (shape, pointers): X[M,K], W[K,N] and the
/// problem's Y/Bias/Residual. `init` checks the constraints, encodes both tensor maps, raises the
/// kernel's shared-memory limit and sizes the persistent grid; `launch` only launches.
template <class Cfg, class T, class Epi = epilogue<>>
struct plan {
  CUtensorMap map_x{}, map_w{};
  problem prob{};
  int grid = 0;
  int group_m = 8;

  cudaError_t init(const T* x, const T* w, const problem& p, int group_m_tiles = 8) {
    const auto aligned = [](const void* q, uintptr_t a) { return (reinterpret_cast<uintptr_t>(q) % a) == 0; };
    if (p.m <= 0 || p.n <= 0 || p.k <= 0 || p.k % 8 != 0 || p.n % 8 != 0) return cudaErrorInvalidValue;
    if (!aligned(x, 16) || !aligned(w, 16) || !aligned(p.y, 16) || !aligned(p.residual, 16) || !aligned(p.bias, 4)) {
      return cudaErrorMisalignedAddress;
    }
    if ((Epi::bias != bias_kind::none && p.bias == nullptr) || (Epi::residual && p.residual == nullptr)) {
      return cudaErrorInvalidValue;
    }
    constexpr bool bf16 = std::is_same_v<T, __nv_bfloat16>;
    cudaError_t e = make_tensor_map(map_x, x, bf16, p.m, p.k, Cfg::bm);
    if (e == cudaSuccess) e = make_tensor_map(map_w, w, bf16, p.k, p.n, 64);
    if (e == cudaSuccess) {
      e = cudaFuncSetAttribute(gemm_kernel<Cfg, T, Epi>, cudaFuncAttributeMaxDynamicSharedMemorySize, Cfg::smem_bytes);
    }
    int dev = 0, sms = 0;
    if (e == cudaSuccess) e = cudaGetDevice(&dev);
    if (e == cudaSuccess) e = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev);
    if (e != cudaSuccess) return e;
    const int tiles =
        ((p.m + Cfg::bm * Cfg::cluster_m - 1) / (Cfg::bm * Cfg::cluster_m)) * ((p.n + Cfg::bn - 1) / Cfg::bn);
    int clusters = sms / Cfg::cluster_m;
    if constexpr (Cfg::cluster_m > 1) {
      cudaLaunchConfig_t lc = config_for(Cfg::cluster_m * clusters);
      cudaLaunchAttribute at = cluster_attr();
      lc.attrs = &at, lc.numAttrs = 1;
      e = cudaOccupancyMaxActiveClusters(&clusters, gemm_kernel<Cfg, T, Epi>, &lc);
      if (e != cudaSuccess) return e;
      if (clusters == 0) return cudaErrorInvalidConfiguration;
    }
    grid = (tiles < clusters ? tiles : clusters) * Cfg::cluster_m;
    prob = p;
    group_m = group_m_tiles > 0 ? group_m_tiles : 8;
    return cudaSuccess;
  }

  cudaError_t launch(cudaStream_t stream = nullptr) const {
    cudaLaunchConfig_t lc = config_for(grid);
    cudaLaunchAttribute at = cluster_attr();
    lc.stream = stream, lc.attrs = &at, lc.numAttrs = Cfg::cluster_m > 1 ? 1 : 0;
    return cudaLaunchKernelEx(&lc, gemm_kernel<Cfg, T, Epi>, map_x, map_w, prob, group_m);
  }

 private:
  static cudaLaunchConfig_t config_for(int ctas) {
    cudaLaunchConfig_t lc = {};
    lc.gridDim = dim3(ctas), lc.blockDim = dim3(Cfg::threads), lc.dynamicSmemBytes = Cfg::smem_bytes;
    return lc;
  }
  static cudaLaunchAttribute cluster_attr() {
    cudaLaunchAttribute at{};
    at.id = cudaLaunchAttributeClusterDimension;
    at.val.clusterDim.x = Cfg::cluster_m, at.val.clusterDim.y = 1, at.val.clusterDim.z = 1;
    return at;
  }
};

}  // namespace hopper
