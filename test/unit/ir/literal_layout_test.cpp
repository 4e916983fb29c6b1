// SPDX-License-Identifier: MIT
// rocmtpl/ir/literal_layout.hpp (issue 24): over a generated set of layouts (ranks 0..4, every dtype,
// static and symbolic sizes, row/col-major, permuted and broadcast strides, offsets), every query of the
// literal layout equals the runtime layout's, built independently from the same description; the round
// trips literal -> layout -> literal and layout -> literal -> layout are exact; failures throw the
// runtime's errors. (The compile-time side: test/compile/literal_layout_static_test.cpp, test/fail/.)
#include <rocmtpl/ir/buffer.hpp>
#include <rocmtpl/ir/layout.hpp>
#include <rocmtpl/ir/literal_layout.hpp>

#include <gtest/gtest.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

namespace {
using namespace rocmtpl;

// One dimension value, described once and built on both sides: coefficient * product of symbols.
struct dim_spec {
  std::int64_t coeff;
  std::vector<std::string> symbols;
};

sym_expr runtime_of(const dim_spec& d) {
  sym_expr e = d.coeff;
  for (const auto& s : d.symbols) e = e * sym_expr::symbol(s);
  return e;
}

literal_dim literal_of(const dim_spec& d) {
  literal_dim e = d.coeff;
  for (const auto& s : d.symbols) e = e * literal_dim::symbol(s);
  return e;
}

enum class stride_kind { row_major, col_major, permuted, broadcast, padded };

struct layout_spec {
  dtype type;
  std::vector<dim_spec> sizes;
  stride_kind strides;
  std::vector<dim_spec> explicit_strides;  // permuted, broadcast and padded
  dim_spec offset;
};

// A small deterministic generator (the set must be the same on every run and platform).
struct generator {
  std::uint64_t state;
  std::uint64_t next() {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return state >> 33;
  }
  std::size_t below(std::size_t n) { return static_cast<std::size_t>(next() % n); }
};

dim_spec random_size(generator& g) {
  static const std::array<std::int64_t, 6> constants{0, 1, 2, 3, 7, 64};
  static const std::array<const char*, 4> names{"M", "N", "K", "batch"};
  switch (g.below(4)) {
    case 0:
    case 1: return {constants[g.below(constants.size())], {}};
    case 2: return {1, {names[g.below(names.size())]}};
    default: return {static_cast<std::int64_t>(1 + g.below(3)), {names[g.below(names.size())]}};
  }
}

// Row-major strides of the sizes taken in `order` (outermost first), as descriptions.
std::vector<dim_spec> strides_in_order(const std::vector<dim_spec>& sizes, const std::vector<std::size_t>& order) {
  std::vector<dim_spec> strides(sizes.size());
  dim_spec running{1, {}};
  for (std::size_t k = order.size(); k-- > 0;) {
    strides[order[k]] = running;
    running.coeff *= sizes[order[k]].coeff;
    running.symbols.insert(running.symbols.end(), sizes[order[k]].symbols.begin(), sizes[order[k]].symbols.end());
    if (running.coeff == 0) running = {0, {}};
  }
  return strides;
}

layout_spec random_layout(generator& g, std::size_t rank) {
  layout_spec s{static_cast<dtype>(g.below(11)), {}, stride_kind::row_major, {}, {0, {}}};
  for (std::size_t i = 0; i < rank; ++i) s.sizes.push_back(random_size(g));
  s.strides = static_cast<stride_kind>(g.below(5));
  if (s.strides == stride_kind::col_major && rank < 2) s.strides = stride_kind::row_major;
  std::vector<std::size_t> order(rank);
  for (std::size_t i = 0; i < rank; ++i) order[i] = i;
  if (s.strides == stride_kind::permuted) {
    for (std::size_t i = rank; i > 1; --i) std::swap(order[i - 1], order[g.below(i)]);
  }
  s.explicit_strides = strides_in_order(s.sizes, order);
  if (s.strides == stride_kind::broadcast && rank > 0) s.explicit_strides[g.below(rank)] = {0, {}};
  if (s.strides == stride_kind::padded && rank > 0) {
    const std::size_t i = g.below(rank);
    s.explicit_strides[i].coeff *= 3;  // an unused gap after each row of dimension i
  }
  switch (g.below(4)) {
    case 0: s.offset = {5, {}}; break;
    case 1: s.offset = {2, {"off"}}; break;
    default: break;
  }
  return s;
}

layout runtime_layout(const layout_spec& s) {
  std::vector<sym_expr> sizes;
  for (const auto& d : s.sizes) sizes.push_back(runtime_of(d));
  if (s.strides == stride_kind::row_major) return layout::row_major(s.type, sizes, runtime_of(s.offset));
  if (s.strides == stride_kind::col_major) return layout::col_major(s.type, sizes, runtime_of(s.offset));
  std::vector<sym_expr> strides;
  for (const auto& d : s.explicit_strides) strides.push_back(runtime_of(d));
  return {s.type, sizes, strides, runtime_of(s.offset)};
}

template <std::size_t Rank>
literal_layout<Rank> literal_layout_of(const layout_spec& s) {
  std::array<literal_dim, Rank> sizes{};
  std::array<literal_dim, Rank> strides{};
  for (std::size_t i = 0; i < Rank; ++i) sizes[i] = literal_of(s.sizes[i]);
  if (s.strides == stride_kind::row_major) return literal_layout<Rank>::row_major(s.type, sizes, literal_of(s.offset));
  if (s.strides == stride_kind::col_major) return literal_layout<Rank>::col_major(s.type, sizes, literal_of(s.offset));
  for (std::size_t i = 0; i < Rank; ++i) strides[i] = literal_of(s.explicit_strides[i]);
  return {s.type, sizes, strides, literal_of(s.offset)};
}

std::vector<std::string> names_of(const auto& names) {
  std::vector<std::string> out;
  for (std::size_t i = 0; i < names.size(); ++i) out.emplace_back(names[i]);
  return out;
}

// Every query of `lit` equals the runtime layout's; the round trips are exact.
template <std::size_t Rank>
void expect_same_layout(const literal_layout<Rank>& lit, const layout& rt) {
  SCOPED_TRACE(rt.to_string());
  ASSERT_EQ(lit.rank(), rt.rank());
  EXPECT_EQ(lit.type(), rt.type());
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(Rank); ++i) {
    EXPECT_EQ(to_sym_expr(lit.size(i)), rt.size(i));
    EXPECT_EQ(to_sym_expr(lit.stride(i)), rt.stride(i));
    EXPECT_EQ(to_sym_expr(lit.size(i - static_cast<std::int64_t>(Rank))), rt.size(i - static_cast<std::int64_t>(Rank)));
    EXPECT_EQ(lit.stride(i).to_string(), rt.stride(i).to_string());
  }
  EXPECT_THROW((void)lit.size(static_cast<std::int64_t>(Rank)), out_of_range_error);
  EXPECT_THROW((void)lit.stride(-1 - static_cast<std::int64_t>(Rank)), out_of_range_error);
  EXPECT_EQ(to_sym_expr(lit.offset()), rt.offset());
  EXPECT_EQ(to_sym_expr(lit.numel()), rt.numel());
  EXPECT_EQ(lit.numel().to_string(), rt.numel().to_string());
  EXPECT_EQ(to_sym_expr(lit.storage_size()), rt.storage_size());
  EXPECT_EQ(lit.storage_size().to_string(), rt.storage_size().to_string());
  EXPECT_EQ(lit.storage_size().constant(), rt.storage_size().constant());
  EXPECT_EQ(to_sym_expr(lit.storage_bytes()), rt.storage_size() * static_cast<std::int64_t>(element_size(rt.type())));
  EXPECT_EQ(lit.is_contiguous(), rt.is_contiguous());
  EXPECT_EQ(lit.is_row_major(), rt.is_row_major());
  EXPECT_EQ(lit.is_col_major(), rt.is_col_major());
  EXPECT_EQ(to_sym_expr(lit.leading_dimension()), rt.leading_dimension());
  EXPECT_EQ(lit.is_static(), rt.is_static());
  EXPECT_EQ(names_of(lit.free_symbols()), rt.free_symbols());
  EXPECT_EQ(lit.to_string(), rt.to_string());
  EXPECT_EQ(lit.overlap(), overlap_of(rt).kind);
  // The conversions, both ways, are exact.
  const layout converted = lit;
  EXPECT_EQ(converted, rt);
  EXPECT_EQ(converted.to_string(), rt.to_string());
  EXPECT_EQ(literal_layout<Rank>::from(rt), lit);
  EXPECT_EQ(literal_layout<Rank>::from(converted), lit);
  EXPECT_EQ(lit.to_value(), rt);
}

