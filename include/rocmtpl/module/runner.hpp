// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The standalone runner of a module (the reference's test-runner mode): a `main()` under
/// `#ifdef ROCMTPL_STANDALONE_RUNNER` that fills the inputs with seeded random values, runs the
/// module and prints the time per run and a checksum of each output (rocmtpl/module.hpp).

#include <cstddef>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include <rocmtpl/codegen/indented_buffer.hpp>
#include <rocmtpl/core/config.hpp>
#include <rocmtpl/module/graph.hpp>

namespace rocmtpl::detail::module_impl {

void write_block(indented_buffer& out, const std::string& head, std::initializer_list<std::string> lines);

// The runner's helpers (namespace rocmtpl_runner): events on either platform, random inputs,
// zeroed outputs and checksums (dedented by indented_buffer::splice when written).
inline constexpr std::string_view runner_helpers_source = R"(
      #ifdef ROCMTPL_STANDALONE_RUNNER
      // Standalone runner (the reference's test-runner mode): build this file as an executable with
      // -DROCMTPL_STANDALONE_RUNNER. It fills the inputs with seeded random values in [-1, 1), runs the
      // module and prints the time per run and a checksum of each output.
      #include <cstdio>
      #include <cstdlib>
      #include <cstring>
      #include <random>
      #include <vector>
  )";

// The second part of the runner's helpers, after dtype_code_defines().
inline constexpr std::string_view runner_helpers_body = R"(
      namespace rocmtpl_runner {
      #if defined(ROCMTPL_PLATFORM_NVIDIA)
      inline hipError_t event_create(hipEvent_t* e) { return cudaEventCreate(e); }
      inline hipError_t event_record(hipEvent_t e, hipStream_t s) { return cudaEventRecord(e, s); }
      inline hipError_t event_synchronize(hipEvent_t e) { return cudaEventSynchronize(e); }
      inline hipError_t event_elapsed_ms(float* ms, hipEvent_t a, hipEvent_t b) { return cudaEventElapsedTime(ms, a, b); }
      inline hipError_t event_destroy(hipEvent_t e) { return cudaEventDestroy(e); }
      #else
      inline hipError_t event_create(hipEvent_t* e) { return hipEventCreate(e); }
      inline hipError_t event_record(hipEvent_t e, hipStream_t s) { return hipEventRecord(e, s); }
      inline hipError_t event_synchronize(hipEvent_t e) { return hipEventSynchronize(e); }
      inline hipError_t event_elapsed_ms(float* ms, hipEvent_t a, hipEvent_t b) { return hipEventElapsedTime(ms, a, b); }
      inline hipError_t event_destroy(hipEvent_t e) { return hipEventDestroy(e); }
      #endif

      // rocmtpl::dtype values (dtype_code(), through the ROCMTPL_DTYPE_* macros).
      enum : int {
          f16 = ROCMTPL_DTYPE_FLOAT16, bf16 = ROCMTPL_DTYPE_BFLOAT16, f32 = ROCMTPL_DTYPE_FLOAT32, f64 = ROCMTPL_DTYPE_FLOAT64,
          i8 = ROCMTPL_DTYPE_INT8, u8 = ROCMTPL_DTYPE_UINT8, i32 = ROCMTPL_DTYPE_INT32, i64 = ROCMTPL_DTYPE_INT64,
          boolean = ROCMTPL_DTYPE_BOOL
      };

      inline bool ok(hipError_t e, const char* what) {
          if (e == hipSuccess) return true;
          std::fprintf(stderr, "rocmtpl runner: %s failed: %s\n", what, hipGetErrorString(e));
          return false;
      }

      // A device tensor filled with uniform values in [-1, 1) (small integers for integer types).
      inline bool make_input(void** device, size_t bytes, int dtype, std::mt19937& rng) {
          *device = nullptr;
          if (bytes == 0) return true;
          std::vector<unsigned char> host(bytes);
          std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
          const size_t esize = dtype == f16 || dtype == bf16 ? 2 : dtype == f32 || dtype == i32 ? 4 : dtype == f64 || dtype == i64 ? 8 : 1;
          for (size_t i = 0; i < bytes / esize; ++i) {
              const float v = uniform(rng);
              unsigned char* p = host.data() + i * esize;
              switch (dtype) {
                  case f16: { const uint16_t b = rocmtpl_dev::float_to_half_bits(v); std::memcpy(p, &b, 2); break; }
                  case bf16: { const uint16_t b = rocmtpl_dev::float_to_bf16_bits(v); std::memcpy(p, &b, 2); break; }
                  case f32: std::memcpy(p, &v, 4); break;
                  case f64: { const double d = v; std::memcpy(p, &d, 8); break; }
                  case i32: { const int32_t n = static_cast<int32_t>(v * 8.0f); std::memcpy(p, &n, 4); break; }
                  case i64: { const int64_t n = static_cast<int64_t>(v * 8.0f); std::memcpy(p, &n, 8); break; }
                  case boolean: *p = v > 0.0f ? 1 : 0; break;
                  default: *p = static_cast<unsigned char>(static_cast<int>((v + 1.0f) * 8.0f)); break;
              }
          }
          return ok(hipMalloc(device, bytes), "hipMalloc") &&
                 ok(hipMemcpy(*device, host.data(), bytes, hipMemcpyHostToDevice), "hipMemcpy");
      }

      inline bool make_output(void** device, size_t bytes) {
          *device = nullptr;
          if (bytes == 0) return true;
          return ok(hipMalloc(device, bytes), "hipMalloc") && ok(hipMemsetAsync(*device, 0, bytes, 0), "hipMemsetAsync");
      }

      // Sum of a floating-point output's storage, as a rough fingerprint of the result.
      inline double checksum(const void* device, size_t bytes, int dtype) {
          if (bytes == 0) return 0.0;
          std::vector<unsigned char> host(bytes);
          if (!ok(hipMemcpy(host.data(), device, bytes, hipMemcpyDeviceToHost), "hipMemcpy")) return 0.0;
          double sum = 0.0;
          for (size_t i = 0; i < bytes;) {
              switch (dtype) {
                  case f16: { uint16_t b; std::memcpy(&b, &host[i], 2); sum += rocmtpl_dev::half_bits_to_float(b); i += 2; break; }
                  case bf16: { uint16_t b; std::memcpy(&b, &host[i], 2); sum += rocmtpl_dev::bf16_bits_to_float(b); i += 2; break; }
                  case f32: { float f; std::memcpy(&f, &host[i], 4); sum += f; i += 4; break; }
                  case f64: { double d; std::memcpy(&d, &host[i], 8); sum += d; i += 8; break; }
                  default: sum += host[i]; i += 1; break;
              }
          }
          return sum;
      }
      }  // namespace rocmtpl_runner
  )";

void write_runner_defaults(indented_buffer& out, const module_source& m, const module_options& options);
void write_runner_arguments(indented_buffer& out, const module_source& m);
void write_runner_checks(indented_buffer& out, const module_source& m);

// The entry point's arguments: for a run and for the workspace query.
struct runner_call_args {
  std::vector<std::string> call;
  std::vector<std::string> query;
};

runner_call_args write_runner_tensors(indented_buffer& out, const module_source& m);
void write_runner_timing(indented_buffer& out, const module_source& m, const runner_call_args& args);
void write_runner_report(indented_buffer& out, const module_source& m);
void write_runner(indented_buffer& out, const module_source& m, const module_options& options);

}  // namespace rocmtpl::detail::module_impl

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/module/runner-inl.hpp>
#endif
