// SPDX-License-Identifier: MIT
// The host side of benchmarking that needs no GPU: statistics, tolerances, and allocation sizes
// that never wrap (issue 8).
#include <rocmtpl/runtime/bench/benchmark.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <string>

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

}  // namespace
