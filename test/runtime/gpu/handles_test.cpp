// SPDX-License-Identifier: MIT
// Tests include/rocmtpl/runtime/gpu/handles.hpp without a GPU: the handles are move-only,
// an empty buffer is safe, and making a handle where no GPU can be used throws no_gpu_error
// naming the operation.
#include <rocmtpl/runtime/gpu/handles.hpp>

#include "support/gpu_runtime.hpp"

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

// ---- with a device: the fake CUDA runtime -------------------------------------------------------

using rocmtpl::test::fake_count;

// Each handle is released exactly once: a moved-from handle releases nothing, and move assignment
// releases what the target held.
template <class Handle>
void expect_released_once_across_moves(const char* created, const char* destroyed) {
  const gpu_runtime rt(rocmtpl::test::fake_runtime_options());
  ASSERT_TRUE(rt.available()) << rt.status();
  const int created_before = fake_count(created);
  const int destroyed_before = fake_count(destroyed);
  {
    Handle a(rt);
    Handle b(rt);
    void* const first = a.get();
    ASSERT_NE(first, nullptr);
    ASSERT_NE(b.get(), first);
    Handle c(std::move(a));
    EXPECT_EQ(a.get(), nullptr);  // NOLINT(bugprone-use-after-move): the moved-from state is specified
    EXPECT_EQ(c.get(), first);
    b = std::move(c);
    EXPECT_EQ(fake_count(destroyed) - destroyed_before, 1) << "b's own handle is released by the assignment";
    EXPECT_EQ(b.get(), first);
  }
  EXPECT_EQ(fake_count(created) - created_before, 2);
  EXPECT_EQ(fake_count(destroyed) - destroyed_before, 2);
}

TEST(GpuHandlesWithFakeDevice, StreamsAreReleasedOnceAcrossMoves) {
  expect_released_once_across_moves<stream>("streams_created", "streams_destroyed");
}

TEST(GpuHandlesWithFakeDevice, EventsAreReleasedOnceAcrossMoves) {
  expect_released_once_across_moves<event>("events_created", "events_destroyed");
}

TEST(GpuHandlesWithFakeDevice, EventsTimeWorkOnAStream) {
  const gpu_runtime rt(rocmtpl::test::fake_runtime_options());
  ASSERT_TRUE(rt.available()) << rt.status();
  const stream s(rt);
  const event start(rt);
  const event stop(rt);
  start.record(s.get());
  stop.record(s.get());
  s.synchronize();
  EXPECT_EQ(stop.elapsed_ms_since(start), 1.5F);
}

TEST(GpuHandlesWithFakeDevice, DeviceBufferCopiesRoundTripAndIsFreedOnce) {
  const gpu_runtime rt(rocmtpl::test::fake_runtime_options());
  ASSERT_TRUE(rt.available()) << rt.status();
  const int frees_before = fake_count("frees");
  {
    device_buffer b(4 * sizeof(int), rt);
    ASSERT_TRUE(b);
    EXPECT_EQ(b.size(), 4 * sizeof(int));
    const int in[4] = {1, 2, 3, 4};
    b.copy_from_host(in);
    rt.memset(b.as<int>() + 2, 0, sizeof(int));
    int out[4] = {};
    b.copy_to_host(out);
    EXPECT_EQ(out[0], 1);
    EXPECT_EQ(out[1], 2);
    EXPECT_EQ(out[2], 0);
    EXPECT_EQ(out[3], 4);
    EXPECT_THROW(b.copy_to_host(out, 5 * sizeof(int)), rocmtpl::out_of_range_error);
    device_buffer moved(std::move(b));
    EXPECT_FALSE(b);  // NOLINT(bugprone-use-after-move)
    EXPECT_EQ(moved.size(), 4 * sizeof(int));
  }
  EXPECT_EQ(fake_count("frees") - frees_before, 1);
}

}  // namespace
