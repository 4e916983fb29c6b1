// SPDX-License-Identifier: MIT
// static_assert-only checks of include/rocmtpl/ir/literal_layout.hpp (issue 24): layouts and buffers known at
// compile time are literal types whose queries work in static_assert, under g++ and clang. Building this file
// is the test. (Their agreement with the runtime layout: test/unit/ir/literal_layout_test.cpp.)

#include <array>
#include <cstdint>
#include <limits>
#include <string_view>
#include <type_traits>

#include <rocmtpl/ir/buffer.hpp>
#include <rocmtpl/ir/layout.hpp>
#include <rocmtpl/ir/literal_layout.hpp>

namespace {

using rocmtpl::dtype;
using rocmtpl::layout;
using rocmtpl::literal_buffer;
using rocmtpl::literal_dim;
using rocmtpl::literal_layout;

// The line, and every query of it in a static_assert.
constexpr auto l = layout::row_major(dtype::f16, {64, 32});
static_assert(std::is_same_v<decltype(l), const literal_layout<2>>);
static_assert(l.type() == dtype::f16 && l.rank() == 2);
static_assert(l.size(0) == 64 && l.size(-1) == 32 && l.stride(0) == 32 && l.stride(1) == 1 && l.offset() == 0);
static_assert(l.numel() == 2048 && l.numel().value() == 2048);
static_assert(l.storage_size() == 2048 && l.storage_bytes() == 4096 && l.storage_bytes().value() == 4096);
static_assert(l.is_contiguous() && l.is_row_major() && !l.is_col_major() && l.is_static());
static_assert(l.leading_dimension() == 32 && l.free_symbols().size() == 0);
static_assert(l.to_string() == "float16[64, 32] strides [32, 1] offset 0");

// Column-major, a strided view with an offset, broadcast and rank 0.
constexpr auto c = layout::col_major(dtype::f32, {128, 64});
static_assert(c.stride(0) == 1 && c.stride(1) == 128 && c.is_col_major() && !c.is_contiguous());
static_assert(c.leading_dimension() == 128 && c.storage_bytes() == 32768);
constexpr literal_layout<2> view(dtype::f32, {4, 3}, {10, 1}, 5);
static_assert(view.storage_size() == 5 + 3 * 10 + 2 + 1 && !view.is_contiguous() && view.leading_dimension() == 10);
constexpr literal_layout<2> broadcast(dtype::bf16, {8, 16}, {0, 1});
static_assert(broadcast.storage_size() == 16 && broadcast.numel() == 128);
constexpr auto empty = layout::row_major(dtype::i32, {0, 7});
static_assert(empty.storage_size() == 0 && empty.storage_bytes() == 0 && empty.numel() == 0);
constexpr auto scalar = literal_layout<0>::row_major(dtype::f64, {});
static_assert(scalar.numel() == 1 && scalar.storage_bytes() == 8 && !scalar.is_row_major() &&
              scalar.leading_dimension() == 0 && scalar.to_string() == "float64[] strides [] offset 0");

// Symbolic sizes are part of the value: strides and numel are exact monomials, the span a sum.
constexpr auto B = literal_dim::symbol("B"), M = literal_dim::symbol("M"), K = literal_dim::symbol("K");
constexpr auto batched = layout::row_major(dtype::f16, {B, M, K});
static_assert(batched.stride(0) == M * K && batched.stride(1) == K && batched.numel() == B * M * K);
static_assert(batched.stride(0).to_string() == "K*M" && batched.storage_size() == B * M * K);
static_assert(!batched.is_static() && batched.is_contiguous() && batched.numel().degree() == 3);
static_assert(batched.free_symbols().size() == 3 && batched.free_symbols()[0] == "B" &&
              batched.free_symbols()[1] == "K" && batched.free_symbols()[2] == "M");
static_assert(batched.to_string() == "float16[B, M, K] strides [K*M, K, 1] offset 0");
static_assert(!batched.storage_size().constant() && batched.storage_bytes() == 2 * B * M * K);
constexpr literal_layout<2> padded(dtype::f32, {M, K}, {2 * K, 1}, 4);
static_assert(padded.storage_size().to_string() == "-K + 2*K*M + 4" && padded.storage_size().size() == 3);
static_assert(layout::row_major(dtype::f32, {M, 64}).to_string() == "float32[M, 64] strides [64, 1] offset 0");

// overlap_of()'s verdict at compile time.
static_assert(l.overlap() == rocmtpl::overlap_kind::disjoint && c.overlap() == rocmtpl::overlap_kind::disjoint);
static_assert(broadcast.overlap() == rocmtpl::overlap_kind::overlapping);
static_assert(batched.overlap() == rocmtpl::overlap_kind::disjoint &&
              padded.overlap() == rocmtpl::overlap_kind::depends);
static_assert(literal_layout<2>(dtype::f32, {M, K}, {K, 2}).overlap() == rocmtpl::overlap_kind::depends);

// Literal layouts are structural: they are template arguments, compared by value.
template <literal_layout L>
struct tensor {
  static constexpr auto bytes = L.storage_bytes();
};
static_assert(tensor<l>::bytes == 4096);
static_assert(std::is_same_v<tensor<l>, tensor<layout::row_major(dtype::f16, {64, 32})>>);
static_assert(!std::is_same_v<tensor<l>, tensor<layout::col_major(dtype::f16, {64, 32})>>);
template <literal_dim D>
struct extent {};
static_assert(std::is_same_v<extent<M * K>, extent<K * M>>);

// Literal buffers: the name and the checks of buffer, at compile time.
constexpr literal_buffer x("x", l);
static_assert(x.name() == "x" && x.type() == dtype::f16 && x.get_layout().numel() == 2048);
static_assert(x.sizes()[0] == 64 && x.strides()[0] == 32);
constexpr literal_buffer big("big", layout::row_major(dtype::f64, {std::numeric_limits<std::int64_t>::max() / 8}));
static_assert(big.get_layout().storage_bytes() == std::numeric_limits<std::int64_t>::max() / 8 * 8);

// static_layout and static_buffer: their types give literal values.
using rocmtpl::dims;
using rocmtpl::ext;
using rocmtpl::sym;
using shape = rocmtpl::static_layout<rocmtpl::f16_t, dims<sym<"M">, ext<64>>>;
static_assert(shape::value == layout::row_major(dtype::f16, {M, 64}));
static_assert(shape::value.numel() == 64 * M && shape::value.is_contiguous() && !shape::value.is_static());
using strided = rocmtpl::static_layout<rocmtpl::f32_t, dims<ext<4>, ext<3>>, dims<ext<1>, ext<4>>, 2>;
static_assert(strided::value.is_col_major() && strided::value.storage_size() == 2 + 3 + 8 + 1);
using named = rocmtpl::static_buffer<"weights", shape>;
static_assert(named::value.name() == "weights" && named::value.get_layout() == shape::value);

}  // namespace
