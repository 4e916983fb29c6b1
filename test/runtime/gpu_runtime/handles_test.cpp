// SPDX-License-Identifier: MIT
// Tests include/rocmtpl/runtime/gpu_runtime/handles.hpp without a GPU: the handles are move-only,
// an empty buffer is safe, and making a handle where no GPU can be used throws no_gpu_error
// naming the operation.
#include <rocmtpl/runtime/gpu_runtime/handles.hpp>

#include "runtime/gpu_runtime/gpu_runtime_test_support.hpp"

#include <gtest/gtest.h>

#include <string>
#include <type_traits>
#include <utility>

namespace {

using rocmtpl::runtime::device_buffer;
using rocmtpl::runtime::event;
using rocmtpl::runtime::gpu_runtime;
using rocmtpl::runtime::no_gpu_error;
using rocmtpl::runtime::stream;

static_assert(!std::is_copy_constructible_v<device_buffer> && std::is_nothrow_move_constructible_v<device_buffer>);
static_assert(!std::is_copy_constructible_v<stream> && std::is_nothrow_move_constructible_v<stream>);
static_assert(!std::is_copy_assignable_v<stream> && std::is_nothrow_move_assignable_v<stream>);
static_assert(!std::is_copy_constructible_v<event> && std::is_nothrow_move_constructible_v<event>);
static_assert(!std::is_copy_assignable_v<event> && std::is_nothrow_move_assignable_v<event>);
static_assert(!std::is_convertible_v<const gpu_runtime&, stream>, "a stream is made explicitly");

TEST(DeviceBuffer, EmptyBufferIsSafeWithoutAGpu) {
  device_buffer empty;
  EXPECT_FALSE(empty);
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_EQ(empty.get(), nullptr);
  EXPECT_EQ(empty.as<float>(), nullptr);
  int host = 0;
  EXPECT_THROW(empty.copy_to_host(&host, 0), no_gpu_error);
  EXPECT_THROW(empty.copy_from_host(&host, sizeof(host)), rocmtpl::out_of_range_error);
  device_buffer moved = std::move(empty);
  EXPECT_FALSE(moved);
  moved.reset();
  EXPECT_FALSE(moved);
}

TEST(DeviceBuffer, CopyBeyondTheSizeIsRefusedBeforeTheGpu) {
  device_buffer empty;
  int host = 0;
  try {
    empty.copy_from_host(&host, 8);
    FAIL() << "expected out_of_range_error";
  } catch (const rocmtpl::out_of_range_error& e) {
    EXPECT_STREQ(e.what(), "rocmtpl: device_buffer: copy of 8 bytes into a buffer of 0");
  }
}

TEST(GpuHandles, WithoutAGpuEachHandleSaysWhatItCouldNotDo) {
  const gpu_runtime rt(rocmtpl::test::no_runtime_options());
  auto expect_refused = [&](auto&& make, const std::string& operation) {
    try {
      make();
      ADD_FAILURE() << operation << ": no exception";
    } catch (const no_gpu_error& e) {
      EXPECT_EQ(e.api(), operation);
      EXPECT_NE(std::string(e.what()).find(rt.status()), std::string::npos) << e.what();
    }
  };
  expect_refused([&] { device_buffer b(64, rt); }, "allocate device memory");
  expect_refused([&] { stream s(rt); }, "create a stream");
  expect_refused([&] { event e(rt); }, "create an event");
}

}  // namespace
