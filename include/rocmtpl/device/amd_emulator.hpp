// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The AMD emulator (issue 23): the text of `rocmtpl_amd_emu.h`, which maps the HIP surface
/// of generated AMD kernels onto the CPU, and holds the emulator's runtime.
///
/// A generated source compiled by clang++ for the host with `-DROCMTPL_AMD_EMULATOR=1` includes
/// this header through rocmtpl_hip_portable.h (in place of the HIP headers; `ROCMTPL_PLATFORM_AMD`
/// and `ROCMTPL_PLATFORM_AMD_EMU` are defined, so the AMD code paths compile). What it emulates:
/// - launches (`hipLaunchKernelGGL`): the grid runs block by block, synchronously; a block's threads
///   run as fibers in waves of 64 (thread t is lane t % 64 of wave t / 64); `__syncthreads` is a
///   barrier over the block's live threads; `__shared__` variables and `HIP_DYNAMIC_SHARED` memory
///   are per block, filled with 0xff bytes (NaN) before each block;
/// - lane operations over the 64 lanes of a wave, as HIP 5.2 defines them on ds_bpermute:
///   `__shfl`, `__shfl_xor`, `__shfl_up`, `__shfl_down` (with `width`), `__ballot`, `__any`,
///   `__all`; the MFMA builtins `__builtin_amdgcn_mfma_f32_32x32x8f16` and
///   `__builtin_amdgcn_mfma_f32_32x32x8bf16_1k` with the instructions' operand and result layouts
///   (CDNA2/CDNA3 ISA guides; broadcast modifiers are refused); a wave whose lanes meet different
///   lane operations, or a block whose threads wait on each other for ever, stops the launch;
/// - `atomicAdd`/`Sub`/`Max`/`Min`/`Exch`/`CAS`, `__ldg`, the bit casts, `__expf`, `__logf`,
///   `__fdividef`, `__builtin_amdgcn_rcpf` (the C library's results, within an ulp of the GPU's
///   approximations), `__half`, `hip_bfloat16` (from the portability header), `float2/4`,
///   `int2/4`, `uint2/4` (members only), `dim3`, `threadIdx`/`blockIdx`/`blockDim`/`gridDim`,
///   `warpSize` (64), `__trap`, and the host names the generated entries call;
/// - checked memory: clang's `-fsanitize-coverage=func,inline-bool-flag,trace-loads,trace-stores`
///   calls the header's hooks before every 1, 2, 4, 8 and 16-byte load and store of kernel code;
///   an access outside the lane's stack, the block's shared memory, the launch's arguments, the
///   kernel library's read-only data and the emulator's device allocations (hipMalloc: page-aligned,
///   between unmapped pages, filled with 0xff bytes) stops the launch, and the message names the
///   kernel, block, thread, wave, lane and address (rocmtpl_emu_last_message(), and stderr).
/// Not checked: accesses of other widths and those the compiler turns into library calls (memcpy
/// of a large struct), which allocation an in-bounds address belongs to (an index that runs from
/// one allocation into another passes), and the bounds of each `__shared__` variable (the kernel
/// library's `__shared__` variables are checked as one range; dynamic shared memory exactly).
///
/// With `ROCMTPL_AMD_EMU_IMPLEMENTATION` defined the same text also defines the runtime: the
/// scheduler and its context switch (x86-64 or AArch64 assembly), the lane operations, the checks
/// and the host API (`rocmtpl_emu_*`, and the HIP runtime names rocmtpl's GPU runtime loader binds,
/// so that the runtime library can stand in for libamdhip64: one device, events that measure
/// nothing). runtime/build/amd_emulator.hpp builds it once into `librocmtpl_amd_emu.so`, which every
/// emulated kernel library links.
///
/// What the emulator cannot tell: timing, occupancy, register and LDS pressure, and the finer points
/// of the memory model (lanes run one at a time and switch only at barriers and lane operations,
/// so a race that needs two lanes to interleave never shows; writes are visible at once).

#include <string_view>

namespace rocmtpl::device {

/// @brief The file name the portability header includes under `ROCMTPL_AMD_EMULATOR`.
inline constexpr std::string_view amd_emulator_header_name = "rocmtpl_amd_emu.h";

/// @brief The full text of rocmtpl_amd_emu.h (C++17, clang++ only).
inline constexpr std::string_view amd_emulator_header_source = R"rocmtpl_src(// SPDX-License-Identifier: MIT
// rocmtpl_amd_emu.h: written by rocmtpl; the CPU emulator of the HIP surface that generated AMD
// kernels use (rocmtpl_hip_portable.h includes it when ROCMTPL_AMD_EMULATOR is defined). The
// generated source is compiled for the host by clang (ext_vector_type and _Float16 are clang's):
// a launch runs the grid block by block, a block's threads as fibers grouped in wave64 waves.
// `__syncthreads` is a barrier over the block's live threads; lane operations (shuffles, ballots,
// MFMA) meet every live lane of the wave, the last to arrive computes for all. Loads and stores of
// kernel code are checked (clang's -fsanitize-coverage=trace-loads,trace-stores calls the hooks
// below before each 1, 2, 4, 8 and 16-byte access): outside the lane's own stack, the block's
// shared memory, the launch's arguments, the kernel library's read-only data and the emulator's
// device allocations, an access stops the launch and names the kernel, block, thread and address.
// With ROCMTPL_AMD_EMU_IMPLEMENTATION defined the file also holds the emulator's runtime (one
// translation unit: the runtime library the kernel libraries link, or a test program).
#ifndef ROCMTPL_AMD_EMU_H
#define ROCMTPL_AMD_EMU_H

#if !defined(__clang__) || !defined(__cplusplus)
#error "rocmtpl_amd_emu.h: the AMD emulator compiles generated HIP with clang++ (ext_vector_type, _Float16)"
#endif

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <type_traits>

// ---------------------------------------------------------------------------------------------
// The emulator's C interface (librocmtpl_amd_emu.so, or the program that defines
// ROCMTPL_AMD_EMU_IMPLEMENTATION).
// ---------------------------------------------------------------------------------------------
#define ROCMTPL_EMU_API extern "C" __attribute__((visibility("default")))
#define ROCMTPL_EMU_NOCHECK __attribute__((no_sanitize("coverage")))

struct rocmtpl_emu_uint3 {
  unsigned int x, y, z;
};

// What kernel code reads while a lane runs: its indices, the launch's dimensions, the block's
// dynamic shared memory. `owner` is the thread pointer of the launching OS thread (0 between
// launches): accesses of other threads are never checked.
struct rocmtpl_emu_view {
  uintptr_t owner;
  uintptr_t stack_lo;    // the running lane's stack [stack_lo, stack_lo + stack_size)
  uintptr_t stack_size;
  rocmtpl_emu_uint3 thread_idx, block_idx, block_dim, grid_dim;
  unsigned char* dynamic_shared;
};

// One launch as the kernel library describes it.
struct rocmtpl_emu_launch_desc {
  const char* kernel;               // the kernel's name
  rocmtpl_emu_uint3 grid, block;    // blocks, threads per block
  size_t dynamic_shared_bytes;      // HIP_DYNAMIC_SHARED bytes per block
  unsigned char* static_shared_lo;  // the kernel library's __shared__ variables [lo, hi)
  unsigned char* static_shared_hi;
  const void* args;                 // the arguments every lane reads [args, args + args_bytes)
  size_t args_bytes;
  const void* code;                 // an address inside the kernel library (its read-only data is readable)
  void (*run)(const void* args);    // runs the kernel body of one thread
};

ROCMTPL_EMU_API rocmtpl_emu_view rocmtpl_emu_now;
ROCMTPL_EMU_API int rocmtpl_emu_launch(const rocmtpl_emu_launch_desc* desc);
ROCMTPL_EMU_API void rocmtpl_emu_check_access(const void* address, unsigned bytes, int store);
ROCMTPL_EMU_API void rocmtpl_emu_syncthreads(void);
// A wave operation: `op` names it (lanes of a wave must agree), `in`/`out` the lane's operands
// and result (at most 128 bytes each).
ROCMTPL_EMU_API void rocmtpl_emu_wave_op(int op, const void* in, size_t in_bytes, void* out, size_t out_bytes);
ROCMTPL_EMU_API void rocmtpl_emu_trap(const char* what);
// Host side: device memory (checked, with unmapped red zones around it), errors, the last launch.
ROCMTPL_EMU_API int rocmtpl_emu_malloc(void** ptr, size_t bytes);
ROCMTPL_EMU_API int rocmtpl_emu_free(void* ptr);
ROCMTPL_EMU_API int rocmtpl_emu_register(const void* base, size_t bytes);
ROCMTPL_EMU_API int rocmtpl_emu_unregister(const void* base);
ROCMTPL_EMU_API int rocmtpl_emu_get_last_error(void);
ROCMTPL_EMU_API int rocmtpl_emu_peek_last_error(void);
ROCMTPL_EMU_API const char* rocmtpl_emu_error_string(int code);
ROCMTPL_EMU_API const char* rocmtpl_emu_last_message(void);
ROCMTPL_EMU_API unsigned long long rocmtpl_emu_launches(void);
ROCMTPL_EMU_API unsigned long long rocmtpl_emu_checked_accesses(void);

enum rocmtpl_emu_wave_op_kind {
  rocmtpl_emu_op_shfl = 1,
  rocmtpl_emu_op_shfl_xor,
  rocmtpl_emu_op_shfl_up,
  rocmtpl_emu_op_shfl_down,
  rocmtpl_emu_op_ballot,
  rocmtpl_emu_op_mfma_32x32x8_f16,
  rocmtpl_emu_op_mfma_32x32x8_bf16_1k,
};

// The thread pointer of the running OS thread (the %fs base on x86-64): one instruction.
ROCMTPL_EMU_NOCHECK static inline __attribute__((always_inline)) uintptr_t rocmtpl_emu_thread_pointer() {
#if defined(__x86_64__)
  uintptr_t tp;
  __asm__("movq %%fs:0, %0" : "=r"(tp));
  return tp;
#elif defined(__aarch64__)
  uintptr_t tp;
  __asm__("mrs %0, tpidr_el0" : "=r"(tp));
  return tp;
#else
#error "rocmtpl_amd_emu.h: x86-64 or AArch64 hosts only"
#endif
}

// The access hook: the lane's own stack and the emulator's view pass at once, the rest is looked up.
ROCMTPL_EMU_NOCHECK static inline __attribute__((always_inline)) void rocmtpl_emu_access(const void* p, unsigned bytes,
                                                                                        int store) {
  const rocmtpl_emu_view& n = rocmtpl_emu_now;
  if (n.owner != rocmtpl_emu_thread_pointer()) return;
  const uintptr_t a = reinterpret_cast<uintptr_t>(p);
  if (a - n.stack_lo < n.stack_size) return;
  if (a - reinterpret_cast<uintptr_t>(&rocmtpl_emu_now) < sizeof(rocmtpl_emu_view)) return;
  rocmtpl_emu_check_access(p, bytes, store);
}

// clang's load and store hooks (-fsanitize-coverage=...,trace-loads,trace-stores), hidden in each
// kernel library so that they never bind to a sanitizer runtime's weak ones.
#define ROCMTPL_EMU_HOOK(n, type)                                                                                \
  extern "C" __attribute__((weak, used, visibility("hidden"), no_sanitize("coverage"))) void                    \
      __sanitizer_cov_load##n(type* p) {                                                                         \
    rocmtpl_emu_access(p, n, 0);                                                                                 \
  }                                                                                                              \
  extern "C" __attribute__((weak, used, visibility("hidden"), no_sanitize("coverage"))) void                    \
      __sanitizer_cov_store##n(type* p) {                                                                        \
    rocmtpl_emu_access(p, n, 1);                                                                                 \
  }
