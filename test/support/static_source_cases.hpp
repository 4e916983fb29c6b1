// SPDX-License-Identifier: MIT
#pragma once

// Test support: the problems whose constant-evaluation render (templates/static_source.hpp) has its
// XXH3-64 checked by static_assert against the hash of the run-time render. The hashes are a
// golden file, test/golden/expected/static_source_hashes.inc: golden_tests
// (test/golden/static_source_golden_test.cpp) computes them from the run-time renders and compares
// (ROCMTPL_UPDATE_GOLDEN=1 rewrites the file), unit_templates_tests
// (test/unit/templates/static_source_hash_test.cpp) includes the file and static_asserts each
// constant hash against it. Two programs, so that a stale file is refreshed by one while the other
// does not compile.
//
// ROCMTPL_STATIC_SOURCE_CASES(X) calls X(name) for each case; each case is a struct in
// rocmtpl::test::static_cases with `using source = static_source<...>` and `static std::string
// render()` (the run-time route's text of the same part).

#include <cstdint>
#include <string>

#include <rocmtpl/kernel/rocm_template.hpp>
#include <rocmtpl/kernel/typed_template.hpp>
#include <rocmtpl/templates/elementwise.hpp>
#include <rocmtpl/templates/gemm.hpp>
#include <rocmtpl/templates/pointwise.hpp>
#include <rocmtpl/templates/static_source.hpp>

