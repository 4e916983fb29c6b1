// SPDX-License-Identifier: MIT
// Tests include/rocmtpl/runtime/gpu/gpu_runtime.hpp, the header that gathers the GPU runtime: it needs
// no GPU header (user programs build with a plain host compiler), and one include gives the
// loader, the options, the errors and the handles, behaving as the header's example says on a
// machine without a GPU. The parts have their own tests in test/runtime/gpu/.
#include <rocmtpl/runtime/gpu/gpu_runtime.hpp>

// The loader needs no GPU header: user programs build with a plain host compiler.
#if defined(__CUDA_RUNTIME_API_H__) || defined(HIP_INCLUDE_HIP_HIP_RUNTIME_API_H) || defined(__DRIVER_TYPES_H__)
#error "rocmtpl/runtime/gpu/gpu_runtime.hpp must not include CUDA or HIP headers"
#endif

#include "support/gpu_runtime.hpp"

#include <gtest/gtest.h>

namespace {

using rocmtpl::runtime::device_buffer;
using rocmtpl::runtime::gpu_runtime;
using rocmtpl::runtime::no_gpu_error;

TEST(GpuRuntimeHeader, DocumentedExampleExplainsWhyWithoutAGpu) {
  const auto& gpu = gpu_runtime::instance();
  if (gpu.available()) GTEST_SKIP() << "a GPU is present: " << gpu.status() << "; test/gpu covers it";
  EXPECT_TRUE(gpu.status().starts_with("no GPU: ")) << gpu.status();
  // The example's next lines: what a program that skips the check gets.
  try {
    device_buffer x(1 << 20);
    FAIL() << "allocated without a GPU";
  } catch (const no_gpu_error& e) {
    EXPECT_NE(std::string(e.what()).find(gpu.status()), std::string::npos) << e.what();
  }
  EXPECT_THROW(rocmtpl::runtime::stream s, no_gpu_error);
}

}  // namespace
