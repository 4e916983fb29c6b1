// SPDX-License-Identifier: MIT
// core/problem_descriptor.hpp: what the problem_descriptor concept accepts and refuses.
#include <rocmtpl/core/problem_descriptor.hpp>

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace {

enum class shape { square, tall };

std::string_view shape_name(shape s) { return s == shape::square ? "square" : "tall"; }
shape parse_shape(std::string_view t) { return t == "square" ? shape::square : shape::tall; }

struct tile_problem {
  static constexpr std::string_view kind = "tile";
  std::int64_t size = 0;
  shape form = shape::square;
  template <class Self, class F>
  static void visit_fields(Self& p, F&& f) {
    f("size", p.size);
    f("form", rocmtpl::enum_field<std::conditional_t<std::is_const_v<Self>, const shape, shape>>{&p.form, &shape_name,
                                                                                                 &parse_shape});
  }
};

struct no_kind {
  template <class Self, class F>
  static void visit_fields(Self&, F&&) {}
};

struct no_visitor {
  static constexpr std::string_view kind = "none";
};

static_assert(rocmtpl::problem_descriptor<tile_problem>);
static_assert(!rocmtpl::problem_descriptor<no_kind>);
static_assert(!rocmtpl::problem_descriptor<no_visitor>);
static_assert(!rocmtpl::problem_descriptor<int>);

TEST(ProblemDescriptor, EnumFieldsReadAndWriteThroughTheirText) {
  tile_problem p{.size = 8, .form = shape::tall};
  std::vector<std::string> seen;
  tile_problem::visit_fields(p, [&](std::string_view name, auto&& field) {
    using F = std::remove_cvref_t<decltype(field)>;
    if constexpr (std::is_same_v<F, rocmtpl::enum_field<shape>>) {
      seen.push_back(std::string(name) + "=" + std::string(field.to_text(*field.value)));
      *field.value = field.from_text("square");
    } else {
      seen.push_back(std::string(name) + "=" + std::to_string(field));
    }
  });
  EXPECT_EQ(seen, (std::vector<std::string>{"size=8", "form=tall"}));
  EXPECT_EQ(p.form, shape::square);
}

}  // namespace
