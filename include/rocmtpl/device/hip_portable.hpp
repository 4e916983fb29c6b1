// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The HIP portability header that generated kernels include, embedded as text.
///
/// Generated kernel sources start with `#include "rocmtpl_hip_portable.h"`. The same source then
/// builds with hipcc for AMD GPUs (the header includes the HIP headers) and with nvcc for NVIDIA
/// GPUs (the header maps the HIP names generated code uses onto CUDA, because Debian's HIP 5.2
/// `nvidia_detail` headers do not compile under CUDA 13). The text is embedded in the library so
/// that the runtime can write it next to a compile wherever the library was copied
/// (see rocmtpl::runtime::device_include_dir()).
///
/// What the header gives generated code, on both platforms:
/// - `ROCMTPL_PLATFORM_AMD` or `ROCMTPL_PLATFORM_NVIDIA` (defined to 1; neither under a plain host
///   compiler, where only the conversion helpers exist), `ROCMTPL_HOST_DEVICE`, `ROCMTPL_DEVICE`,
///   `ROCMTPL_FORCEINLINE`, `ROCMTPL_WARP_SIZE` (a constant expression: `__AMDGCN_WAVEFRONT_SIZE`
///   on AMD, else 64; 32 on NVIDIA) and `rocmtpl_dev::warp_size`;
/// - `__half`, `hip_bfloat16` (construct from float, convert to float, raw 16-bit `data`);
/// - `rocmtpl_dev::to_float(x)` for float, double, `__half`, `hip_bfloat16` and `uint16_t` (read as
///   fp16 bits), `rocmtpl_dev::from_float<T>(float)` for the same types,
///   `half_bits_to_float`, `bf16_bits_to_float`, `float_to_half_bits`, `float_to_bf16_bits`
///   (round to nearest even; NaN stays NaN);
/// - on AMD and NVIDIA, `rocmtpl_dev::gelu(float)`: the one gelu of generated code (the erf form,
///   within |v| * 1e-7 of the exact value, through the hardware's reciprocal and exponential), and
///   `rocmtpl_dev::gelu_tanh(float)`, the tanh form (NVIDIA: the hardware tanh, within about
///   2^-12 |v|; AMD: through the exponential), `rocmtpl_dev::sigmoid(float)` and
///   `rocmtpl_dev::silu(float)` (through the hardware's exponential), and `rocmtpl_dev::load8` (8
///   values at a stride as raw words: 16-byte loads when contiguous and aligned);
/// - under nvcc, the HIP runtime names: `hipStream_t`, `hipError_t`, `hipSuccess`,
///   `hipGetLastError`, `hipPeekAtLastError`, `hipGetErrorString`, `hipLaunchKernelGGL`,
///   `HIP_KERNEL_NAME`, `hipFuncSetAttribute` with `hipFuncAttributeMaxDynamicSharedMemorySize`,
///   `hipMemsetAsync`, `hipMemcpyAsync`, `hipMemcpy`, `hipMemcpyKind` values, `hipMalloc`, `hipFree`,
///   `hipStreamSynchronize`, `hipDeviceSynchronize`, `hipGetDevice`, `hipDeviceGetAttribute` with
///   the attributes listed in the text, `HIP_DYNAMIC_SHARED(type, name)`, and the maskless
///   `__shfl`, `__shfl_xor`, `__shfl_down`, `__shfl_up` of HIP (full-warp `*_sync` underneath).
///
/// With `ROCMTPL_AMD_EMULATOR` defined (the AMD emulator's host build, device/amd_emulator.hpp), the
/// header includes rocmtpl_amd_emu.h instead of the HIP headers and defines `ROCMTPL_PLATFORM_AMD`
/// and `ROCMTPL_PLATFORM_AMD_EMU`: the AMD code paths compile for the CPU.
///
/// The template layer emits `using bfloat16 = hip_bfloat16;` itself; this header does not.

#include <string_view>

