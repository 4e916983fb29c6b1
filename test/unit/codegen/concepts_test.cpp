// SPDX-License-Identifier: MIT
// rocmtpl/codegen/concepts.hpp: kernel_template accepts a complete, opted-in policy and rejects one
// that misses a requirement; problem_configs() gives the policy's configurations. codegen/ includes
// no top-level header, so the policy only needs rocm_template_kernel declared (test/compile and
// test/fail cover the diagnostics).
#include <rocmtpl/codegen/concepts.hpp>

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace {
using namespace rocmtpl;

struct cfg {
  int tile = 16;
  friend bool operator==(const cfg&, const cfg&) = default;
};
std::vector<std::pair<std::string, std::string>> describe(const cfg& c) { return {{"tile", std::to_string(c.tile)}}; }

struct complete_policy {
  using policy_concept = kernel_template_tag;
  using config_type = cfg;
  static std::string_view name() { return "complete"; }
  std::vector<cfg> configs() const { return {{16}, {32}}; }
  rendered_source render(rocm_template_kernel&, const template_context&, const cfg&) const { return {}; }
};

struct not_opted_in {
  using config_type = cfg;
  static std::string_view name() { return "nope"; }
  std::vector<cfg> configs() const { return {{16}}; }
  rendered_source render(rocm_template_kernel&, const template_context&, const cfg&) const { return {}; }
};

struct without_render {
  using policy_concept = kernel_template_tag;
  using config_type = cfg;
  static std::string_view name() { return "norender"; }
  std::vector<cfg> configs() const { return {{16}}; }
};

struct without_configs {
  using policy_concept = kernel_template_tag;
  using config_type = cfg;
  static std::string_view name() { return "noconfigs"; }
  rendered_source render(rocm_template_kernel&, const template_context&, const cfg&) const { return {}; }
};

struct wrong_render_result {
  using policy_concept = kernel_template_tag;
  using config_type = cfg;
  static std::string_view name() { return "wrong"; }
  std::vector<cfg> configs() const { return {{16}}; }
  int render(rocm_template_kernel&, const template_context&, const cfg&) const { return 0; }
};

// The optional members of this change: workspace known at code generation, named size arguments.
struct described_policy : complete_policy {
  static constexpr kernel_capabilities capabilities{.workspace = true, .size_args = true};
  sym_expr workspace_bytes(const template_context&, const cfg& c) const { return sym_expr::symbol("M") * c.tile; }
  std::vector<sym_expr> size_args(const template_context&) const { return {sym_expr::symbol("M")}; }
};
// Members present, capabilities not declared: rejected (test/fail has the diagnostics).
struct undeclared_workspace : complete_policy {
  sym_expr workspace_bytes(const template_context&, const cfg&) const { return 0; }
};
struct undeclared_size_args : complete_policy {
  std::vector<sym_expr> size_args(const template_context&) const { return {}; }
};
// Declared, with a member of the wrong shape (no config parameter): rejected.
struct workspace_without_config : complete_policy {
  static constexpr kernel_capabilities capabilities{.workspace = true};
  sym_expr workspace_bytes(const template_context&) const { return 0; }
};

static_assert(kernel_template<complete_policy>);
static_assert(check_kernel_template<complete_policy>());
static_assert(kernel_template<described_policy> && check_kernel_template<described_policy>());
static_assert(detail::has_workspace<described_policy> && detail::has_size_args<described_policy>);
static_assert(!detail::has_workspace<complete_policy> && !detail::has_size_args<complete_policy>);
static_assert(!kernel_template<undeclared_workspace>);
static_assert(!kernel_template<undeclared_size_args>);
static_assert(!kernel_template<workspace_without_config>);
static_assert(!kernel_template<not_opted_in>);
static_assert(!kernel_template<without_render>);
static_assert(!kernel_template<without_configs>);
static_assert(!kernel_template<wrong_render_result>);
static_assert(!kernel_template<int>);

TEST(KernelTemplate, ProblemConfigsAreThePoliciesConfigs) {
  const layout l = layout::row_major(dtype::f32, {4});
  const template_context ctx({buffer("x", l)}, buffer("y", l), std::nullopt, "", "");
  const auto configs = detail::problem_configs(complete_policy{}, ctx, {});
  ASSERT_EQ(configs.size(), 2u);
  EXPECT_EQ(configs[1].tile, 32);
}

TEST(KernelTemplate, TheTagOptsIn) {
  EXPECT_TRUE(enable_kernel_template<complete_policy>);
  EXPECT_FALSE(enable_kernel_template<not_opted_in>);
}

}  // namespace
