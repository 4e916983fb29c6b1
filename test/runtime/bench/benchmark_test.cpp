// SPDX-License-Identifier: MIT
// The host side of benchmarking that needs no GPU: statistics, tolerances, allocation sizes that
// never wrap (issue 8), and the settled timing's order of runs on the fake CUDA runtime.
#include <rocmtpl/runtime/bench/benchmark.hpp>
#include <rocmtpl/runtime/gpu/handles.hpp>

#include "support/gpu_runtime.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace {

using namespace rocmtpl;
using namespace rocmtpl::runtime;

tensor_meta meta(std::string name, dtype t, std::vector<std::int64_t> sizes, std::vector<std::int64_t> strides,
                 std::int64_t offset = 0) {
  tensor_meta m;
  m.name = std::move(name);
  m.type = t;
  m.sizes = std::move(sizes);
  m.strides = std::move(strides);
  m.offset = offset;
  return m;
}

rocm_benchmark_request request_of(std::vector<tensor_meta> inputs, tensor_meta output) {
  rocm_benchmark_request r;
  // Not `= "k"`: g++ 12 -O3 reports a false -Wrestrict there (GCC bug 105329).
  r.kernel_name = std::string("k");
  r.input_tensor_meta = std::move(inputs);
  r.output_tensor_meta = std::move(output);
  return r;
}

TEST(Benchmark, AllocationSizesFollowTheStridesAndAreNeverZero) {
  const auto r = request_of({meta("x", dtype::f16, {4, 8}, {16, 1}), meta("w", dtype::f32, {0, 8}, {8, 1})},
                            meta("y", dtype::bf16, {4, 8}, {8, 1}, 3));
  const auto a = allocation_sizes_for(r);
  ASSERT_EQ(a.inputs.size(), 2U);
  EXPECT_EQ(a.inputs[0], (3 * 16 + 7 + 1) * 2U);  // padded rows: the last row ends at 3*16+7
  EXPECT_EQ(a.inputs[1], 1U);                     // empty tensor: still an address
  EXPECT_EQ(a.output, (3 + 4 * 8) * 2U);
}

// Issue 8: 2^62 doubles fit int64_t as a count but not size_t as bytes; the old code wrapped to
// a small allocation that the kernel would have overrun.
TEST(Benchmark, AllocationThatWouldWrapIsRefusedNamingTheTensor) {
  const std::int64_t huge = std::int64_t{1} << 62;
  const auto r = request_of({meta("x", dtype::f32, {8}, {1}), meta("weights", dtype::f64, {huge}, {1})},
                            meta("y", dtype::f32, {8}, {1}));
  try {
    (void)allocation_sizes_for(r);
    FAIL() << "a wrapped size was accepted";
  } catch (const allocation_size_error& e) {
    EXPECT_EQ(e.tensor(), "weights");
    EXPECT_NE(std::string(e.what()).find("input 'weights'"), std::string::npos) << e.what();
  }
  const auto out = request_of({meta("x", dtype::f32, {8}, {1})}, meta("result", dtype::f64, {huge / 2, 2}, {2, 1}));
  try {
    (void)allocation_sizes_for(out);
    FAIL();
  } catch (const allocation_size_error& e) {
    EXPECT_EQ(e.tensor(), "result");
    EXPECT_NE(std::string(e.what()).find("output 'result'"), std::string::npos) << e.what();
  }
}

TEST(Benchmark, SummaryStatistics) {
  const auto t = summarize({3.0, 1.0, 2.0, 4.0, 5.0});
  EXPECT_EQ(t.repetitions, 5);
  EXPECT_DOUBLE_EQ(t.min_ms, 1.0);
  EXPECT_DOUBLE_EQ(t.median_ms, 3.0);
  EXPECT_NEAR(t.spread, (4.6 - 1.4) / 3.0, 1e-12);
  EXPECT_EQ(summarize({}).repetitions, 0);
  EXPECT_GT(default_tolerance(dtype::bf16), default_tolerance(dtype::f16));
  EXPECT_EQ(default_tolerance(dtype::i32), 0.0);
}

// time_settled() on the fake CUDA runtime, where every event pair reads 1.5 ms: each call runs
// alone, back to back (two estimating runs, settle_ms of settling runs, then timed runs for half
// the budget), in two passes of opposite order; every timed run is a sample.
TEST(BenchmarkWithFakeDevice, SettledTimingRunsEachCallAloneInTwoPassesOfOppositeOrder) {
  const gpu_runtime rt(rocmtpl::test::fake_runtime_options());
  ASSERT_TRUE(rt.available()) << rt.status();
  const stream s(rt);
  std::vector<int> order;
  std::vector<timed_call> calls;
  for (int i = 0; i < 3; ++i) calls.emplace_back([&order, i](void*) { order.push_back(i); });
  benchmark_options o;
  o.settle_ms = 15;  // 10 runs of 1.5 ms
  o.budget_ms = 12;  // 4 timed runs a pass: 12 / 2 / 1.5
  const auto t = time_settled(calls, s.get(), nullptr, 0, o, rt);
  ASSERT_EQ(t.size(), 3U);
  for (const auto& one : t) {
    EXPECT_EQ(one.repetitions, 8);
    EXPECT_EQ(one.median_ms, 1.5);
  }
  std::vector<int> expected;
  for (const int i : {0, 1, 2, 2, 1, 0}) expected.insert(expected.end(), 2 + 10 + 4, i);
  EXPECT_EQ(order, expected);
  // Settling is capped at 1000 runs, and the timed runs at half of max_repetitions.
  order.clear();
  o.settle_ms = 1e9;
  o.budget_ms = 1e9;
  o.max_repetitions = 6;
  ASSERT_EQ(time_settled({calls[0]}, s.get(), nullptr, 0, o, rt).at(0).repetitions, 6);
  EXPECT_EQ(order.size(), 2U * (2 + 1000 + 3));
  EXPECT_TRUE(time_settled({}, s.get(), nullptr, 0, o, rt).empty());
}

}  // namespace