ROCMTPL_EMU_HOOK(1, uint8_t)
ROCMTPL_EMU_HOOK(2, uint16_t)
ROCMTPL_EMU_HOOK(4, uint32_t)
ROCMTPL_EMU_HOOK(8, uint64_t)
ROCMTPL_EMU_HOOK(16, __int128)
#undef ROCMTPL_EMU_HOOK
extern "C" __attribute__((weak, used, visibility("hidden"), no_sanitize("coverage"))) void
__sanitizer_cov_bool_flag_init(bool*, bool*) {}

// ---------------------------------------------------------------------------------------------
// The HIP names generated code uses.
// ---------------------------------------------------------------------------------------------
#define __AMDGCN_WAVEFRONT_SIZE 64
#define warpSize 64
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __launch_bounds__(...)
#define __align__(n) __attribute__((aligned(n)))
#define __restrict__ __restrict
// __shared__ variables are statics in one section of the kernel library: the emulator poisons it
// (0xff bytes) before each block and lets the block's lanes read and write it. HIP_DYNAMIC_SHARED
// is the launch's dynamic bytes, allocated apart with red zones.
#define __shared__ static __attribute__((section("rocmtpl_emu_shared")))
#define HIP_DYNAMIC_SHARED(type, var) type* var = reinterpret_cast<type*>(rocmtpl_emu_now.dynamic_shared)
#define HIP_DYNAMIC_SHARED_ATTRIBUTE
extern "C" __attribute__((weak, visibility("hidden"))) unsigned char __start_rocmtpl_emu_shared[];
extern "C" __attribute__((weak, visibility("hidden"))) unsigned char __stop_rocmtpl_emu_shared[];

#define threadIdx (rocmtpl_emu_now.thread_idx)
#define blockIdx (rocmtpl_emu_now.block_idx)
#define blockDim (rocmtpl_emu_now.block_dim)
#define gridDim (rocmtpl_emu_now.grid_dim)

struct dim3 {
  unsigned int x, y, z;
  constexpr dim3(unsigned int x_ = 1, unsigned int y_ = 1, unsigned int z_ = 1) : x(x_), y(y_), z(z_) {}
};

typedef struct rocmtpl_emu_stream* hipStream_t;
typedef struct rocmtpl_emu_event* hipEvent_t;
typedef int hipError_t;
enum {
  hipSuccess = 0,
  hipErrorInvalidValue = 1,
  hipErrorOutOfMemory = 2,
  hipErrorNotSupported = 801,
  hipErrorLaunchFailure = 719,
};
enum hipFuncAttribute { hipFuncAttributeMaxDynamicSharedMemorySize = 8 };
enum hipDeviceAttribute_t {
  hipDeviceAttributeMaxThreadsPerBlock = 56,
  hipDeviceAttributeMaxSharedMemoryPerBlock = 74,
  hipDeviceAttributeSharedMemPerBlockOptin = 75,
  hipDeviceAttributeWarpSize = 87,
  hipDeviceAttributeMultiprocessorCount = 63,
};
enum hipMemcpyKind {
  hipMemcpyHostToHost = 0,
  hipMemcpyHostToDevice = 1,
  hipMemcpyDeviceToHost = 2,
  hipMemcpyDeviceToDevice = 3,
  hipMemcpyDefault = 4
};

ROCMTPL_EMU_API hipError_t hipGetLastError(void);
ROCMTPL_EMU_API hipError_t hipPeekAtLastError(void);
ROCMTPL_EMU_API const char* hipGetErrorString(hipError_t error);
ROCMTPL_EMU_API hipError_t hipGetDevice(int* device);
ROCMTPL_EMU_API hipError_t hipDeviceGetAttribute(int* value, int attr, int device);
ROCMTPL_EMU_API hipError_t hipMalloc(void** ptr, size_t bytes);
ROCMTPL_EMU_API hipError_t hipFree(void* ptr);
ROCMTPL_EMU_API hipError_t hipMemcpy(void* dst, const void* src, size_t bytes, int kind);
ROCMTPL_EMU_API hipError_t hipMemcpyAsync(void* dst, const void* src, size_t bytes, int kind, hipStream_t stream);
ROCMTPL_EMU_API hipError_t hipMemsetAsync(void* dst, int value, size_t bytes, hipStream_t stream);
ROCMTPL_EMU_API hipError_t hipStreamSynchronize(hipStream_t stream);
ROCMTPL_EMU_API hipError_t hipDeviceSynchronize(void);
ROCMTPL_EMU_API hipError_t hipFuncSetAttribute(const void* func, int attr, int value);

