// SPDX-License-Identifier: MIT
// static_assert-only checks of include/rocmtpl/ir/dim.hpp: building this file is the test.

#include <array>
#include <cstdint>
#include <string_view>
#include <type_traits>

#include <rocmtpl/ir/dim.hpp>

namespace {

using rocmtpl::dims;
using rocmtpl::ext;
using rocmtpl::sym;

// Wrappers, so that an invalid use is a false constraint rather than a hard error.
template <class D>
concept has_static_product = requires {
  rocmtpl::static_product_v<D>;
};
template <class D>
concept has_static_extents = requires {
  rocmtpl::static_extents_v<D>;
};
template <class D, std::size_t I>
concept has_at = requires {
  typename D::template at<I>;
};
template <class... Ds>
concept valid_dims = requires {
  typename dims<Ds...>;
};

// ext: value, any non-negative extent, the largest int64.
static_assert(ext<0>::value == 0);
static_assert(ext<128>::value == 128);
static_assert(ext<INT64_MAX>::value == INT64_MAX);
static_assert(std::is_same_v<decltype(ext<7>::value), const std::int64_t>);

// sym: the name is a constant string_view.
static_assert(sym<"M">::name == "M");
static_assert(sym<"batch_size_0">::name == std::string_view("batch_size_0"));
static_assert(sym<"_k">::name.size() == 2);
static_assert(!std::is_same_v<sym<"M">, sym<"N">>);
static_assert(std::is_same_v<sym<"M">, sym<"M">>);

// Concepts accept their models and reject everything else.
static_assert(rocmtpl::static_dim<ext<4>>);
static_assert(!rocmtpl::static_dim<sym<"M">>);
static_assert(!rocmtpl::static_dim<int>);
static_assert(!rocmtpl::static_dim<std::integral_constant<std::int64_t, 4>>);
static_assert(rocmtpl::symbolic_dim<sym<"M">>);
static_assert(!rocmtpl::symbolic_dim<ext<4>>);
static_assert(!rocmtpl::symbolic_dim<std::string_view>);
static_assert(rocmtpl::dim_type<ext<4>> && rocmtpl::dim_type<sym<"M">>);
static_assert(!rocmtpl::dim_type<int> && !rocmtpl::dim_type<dims<ext<4>>> && !rocmtpl::dim_type<void>);
static_assert(rocmtpl::dim_list<dims<>> && rocmtpl::dim_list<dims<ext<1>, sym<"M">>>);
static_assert(!rocmtpl::dim_list<ext<1>> && !rocmtpl::dim_list<std::tuple<ext<1>>>);
static_assert(rocmtpl::static_dim_list<dims<ext<1>, ext<2>>> && rocmtpl::static_dim_list<dims<>>);
static_assert(!rocmtpl::static_dim_list<dims<ext<1>, sym<"M">>> && !rocmtpl::static_dim_list<ext<1>>);

// dims only takes dimension types.
static_assert(valid_dims<ext<1>, sym<"M">>);
static_assert(valid_dims<>);
static_assert(!valid_dims<int>);
static_assert(!valid_dims<ext<1>, double>);

// rank, counts, element access.
using mixed = dims<sym<"M">, ext<64>, sym<"K">, ext<2>>;
static_assert(mixed::rank == 4);
static_assert(mixed::static_count == 2 && mixed::symbolic_count == 2);
static_assert(!mixed::all_static);
static_assert(std::is_same_v<mixed::at<0>, sym<"M">>);
static_assert(std::is_same_v<mixed::at<1>, ext<64>>);
static_assert(std::is_same_v<mixed::at<3>, ext<2>>);
static_assert(has_at<mixed, 3> && !has_at<mixed, 4>);
static_assert(!has_at<dims<>, 0>);
static_assert(dims<>::rank == 0 && dims<>::all_static);

// is_static_v.
static_assert(rocmtpl::is_static_v<ext<3>>);
static_assert(!rocmtpl::is_static_v<sym<"M">>);
static_assert(rocmtpl::is_static_v<dims<ext<3>, ext<0>>>);
static_assert(rocmtpl::is_static_v<dims<>>);
static_assert(!rocmtpl::is_static_v<dims<ext<3>, sym<"M">>>);
static_assert(!rocmtpl::is_static_v<mixed>);
static_assert(!rocmtpl::is_static_v<int>);

// Products and extents of static lists; none for lists with a symbol.
static_assert(rocmtpl::static_product_v<dims<ext<4>, ext<8>, ext<2>>> == 64);
static_assert(rocmtpl::static_product_v<dims<ext<4>, ext<0>>> == 0);
static_assert(rocmtpl::static_product_v<dims<>> == 1);
static_assert(rocmtpl::static_product_v<dims<ext<INT64_MAX>>> == INT64_MAX);
static_assert(rocmtpl::static_product_v<dims<ext<(std::int64_t{1} << 31)>, ext<(std::int64_t{1} << 31)>>> ==
              (std::int64_t{1} << 62));
static_assert(has_static_product<dims<ext<4>>>);
static_assert(!has_static_product<mixed>);
static_assert(!has_static_product<ext<4>>);
static_assert(rocmtpl::static_extents_v<dims<ext<4>, ext<8>>> == std::array<std::int64_t, 2>{4, 8});
static_assert(rocmtpl::static_extents_v<dims<>>.empty());
static_assert(has_static_extents<dims<ext<4>>> && !has_static_extents<mixed>);

}  // namespace