namespace rocmtpl::test::static_cases {

using namespace rocmtpl::templates;

// The run-time route's render of an elementwise or pointwise problem given as a signature.
template <class Policy, class Sig>
std::string runtime_render(Policy policy, const elementwise_config& config) {
  const rocm_template<Policy> t(std::move(policy), Sig::input_buffers(), Sig::output_buffers().front().get_layout());
  return t.generate(config).source();
}

struct elementwise_f16_relu_bias {
  using x = static_buffer<"X", row_major_layout<f16_t, dims<ext<64>, ext<32>>>>;
  using b = static_buffer<"Bias", row_major_layout<f16_t, dims<ext<32>>>>;
  using y = static_buffer<"Y", row_major_layout<f16_t, dims<ext<64>, ext<32>>>>;
  using sig = kernel_signature<inputs<x, b>, outputs<y>>;
  using source = static_elementwise_source<sig, elementwise_options{activation::relu}>;
  static std::string render() {
    return runtime_render<elementwise_policy, sig>(elementwise_policy({activation::relu}), {});
  }
};

struct elementwise_f32_strided_gelu {
  using x = static_buffer<"X", static_layout<f32_t, dims<ext<17>, ext<40>>, dims<ext<1>, ext<17>>, 5>>;
  using y = static_buffer<"Y", static_layout<f32_t, dims<ext<17>, ext<40>>, dims<ext<43>, ext<1>>, 11>>;
  using sig = kernel_signature<inputs<x>, outputs<y>>;
  using source = static_elementwise_source<sig, elementwise_options{activation::gelu}, elementwise_config{512}>;
  static std::string render() {
    return runtime_render<elementwise_policy, sig>(elementwise_policy({activation::gelu}), {512});
  }
};

struct elementwise_bf16_bias2d_sigmoid {
  using x = static_buffer<"X", row_major_layout<bf16_t, dims<ext<3>, ext<5>>>>;
  using b = static_buffer<"Bias", static_layout<f32_t, dims<ext<3>, ext<5>>, dims<ext<1>, ext<3>>, 2>>;
  using y = static_buffer<"Y", row_major_layout<f16_t, dims<ext<3>, ext<5>>>>;
  using sig = kernel_signature<inputs<x, b>, outputs<y>>;
  using source = static_elementwise_source<sig, elementwise_options{activation::sigmoid}, elementwise_config{64}>;
  static std::string render() {
    return runtime_render<elementwise_policy, sig>(elementwise_policy({activation::sigmoid}), {64});
  }
};

struct pointwise_bias_gelu_mul {
  using x = static_buffer<"X", row_major_layout<f16_t, dims<ext<2>, ext<64>, ext<32>>>>;
  using e0 = static_buffer<"E0", row_major_layout<f16_t, dims<ext<32>>>>;
  using e1 = static_buffer<"E1", row_major_layout<f32_t, dims<ext<2>, ext<64>, ext<32>>>>;
  using y = static_buffer<"Y", row_major_layout<bf16_t, dims<ext<2>, ext<64>, ext<32>>>>;
  using sig = kernel_signature<inputs<x, e0, e1>, outputs<y>>;
  using chain = static_chain<static_epilogue_op::add(0, epilogue_broadcast::row_vector),
                             static_epilogue_op::activation(activation::gelu),
                             static_epilogue_op::mul(1, epilogue_broadcast::full)>;
  using source = static_pointwise_source<sig, chain>;
  static std::string render() { return runtime_render<pointwise_policy, sig>(pointwise_policy(chain::to_value()), {}); }
};

struct pointwise_column_scale_cast {
  using x = static_buffer<"X", static_layout<f32_t, dims<ext<48>, ext<24>>, dims<ext<1>, ext<48>>, 4>>;
  using e0 = static_buffer<"E0", row_major_layout<bf16_t, dims<ext<48>>>>;
  using y = static_buffer<"Y", row_major_layout<f16_t, dims<ext<48>, ext<24>>>>;
  using sig = kernel_signature<inputs<x, e0>, outputs<y>>;
  using chain =
      static_chain<static_epilogue_op::scale(0.125F), static_epilogue_op::sub(0, epilogue_broadcast::column_vector),
                   static_epilogue_op::activation(activation::silu), static_epilogue_op::cast(dtype::f16),
                   static_epilogue_op::scale(-2.5e-5F)>;
  using source = static_pointwise_source<sig, chain, elementwise_config{1024}>;
  static std::string render() {
    return runtime_render<pointwise_policy, sig>(pointwise_policy(chain::to_value()), {1024});
  }
};

// The GEMM: the entry's declaration and its twins, as the typed GEMM's render ends.
struct gemm_f16 {
  using x = static_buffer<"X", row_major_layout<f16_t, dims<sym<"M">, ext<64>>>>;
  using w = static_buffer<"W", row_major_layout<f16_t, dims<ext<64>, ext<32>>>>;
  using y = static_buffer<"Y", row_major_layout<f16_t, dims<sym<"M">, ext<32>>>>;
  using sig = kernel_signature<inputs<x, w>, outputs<y>>;
  static std::string source_text() {
    return make_template(gemm_policy{}, inputs<x, w>{}, outputs<y>{}).generate(gemm_config{}, hints<"M">{100}).source();
  }
};

struct gemm_f16_declaration : gemm_f16 {
  using source = static_entry_source<sig, "rocm_gemm", static_entry_part::declaration>;
  // The definition's first line, less ` {`.
  static std::string render() {
    const std::string s = source_text();
    const std::string guard(rocmtpl::detail::entry_text::host_guard_open);
    const auto at = s.rfind(guard + std::string(rocmtpl::detail::entry_text::exported_linkage) + "int rocm_gemm(");
    if (at == std::string::npos) return {};
    const auto start = at + guard.size();
    return s.substr(start, s.find(" {\n", start) - start);
  }
};

struct gemm_f16_twins : gemm_f16 {
  using source = static_entry_source<sig, "rocm_gemm", static_entry_part::twins>;
  // From the packed twin's comment to the signature function's end (the entry's last lines).
  static std::string render() {
    const std::string s = source_text();
    const auto at = s.rfind("// The uniform entry: ");
    const auto end = s.rfind(rocmtpl::detail::entry_text::host_guard_close);
    if (at == std::string::npos || end == std::string::npos || end < at) return {};
    return s.substr(at, end - at);
  }
};

}  // namespace rocmtpl::test::static_cases

// NOLINTNEXTLINE(cppcoreguidelines-macro-usage): an X-macro list, expanded by the two programs that check it
#define ROCMTPL_STATIC_SOURCE_CASES(X) \
  X(elementwise_f16_relu_bias)         \
  X(elementwise_f32_strided_gelu)      \
  X(elementwise_bf16_bias2d_sigmoid)   \
  X(pointwise_bias_gelu_mul)           \
  X(pointwise_column_scale_cast)       \
  X(gemm_f16_declaration)              \
  X(gemm_f16_twins)