template <std::size_t Rank>
std::size_t check_generated(std::uint64_t seed, std::size_t count) {
  generator g{seed};
  std::size_t checked = 0;
  for (std::size_t n = 0; n < count; ++n) {
    const layout_spec spec = random_layout(g, Rank);
    const layout rt = runtime_layout(spec);
    expect_same_layout(literal_layout_of<Rank>(spec), rt);
    if (::testing::Test::HasFailure()) return checked;
    ++checked;
  }
  return checked;
}

TEST(LiteralLayout, AgreesWithTheRuntimeLayoutOnEveryQueryOverAGeneratedSet) {
  std::size_t checked = 0;
  checked += check_generated<0>(1, 20);
  checked += check_generated<1>(2, 150);
  checked += check_generated<2>(3, 250);
  checked += check_generated<3>(4, 250);
  checked += check_generated<4>(5, 250);
  EXPECT_EQ(checked, 920U);
}

TEST(LiteralLayout, GeneratedSetCoversTheCasesItClaims) {
  // The agreement test means little unless the set holds each kind of layout: count them.
  generator g{4};
  std::array<std::size_t, 5> kinds{};
  std::size_t symbolic = 0, with_zero = 0, with_offset = 0;
  std::array<bool, 11> dtypes{};
  std::array<std::size_t, 3> overlaps{};
  for (std::size_t n = 0; n < 250; ++n) {
    const layout_spec s = random_layout(g, 3);
    ++kinds[static_cast<std::size_t>(s.strides)];
    const layout rt = runtime_layout(s);
    symbolic += rt.is_static() ? 0 : 1;
    with_zero += rt.storage_size() == sym_expr(0) ? 1 : 0;
    with_offset += rt.offset() == sym_expr(0) ? 0 : 1;
    dtypes[static_cast<std::size_t>(s.type)] = true;
    ++overlaps[static_cast<std::size_t>(overlap_of(rt).kind)];
  }
  for (std::size_t k : overlaps) EXPECT_GE(k, 10U);
  for (std::size_t k : kinds) EXPECT_GE(k, 25U);
  EXPECT_GE(symbolic, 100U);
  EXPECT_GE(with_zero, 10U);
  EXPECT_GE(with_offset, 100U);
  for (bool seen : dtypes) EXPECT_TRUE(seen);
}

