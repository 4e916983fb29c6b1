// SPDX-License-Identifier: MIT
// A kernel_template policy with the epilogue and pointwise capabilities (issue 12); each
// compile-fail case defines one ROCMTPL_FAIL_* macro to break exactly one of them, and
// policy_epilogue_complete.cpp (the passing twin) defines none.
#pragma once

#include <rocmtpl/kernel/rocm_template.hpp>

struct epilogue_fixture_config {
  int block = 64;
  friend bool operator==(const epilogue_fixture_config&, const epilogue_fixture_config&) = default;
};

inline std::vector<std::pair<std::string, std::string>> describe(const epilogue_fixture_config& c) {
  return {{"block", std::to_string(c.block)}};
}

struct epilogue_fixture_policy {
  using policy_concept = rocmtpl::kernel_template_tag;
  using config_type = epilogue_fixture_config;
#if defined(ROCMTPL_FAIL_UNDECLARE_EPILOGUE)
  static constexpr rocmtpl::kernel_capabilities capabilities{.pointwise = true};
#elif defined(ROCMTPL_FAIL_UNDECLARE_POINTWISE)
  static constexpr rocmtpl::kernel_capabilities capabilities{.epilogue = true};
#else
  static constexpr rocmtpl::kernel_capabilities capabilities{.epilogue = true, .pointwise = true};
#endif
  static std::string_view name() { return "epilogue_fixture"; }
  std::vector<epilogue_fixture_config> configs() const { return {{64}}; }
  rocmtpl::rendered_source render(rocmtpl::rocm_template_kernel& k, const rocmtpl::template_context& ctx,
                                  const epilogue_fixture_config&) const {
    (void)k.def_kernel({ctx.input(0)}, {&ctx.output_node()}, "X, Y");
    auto out = k.start_source(ctx);
    out.entry_body = "    return 0;\n";
    return out;
  }
#ifndef ROCMTPL_FAIL_OMIT_RENDER_EPILOGUE
#ifdef ROCMTPL_FAIL_MISSPELL_RENDER_EPILOGUE
  rocmtpl::rendered_source render_epilog(
#else
  rocmtpl::rendered_source render_epilogue(
#endif
      rocmtpl::rocm_template_kernel& k, const rocmtpl::template_context& ctx, const epilogue_fixture_config& c,
      const rocmtpl::fused_epilogue& e) const {
    (void)e;
    return render(k, ctx, c);
  }
#endif
#ifndef ROCMTPL_FAIL_OMIT_POINTWISE_CHAIN
  rocmtpl::epilogue_chain pointwise_chain(const rocmtpl::template_context&) const {
    return {{rocmtpl::epilogue_op::activation(rocmtpl::activation::relu)}};
  }
#endif
};

inline std::string render_epilogue_fixture() {
  auto l = rocmtpl::layout::row_major(rocmtpl::dtype::f32, {8});
  rocmtpl::rocm_template<epilogue_fixture_policy> t(epilogue_fixture_policy{}, {rocmtpl::buffer("x", l)}, l);
  return t.generate(epilogue_fixture_config{}).source();
}
