// SPDX-License-Identifier: MIT
// A complete kernel_template policy with declared optional members (a reference kernel, a runtime
// argument, a workspace, size arguments, a launch description); each compile-fail case defines one
// ROCMTPL_FAIL_* macro to remove or break exactly one requirement, and policy_complete.cpp (the
// passing twin) defines none.
#pragma once

#include <rocmtpl/kernel/rocm_template.hpp>
#include <rocmtpl/kernel/typed_template.hpp>

#include <cstddef>
#include <cstdint>

struct fixture_config {
  int block = 64;
  friend bool operator==(const fixture_config&, const fixture_config&) = default;
};

#ifndef ROCMTPL_FAIL_OMIT_DESCRIBE
inline std::vector<std::pair<std::string, std::string>> describe(const fixture_config& c) {
  return {{"block", std::to_string(c.block)}};
}
#endif

struct fixture_policy {
#ifndef ROCMTPL_FAIL_OMIT_OPT_IN
  using policy_concept = rocmtpl::kernel_template_tag;
#endif
  using config_type = fixture_config;
#ifndef ROCMTPL_FAIL_OMIT_NAME
  static std::string_view name() { return "fixture"; }
#endif
#ifndef ROCMTPL_FAIL_OMIT_CONFIGS
  std::vector<fixture_config> configs() const { return {{64}}; }
#endif
#ifndef ROCMTPL_FAIL_OMIT_RENDER
  rocmtpl::rendered_source render(rocmtpl::rocm_template_kernel& k, const rocmtpl::template_context& ctx,
                                  const fixture_config&) const {
    (void)k.def_kernel({ctx.input(0)}, {&ctx.output_node()}, "X, Y");
    auto out = k.start_source(ctx);
    out.entry_body = "    return 0;\n";
    return out;
  }
#endif
  // Optional members, declared.
#if defined(ROCMTPL_FAIL_UNDECLARE_REFERENCE)
  static constexpr rocmtpl::kernel_capabilities capabilities{
      .runtime_args = true, .workspace = true, .size_args = true, .launch = true};
#elif defined(ROCMTPL_FAIL_UNDECLARE_RUNTIME_ARGS)
  static constexpr rocmtpl::kernel_capabilities capabilities{
      .reference = true, .workspace = true, .size_args = true, .launch = true};
#elif defined(ROCMTPL_FAIL_DECLARE_PROBLEM_CONFIGS)
  static constexpr rocmtpl::kernel_capabilities capabilities{.reference = true,
                                                             .runtime_args = true,
                                                             .problem_configs = true,
                                                             .workspace = true,
                                                             .size_args = true,
                                                             .launch = true};
#elif defined(ROCMTPL_FAIL_UNDECLARE_WORKSPACE)
  static constexpr rocmtpl::kernel_capabilities capabilities{
      .reference = true, .runtime_args = true, .size_args = true, .launch = true};
#elif defined(ROCMTPL_FAIL_UNDECLARE_SIZE_ARGS)
  static constexpr rocmtpl::kernel_capabilities capabilities{
      .reference = true, .runtime_args = true, .workspace = true, .launch = true};
#elif defined(ROCMTPL_FAIL_UNDECLARE_LAUNCH)
  static constexpr rocmtpl::kernel_capabilities capabilities{
      .reference = true, .runtime_args = true, .workspace = true, .size_args = true};
#elif defined(ROCMTPL_WITH_TYPED_SIGNATURE) || defined(ROCMTPL_FAIL_DECLARE_TYPED_SIGNATURE)
  static constexpr rocmtpl::kernel_capabilities capabilities{.reference = true,
                                                             .runtime_args = true,
                                                             .workspace = true,
                                                             .size_args = true,
                                                             .launch = true,
                                                             .typed_signature = true};
#else
  static constexpr rocmtpl::kernel_capabilities capabilities{
      .reference = true, .runtime_args = true, .workspace = true, .size_args = true, .launch = true};
#endif
#if defined(ROCMTPL_WITH_TYPED_SIGNATURE) || defined(ROCMTPL_FAIL_UNDECLARE_TYPED_SIGNATURE)
  // The typed route's rule (kernel_capabilities::typed_signature): X -> Y and the runtime argument.
  static constexpr rocmtpl::signature_rule typed_signature(std::size_t inputs) noexcept {
    rocmtpl::signature_rule r;
    if (inputs != 1) return r.refuse("fixture takes one input X");
    r.inputs[0] = {.name = "X"};
    r.output = {.name = "Y"};
    r.runtime_args[0] = {.name = "repeat", .c_type = "int32_t"};
    r.runtime_arg_count = 1;
    return r;
  }
#elif defined(ROCMTPL_FAIL_DECLARE_TYPED_SIGNATURE)
  // Declared, but not static: not the member the capability promises.
  rocmtpl::signature_rule typed_signature(std::size_t) const { return {}; }
#endif
#ifdef ROCMTPL_FAIL_MISSPELL_WORKSPACE
  rocmtpl::sym_expr workspace_byte(const rocmtpl::template_context&, const fixture_config&) const { return 0; }
#else
  // The workspace in bytes, known at code generation (kernel_capabilities::workspace).
  rocmtpl::sym_expr workspace_bytes(const rocmtpl::template_context&, const fixture_config& c) const {
    return c.block * 4;
  }
#endif
#ifdef ROCMTPL_FAIL_MISSPELL_SIZE_ARGS
  std::vector<rocmtpl::sym_expr> size_arg(const rocmtpl::template_context&) const { return {}; }
#else
  // The size arguments, by name (kernel_capabilities::size_args); the fixture's sizes are static.
  std::vector<rocmtpl::sym_expr> size_args(const rocmtpl::template_context&) const { return {}; }
#endif
#ifndef ROCMTPL_FAIL_OMIT_DESCRIBE_LAUNCH
  rocmtpl::launch_description describe_launch(rocmtpl::rocm_template_kernel& k, const rocmtpl::template_context& ctx,
                                              const fixture_config&) const {
    (void)k.def_kernel({ctx.input(0)}, {&ctx.output_node()}, "X, Y");
    return rocmtpl::launch_description_for(k.kernel_name(), k.args());
  }
#endif
#ifdef ROCMTPL_FAIL_MISSPELL_REFERENCE
  rocmtpl::rendered_source render_referense(rocmtpl::rocm_template_kernel& k,
                                            const rocmtpl::template_context& ctx) const {
#else
  rocmtpl::rendered_source render_reference(rocmtpl::rocm_template_kernel& k,
                                            const rocmtpl::template_context& ctx) const {
#endif
      (void)k.def_kernel({ctx.input(0)}, {&ctx.output_node()}, "X, Y");
  auto out = k.start_source(ctx);
  out.entry_body = "    return 1;\n";
  return out;
} std::vector<rocmtpl::arg_info> runtime_arg_info() const {
  return {{"repeat", "int32_t"}};
}
std::vector<rocmtpl::runtime_arg_value> runtime_arg_values(const fixture_config& c) const { return {c.block}; }
#ifdef ROCMTPL_FAIL_DECLARE_PROBLEM_CONFIGS
// Declared, but without the hints parameter: not the member the capability promises.
std::vector<fixture_config> configs(const rocmtpl::template_context&) const { return {{64}}; }
#endif
}
;

// The fixture's typed problem: X [8] -> Y [8] with the runtime argument repeat.
using fixture_x =
    rocmtpl::static_buffer<"X", rocmtpl::row_major_layout<rocmtpl::f32_t, rocmtpl::dims<rocmtpl::ext<8>>>>;
using fixture_y =
    rocmtpl::static_buffer<"Y", rocmtpl::row_major_layout<rocmtpl::f32_t, rocmtpl::dims<rocmtpl::ext<8>>>>;
template <class Policy = fixture_policy>
auto make_typed_fixture() {
  return rocmtpl::make_template(Policy{}, rocmtpl::inputs<fixture_x>{}, rocmtpl::outputs<fixture_y>{},
                                rocmtpl::runtime_args<rocmtpl::arg<"repeat", std::int32_t>>{});
}

inline std::string render_fixture() {
  auto l = rocmtpl::layout::row_major(rocmtpl::dtype::f32, {8});
  rocmtpl::rocm_template<fixture_policy> t(fixture_policy{}, {rocmtpl::buffer("x", l)}, l);
  return t.generate(fixture_config{}).source() + t.generate_reference().source();
}