TEST(LiteralLayout, IssueExampleIsALiteralThatConvertsIntoTheRuntimeLayout) {
  constexpr auto l = layout::row_major(dtype::f16, {64, 32});
  static_assert(std::is_same_v<decltype(l), const literal_layout<2>>);
  const layout rt = l;
  EXPECT_EQ(rt, layout::row_major(dtype::f16, std::vector<sym_expr>{64, 32}));
  EXPECT_EQ(l.to_string(), "float16[64, 32] strides [32, 1] offset 0");
  const buffer b("x", layout::row_major(dtype::f32, {4, 8}));  // existing spelling keeps working
  EXPECT_EQ(b.strides(), (std::vector<sym_expr>{8, 1}));
}

TEST(LiteralLayout, SymbolicStridesAreExactMonomials) {
  const auto B = literal_dim::symbol("B"), M = literal_dim::symbol("M"), K = literal_dim::symbol("K");
  const auto l = layout::row_major(dtype::f32, {B, M, K});
  EXPECT_EQ(l.stride(0), M * K);
  EXPECT_EQ(l.stride(0).to_string(), "K*M");
  EXPECT_EQ(l.numel(), B * K * M);
  EXPECT_EQ(l.storage_size(), B * K * M);
  const auto padded = literal_layout<2>(dtype::f32, {M, K}, {2 * K, 1}, 5);
  EXPECT_EQ(padded.storage_size().to_string(), sym_expr(2 * sym_expr::symbol("K") * sym_expr::symbol("M") -
                                                        2 * sym_expr::symbol("K") + sym_expr::symbol("K") + 5)
                                                   .to_string());
  EXPECT_FALSE(padded.storage_size().constant());
  EXPECT_THROW((void)padded.storage_size().value(), evaluation_error);
  EXPECT_THROW((void)M.value(), evaluation_error);
}

