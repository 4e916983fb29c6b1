// SPDX-License-Identifier: MIT
// Tests include/rocmtpl/runtime/gpu/error.hpp: the GPU errors carry the API, the code and
// the runtime's text in a rocmtpl-style message.
#include <rocmtpl/runtime/gpu/error.hpp>

#include <gtest/gtest.h>

#include <type_traits>

namespace {

using rocmtpl::runtime::gpu_error;
using rocmtpl::runtime::no_gpu_error;

static_assert(std::is_base_of_v<rocmtpl::error, gpu_error>);
static_assert(std::is_base_of_v<gpu_error, no_gpu_error>);

TEST(GpuError, CarriesApiCodeAndText) {
  const gpu_error e("cudaMalloc", 2, "out of memory [64 bytes]");
  EXPECT_EQ(e.api(), "cudaMalloc");
  EXPECT_EQ(e.code(), 2);
  EXPECT_STREQ(e.what(), "rocmtpl: gpu: cudaMalloc failed: out of memory [64 bytes] (error 2)");
  const no_gpu_error n("allocate device memory", 35, "no GPU: driver too old");
  EXPECT_EQ(n.code(), 35);
  EXPECT_STREQ(n.what(), "rocmtpl: gpu: cannot allocate device memory: no GPU: driver too old");
  const gpu_error& as_base = n;
  EXPECT_EQ(as_base.api(), "allocate device memory");
}

TEST(GpuError, CaughtAsTheLibrarysErrorType) {
  try {
    throw no_gpu_error("create a stream", -1, "no GPU: nvidia runtime not found");
  } catch (const rocmtpl::error& e) {
    EXPECT_STREQ(e.what(), "rocmtpl: gpu: cannot create a stream: no GPU: nvidia runtime not found");
  }
}

}  // namespace