// Launches go through hipLaunchKernelGGL (the generated entries' form; `<<<...>>>` is not C++).
#define hipLaunchKernelGGL(kernel, ...) ROCMTPL_EMU_LAUNCH_(kernel, __VA_ARGS__)
#define ROCMTPL_EMU_LAUNCH_(kernel, grid, block, shared, stream, ...) \
  ::rocmtpl_emu::launch(#kernel, kernel, grid, block, shared, stream, ##__VA_ARGS__)
#define HIP_KERNEL_NAME(...) __VA_ARGS__

namespace rocmtpl_emu {

// A launch's arguments, converted to the kernel's parameter types.
template <class... T>
struct args_of;
template <>
struct args_of<> {
  template <class F, class... Done>
  void call(F f, Done... done) const {
    f(done...);
  }
};
template <class T, class... Rest>
struct args_of<T, Rest...> {
  T first;
  args_of<Rest...> rest;
  template <class A, class... ARest>
  explicit args_of(A&& a, ARest&&... r) : first(static_cast<T>(a)), rest(static_cast<ARest&&>(r)...) {}
  template <class F, class... Done>
  void call(F f, Done... done) const {
    rest.call(f, done..., first);
  }
};

template <class... P>
struct launch_args {
  void (*kernel)(P...);
  args_of<P...> args;
  // One thread's body. Runs on the lane's stack: the arguments are read from the launch's copy
  // (readable by every lane) and passed in registers.
  static void run(const void* self) {
    const launch_args& l = *static_cast<const launch_args*>(self);
    l.args.call(l.kernel);
  }
};

inline dim3 as_dim3(dim3 d) { return d; }
inline dim3 as_dim3(unsigned int x) { return dim3(x); }
inline dim3 as_dim3(int x) { return dim3(static_cast<unsigned int>(x)); }

// hipLaunchKernelGGL: runs every block now (launches are synchronous), then sets the last error.
template <class... P, class G, class B, class... A>
void launch(const char* name, void (*kernel)(P...), G grid, B block, size_t shared, hipStream_t, A&&... args) {
  static_assert(sizeof...(P) == sizeof...(A), "rocmtpl AMD emulator: a launch passes every kernel parameter");
  const launch_args<P...> l{kernel, args_of<P...>(static_cast<A&&>(args)...)};
  const dim3 g = as_dim3(grid), b = as_dim3(block);
  rocmtpl_emu_launch_desc d;
  d.kernel = name;
  d.grid = {g.x, g.y, g.z};
  d.block = {b.x, b.y, b.z};
  d.dynamic_shared_bytes = shared;
  d.static_shared_lo = __start_rocmtpl_emu_shared;
  d.static_shared_hi = __stop_rocmtpl_emu_shared;
  d.args = &l;
  d.args_bytes = sizeof(l);
  d.code = reinterpret_cast<const void*>(&launch_args<P...>::run);
  d.run = &launch_args<P...>::run;
  rocmtpl_emu_launch(&d);
}

// One wave operation of this lane.
template <class Out, class In>
inline Out wave(int op, const In& in) {
  Out out;
  rocmtpl_emu_wave_op(op, &in, sizeof(In), &out, sizeof(Out));
  return out;
}

template <class T>
struct shfl_in {  // the runtime reads the operand and the width first, then the value's bytes
  int operand;
  int width;
  unsigned char value[sizeof(T)];
};

template <class T>
inline T shfl(int op, T var, int operand, int width) {
  static_assert(sizeof(T) <= 16 && std::is_trivially_copyable<T>::value,
                "rocmtpl AMD emulator: shuffles move trivially copyable values of at most 16 bytes");
  shfl_in<T> in{operand, width, {}};
  memcpy(in.value, &var, sizeof(T));
  return wave<T>(op, in);
}

}  // namespace rocmtpl_emu

inline int __lane_id() { return static_cast<int>((threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z)) % 64u); }
inline void __syncthreads() { rocmtpl_emu_syncthreads(); }
inline void __threadfence() {}
inline void __threadfence_block() {}
template <class T>
inline T __shfl(T var, int src_lane, int width = warpSize) {
  return rocmtpl_emu::shfl(rocmtpl_emu_op_shfl, var, src_lane, width);
}
template <class T>
inline T __shfl_xor(T var, int lane_mask, int width = warpSize) {
  return rocmtpl_emu::shfl(rocmtpl_emu_op_shfl_xor, var, lane_mask, width);
}
template <class T>
inline T __shfl_up(T var, unsigned int delta, int width = warpSize) {
  return rocmtpl_emu::shfl(rocmtpl_emu_op_shfl_up, var, static_cast<int>(delta), width);
}
template <class T>
inline T __shfl_down(T var, unsigned int delta, int width = warpSize) {
  return rocmtpl_emu::shfl(rocmtpl_emu_op_shfl_down, var, static_cast<int>(delta), width);
}
inline unsigned long long __ballot(int predicate) {
  return rocmtpl_emu::wave<unsigned long long>(rocmtpl_emu_op_ballot, predicate != 0 ? 1 : 0);
}
inline int __any(int predicate) { return __ballot(predicate) != 0; }
inline int __all(int predicate) { return __ballot(predicate) == __ballot(1); }
inline void __trap() { rocmtpl_emu_trap("__trap()"); }

// Atomics: lanes run one at a time and switch only at barriers and lane operations, so a
// read-modify-write is atomic; the accesses are checked like every other.
template <class T>
inline T atomicAdd(T* address, T value) {
  const T old = *address;
  *address = old + value;
  return old;
}
template <class T>
inline T atomicSub(T* address, T value) {
  const T old = *address;
  *address = old - value;
  return old;
}
template <class T>
inline T atomicMax(T* address, T value) {
  const T old = *address;
  if (value > old) *address = value;
  return old;
}
template <class T>
inline T atomicMin(T* address, T value) {
  const T old = *address;
  if (value < old) *address = value;
  return old;
}
template <class T>
inline T atomicExch(T* address, T value) {
  const T old = *address;
  *address = value;
  return old;
}
template <class T>
inline T atomicCAS(T* address, T compare, T value) {
  const T old = *address;
  if (old == compare) *address = value;
  return old;
}
template <class T>
inline T __ldg(const T* p) {
  return *p;
}

inline long long __double_as_longlong(double x) {
  long long r;
  memcpy(&r, &x, sizeof r);
  return r;
}
inline double __longlong_as_double(long long x) {
  double r;
  memcpy(&r, &x, sizeof r);
  return r;
}
inline int __float_as_int(float x) {
  int r;
  memcpy(&r, &x, sizeof r);
  return r;
}
inline float __int_as_float(int x) {
  float r;
  memcpy(&r, &x, sizeof r);
  return r;
}
inline unsigned int __float_as_uint(float x) {
  unsigned int r;
  memcpy(&r, &x, sizeof r);
  return r;
}
inline float __uint_as_float(unsigned int x) {
  float r;
  memcpy(&r, &x, sizeof r);
  return r;
}

// Fast-math intrinsics: the C library's functions (v_exp_f32 / v_rcp_f32 are within 1 ulp of them).
inline float __expf(float x) { return expf(x); }
inline float __logf(float x) { return logf(x); }
inline float __fdividef(float a, float b) { return a / b; }
inline float __frcp_rn(float x) { return 1.0f / x; }
inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
#define __builtin_amdgcn_rcpf(x) (1.0f / static_cast<float>(x))

// The vector types generated code reads member-wise.
#define ROCMTPL_EMU_VEC(name, type, align)                                               \
  struct alignas(align) name##2 {                                                      \
    type x, y;                                                                         \
  };                                                                                   \
  struct alignas(align * 2) name##4 {                                                  \
    type x, y, z, w;                                                                   \
  };                                                                                   \
  inline name##2 make_##name##2(type x, type y) { return name##2{x, y}; }            \
  inline name##4 make_##name##4(type x, type y, type z, type w) { return name##4{x, y, z, w}; }
ROCMTPL_EMU_VEC(float, float, 8)
ROCMTPL_EMU_VEC(int, int, 8)
ROCMTPL_EMU_VEC(uint, unsigned int, 8)
#undef ROCMTPL_EMU_VEC

// fp16 and bf16 as HIP's headers give them to generated code.
struct __half {
  _Float16 value;
  __half() = default;
  __half(float f) : value(static_cast<_Float16>(f)) {}
  operator float() const { return static_cast<float>(value); }
};
inline float __half2float(__half h) { return static_cast<float>(h.value); }
inline __half __float2half(float f) { return __half(f); }
inline __half __float2half_rn(float f) { return __half(f); }
inline unsigned short __half_as_ushort(__half h) {
  unsigned short u;
  memcpy(&u, &h, sizeof u);
  return u;
}
inline __half __ushort_as_half(unsigned short u) {
  __half h;
  memcpy(&h, &u, sizeof h);
  return h;
}

// MFMA (CDNA2 / CDNA3): one 32x32x8 product per wave, fp32 accumulation. The operands' and the
// result's lane layouts are the instructions' (see the runtime's mfma_32x32x8()).
typedef _Float16 rocmtpl_emu_half4 __attribute__((ext_vector_type(4)));
typedef short rocmtpl_emu_short4 __attribute__((ext_vector_type(4)));
typedef float rocmtpl_emu_float16 __attribute__((ext_vector_type(16)));
namespace rocmtpl_emu {
struct mfma_in {
  unsigned short a[4], b[4];
  float c[16];
  int modifiers;  // cbsz, abid, blgp: all 0 (broadcasts are not emulated)
};
inline rocmtpl_emu_float16 mfma(int op, const void* a, const void* b, const rocmtpl_emu_float16& c, int cbsz, int abid,
                                int blgp) {
  mfma_in in;
  memcpy(in.a, a, sizeof in.a);
  memcpy(in.b, b, sizeof in.b);
  for (int e = 0; e < 16; ++e) in.c[e] = c[e];
  in.modifiers = cbsz | (abid << 4) | (blgp << 8);
  float d[16];
  rocmtpl_emu_wave_op(op, &in, sizeof in, d, sizeof d);
  rocmtpl_emu_float16 out;
  for (int e = 0; e < 16; ++e) out[e] = d[e];
  return out;
}
}  // namespace rocmtpl_emu
inline rocmtpl_emu_float16 rocmtpl_emu_mfma_f16(rocmtpl_emu_half4 a, rocmtpl_emu_half4 b, rocmtpl_emu_float16 c,
                                                int cbsz, int abid, int blgp) {
  return rocmtpl_emu::mfma(rocmtpl_emu_op_mfma_32x32x8_f16, &a, &b, c, cbsz, abid, blgp);
}
inline rocmtpl_emu_float16 rocmtpl_emu_mfma_bf16_1k(rocmtpl_emu_short4 a, rocmtpl_emu_short4 b,
                                                    rocmtpl_emu_float16 c, int cbsz, int abid, int blgp) {
  return rocmtpl_emu::mfma(rocmtpl_emu_op_mfma_32x32x8_bf16_1k, &a, &b, c, cbsz, abid, blgp);
}
#define __builtin_amdgcn_mfma_f32_32x32x8f16 rocmtpl_emu_mfma_f16
#define __builtin_amdgcn_mfma_f32_32x32x8bf16_1k rocmtpl_emu_mfma_bf16_1k