TEST(LiteralLayout, FailuresThrowWhatTheRuntimeLayoutThrows) {
  const std::int64_t big = std::int64_t{1} << 40;
  // Overflow of the product of the sizes: both row_major()s.
  EXPECT_THROW((void)layout::row_major(dtype::f32, std::vector<sym_expr>{big, big}), evaluation_error);
  EXPECT_THROW((void)layout::row_major(dtype::f32, {big, big}), evaluation_error);
  EXPECT_THROW((void)layout::col_major(dtype::f32, {big, big}), evaluation_error);
  // Negative values, a bad dtype, col_major of rank 1, bad symbols.
  try {
    (void)literal_layout<2>(dtype::f32, {4, -2}, {1, 1});
    FAIL();
  } catch (const invalid_argument_error& e) {
    EXPECT_NE(std::string(e.what()).find("negative size -2 at dimension 1"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)literal_layout<1>(dtype::f32, {4}, {-1}), invalid_argument_error);
  EXPECT_THROW((void)literal_layout<1>(dtype::f32, {4}, {1}, -3), invalid_argument_error);
  EXPECT_THROW((void)literal_layout<1>(static_cast<dtype>(42), {4}, {1}), invalid_argument_error);
  EXPECT_THROW((void)layout::col_major(dtype::f32, {4}), invalid_argument_error);
  for (const char* bad : {"", "1x", "int", "stream", "a_name_of_thirty_two_characters_"}) {
    EXPECT_THROW((void)literal_dim::symbol(bad), invalid_argument_error) << bad;
  }
  EXPECT_NO_THROW((void)literal_dim::symbol("a_name_of_thirty_one_characters"));
  // More symbol factors than a literal_dim holds.
  const auto M = literal_dim::symbol("M");
  EXPECT_THROW((void)(M * M * M * M * M * M * M), evaluation_error);
  EXPECT_NO_THROW((void)(M * M * M * M * M * M));
}

TEST(LiteralLayout, FromRefusesWhatItCannotRepresent) {
  const sym_expr M = sym_expr::symbol("M");
  auto message = [](const std::function<void()>& f) {
    try {
      f();
    } catch (const invalid_argument_error& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  const layout rank2 = layout::row_major(dtype::f32, std::vector<sym_expr>{M, 4});
  EXPECT_NE(message([&] { (void)literal_layout<3>::from(rank2); }).find("has rank 2, not 3"), std::string::npos);
  const layout plus_one(dtype::f32, {M + 1}, {1});
  EXPECT_NE(message([&] { (void)literal_layout<1>::from(plus_one); }).find("size 0 of float32[M + 1]"),
            std::string::npos);
  EXPECT_NE(message([&] { (void)literal_layout<1>::from(plus_one); }).find("not a monomial"), std::string::npos);
  const layout divided(dtype::f32, {4}, {1}, floor_div(M, 2));
  EXPECT_NE(message([&] { (void)literal_layout<1>::from(divided); }).find("floor_div"), std::string::npos);
  const layout long_name(dtype::f32, {sym_expr::symbol("a_name_of_thirty_two_characters_")}, {1});
  EXPECT_NE(message([&] { (void)literal_layout<1>::from(long_name); }).find("longer than 31"), std::string::npos);
  EXPECT_EQ(to_literal_dim(-3 * M * M), -3 * literal_dim::symbol("M") * literal_dim::symbol("M"));
  EXPECT_EQ(to_literal_dim(-3 * M * M).to_string(), (-3 * M * M).to_string());
}

TEST(LiteralBuffer, ChecksAsTheRuntimeBufferChecks) {
  const auto l = layout::row_major(dtype::f32, {2, 3});
  const literal_buffer x("x", l);
  EXPECT_EQ(x.name(), "x");
  EXPECT_EQ(x.get_layout(), l);
  const buffer rt = x;
  EXPECT_EQ(rt, buffer("x", layout(l)));
  EXPECT_EQ(literal_buffer<2>::from(rt), x);
  EXPECT_EQ(x.to_value(), rt);
  for (const char* bad : {"", "1x", "x-y", "int", "workspace"}) {
    EXPECT_THROW((void)buffer(bad, l), invalid_argument_error) << bad;
    EXPECT_THROW((void)literal_buffer(bad, l), invalid_argument_error) << bad;
  }
  // Overflow: of the element count, of the storage span, of the storage bytes; and the limits that fit.
  const std::int64_t max = std::numeric_limits<std::int64_t>::max();
  const std::vector<std::function<literal_layout<2>()>> cases{
      [&] {
        return literal_layout<2>(dtype::f32, {std::int64_t{1} << 32, std::int64_t{1} << 32}, {0, 0});
      },
      [&] {
        return literal_layout<2>(dtype::f32, {3, 2}, {max / 2, 1});
      },
      [&] {
        return literal_layout<2>(dtype::f64, {max / 8 + 1, 1}, {1, 1});
      },
      [&] {
        return literal_layout<2>(dtype::f64, {max / 8, 1}, {1, 1});
      },
      [&] {
        return literal_layout<2>(dtype::f16, {literal_dim::symbol("M"), max / 2}, {max / 2, 1});
      },
      [&] {
        return literal_layout<2>(dtype::u8, {2, 2}, {max / 2, 1}, max / 2 - 2);
      },
      [&] {
        return literal_layout<2>(dtype::u8, {2, 2}, {max / 2, 1}, max / 2);
      },
  };
  for (const auto& make : cases) {
    const auto lit = make();
    bool runtime_threw = false, literal_threw = false;
    try {
      (void)buffer("x", lit);
    } catch (const evaluation_error&) {
      runtime_threw = true;
    }
    try {
      (void)literal_buffer("x", lit);
    } catch (const evaluation_error& e) {
      literal_threw = true;
      EXPECT_NE(std::string(e.what()).find("rocmtpl: buffer: 'x' "), std::string::npos) << e.what();
    }
    EXPECT_EQ(literal_threw, runtime_threw) << lit;
  }
}

TEST(LiteralLayout, StaticLayoutAndStaticBufferHaveLiteralValues) {
  using shape = static_layout<f16_t, dims<sym<"M">, ext<64>>>;
  static_assert(shape::value.stride(0) == 64);
  EXPECT_EQ(layout(shape::value), shape::to_value());
  using strided = static_layout<f32_t, dims<ext<4>, ext<3>>, dims<ext<1>, ext<4>>, 2>;
  EXPECT_EQ(layout(strided::value), strided::to_value());
  using named = static_buffer<"x", shape>;
  EXPECT_EQ(buffer(named::value), named::to_value());
}

}  // namespace
