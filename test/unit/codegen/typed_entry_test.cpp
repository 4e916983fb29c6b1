// SPDX-License-Identifier: MIT
// codegen/typed_entry.hpp: typed arguments reach the entry point through its exact function type
// (pointers unchanged, sizes and runtime arguments as the ABI's integers, workspace and stream in
// place); the workspace query passes null tensors and the sizes. The compile errors of wrong,
// missing and extra arguments are test/fail/signature_*.cpp.
#include <rocmtpl/codegen/typed_entry.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <span>
#include <vector>

namespace {
using namespace rocmtpl;

using mx = static_buffer<"X", row_major_layout<f16_t, dims<sym<"M">, ext<64>>>>;
using sw = static_buffer<"W", row_major_layout<f16_t, dims<ext<64>, ext<32>>>>;
using my = static_buffer<"Y", row_major_layout<f16_t, dims<sym<"M">, ext<32>>>>;
using split_sig = kernel_signature<inputs<mx, sw>, outputs<my>, runtime_args<arg<"split_k", std::int32_t>>>;

// What a typed call accepts, at compile time (the rejections are compile errors, test/fail/).
static_assert(detail::argument_ok<detail::at_t<0, split_sig::params>, half_t*>);
static_assert(detail::argument_ok<detail::at_t<0, split_sig::params>, std::nullptr_t>);
static_assert(!detail::argument_ok<detail::at_t<0, split_sig::params>, const bfloat16_t*>);
static_assert(!detail::argument_ok<detail::at_t<0, split_sig::params>, const std::uint16_t*>);
static_assert(!detail::argument_ok<detail::at_t<2, split_sig::params>, const half_t*>);
static_assert(detail::argument_ok<detail::at_t<3, split_sig::params>, int>);
static_assert(!detail::argument_ok<detail::at_t<3, split_sig::params>, double>);
static_assert(!detail::argument_ok<detail::at_t<3, split_sig::params>, bool>);
static_assert(detail::stream_ok<void*> && detail::stream_ok<std::nullptr_t>);
static_assert(!detail::stream_ok<half_t*> && !detail::stream_ok<const void*> && !detail::stream_ok<int>);
static_assert(detail::check_call<split_sig::params, true, "stream", half_t*, half_t*, half_t*, int, int, void*>().ok);
static_assert(
    detail::check_call<split_sig::params, true, "stream", half_t*, half_t*, half_t*, int, int, workspace_ref, void*>()
        .with_workspace);

// How a misuse is read (issue 24): the first argument that does not fit is a missing one when the
// rest fit the parameters after it, an extra one when the arguments after it fit from its parameter
// on, one of two swapped ones when each fits the other's parameter, else a wrong type. The compile
// errors themselves are test/fail/typed_call_*.cpp.
namespace verdicts {
using p = split_sig::params;  // X, W, Y, M, split_k
template <class... A>
constexpr detail::call_verdict of = detail::judge_call<p, true, A...>();
constexpr bool is(detail::call_verdict v, detail::call_fault fault, std::size_t slot) {
  return v.fault == fault && v.slot == slot;
}
using detail::call_fault;
static_assert(is(of<half_t*, half_t*, half_t*, int, int, void*>, call_fault::none, 0));
static_assert(is(of<half_t*, half_t*, int, int, void*>, call_fault::missing, 2));              // no Y
static_assert(is(of<half_t*, half_t*, half_t*, int, int>, call_fault::missing, 5));            // no stream
static_assert(is(of<half_t*, half_t*, half_t*, int, void*>, call_fault::missing, 4));          // no split_k
static_assert(is(of<half_t*, half_t*, half_t*, int, int, int, void*>, call_fault::extra, 5));  // before stream
static_assert(is(of<half_t*, half_t*, half_t*, int, int, void*, int>, call_fault::extra, 6));  // after stream
static_assert(is(of<half_t*, half_t*, int, half_t*, int, void*>, call_fault::swapped, 2));     // Y and M
static_assert(is(of<bfloat16_t*, half_t*, half_t*, int, int, void*>, call_fault::wrong_type, 0));
static_assert(is(of<half_t*, half_t*, half_t*, double, int, void*>, call_fault::wrong_type, 3));
static_assert(detail::judge_call<p, true, half_t*, half_t*, half_t*, int, int, workspace_ref, void*>().with_workspace);
static_assert(is(of<half_t*, half_t*, half_t*, int, int, void*, workspace_ref>, call_fault::swapped, 5));
static_assert(std::is_same_v<detail::call_diagnostic<p, true, "stream", half_t*, half_t*, half_t*, int, int, void*>,
                             detail::call_accepted>);
static_assert(std::is_same_v<detail::call_diagnostic<p, true, "stream", half_t*, half_t*, int, int, void*>,
                             detail::missing_argument_for_parameter<"Y">>);
}  // namespace verdicts

// A stand-in entry point that records what it was called with.
struct recorded {
  const void* x = nullptr;
  const void* w = nullptr;
  void* y = nullptr;
  std::int64_t m = -1;
  std::int32_t split_k = -1;
  std::size_t* workspace_size = nullptr;
  std::uint8_t* workspace = nullptr;
  void* stream = nullptr;
};
recorded last;
int record(const std::uint16_t* x, const std::uint16_t* w, std::uint16_t* y, std::int64_t m, std::int32_t split_k,
           std::size_t* workspace_size, std::uint8_t* workspace, void* stream) {
  last = {x, w, y, m, split_k, workspace_size, workspace, stream};
  if (workspace_size != nullptr) *workspace_size = static_cast<std::size_t>(m) * static_cast<std::size_t>(split_k);
  return m < 0 ? status_code(kernel_status::unsupported_argument) : 0;
}

TEST(TypedEntry, PassesTypedArgumentsThroughTheExactFunctionType) {
  const typed_entry<split_sig> entry(&record);
  std::vector<half_t> x(4), w(4), y(4);
  int stream_object = 0;
  void* stream = &stream_object;
  EXPECT_EQ(entry(static_cast<const half_t*>(x.data()), w.data(), y.data(), 7, 2, stream), kernel_status::ok);
  EXPECT_EQ(last.x, x.data());
  EXPECT_EQ(last.w, w.data());
  EXPECT_EQ(last.y, y.data());
  EXPECT_EQ(last.m, 7);
  EXPECT_EQ(last.split_k, 2);
  EXPECT_EQ(last.workspace_size, nullptr);
  EXPECT_EQ(last.workspace, nullptr);
  EXPECT_EQ(last.stream, stream);

  std::vector<std::uint8_t> ws(16);
  EXPECT_EQ(entry(x.data(), w.data(), y.data(), std::int64_t{-1}, 3, workspace_ref{ws.data(), ws.size()}, nullptr),
            kernel_status::unsupported_argument);
  EXPECT_EQ(last.m, -1);
  EXPECT_EQ(last.workspace, ws.data());
  EXPECT_EQ(last.stream, nullptr);
}

// Tensors may be passed as spans of their element type (issue 24): the span's data() reaches the
// entry point; a span of another element type does not fit.
static_assert(detail::argument_ok<detail::at_t<0, split_sig::params>, std::span<const half_t>>);
static_assert(detail::argument_ok<detail::at_t<2, split_sig::params>, std::span<half_t, 4>>);
static_assert(!detail::argument_ok<detail::at_t<2, split_sig::params>, std::span<const half_t>>);
static_assert(!detail::argument_ok<detail::at_t<0, split_sig::params>, std::span<const bfloat16_t>>);
TEST(TypedEntry, SpansPassTheirData) {
  const typed_entry<split_sig> entry(&record);
  std::vector<half_t> x(4), w(4), y(4);
  EXPECT_EQ(entry(std::span<const half_t>(x), std::span<half_t>(w), std::span<half_t>(y), 5, 1, nullptr),
            kernel_status::ok);
  EXPECT_EQ(last.x, x.data());
  EXPECT_EQ(last.w, w.data());
  EXPECT_EQ(last.y, y.data());
  EXPECT_EQ(last.m, 5);
}

TEST(TypedEntry, WorkspaceQueryPassesNullTensorsAndTheSizes) {
  const typed_entry<split_sig> entry(&record);
  std::size_t bytes = 99;
  EXPECT_EQ(entry.query_workspace(bytes, 10, 3), kernel_status::ok);
  EXPECT_EQ(bytes, 30u);
  EXPECT_EQ(last.x, nullptr);
  EXPECT_EQ(last.y, nullptr);
  EXPECT_NE(last.workspace_size, nullptr);
  EXPECT_EQ(last.workspace, nullptr);
}

TEST(TypedEntry, AnEmptyEntryThrows) {
  const typed_entry<split_sig> entry;
  EXPECT_FALSE(entry);
  std::size_t bytes = 0;
  EXPECT_THROW((void)entry.query_workspace(bytes, 1, 1), invalid_argument_error);
}

}  // namespace