#if defined(ROCMTPL_AMD_EMU_IMPLEMENTATION)
// ---------------------------------------------------------------------------------------------
// The runtime (ROCMTPL_AMD_EMU_IMPLEMENTATION): the scheduler, lane operations, memory checks and
// the host API. Built without the access hooks (never instrumented).
// ---------------------------------------------------------------------------------------------
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <unistd.h>

namespace rocmtpl_emu_rt {

constexpr unsigned max_threads = 1024;          // threads per block (AMD's limit)
constexpr unsigned max_waves = max_threads / 64;
constexpr size_t lane_stack_bytes = 256 * 1024;  // each lane's stack, below it an unmapped guard page
constexpr size_t max_lds_bytes = 64 * 1024;      // LDS of a CDNA workgroup
constexpr size_t wave_payload = 128;              // bytes a lane gives or takes in one wave operation

enum lane_state : int { ready, at_barrier, at_wave_op, finished };

struct lane_t {
  void* sp = nullptr;                // saved stack pointer while switched out
  unsigned char* stack = nullptr;    // [stack, stack + lane_stack_bytes)
  rocmtpl_emu_uint3 tid{};
  unsigned wave = 0, lane = 0;
  lane_state state = ready;
};

struct wave_t {
  unsigned live = 0, arrived = 0;
  int op = 0;
  size_t in_bytes = 0, out_bytes = 0;
  uint64_t present = 0;
  unsigned char in[64][wave_payload];
  unsigned char out[64][wave_payload];
};

struct range {
  uintptr_t lo, hi;
};

struct allocation {
  uintptr_t lo, hi;          // what the caller sees
  void* map;                 // the mapping (red zones included); null for registered memory
  size_t map_bytes;
};

struct state_t {
  pthread_mutex_t launch_mutex = PTHREAD_MUTEX_INITIALIZER;
  pthread_mutex_t memory_mutex = PTHREAD_MUTEX_INITIALIZER;
  lane_t lanes[max_threads];
  unsigned lane_count = 0;   // lanes (threads) of the current launch's blocks
  unsigned stacks = 0;       // lane stacks allocated so far (kept for later launches)
  wave_t waves[max_waves];
  unsigned live = 0, at_barrier = 0;
  void* scheduler_sp = nullptr;
  lane_t* current = nullptr;
  const rocmtpl_emu_launch_desc* desc = nullptr;
  bool failed = false;
  char message[2048] = {0};
  range dynamic_shared{0, 0};
  void* dynamic_map = nullptr;
  size_t dynamic_map_bytes = 0;
  range static_shared{0, 0};
  range args{0, 0};
  range readonly[16];
  int readonly_count = 0;
  allocation* allocations = nullptr;  // sorted by lo
  size_t allocation_count = 0, allocation_capacity = 0;
  unsigned long long launches = 0, checked = 0;
};

// Trivially destructible, and what it owns is mapped memory (never the C++ heap): nothing to
// destroy, nothing a leak checker reports when the library is unloaded.
state_t& state() {
  static state_t s;
  return s;
}

thread_local int last_error = 0;

// ---- fibers: each lane runs on a stack of its own; switching saves the callee-saved registers.
extern "C" void rocmtpl_emu_switch(void** save_sp, void* to_sp);
extern "C" void rocmtpl_emu_fiber_start();
#if defined(__x86_64__)
__asm__(R"(
    .text
    .globl rocmtpl_emu_switch
    .hidden rocmtpl_emu_switch
    .type rocmtpl_emu_switch, @function
rocmtpl_emu_switch:
    pushq %rbp
    pushq %rbx
    pushq %r12
    pushq %r13
    pushq %r14
    pushq %r15
    subq $8, %rsp
    stmxcsr (%rsp)
    fnstcw 4(%rsp)
    movq %rsp, (%rdi)
    movq %rsi, %rsp
    ldmxcsr (%rsp)
    fldcw 4(%rsp)
    addq $8, %rsp
    popq %r15
    popq %r14
    popq %r13
    popq %r12
    popq %rbx
    popq %rbp
    ret
    .size rocmtpl_emu_switch, .-rocmtpl_emu_switch

    .globl rocmtpl_emu_fiber_start
    .hidden rocmtpl_emu_fiber_start
    .type rocmtpl_emu_fiber_start, @function
rocmtpl_emu_fiber_start:
    movq %r12, %rdi
    callq *%r13
    ud2
    .size rocmtpl_emu_fiber_start, .-rocmtpl_emu_fiber_start
)");

// A fresh stack that, switched to, calls entry(arg) (rocmtpl_emu_switch pops the saved floating
// point control words, r15 .. rbp, then returns into rocmtpl_emu_fiber_start).
void* prepare_stack(unsigned char* top, void (*entry)(void*), void* arg) {
  uint64_t* sp = reinterpret_cast<uint64_t*>(top) - 10;  // 16-byte aligned: top is
  uint32_t control[2];
  __asm__("stmxcsr %0" : "=m"(control[0]));
  __asm__("fnstcw %0" : "=m"(control[1]));
  memcpy(&sp[0], control, sizeof control);
  sp[1] = 0;                                             // r15
  sp[2] = 0;                                             // r14
  sp[3] = reinterpret_cast<uint64_t>(entry);             // r13
  sp[4] = reinterpret_cast<uint64_t>(arg);               // r12
  sp[5] = 0;                                             // rbx
  sp[6] = 0;                                             // rbp: ends frame-pointer walks
  sp[7] = reinterpret_cast<uint64_t>(&rocmtpl_emu_fiber_start);
  return sp;
}
#elif defined(__aarch64__)
__asm__(R"(
    .text
    .globl rocmtpl_emu_switch
    .hidden rocmtpl_emu_switch
    .type rocmtpl_emu_switch, %function
rocmtpl_emu_switch:
    sub sp, sp, #176
    stp x19, x20, [sp, #0]
    stp x21, x22, [sp, #16]
    stp x23, x24, [sp, #32]
    stp x25, x26, [sp, #48]
    stp x27, x28, [sp, #64]
    stp x29, x30, [sp, #80]
    stp d8, d9, [sp, #96]
    stp d10, d11, [sp, #112]
    stp d12, d13, [sp, #128]
    stp d14, d15, [sp, #144]
    mrs x9, fpcr
    str x9, [sp, #160]
    mov x9, sp
    str x9, [x0]
    mov sp, x1
    ldr x9, [sp, #160]
    msr fpcr, x9
    ldp x19, x20, [sp, #0]
    ldp x21, x22, [sp, #16]
    ldp x23, x24, [sp, #32]
    ldp x25, x26, [sp, #48]
    ldp x27, x28, [sp, #64]
    ldp x29, x30, [sp, #80]
    ldp d8, d9, [sp, #96]
    ldp d10, d11, [sp, #112]
    ldp d12, d13, [sp, #128]
    ldp d14, d15, [sp, #144]
    add sp, sp, #176
    ret
    .size rocmtpl_emu_switch, .-rocmtpl_emu_switch

    .globl rocmtpl_emu_fiber_start
    .hidden rocmtpl_emu_fiber_start
    .type rocmtpl_emu_fiber_start, %function
rocmtpl_emu_fiber_start:
    mov x0, x19
    blr x20
    brk #0
    .size rocmtpl_emu_fiber_start, .-rocmtpl_emu_fiber_start
)");

void* prepare_stack(unsigned char* top, void (*entry)(void*), void* arg) {
  uint64_t* sp = reinterpret_cast<uint64_t*>(top) - 22;  // 176 bytes
  memset(sp, 0, 176);
  sp[0] = reinterpret_cast<uint64_t>(arg);    // x19
  sp[1] = reinterpret_cast<uint64_t>(entry);  // x20
  sp[11] = reinterpret_cast<uint64_t>(&rocmtpl_emu_fiber_start);  // x30
  uint64_t fpcr;
  __asm__("mrs %0, fpcr" : "=r"(fpcr));
  sp[20] = fpcr;
  return sp;
}
#endif

uintptr_t thread_pointer() { return rocmtpl_emu_thread_pointer(); }

// ---- errors ---------------------------------------------------------------------------------
void describe_lane(char* out, size_t room) {
  state_t& s = state();
  const lane_t* l = s.current;
  if (l == nullptr) {
    snprintf(out, room, "kernel %s", s.desc ? s.desc->kernel : "?");
    return;
  }
  snprintf(out, room, "kernel %s, block (%u, %u, %u), thread (%u, %u, %u) (wave %u, lane %u)", s.desc->kernel,
           rocmtpl_emu_now.block_idx.x, rocmtpl_emu_now.block_idx.y, rocmtpl_emu_now.block_idx.z, l->tid.x, l->tid.y,
           l->tid.z, l->wave, l->lane);
}

// Stops the launch: records the message and leaves the lane for good (its stack is reused).
[[noreturn]] void fail(const char* format, ...) {
  state_t& s = state();
  if (!s.failed) {
    char where[256];
    describe_lane(where, sizeof where);
    char what[1536];
    va_list args;
    va_start(args, format);
    vsnprintf(what, sizeof what, format, args);
    va_end(args);
    snprintf(s.message, sizeof s.message, "rocmtpl AMD emulator: %s: %s", where, what);
    s.failed = true;
  }
  void* dead;
  rocmtpl_emu_switch(&dead, s.scheduler_sp);
  __builtin_unreachable();
}

// ---- the scheduler --------------------------------------------------------------------------
void yield() {
  state_t& s = state();
  rocmtpl_emu_switch(&s.current->sp, s.scheduler_sp);
}

void release_barrier() {
  state_t& s = state();
  for (unsigned i = 0; i < s.lane_count; ++i) {
    if (s.lanes[i].state == at_barrier) s.lanes[i].state = ready;
  }
  s.at_barrier = 0;
}

// MFMA 32x32x8 (v_mfma_f32_32x32x8f16, v_mfma_f32_32x32x8bf16_1k / _bf16 on CDNA3): for block 0,
// the register-to-element maps of the CDNA2 and CDNA3 ISA guides (AMD's matrix instruction
// calculator prints the same): A: lane l, element e (e = 2 * GPR + half) holds A[l % 32][4 * (l / 32)
// + e]; B: lane l, element e holds B[4 * (l / 32) + e][l % 32]; C and D: lane l, register r holds
// [8 * (r / 4) + 4 * (l / 32) + r % 4][l % 32]. The products of 16-bit values are exact in fp32;
// the sum runs over K in order, rounding to fp32 at each step.
struct mfma_lane {
  unsigned short a[4], b[4];
  float c[16];
  int modifiers;
};
float half_bits(unsigned short h) {
  const uint32_t sign = static_cast<uint32_t>(h & 0x8000u) << 16;
  uint32_t exponent = (h >> 10) & 0x1fu, mantissa = h & 0x3ffu;
  uint32_t bits;
  if (exponent == 0x1fu) {
    bits = sign | 0x7f800000u | (mantissa << 13);
  } else if (exponent != 0) {
    bits = sign | ((exponent + 112u) << 23) | (mantissa << 13);
  } else if (mantissa == 0) {
    bits = sign;
  } else {
    exponent = 113u;
    while ((mantissa & 0x400u) == 0) {
      mantissa <<= 1;
      --exponent;
    }
    bits = sign | (exponent << 23) | ((mantissa & 0x3ffu) << 13);
  }
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}
float bf16_bits(unsigned short h) {
  const uint32_t bits = static_cast<uint32_t>(h) << 16;
  float f;
  memcpy(&f, &bits, sizeof f);
  return f;
}

void mfma_32x32x8(wave_t& w, bool bf16) {
  if (w.present != ~uint64_t{0}) fail("an MFMA needs all 64 lanes of the wave (live lanes: %016llx)",
                                      static_cast<unsigned long long>(w.present));
  mfma_lane in[64];
  for (int l = 0; l < 64; ++l) memcpy(&in[l], w.in[l], sizeof(mfma_lane));
  for (int l = 0; l < 64; ++l) {
    if (in[l].modifiers != 0) fail("MFMA broadcast modifiers (cbsz, abid, blgp) are not emulated");
  }
  float a[32][8], b[8][32];
  for (int i = 0; i < 32; ++i) {
    for (int k = 0; k < 8; ++k) {
      const unsigned short bits = in[i + 32 * (k / 4)].a[k % 4];
      a[i][k] = bf16 ? bf16_bits(bits) : half_bits(bits);
    }
  }
  for (int k = 0; k < 8; ++k) {
    for (int j = 0; j < 32; ++j) {
      const unsigned short bits = in[j + 32 * (k / 4)].b[k % 4];
      b[k][j] = bf16 ? bf16_bits(bits) : half_bits(bits);
    }
  }
  for (int i = 0; i < 32; ++i) {
    for (int j = 0; j < 32; ++j) {
      const int lane = j + 32 * ((i / 4) % 2);
      const int reg = 4 * (i / 8) + i % 4;
      float d = in[lane].c[reg];
      for (int k = 0; k < 8; ++k) d += a[i][k] * b[k][j];
      memcpy(w.out[lane] + reg * sizeof(float), &d, sizeof d);
    }
  }
}

// HIP 5.2's shuffles (amd_warp_functions.h) over ds_bpermute: the source lane is taken modulo 64;
// a lane that has exited (or does not exist) reads as zero.
struct shfl_lane {
  int operand, width;
};
void shuffle(wave_t& w, int op) {
  const size_t value_bytes = w.out_bytes;
  for (int self = 0; self < 64; ++self) {
    if ((w.present >> self & 1) == 0) continue;
    shfl_lane p;
    memcpy(&p, w.in[self], sizeof p);
    const int width = p.width;
    if (width <= 0 || width > 64 || (width & (width - 1)) != 0) fail("shuffle width %d is not a power of two up to 64", width);
    int index = self;
    switch (op) {
      case rocmtpl_emu_op_shfl: index = p.operand + (self & ~(width - 1)); break;
      case rocmtpl_emu_op_shfl_xor: {
        index = self ^ p.operand;
        if (index >= ((self + width) & ~(width - 1))) index = self;
        break;
      }
      case rocmtpl_emu_op_shfl_up: {
        index = self - p.operand;
        if (index < (self & ~(width - 1))) index = self;
        break;
      }
      default: {
        index = self + p.operand;
        if ((self & (width - 1)) + p.operand >= width) index = self;
        break;
      }
    }
    index &= 63;
    if ((w.present >> index & 1) != 0) {
      memcpy(w.out[self], w.in[index] + sizeof(shfl_lane), value_bytes);
    } else {
      memset(w.out[self], 0, value_bytes);
    }
  }
}

void ballot(wave_t& w) {
  uint64_t mask = 0;
  for (int l = 0; l < 64; ++l) {
    if ((w.present >> l & 1) != 0 && w.in[l][0] != 0) mask |= uint64_t{1} << l;
  }
  for (int l = 0; l < 64; ++l) memcpy(w.out[l], &mask, sizeof mask);
}

const char* op_name(int op) {
  switch (op) {
    case rocmtpl_emu_op_shfl: return "__shfl";
    case rocmtpl_emu_op_shfl_xor: return "__shfl_xor";
    case rocmtpl_emu_op_shfl_up: return "__shfl_up";
    case rocmtpl_emu_op_shfl_down: return "__shfl_down";
    case rocmtpl_emu_op_ballot: return "__ballot";
    case rocmtpl_emu_op_mfma_32x32x8_f16: return "__builtin_amdgcn_mfma_f32_32x32x8f16";
    case rocmtpl_emu_op_mfma_32x32x8_bf16_1k: return "__builtin_amdgcn_mfma_f32_32x32x8bf16_1k";
    default: return "a lane operation";
  }
}

// Every live lane of the wave has arrived: compute, hand out the results, release the lanes.
void complete_wave(unsigned wi) {
  state_t& s = state();
  wave_t& w = s.waves[wi];
  switch (w.op) {
    case rocmtpl_emu_op_mfma_32x32x8_f16: mfma_32x32x8(w, false); break;
    case rocmtpl_emu_op_mfma_32x32x8_bf16_1k: mfma_32x32x8(w, true); break;
    case rocmtpl_emu_op_ballot: ballot(w); break;
    default: shuffle(w, w.op); break;
  }
  for (unsigned i = wi * 64; i < s.lane_count && i < wi * 64 + 64; ++i) {
    if (s.lanes[i].state == at_wave_op) s.lanes[i].state = ready;
  }
  w.arrived = 0;
}

void lane_main(void* arg) {
  state_t& s = state();
  lane_t* l = static_cast<lane_t*>(arg);
  s.desc->run(s.desc->args);
  l->state = finished;
  --s.live;
  wave_t& w = s.waves[l->wave];
  --w.live;
  w.present &= ~(uint64_t{1} << l->lane);
  if (w.arrived > 0 && w.arrived == w.live) complete_wave(l->wave);
  if (s.at_barrier > 0 && s.at_barrier == s.live) release_barrier();
  void* dead;
  rocmtpl_emu_switch(&dead, s.scheduler_sp);
  __builtin_unreachable();
}

unsigned char* new_stack() {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  void* map = mmap(nullptr, lane_stack_bytes + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE,
                   -1, 0);
  if (map == MAP_FAILED) return nullptr;
  mprotect(map, page, PROT_NONE);  // overflowing the stack faults instead of running into another
  return static_cast<unsigned char*>(map) + page;
}

const char* state_name(lane_state st) {
  switch (st) {
    case at_barrier: return "at __syncthreads";
    case at_wave_op: return "at a lane operation";
    case finished: return "finished";
    default: return "ready";
  }
}

bool run_block(const rocmtpl_emu_launch_desc& d, unsigned bx, unsigned by, unsigned bz) {
  state_t& s = state();
  rocmtpl_emu_now.block_idx = {bx, by, bz};
  // Shared memory holds garbage on the GPU at block start: here 0xff bytes (NaN in every float type).
  if (s.static_shared.hi > s.static_shared.lo) {
    memset(reinterpret_cast<void*>(s.static_shared.lo), 0xff, s.static_shared.hi - s.static_shared.lo);
  }
  if (s.dynamic_shared.hi > s.dynamic_shared.lo) {
    memset(reinterpret_cast<void*>(s.dynamic_shared.lo), 0xff, s.dynamic_shared.hi - s.dynamic_shared.lo);
  }
  const unsigned waves = (s.lane_count + 63) / 64;
  for (unsigned w = 0; w < waves; ++w) {
    s.waves[w].live = (w + 1) * 64 <= s.lane_count ? 64 : s.lane_count - w * 64;
    s.waves[w].arrived = 0;
    s.waves[w].present = 0;
  }
  for (unsigned i = 0; i < s.lane_count; ++i) {
    lane_t& l = s.lanes[i];
    l.state = ready;
    l.sp = prepare_stack(l.stack + lane_stack_bytes, &lane_main, &l);
  }
  s.live = s.lane_count;
  s.at_barrier = 0;
  while (s.live > 0) {
    bool progressed = false;
    for (unsigned i = 0; i < s.lane_count; ++i) {
      lane_t& l = s.lanes[i];
      if (l.state != ready) continue;
      progressed = true;
      s.current = &l;
      rocmtpl_emu_now.thread_idx = l.tid;
      rocmtpl_emu_now.stack_lo = reinterpret_cast<uintptr_t>(l.stack);
      rocmtpl_emu_now.stack_size = lane_stack_bytes;
      rocmtpl_emu_switch(&s.scheduler_sp, l.sp);
      rocmtpl_emu_now.stack_size = 0;
      s.current = nullptr;
      if (s.failed) return false;
    }
    if (!progressed) {
      // Every live lane waits and none can go on: some at __syncthreads, others at a lane
      // operation their wave's other lanes never reach (divergent code).
      char where[512];
      size_t used = 0;
      where[0] = 0;
      for (unsigned i = 0; i < s.lane_count && used + 64 < sizeof where; ++i) {
        if (s.lanes[i].state == finished) continue;
        if (i > 0 && s.lanes[i - 1].state == s.lanes[i].state && i + 1 < s.lane_count &&
            s.lanes[i + 1].state == s.lanes[i].state)
          continue;
        used += static_cast<size_t>(snprintf(where + used, sizeof where - used, " thread %u %s;", i,
                                             state_name(s.lanes[i].state)));
      }
      s.current = nullptr;
      snprintf(s.message, sizeof s.message,
               "rocmtpl AMD emulator: kernel %s, block (%u, %u, %u): deadlock: no thread can go on (%s)", d.kernel, bx,
               by, bz, where);
      s.failed = true;
      return false;
    }
  }
  return true;
}

// The read-only segments of the library that holds `code` (its constant tables are readable).
struct segment_search {
  uintptr_t code;
  range* out;
  int count;
};
int find_segments(dl_phdr_info* info, size_t, void* data) {
  segment_search* search = static_cast<segment_search*>(data);
  bool mine = false;
  for (int i = 0; i < info->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD) continue;
    const uintptr_t lo = info->dlpi_addr + ph.p_vaddr;
    if (search->code >= lo && search->code < lo + ph.p_memsz) mine = true;
  }
  if (!mine) return 0;
  for (int i = 0; i < info->dlpi_phnum && search->count < 16; ++i) {
    const ElfW(Phdr)& ph = info->dlpi_phdr[i];
    if (ph.p_type != PT_LOAD || (ph.p_flags & PF_W) != 0) continue;
    const uintptr_t lo = info->dlpi_addr + ph.p_vaddr;
    search->out[search->count++] = {lo, lo + ph.p_memsz};
  }
  return 1;
}

bool inside(const range& r, uintptr_t a, uintptr_t e) { return a >= r.lo && e <= r.hi; }

// The allocation whose range contains [a, e), or null.
const allocation* find_allocation(uintptr_t a, uintptr_t e) {
  state_t& s = state();
  size_t lo = 0, hi = s.allocation_count;
  while (lo < hi) {  // first allocation with lo > a
    const size_t mid = (lo + hi) / 2;
    if (s.allocations[mid].lo <= a) {
      lo = mid + 1;
    } else {
      hi = mid;
    }
  }
  if (lo == 0) return nullptr;
  const allocation& c = s.allocations[lo - 1];
  return a >= c.lo && e <= c.hi ? &c : nullptr;
}

// Where an out-of-bounds address lies, for the message.
void nearest(uintptr_t a, char* out, size_t room) {
  state_t& s = state();
  const allocation* best = nullptr;
  uintptr_t best_distance = ~uintptr_t{0};
  for (size_t i = 0; i < s.allocation_count; ++i) {
    const allocation& c = s.allocations[i];
    const uintptr_t d = a < c.lo ? c.lo - a : (a >= c.hi ? a - c.hi + 1 : 0);
    if (d < best_distance) {
      best_distance = d;
      best = &c;
    }
  }
  if (best == nullptr) {
    snprintf(out, room, "no device allocation exists");
  } else if (a >= best->hi || a < best->lo) {
    snprintf(out, room, "byte offset %lld of the %llu-byte device allocation [0x%llx, 0x%llx)",
             static_cast<long long>(a - best->lo), static_cast<unsigned long long>(best->hi - best->lo),
             static_cast<unsigned long long>(best->lo), static_cast<unsigned long long>(best->hi));
  } else {
    snprintf(out, room, "straddling the end of the device allocation [0x%llx, 0x%llx)",
             static_cast<unsigned long long>(best->lo), static_cast<unsigned long long>(best->hi));
  }
}

int insert_allocation(const allocation& a) {
  state_t& s = state();
  if (s.allocation_count == s.allocation_capacity) {
    const size_t capacity = s.allocation_capacity == 0 ? 256 : 2 * s.allocation_capacity;
    void* grown = mmap(nullptr, capacity * sizeof(allocation), PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (grown == MAP_FAILED) return hipErrorOutOfMemory;
    if (s.allocations != nullptr) {
      memcpy(grown, s.allocations, s.allocation_count * sizeof(allocation));
      munmap(s.allocations, s.allocation_capacity * sizeof(allocation));
    }
    s.allocations = static_cast<allocation*>(grown);
    s.allocation_capacity = capacity;
  }
  size_t at = s.allocation_count;
  while (at > 0 && s.allocations[at - 1].lo > a.lo) {
    s.allocations[at] = s.allocations[at - 1];
    --at;
  }
  s.allocations[at] = a;
  ++s.allocation_count;
  return hipSuccess;
}

// Removes the allocation starting at `base`; its mapping (or null) in *map.
bool remove_allocation(uintptr_t base, allocation* removed) {
  state_t& s = state();
  for (size_t i = 0; i < s.allocation_count; ++i) {
    if (s.allocations[i].lo != base) continue;
    *removed = s.allocations[i];
    for (size_t j = i + 1; j < s.allocation_count; ++j) s.allocations[j - 1] = s.allocations[j];
    --s.allocation_count;
    return true;
  }
  return false;
}

// Device memory: page-aligned, poisoned with 0xff bytes, between unmapped pages.
void* map_with_red_zones(size_t bytes, void** map, size_t* map_bytes) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t data = (bytes + page - 1) / page * page;
  *map_bytes = data + 2 * page;
  void* m = mmap(nullptr, *map_bytes, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (m == MAP_FAILED) return nullptr;
  unsigned char* p = static_cast<unsigned char*>(m) + page;
  if (data > 0 && mprotect(p, data, PROT_READ | PROT_WRITE) != 0) {
    munmap(m, *map_bytes);
    return nullptr;
  }
  memset(p, 0xff, bytes);
  *map = m;
  return p;
}

}  // namespace rocmtpl_emu_rt

using namespace rocmtpl_emu_rt;

rocmtpl_emu_view rocmtpl_emu_now = {};

extern "C" void rocmtpl_emu_check_access(const void* address, unsigned bytes, int store) {
  state_t& s = state();
  if (s.current == nullptr) return;
  ++s.checked;
  const uintptr_t a = reinterpret_cast<uintptr_t>(address);
  const uintptr_t e = a + bytes;
  if (inside(s.dynamic_shared, a, e) || inside(s.static_shared, a, e)) return;
  if (!store && inside(s.args, a, e)) return;
  if (find_allocation(a, e) != nullptr) return;
  if (!store) {
    for (int i = 0; i < s.readonly_count; ++i) {
      if (inside(s.readonly[i], a, e)) return;
    }
  }
  char where[256];
  if (s.dynamic_shared.hi > s.dynamic_shared.lo && a >= s.dynamic_shared.lo - 4096 && a < s.dynamic_shared.hi + 4096) {
    snprintf(where, sizeof where, "outside the block's %llu bytes of dynamic shared memory [0x%llx, 0x%llx)",
             static_cast<unsigned long long>(s.dynamic_shared.hi - s.dynamic_shared.lo),
             static_cast<unsigned long long>(s.dynamic_shared.lo), static_cast<unsigned long long>(s.dynamic_shared.hi));
  } else if (s.static_shared.hi > s.static_shared.lo && a >= s.static_shared.lo - 4096 &&
             a < s.static_shared.hi + 4096) {
    snprintf(where, sizeof where, "outside the kernel library's __shared__ variables [0x%llx, 0x%llx)",
             static_cast<unsigned long long>(s.static_shared.lo), static_cast<unsigned long long>(s.static_shared.hi));
  } else {
    nearest(a, where, sizeof where);
  }
  fail("out-of-bounds %u-byte %s at address 0x%llx (%s)", bytes, store ? "store" : "load",
       static_cast<unsigned long long>(a), where);
}

extern "C" void rocmtpl_emu_syncthreads(void) {
  state_t& s = state();
  if (s.current == nullptr) return;
  s.current->state = at_barrier;
  if (++s.at_barrier == s.live) {
    release_barrier();
  } else {
    yield();
  }
}

extern "C" void rocmtpl_emu_wave_op(int op, const void* in, size_t in_bytes, void* out, size_t out_bytes) {
  state_t& s = state();
  lane_t* l = s.current;
  if (l == nullptr) fail("%s called outside a kernel", op_name(op));
  if (in_bytes > wave_payload || out_bytes > wave_payload) fail("%s: operands above %d bytes", op_name(op), 128);
  wave_t& w = s.waves[l->wave];
  if (w.arrived == 0) {
    w.op = op;
    w.in_bytes = in_bytes;
    w.out_bytes = out_bytes;
    w.present = 0;
  } else if (w.op != op || w.in_bytes != in_bytes || w.out_bytes != out_bytes) {
    fail("divergent lane operations: this lane called %s while other lanes of its wave wait in %s", op_name(op),
         op_name(w.op));
  }
  memcpy(w.in[l->lane], in, in_bytes);
  w.present |= uint64_t{1} << l->lane;
  l->state = at_wave_op;
  if (++w.arrived == w.live) {
    complete_wave(l->wave);
  } else {
    yield();
  }
  memcpy(out, w.out[l->lane], out_bytes);
}

extern "C" void rocmtpl_emu_trap(const char* what) {
  if (state().current == nullptr) return;
  fail("%s", what);
}

extern "C" int rocmtpl_emu_launch(const rocmtpl_emu_launch_desc* d) {
  state_t& s = state();
  if (rocmtpl_emu_now.owner == thread_pointer()) {
    // A kernel that launches (dynamic parallelism): not emulated; stop the running launch.
    fail("launches kernel %s from device code (not emulated)", d->kernel);
  }
  pthread_mutex_lock(&s.launch_mutex);
  const unsigned threads = d->block.x * d->block.y * d->block.z;
  int status = hipSuccess;
  s.failed = false;
  s.message[0] = 0;
  s.desc = d;
  s.current = nullptr;
  ++s.launches;
  if (threads == 0 || threads > max_threads || d->block.x == 0 || d->block.y == 0 || d->block.z == 0) {
    snprintf(s.message, sizeof s.message, "rocmtpl AMD emulator: kernel %s: %u threads per block (1 to %u)", d->kernel,
             threads, max_threads);
    status = hipErrorInvalidValue;
  } else if (d->dynamic_shared_bytes > max_lds_bytes) {
    snprintf(s.message, sizeof s.message, "rocmtpl AMD emulator: kernel %s: %zu bytes of dynamic shared memory (at most %zu)",
             d->kernel, d->dynamic_shared_bytes, max_lds_bytes);
    status = hipErrorInvalidValue;
  }
  while (status == hipSuccess && s.stacks < threads) {
    unsigned char* stack = new_stack();
    if (stack == nullptr) {
      status = hipErrorOutOfMemory;
      break;
    }
    s.lanes[s.stacks++].stack = stack;
  }
  if (status == hipSuccess && d->dynamic_shared_bytes > 0) {
    void* p = map_with_red_zones(d->dynamic_shared_bytes, &s.dynamic_map, &s.dynamic_map_bytes);
    if (p == nullptr) status = hipErrorOutOfMemory;
    s.dynamic_shared = {reinterpret_cast<uintptr_t>(p), reinterpret_cast<uintptr_t>(p) + d->dynamic_shared_bytes};
  } else {
    s.dynamic_shared = {0, 0};
  }
  if (status == hipSuccess) {
    s.static_shared = {reinterpret_cast<uintptr_t>(d->static_shared_lo), reinterpret_cast<uintptr_t>(d->static_shared_hi)};
    s.args = {reinterpret_cast<uintptr_t>(d->args), reinterpret_cast<uintptr_t>(d->args) + d->args_bytes};
    segment_search search{reinterpret_cast<uintptr_t>(d->code), s.readonly, 0};
    dl_iterate_phdr(&find_segments, &search);
    s.readonly_count = search.count;
    s.lane_count = threads;
    for (unsigned i = 0; i < threads; ++i) {
      lane_t& l = s.lanes[i];
      l.tid = {i % d->block.x, (i / d->block.x) % d->block.y, i / (d->block.x * d->block.y)};
      l.wave = i / 64;
      l.lane = i % 64;
    }
    rocmtpl_emu_now.block_dim = d->block;
    rocmtpl_emu_now.grid_dim = d->grid;
    rocmtpl_emu_now.dynamic_shared = reinterpret_cast<unsigned char*>(s.dynamic_shared.lo);
    rocmtpl_emu_now.stack_size = 0;
    rocmtpl_emu_now.owner = thread_pointer();
    for (unsigned z = 0; z < d->grid.z && !s.failed; ++z) {
      for (unsigned y = 0; y < d->grid.y && !s.failed; ++y) {
        for (unsigned x = 0; x < d->grid.x && !s.failed; ++x) run_block(*d, x, y, z);
      }
    }
    rocmtpl_emu_now.owner = 0;
    if (s.failed) {
      status = hipErrorLaunchFailure;
      fprintf(stderr, "%s\n", s.message);
    }
  }
  if (s.dynamic_map != nullptr) {
    munmap(s.dynamic_map, s.dynamic_map_bytes);
    s.dynamic_map = nullptr;
  }
  s.dynamic_shared = {0, 0};
  s.static_shared = {0, 0};
  s.args = {0, 0};
  s.readonly_count = 0;
  s.desc = nullptr;
  last_error = status;
  pthread_mutex_unlock(&s.launch_mutex);
  return status;
}

extern "C" int rocmtpl_emu_malloc(void** ptr, size_t bytes) {
  if (ptr == nullptr) return hipErrorInvalidValue;
  *ptr = nullptr;
  if (bytes == 0) return hipSuccess;
  allocation a{};
  void* p = map_with_red_zones(bytes, &a.map, &a.map_bytes);
  if (p == nullptr) return hipErrorOutOfMemory;
  a.lo = reinterpret_cast<uintptr_t>(p);
  a.hi = a.lo + bytes;
  state_t& s = state();
  pthread_mutex_lock(&s.memory_mutex);
  const int rc = insert_allocation(a);
  pthread_mutex_unlock(&s.memory_mutex);
  if (rc != hipSuccess) {
    munmap(a.map, a.map_bytes);
    return rc;
  }
  *ptr = p;
  return hipSuccess;
}

extern "C" int rocmtpl_emu_free(void* ptr) {
  if (ptr == nullptr) return hipSuccess;
  state_t& s = state();
  allocation a{};
  pthread_mutex_lock(&s.memory_mutex);
  const bool found = remove_allocation(reinterpret_cast<uintptr_t>(ptr), &a);
  pthread_mutex_unlock(&s.memory_mutex);
  if (!found) return hipErrorInvalidValue;
  if (a.map != nullptr) munmap(a.map, a.map_bytes);
  return hipSuccess;
}

extern "C" int rocmtpl_emu_register(const void* base, size_t bytes) {
  allocation a{reinterpret_cast<uintptr_t>(base), reinterpret_cast<uintptr_t>(base) + bytes, nullptr, 0};
  state_t& s = state();
  pthread_mutex_lock(&s.memory_mutex);
  const int rc = insert_allocation(a);
  pthread_mutex_unlock(&s.memory_mutex);
  return rc;
}

extern "C" int rocmtpl_emu_unregister(const void* base) {
  state_t& s = state();
  allocation a{};
  pthread_mutex_lock(&s.memory_mutex);
  const bool found = remove_allocation(reinterpret_cast<uintptr_t>(base), &a);
  pthread_mutex_unlock(&s.memory_mutex);
  return found ? hipSuccess : hipErrorInvalidValue;
}

extern "C" int rocmtpl_emu_get_last_error(void) {
  const int e = last_error;
  last_error = hipSuccess;
  return e;
}
extern "C" int rocmtpl_emu_peek_last_error(void) { return last_error; }
extern "C" const char* rocmtpl_emu_error_string(int code) {
  switch (code) {
    case hipSuccess: return "no error";
    case hipErrorInvalidValue: return "invalid argument";
    case hipErrorOutOfMemory: return "out of memory";
    case hipErrorLaunchFailure: return "unspecified launch failure (see rocmtpl_emu_last_message())";
    case hipErrorNotSupported: return "operation not supported by the AMD emulator";
    default: return "unknown error";
  }
}
extern "C" const char* rocmtpl_emu_last_message(void) { return state().message; }
extern "C" unsigned long long rocmtpl_emu_launches(void) { return state().launches; }
extern "C" unsigned long long rocmtpl_emu_checked_accesses(void) { return state().checked; }

// ---- the HIP runtime names (generated entries, and rocmtpl's GPU runtime loader) -------------
extern "C" hipError_t hipGetLastError(void) { return rocmtpl_emu_get_last_error(); }
extern "C" hipError_t hipPeekAtLastError(void) { return rocmtpl_emu_peek_last_error(); }
extern "C" const char* hipGetErrorString(hipError_t error) { return rocmtpl_emu_error_string(error); }
extern "C" hipError_t hipGetDevice(int* device) {
  if (device == nullptr) return hipErrorInvalidValue;
  *device = 0;
  return hipSuccess;
}
extern "C" hipError_t hipDeviceGetAttribute(int* value, int attr, int device) {
  if (value == nullptr || device != 0) return hipErrorInvalidValue;
  switch (attr) {
    case hipDeviceAttributeMaxThreadsPerBlock: *value = 1024; return hipSuccess;
    case hipDeviceAttributeMaxSharedMemoryPerBlock:
    case hipDeviceAttributeSharedMemPerBlockOptin: *value = 65536; return hipSuccess;
    case hipDeviceAttributeWarpSize: *value = 64; return hipSuccess;
    case hipDeviceAttributeMultiprocessorCount: *value = 1; return hipSuccess;
    default: *value = 0; return hipSuccess;
  }
}
extern "C" hipError_t hipMalloc(void** ptr, size_t bytes) { return rocmtpl_emu_malloc(ptr, bytes); }
extern "C" hipError_t hipFree(void* ptr) { return rocmtpl_emu_free(ptr); }
extern "C" hipError_t hipMemcpy(void* dst, const void* src, size_t bytes, int) {
  if (bytes > 0) memmove(dst, src, bytes);
  return hipSuccess;
}
extern "C" hipError_t hipMemcpyAsync(void* dst, const void* src, size_t bytes, int kind, hipStream_t) {
  return hipMemcpy(dst, src, bytes, kind);
}
extern "C" hipError_t hipMemsetAsync(void* dst, int value, size_t bytes, hipStream_t) {
  if (bytes > 0) memset(dst, value, bytes);
  return hipSuccess;
}
extern "C" hipError_t hipStreamSynchronize(hipStream_t) { return hipSuccess; }
extern "C" hipError_t hipDeviceSynchronize(void) { return hipSuccess; }
extern "C" hipError_t hipFuncSetAttribute(const void*, int, int value) {
  return value >= 0 && static_cast<size_t>(value) <= max_lds_bytes ? hipSuccess : hipErrorInvalidValue;
}

// The rest of the runtime API rocmtpl's GPU runtime loader binds (runtime/gpu/vendor_api.hpp), so
// that the emulator can stand in for libamdhip64 (one device, "AMD emulator (wave64, CPU)"). Events
// exist but measure nothing: hipEventElapsedTime answers hipErrorNotSupported.
namespace rocmtpl_emu_rt {
constexpr const char* device_name = "AMD emulator (wave64, CPU)";
const char* device_arch() {
  const char* arch = getenv("ROCMTPL_AMD_EMU_ARCH");
  return arch != nullptr && *arch != 0 ? arch : "gfx90a";
}
}  // namespace rocmtpl_emu_rt
ROCMTPL_EMU_API hipError_t hipGetDeviceCount(int* count) {
  if (count == nullptr) return hipErrorInvalidValue;
  *count = 1;
  return hipSuccess;
}
ROCMTPL_EMU_API hipError_t hipSetDevice(int device) { return device == 0 ? hipSuccess : hipErrorInvalidValue; }
// hipDeviceProp_t of HIP 5.2: the name at offset 0, gcnArchName at offset 396 (the caller's buffer
// is larger than any HIP release's struct).
ROCMTPL_EMU_API hipError_t hipGetDeviceProperties(void* props, int device) {
  if (props == nullptr || device != 0) return hipErrorInvalidValue;
  char* p = static_cast<char*>(props);
  memset(p, 0, 1024);
  snprintf(p, 256, "%s", rocmtpl_emu_rt::device_name);
  snprintf(p + 396, 256, "%s", rocmtpl_emu_rt::device_arch());
  return hipSuccess;
}
ROCMTPL_EMU_API hipError_t hipDeviceGetName(char* name, int length, int device) {
  if (name == nullptr || length <= 0 || device != 0) return hipErrorInvalidValue;
  snprintf(name, static_cast<size_t>(length), "%s", rocmtpl_emu_rt::device_name);
  return hipSuccess;
}
ROCMTPL_EMU_API hipError_t hipDeviceTotalMem(size_t* bytes, int device) {
  if (bytes == nullptr || device != 0) return hipErrorInvalidValue;
  *bytes = size_t{64} << 30;
  return hipSuccess;
}
ROCMTPL_EMU_API hipError_t hipMemGetInfo(size_t* free_bytes, size_t* total_bytes) {
  if (free_bytes != nullptr) *free_bytes = size_t{64} << 30;
  if (total_bytes != nullptr) *total_bytes = size_t{64} << 30;
  return hipSuccess;
}
ROCMTPL_EMU_API hipError_t hipRuntimeGetVersion(int* version) {
  if (version == nullptr) return hipErrorInvalidValue;
  *version = 50223000;  // reported as HIP 5.2, whose struct layout hipGetDeviceProperties follows
  return hipSuccess;
}
// Streams and events are tokens (every operation is synchronous): non-null, never dereferenced.
namespace rocmtpl_emu_rt {
char stream_token, event_token;
}  // namespace rocmtpl_emu_rt
ROCMTPL_EMU_API hipError_t hipStreamCreate(hipStream_t* stream) {
  if (stream == nullptr) return hipErrorInvalidValue;
  *stream = reinterpret_cast<hipStream_t>(&rocmtpl_emu_rt::stream_token);
  return hipSuccess;
}
ROCMTPL_EMU_API hipError_t hipStreamDestroy(hipStream_t) { return hipSuccess; }
ROCMTPL_EMU_API hipError_t hipEventCreate(hipEvent_t* event) {
  if (event == nullptr) return hipErrorInvalidValue;
  *event = reinterpret_cast<hipEvent_t>(&rocmtpl_emu_rt::event_token);
  return hipSuccess;
}
ROCMTPL_EMU_API hipError_t hipEventDestroy(hipEvent_t) { return hipSuccess; }
ROCMTPL_EMU_API hipError_t hipEventRecord(hipEvent_t, hipStream_t) { return hipSuccess; }
ROCMTPL_EMU_API hipError_t hipEventSynchronize(hipEvent_t) { return hipSuccess; }
ROCMTPL_EMU_API hipError_t hipEventElapsedTime(float* ms, hipEvent_t, hipEvent_t) {
  if (ms != nullptr) *ms = 0.0f;
  return hipErrorNotSupported;
}
#endif  // ROCMTPL_AMD_EMU_IMPLEMENTATION

#endif  // ROCMTPL_AMD_EMU_H
)rocmtpl_src";

}  // namespace rocmtpl::device