namespace rocmtpl::device {

/// @brief The file name generated sources include: `#include "rocmtpl_hip_portable.h"`.
inline constexpr std::string_view portable_header_name = "rocmtpl_hip_portable.h";

/// @brief The full text of rocmtpl_hip_portable.h (C++14, builds with hipcc, nvcc and host compilers).
inline constexpr std::string_view portable_header_source = R"rocmtpl_src(// SPDX-License-Identifier: MIT
// rocmtpl_hip_portable.h: written by rocmtpl; included by every generated kernel source.
// One source builds with hipcc (AMD) and with nvcc (NVIDIA). Under nvcc this file maps the HIP
// names generated code uses onto CUDA; under a plain host compiler only the conversions exist.
// C++14 on purpose: hipcc (clang 15) defaults to it.
#ifndef ROCMTPL_HIP_PORTABLE_H
#define ROCMTPL_HIP_PORTABLE_H

#include <stdint.h>

#if defined(ROCMTPL_AMD_EMULATOR)
// The AMD emulator: the AMD code, compiled for the CPU by clang (rocmtpl_amd_emu.h).
#define ROCMTPL_PLATFORM_AMD 1
#define ROCMTPL_PLATFORM_AMD_EMU 1
#include "rocmtpl_amd_emu.h"
#elif defined(__HIP_PLATFORM_AMD__) || defined(__HIP_PLATFORM_HCC__) || defined(__HIP__)
#define ROCMTPL_PLATFORM_AMD 1
#include <hip/hip_runtime.h>
#include <hip/hip_fp16.h>
#include <hip/hip_bfloat16.h>
#elif defined(__CUDACC__)
#define ROCMTPL_PLATFORM_NVIDIA 1
#include <cuda_runtime.h>
#include <cuda_fp16.h>
#include <cuda_bf16.h>
#endif

#if defined(ROCMTPL_PLATFORM_AMD) || defined(ROCMTPL_PLATFORM_NVIDIA)
#define ROCMTPL_HOST_DEVICE __host__ __device__
#define ROCMTPL_DEVICE __device__
#define ROCMTPL_FORCEINLINE __forceinline__
#else
#define ROCMTPL_HOST_DEVICE
#define ROCMTPL_DEVICE
#define ROCMTPL_FORCEINLINE inline __attribute__((always_inline))
#endif

// On AMD the host pass sees the default wavefront (64); inside kernels built for a wave32 target
// (gfx10+, -mwavefrontsize32) the device pass sees 32.
#if defined(ROCMTPL_PLATFORM_NVIDIA)
#define ROCMTPL_WARP_SIZE 32
#elif defined(__AMDGCN_WAVEFRONT_SIZE)
#define ROCMTPL_WARP_SIZE __AMDGCN_WAVEFRONT_SIZE
#else
#define ROCMTPL_WARP_SIZE 64
#endif

// ---------------------------------------------------------------------------------------------
// Bit-exact conversions, usable from host and device code on every platform.
// ---------------------------------------------------------------------------------------------
namespace rocmtpl_dev {

static constexpr int warp_size = ROCMTPL_WARP_SIZE;

// Reinterprets the bytes of a 4-byte value (memcpy: what every compiler turns into a register move).
template <class To, class From>
ROCMTPL_HOST_DEVICE ROCMTPL_FORCEINLINE To bit_cast_4(From from) {
  static_assert(sizeof(To) == 4 && sizeof(From) == 4, "rocmtpl: bit_cast_4: both types must have 4 bytes");
  To to;
  __builtin_memcpy(&to, &from, sizeof(to));
  return to;
}

ROCMTPL_HOST_DEVICE ROCMTPL_FORCEINLINE uint32_t float_as_bits(float f) { return bit_cast_4<uint32_t>(f); }
ROCMTPL_HOST_DEVICE ROCMTPL_FORCEINLINE float bits_as_float(uint32_t u) { return bit_cast_4<float>(u); }

// bf16 is the upper half of a float.
ROCMTPL_HOST_DEVICE ROCMTPL_FORCEINLINE float bf16_bits_to_float(uint16_t bits) {
  return bits_as_float(static_cast<uint32_t>(bits) << 16);
}

// Round to nearest, ties to even; NaN stays a quiet NaN of the same sign; overflow gives inf.
ROCMTPL_HOST_DEVICE ROCMTPL_FORCEINLINE uint16_t float_to_bf16_bits(float f) {
  const uint32_t u = float_as_bits(f);
  if ((u & 0x7fffffffu) > 0x7f800000u) return static_cast<uint16_t>((u >> 16) | 0x0040u);
  return static_cast<uint16_t>((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
}

// IEEE binary16 -> binary32, exact (subnormals, inf and NaN included).
ROCMTPL_HOST_DEVICE ROCMTPL_FORCEINLINE float half_bits_to_float(uint16_t bits) {
  const uint32_t sign = static_cast<uint32_t>(bits & 0x8000u) << 16;
  const uint32_t exponent = (bits >> 10) & 0x1fu;
  uint32_t mantissa = bits & 0x3ffu;
  if (exponent == 0x1fu) return bits_as_float(sign | 0x7f800000u | (mantissa << 13));
  if (exponent != 0) return bits_as_float(sign | ((exponent + 112u) << 23) | (mantissa << 13));
  if (mantissa == 0) return bits_as_float(sign);
  // Subnormal: value = mantissa * 2^-24; normalise it.
  uint32_t e = 113u;
  while ((mantissa & 0x400u) == 0) {
    mantissa <<= 1;
    --e;
  }
  return bits_as_float(sign | (e << 23) | ((mantissa & 0x3ffu) << 13));
}

// IEEE binary32 -> binary16, round to nearest, ties to even (subnormals, overflow to inf, NaN).
ROCMTPL_HOST_DEVICE ROCMTPL_FORCEINLINE uint16_t float_to_half_bits(float f) {
  const uint32_t u = float_as_bits(f);
  const uint16_t sign = static_cast<uint16_t>((u >> 16) & 0x8000u);
  const uint32_t magnitude = u & 0x7fffffffu;
  if (magnitude > 0x7f800000u) return static_cast<uint16_t>(sign | 0x7e00u | ((magnitude >> 13) & 0x3ffu));
  if (magnitude >= 0x477ff000u) return static_cast<uint16_t>(sign | 0x7c00u);  // rounds to >= 65520
  if (magnitude < 0x38800000u) {
    // Result is subnormal (or zero): shift the full significand into place and round.
    if (magnitude < 0x33000000u) return sign;  // below half of the smallest subnormal
    const uint32_t exponent = magnitude >> 23;
    const uint32_t significand = (magnitude & 0x7fffffu) | 0x800000u;
    const uint32_t shift = 126u - exponent;  // 14..24
    const uint32_t kept = significand >> shift;
    const uint32_t rest = significand & ((1u << shift) - 1u);
    const uint32_t halfway = 1u << (shift - 1u);
    const uint32_t rounded = kept + ((rest > halfway || (rest == halfway && (kept & 1u))) ? 1u : 0u);
    return static_cast<uint16_t>(sign | rounded);
  }
  // Normal: rebias the exponent (127 -> 15) and round the 13 dropped bits.
  const uint32_t rebased = magnitude - (112u << 23);
  const uint32_t rounded = (rebased + 0xfffu + ((rebased >> 13) & 1u)) >> 13;
  return static_cast<uint16_t>(sign | rounded);
}

}  // namespace rocmtpl_dev

// ---------------------------------------------------------------------------------------------
// NVIDIA: the HIP names generated code uses, mapped onto CUDA.
// ---------------------------------------------------------------------------------------------
#if defined(ROCMTPL_PLATFORM_NVIDIA)

// Host API names: not under NVRTC (device-only compiles have no host code).
#if !defined(__CUDACC_RTC__)
typedef cudaStream_t hipStream_t;
typedef cudaEvent_t hipEvent_t;
typedef cudaError_t hipError_t;
typedef cudaMemcpyKind hipMemcpyKind;
typedef cudaFuncAttribute hipFuncAttribute;
typedef cudaDeviceAttr hipDeviceAttribute_t;

#define hipSuccess cudaSuccess
#define hipErrorInvalidValue cudaErrorInvalidValue
#define hipMemcpyHostToHost cudaMemcpyHostToHost
#define hipMemcpyHostToDevice cudaMemcpyHostToDevice
#define hipMemcpyDeviceToHost cudaMemcpyDeviceToHost
#define hipMemcpyDeviceToDevice cudaMemcpyDeviceToDevice
#define hipMemcpyDefault cudaMemcpyDefault
#define hipFuncAttributeMaxDynamicSharedMemorySize cudaFuncAttributeMaxDynamicSharedMemorySize
#define hipDeviceAttributeMultiprocessorCount cudaDevAttrMultiProcessorCount
#define hipDeviceAttributeMaxSharedMemoryPerBlock cudaDevAttrMaxSharedMemoryPerBlock
#define hipDeviceAttributeSharedMemPerBlockOptin cudaDevAttrMaxSharedMemoryPerBlockOptin
#define hipDeviceAttributeMaxThreadsPerBlock cudaDevAttrMaxThreadsPerBlock
#define hipDeviceAttributeWarpSize cudaDevAttrWarpSize
#define hipDeviceAttributeL2CacheSize cudaDevAttrL2CacheSize
#define hipDeviceAttributeComputeCapabilityMajor cudaDevAttrComputeCapabilityMajor
#define hipDeviceAttributeComputeCapabilityMinor cudaDevAttrComputeCapabilityMinor

#endif  // !__CUDACC_RTC__

// Kernel names with template arguments go through HIP_KERNEL_NAME, as with HIP.
#define HIP_KERNEL_NAME(...) __VA_ARGS__
#define hipLaunchKernelGGL(kernel, grid, block, shared_bytes, stream, ...) \
  kernel<<<(grid), (block), (shared_bytes), (stream)>>>(__VA_ARGS__)

// All dynamic shared memory of a kernel starts at one address, as with HIP. One untyped, aligned
// symbol avoids nvcc's "declaration is incompatible" between kernels that use different types.
// `var` is a pointer here and an array on AMD: index it, do not take its sizeof.
#define HIP_DYNAMIC_SHARED(type, var)                                          \
  extern __shared__ __align__(16) unsigned char rocmtpl_dynamic_shared_raw[]; \
  type* var = reinterpret_cast<type*>(rocmtpl_dynamic_shared_raw)
#define HIP_DYNAMIC_SHARED_ATTRIBUTE

#if !defined(__CUDACC_RTC__)
inline hipError_t hipGetLastError() { return cudaGetLastError(); }
inline hipError_t hipPeekAtLastError() { return cudaPeekAtLastError(); }
inline const char* hipGetErrorString(hipError_t error) { return cudaGetErrorString(error); }
inline const char* hipGetErrorName(hipError_t error) { return cudaGetErrorName(error); }
inline hipError_t hipFuncSetAttribute(const void* func, hipFuncAttribute attr, int value) {
  return cudaFuncSetAttribute(func, attr, value);
}
inline hipError_t hipMemsetAsync(void* dst, int value, size_t bytes, hipStream_t stream = 0) {
  return cudaMemsetAsync(dst, value, bytes, stream);
}
inline hipError_t hipMemcpyAsync(void* dst, const void* src, size_t bytes, hipMemcpyKind kind,
                                 hipStream_t stream = 0) {
  return cudaMemcpyAsync(dst, src, bytes, kind, stream);
}
inline hipError_t hipMemcpy(void* dst, const void* src, size_t bytes, hipMemcpyKind kind) {
  return cudaMemcpy(dst, src, bytes, kind);
}
inline hipError_t hipMalloc(void** ptr, size_t bytes) { return cudaMalloc(ptr, bytes); }
inline hipError_t hipFree(void* ptr) { return cudaFree(ptr); }
inline hipError_t hipStreamSynchronize(hipStream_t stream) { return cudaStreamSynchronize(stream); }
inline hipError_t hipDeviceSynchronize() { return cudaDeviceSynchronize(); }
inline hipError_t hipGetDevice(int* device) { return cudaGetDevice(device); }
inline hipError_t hipDeviceGetAttribute(int* value, hipDeviceAttribute_t attr, int device) {
  return cudaDeviceGetAttribute(value, attr, device);
}
#endif  // !__CUDACC_RTC__

// HIP's maskless warp shuffles: every lane of the warp takes part (full mask).
namespace rocmtpl_dev {
template <class T>
__device__ ROCMTPL_FORCEINLINE T shfl(T var, int src_lane, int width = 32) {
  return __shfl_sync(0xffffffffu, var, src_lane, width);
}
template <class T>
__device__ ROCMTPL_FORCEINLINE T shfl_xor(T var, int lane_mask, int width = 32) {
  return __shfl_xor_sync(0xffffffffu, var, lane_mask, width);
}
template <class T>
__device__ ROCMTPL_FORCEINLINE T shfl_down(T var, unsigned int delta, int width = 32) {
  return __shfl_down_sync(0xffffffffu, var, delta, width);
}
template <class T>
__device__ ROCMTPL_FORCEINLINE T shfl_up(T var, unsigned int delta, int width = 32) {
  return __shfl_up_sync(0xffffffffu, var, delta, width);
}
}  // namespace rocmtpl_dev
// CUDA still declares deprecated maskless overloads for the host pass; macros keep every call on
// the *_sync path without overload clashes. (CUDA headers are included above, so none follow.)
#define __shfl(...) ::rocmtpl_dev::shfl(__VA_ARGS__)
#define __shfl_xor(...) ::rocmtpl_dev::shfl_xor(__VA_ARGS__)
#define __shfl_down(...) ::rocmtpl_dev::shfl_down(__VA_ARGS__)
#define __shfl_up(...) ::rocmtpl_dev::shfl_up(__VA_ARGS__)

#endif  // ROCMTPL_PLATFORM_NVIDIA

#if defined(ROCMTPL_PLATFORM_NVIDIA) || defined(ROCMTPL_PLATFORM_AMD_EMU)
// The AMD hip_bfloat16 as generated code uses it: trivial, raw `data`, explicit from float
// (round to nearest even), implicit to float.
struct hip_bfloat16 {
  uint16_t data;
  hip_bfloat16() = default;
  explicit ROCMTPL_HOST_DEVICE hip_bfloat16(float f) : data(rocmtpl_dev::float_to_bf16_bits(f)) {}
  ROCMTPL_HOST_DEVICE operator float() const { return rocmtpl_dev::bf16_bits_to_float(data); }
  static ROCMTPL_HOST_DEVICE hip_bfloat16 round_to_bfloat16(float f) { return hip_bfloat16(f); }
};
#endif

// ---------------------------------------------------------------------------------------------
// to_float / from_float on every platform.
// ---------------------------------------------------------------------------------------------
namespace rocmtpl_dev {

ROCMTPL_HOST_DEVICE ROCMTPL_FORCEINLINE float to_float(float x) { return x; }
ROCMTPL_HOST_DEVICE ROCMTPL_FORCEINLINE float to_float(double x) { return static_cast<float>(x); }
// A raw 16-bit value is read as fp16 (the C ABI passes fp16 and bf16 as uint16_t; use
// bf16_bits_to_float for bf16).
ROCMTPL_HOST_DEVICE ROCMTPL_FORCEINLINE float to_float(uint16_t bits) { return half_bits_to_float(bits); }

template <class T>
ROCMTPL_HOST_DEVICE T from_float(float x);
template <>
ROCMTPL_HOST_DEVICE ROCMTPL_FORCEINLINE float from_float<float>(float x) {
  return x;
}
template <>
ROCMTPL_HOST_DEVICE ROCMTPL_FORCEINLINE double from_float<double>(float x) {
  return static_cast<double>(x);
}
template <>
ROCMTPL_HOST_DEVICE ROCMTPL_FORCEINLINE uint16_t from_float<uint16_t>(float x) {
  return float_to_half_bits(x);
}

#if defined(ROCMTPL_PLATFORM_AMD) || defined(ROCMTPL_PLATFORM_NVIDIA)
ROCMTPL_HOST_DEVICE ROCMTPL_FORCEINLINE float to_float(__half x) { return __half2float(x); }
ROCMTPL_HOST_DEVICE ROCMTPL_FORCEINLINE float to_float(hip_bfloat16 x) { return static_cast<float>(x); }
template <>
ROCMTPL_HOST_DEVICE ROCMTPL_FORCEINLINE __half from_float<__half>(float x) {
  return __float2half(x);
}
template <>
ROCMTPL_HOST_DEVICE ROCMTPL_FORCEINLINE hip_bfloat16 from_float<hip_bfloat16>(float x) {
  return hip_bfloat16(x);
}

// gelu(v) = v * Phi(v), the erf form (PyTorch's default), with Phi(v) = 1 - erfc(t) / 2 for v >= 0
// and erfc(t) / 2 below, t = |v| / sqrt(2), and erfc(t) = s (a1 + s (a2 + s (a3 + s (a4 + s a5))))
// exp(-t^2), s = 1 / (1 + p t) (Abramowitz and Stegun 7.1.26, |error| <= 1.5e-7; the coefficients
// below are halved). The reciprocal and the exponential are one special-function instruction each
// (NVIDIA rcp.approx / ex2.approx, AMD v_rcp_f32 / v_exp_f32): about 15 instructions an element
// where erff takes about 25, within |v| * 1e-7 of the exact gelu. Every gelu of generated code (the
// templates' activation, fused epilogue chains, the pointwise kernels) is this one.
ROCMTPL_DEVICE ROCMTPL_FORCEINLINE float gelu(float v) {
  const float t = fabsf(v) * 0.70710678118654752f;
  const float d = fmaf(0.3275911f, t, 1.0f);
#if defined(ROCMTPL_PLATFORM_NVIDIA)
  float s;
  float x;  // exp(-t^2) = 2^(-t^2 log2(e))
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(s) : "f"(d));
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(x) : "f"(-t * t * 1.44269504088896341f));
#else
  const float s = __builtin_amdgcn_rcpf(d);
  const float x = __expf(-t * t);
#endif
  const float half_erfc =
      s * fmaf(s, fmaf(s, fmaf(s, fmaf(s, 0.5307027145f, -0.7265760135f), 0.7107068705f), -0.142248368f), 0.127414796f) *
      x;
  return v * (v >= 0.0f ? 1.0f - half_erfc : half_erfc);
}

// sigmoid(v) = 1 / (1 + exp(-v)) and silu(v) = v sigmoid(v) through the hardware's exponential and
// reciprocal, a few instructions where expf and an IEEE division take about twenty, and no branch:
// __frcp_rn (a correctly rounded reciprocal) branches to a slow path on every value, so a row's 8
// values could not overlap, and a fused chain with silu ran 1.7x the plain GEMM's time on the H200.
// sigmoid is __fdividef(1, 1 + __expf(-v)); silu on NVIDIA is ex2.approx.ftz and rcp.approx.ftz (one
// special-function instruction each). The two differ because of register pressure on the Hopper
// tiles at the limit (168), checked with ptxas on every tiling: silu in the sigmoid's form spilled
// 16 bytes (ping-pong 128 x 128, silu + Residual), sigmoid in silu's form 8 bytes (256 x 128); this
// pair spills on none (GemmGpu.EveryHopperConfigF16AndBf16). Within a few ulps of sigmoid for v
// above -87; below, the result (under 2^-126) may flush to zero. sigmoid(+inf) = 1,
// sigmoid(-inf) = 0, NaN stays NaN; silu(-inf) is NaN, as -inf / inf is.
ROCMTPL_DEVICE ROCMTPL_FORCEINLINE float sigmoid(float v) { return __fdividef(1.0f, 1.0f + __expf(-v)); }
ROCMTPL_DEVICE ROCMTPL_FORCEINLINE float silu(float v) {
#if defined(ROCMTPL_PLATFORM_NVIDIA)
  float e;  // exp(-v) = 2^(-v log2(e))
  float r;
  asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(e) : "f"(v * -1.44269504088896341f));
  asm("rcp.approx.ftz.f32 %0, %1;" : "=f"(r) : "f"(1.0f + e));
  return v * r;
#else
  return v * sigmoid(v);
#endif
}

// gelu_tanh(v) = 0.5 v (1 + tanh(u)), u = sqrt(2 / pi) (v + 0.044715 v^3): PyTorch's
// gelu(approximate='tanh'). NVIDIA (sm_75 and later): the hardware tanh, tanh.approx.f32, one
// instruction with a relative error of about 2^-11, so within about 2^-12 |v| of the exact value
// (a bound in |v|, not in the result: for negative v, 1 + tanh(u) is small and the error is not).
// AMD has no tanh instruction: 1 + tanh(u) = 2 / (1 + exp(-2u)), so gelu_tanh(v) = v / (1 + exp(-2u))
// through the hardware's exponential and reciprocal, within a few ulps of the result. Both give
// gelu_tanh(0) = 0, +inf for +inf, NaN for -inf and NaN (as the formula does), v for large v and
// a zero for large negative v (tanh saturates at -1, or exp(-2u) overflows).
ROCMTPL_DEVICE ROCMTPL_FORCEINLINE float gelu_tanh(float v) {
  const float u = 0.79788456080286536f * fmaf(0.044715f * v, v * v, v);
#if defined(ROCMTPL_PLATFORM_NVIDIA)
  float t;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ < 750
  t = tanhf(u);
#else
  asm("tanh.approx.f32 %0, %1;" : "=f"(t) : "f"(u));
#endif
  const float h = 0.5f * v;
  return fmaf(h, t, h);
#else
  return v * __builtin_amdgcn_rcpf(1.0f + __expf(-2.0f * u));
#endif
}

// 16 bytes at a 16-byte aligned address (NVIDIA: through the read-only data cache).
ROCMTPL_DEVICE ROCMTPL_FORCEINLINE uint4 ld16(const void* p) {
#if defined(ROCMTPL_PLATFORM_NVIDIA)
  return __ldg(reinterpret_cast<const uint4*>(p));
#else
  return *reinterpret_cast<const uint4*>(p);
#endif
}
// 8 values at p, p + stride, ... as raw words (16-bit values two a word, low half first): 16-byte
// loads when the values are contiguous and p is 16-byte aligned, else one load a value. The slow
// path is a rolled loop so that it stays a branch: unrolled, the compiler if-converted it, and its
// eight loads issued (predicated off) for every row of the fast path. The fused epilogue chains'
// [M, N] and [N] operands and the Hopper path's Residual read through these.
ROCMTPL_DEVICE ROCMTPL_FORCEINLINE void load8(const uint16_t* p, int64_t stride, uint32_t (&w)[4]) {
  if (stride == 1 && (reinterpret_cast<uintptr_t>(p) & 15u) == 0) {
    const uint4 q = ld16(p);
    w[0] = q.x, w[1] = q.y, w[2] = q.z, w[3] = q.w;
  } else {
    uint64_t lo = 0, hi = 0;  // values 0-3 and 4-7, the first in the low half
#pragma unroll 1
    for (int e = 3; e >= 0; --e) {
      lo = (lo << 16) | p[e * stride];
      hi = (hi << 16) | p[(e + 4) * stride];
    }
    w[0] = static_cast<uint32_t>(lo), w[1] = static_cast<uint32_t>(lo >> 32);
    w[2] = static_cast<uint32_t>(hi), w[3] = static_cast<uint32_t>(hi >> 32);
  }
}
ROCMTPL_DEVICE ROCMTPL_FORCEINLINE void load8(const float* p, int64_t stride, uint32_t (&w)[8]) {
  if (stride == 1 && (reinterpret_cast<uintptr_t>(p) & 15u) == 0) {
    const uint4 a = ld16(p), b = ld16(p + 4);
    w[0] = a.x, w[1] = a.y, w[2] = a.z, w[3] = a.w, w[4] = b.x, w[5] = b.y, w[6] = b.z, w[7] = b.w;
  } else {
    uint64_t q[4] = {};  // values 2i (low half) and 2i + 1
#pragma unroll 1
    for (int e = 1; e >= 0; --e) {
      q[0] = (q[0] << 32) | float_as_bits(p[e * stride]);
      q[1] = (q[1] << 32) | float_as_bits(p[(e + 2) * stride]);
      q[2] = (q[2] << 32) | float_as_bits(p[(e + 4) * stride]);
      q[3] = (q[3] << 32) | float_as_bits(p[(e + 6) * stride]);
    }
#pragma unroll
    for (int i = 0; i < 4; ++i) w[2 * i] = static_cast<uint32_t>(q[i]), w[2 * i + 1] = static_cast<uint32_t>(q[i] >> 32);
  }
}
#endif

}  // namespace rocmtpl_dev

#endif  // ROCMTPL_HIP_PORTABLE_H
)rocmtpl_src";

}  // namespace rocmtpl::device
