// SPDX-License-Identifier: MIT
// codegen/derived_signature.hpp: the signature a policy's signature_rule derives from the problem's
// buffer types is the kernel_signature those buffers declare (names, order, sizes, tail), and unnamed
// inputs (static_layout types) take the rule's names. The mismatches are compile errors:
// test/fail/typed_buffer_*, typed_input_count, typed_runtime_args_differ.
#include <rocmtpl/codegen/derived_signature.hpp>

#include <gtest/gtest.h>

#include <type_traits>

namespace {
using namespace rocmtpl;

// A policy of the shape the rule needs (the concept's other members are the kernel tests').
struct scale_policy {
  static constexpr kernel_capabilities capabilities{.typed_signature = true};
  static constexpr std::string_view name() noexcept { return "scale"; }
  static constexpr signature_rule typed_signature(std::size_t inputs) noexcept {
    signature_rule r;
    if (inputs != 1) return r.refuse("scale takes X");
    r.inputs[0] = {.name = "X", .dtypes = float_dtypes, .min_rank = 1, .max_rank = 2};
    r.output = {.name = "Y", .dtypes = float_dtypes, .min_rank = 1, .max_rank = 2};
    return r;
  }
};

using lx = row_major_layout<f32_t, dims<sym<"N">, ext<8>>>;
using ly = row_major_layout<f32_t, dims<sym<"N">, ext<8>>>;
using named = kernel_signature<inputs<static_buffer<"X", lx>>, outputs<static_buffer<"Y", ly>>>;

static_assert(
    std::is_same_v<derived_signature_t<scale_policy, inputs<static_buffer<"X", lx>>, outputs<static_buffer<"Y", ly>>>,
                   named>);
// Unnamed layouts take the rule's names: the same signature.
static_assert(std::is_same_v<derived_signature_t<scale_policy, inputs<lx>, outputs<ly>>, named>);

TEST(DerivedSignature, DeclaresWhatTheBuffersWouldDeclare) {
  using sig = derived_signature_t<scale_policy, inputs<lx>, outputs<ly>>;
  EXPECT_EQ(sig::declaration("rocm_scale"), named::declaration("rocm_scale"));
  EXPECT_EQ(sig::size_symbols(), (std::vector<std::string>{"N"}));
  EXPECT_EQ(sig::input_buffers().front().name(), "X");
}
}  // namespace
