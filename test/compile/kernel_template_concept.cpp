// SPDX-License-Identifier: MIT
// static_assert-only checks of the kernel_template concept and the typed layer.
#include <rocmtpl/rocm_template.hpp>

#include <optional>
#include <string_view>

namespace {
struct cfg {
  int v = 0;
  friend bool operator==(const cfg&, const cfg&) = default;
};
[[maybe_unused]] std::vector<std::pair<std::string, std::string>> describe(const cfg&) { return {}; }

struct complete {
  using policy_concept = rocmtpl::kernel_template_tag;
  using config_type = cfg;
  static std::string_view name() { return "complete"; }
  std::vector<cfg> configs() const { return {}; }
  rocmtpl::rendered_source render(rocmtpl::rocm_template_kernel&, const rocmtpl::template_context&, const cfg&) const {
    return {};
  }
};
// Structurally identical but not opted in: rejected (opt-in guards against accidental matches).
struct not_opted_in {
  using config_type = cfg;
  static std::string_view name() { return "x"; }
  std::vector<cfg> configs() const { return {}; }
  rocmtpl::rendered_source render(rocmtpl::rocm_template_kernel&, const rocmtpl::template_context&, const cfg&) const {
    return {};
  }
};
struct wrong_render_signature {
  using policy_concept = rocmtpl::kernel_template_tag;
  using config_type = cfg;
  static std::string_view name() { return "x"; }
  std::vector<cfg> configs() const { return {}; }
  std::string render(const cfg&) const { return {}; }
};
// Renders text instead of parts: rejected (the scheduler names and links entries through the parts).
struct renders_text {
  using policy_concept = rocmtpl::kernel_template_tag;
  using config_type = cfg;
  static std::string_view name() { return "x"; }
  std::vector<cfg> configs() const { return {}; }
  std::string render(rocmtpl::rocm_template_kernel&, const rocmtpl::template_context&, const cfg&) const { return {}; }
};
struct configs_of_wrong_type {
  using policy_concept = rocmtpl::kernel_template_tag;
  using config_type = cfg;
  static std::string_view name() { return "x"; }
  std::vector<std::string> configs() const { return {}; }
  rocmtpl::rendered_source render(rocmtpl::rocm_template_kernel&, const rocmtpl::template_context&, const cfg&) const {
    return {};
  }
};
struct with_runtime_args : complete {
  static constexpr rocmtpl::kernel_capabilities capabilities{.runtime_args = true};
  std::vector<rocmtpl::arg_info> runtime_arg_info() const { return {}; }
  std::vector<rocmtpl::runtime_arg_value> runtime_arg_values(const cfg&) const { return {}; }
};
// Optional members must be declared: present but undeclared is rejected, so a forgotten
// declaration cannot switch a feature off.
struct undeclared_runtime_args : complete {
  std::vector<rocmtpl::arg_info> runtime_arg_info() const { return {}; }
  std::vector<rocmtpl::runtime_arg_value> runtime_arg_values(const cfg&) const { return {}; }
};
struct with_reference : complete {
  static constexpr rocmtpl::kernel_capabilities capabilities{.reference = true};
  rocmtpl::rendered_source render_reference(rocmtpl::rocm_template_kernel&, const rocmtpl::template_context&) const {
    return {};
  }
};
struct undeclared_reference : complete {
  rocmtpl::rendered_source render_reference(rocmtpl::rocm_template_kernel&, const rocmtpl::template_context&) const {
    return {};
  }
};
// Declared, but misspelt: rejected (verification would silently be off otherwise).
struct misspelt_reference : complete {
  static constexpr rocmtpl::kernel_capabilities capabilities{.reference = true};
  rocmtpl::rendered_source render_referense(rocmtpl::rocm_template_kernel&, const rocmtpl::template_context&) const {
    return {};
  }
};
// Undeclared with a wrong signature: seen by name, still rejected.
struct undeclared_reference_wrong_signature : complete {
  std::string render_reference() const { return {}; }
};
// A reference with a launch description (device-only reference compiles).
struct with_reference_launch : with_reference {
  static constexpr rocmtpl::kernel_capabilities capabilities{.reference = true, .reference_launch = true};
  rocmtpl::launch_description describe_reference_launch(rocmtpl::rocm_template_kernel&,
                                                        const rocmtpl::template_context&) const {
    return {};
  }
};
// A reference launch without a reference, or one that is not declared: rejected.
struct reference_launch_without_reference : complete {
  static constexpr rocmtpl::kernel_capabilities capabilities{.reference_launch = true};
  rocmtpl::launch_description describe_reference_launch(rocmtpl::rocm_template_kernel&,
                                                        const rocmtpl::template_context&) const {
    return {};
  }
};
struct undeclared_reference_launch : with_reference {
  rocmtpl::launch_description describe_reference_launch(rocmtpl::rocm_template_kernel&,
                                                        const rocmtpl::template_context&) const {
    return {};
  }
};
struct with_problem_configs : complete {
  static constexpr rocmtpl::kernel_capabilities capabilities{.problem_configs = true};
  std::vector<cfg> configs() const { return {}; }
  std::vector<cfg> configs(const rocmtpl::template_context&, const rocmtpl::size_hints&) const { return {}; }
};
struct undeclared_problem_configs : complete {
  std::vector<cfg> configs() const { return {}; }
  std::vector<cfg> configs(const rocmtpl::template_context&, const rocmtpl::size_hints&) const { return {}; }
};
struct declared_problem_configs_missing : complete {
  static constexpr rocmtpl::kernel_capabilities capabilities{.problem_configs = true};
};
struct capabilities_of_wrong_type : complete {
  static constexpr bool capabilities = true;
};
// Declaring nothing with `{}` is the same as not declaring.
struct declares_none : complete {
  static constexpr rocmtpl::kernel_capabilities capabilities{};
};
}  // namespace

template <>
inline constexpr bool rocmtpl::enable_kernel_template<not_opted_in> = false;

static_assert(rocmtpl::kernel_template<complete>);
static_assert(rocmtpl::kernel_template<with_runtime_args>);
static_assert(rocmtpl::detail::has_runtime_args<with_runtime_args>);
static_assert(!rocmtpl::detail::has_runtime_args<complete>);
static_assert(!rocmtpl::kernel_template<undeclared_runtime_args>);
static_assert(!rocmtpl::detail::members_runtime_arg_info_and_values_are_declared<undeclared_runtime_args>);
static_assert(rocmtpl::kernel_template<with_reference>);
static_assert(rocmtpl::detail::has_reference<with_reference>);
static_assert(!rocmtpl::detail::has_reference<complete>);
static_assert(!rocmtpl::kernel_template<undeclared_reference>);
static_assert(!rocmtpl::detail::member_render_reference_is_declared<undeclared_reference>);
static_assert(!rocmtpl::kernel_template<misspelt_reference>);
static_assert(!rocmtpl::detail::declared_reference_has_member_render_reference<misspelt_reference>);
static_assert(!rocmtpl::kernel_template<undeclared_reference_wrong_signature>);
static_assert(rocmtpl::kernel_template<with_reference_launch>);
static_assert(rocmtpl::detail::has_reference_launch<with_reference_launch>);
static_assert(!rocmtpl::detail::has_reference_launch<with_reference>);
static_assert(!rocmtpl::kernel_template<reference_launch_without_reference>);
static_assert(!rocmtpl::detail::declared_reference_launch_has_member_describe_reference_launch<
              reference_launch_without_reference>);
static_assert(!rocmtpl::kernel_template<undeclared_reference_launch>);
static_assert(!rocmtpl::detail::member_describe_reference_launch_is_declared<undeclared_reference_launch>);
static_assert(rocmtpl::kernel_template<with_problem_configs>);
static_assert(rocmtpl::detail::has_problem_configs<with_problem_configs>);
static_assert(!rocmtpl::detail::has_problem_configs<complete>);
static_assert(!rocmtpl::kernel_template<undeclared_problem_configs>);
static_assert(!rocmtpl::kernel_template<declared_problem_configs_missing>);
static_assert(!rocmtpl::kernel_template<capabilities_of_wrong_type>);
static_assert(rocmtpl::kernel_template<declares_none>);
static_assert(rocmtpl::detail::declared_capabilities<complete>() == rocmtpl::kernel_capabilities{});
static_assert(rocmtpl::detail::declared_capabilities<rocmtpl::templates::gemm_policy>().reference);
static_assert(rocmtpl::kernel_template<rocmtpl::templates::elementwise_policy>);
static_assert(!rocmtpl::kernel_template<not_opted_in>);
static_assert(!rocmtpl::kernel_template<wrong_render_signature>);
static_assert(!rocmtpl::kernel_template<renders_text>);
static_assert(!rocmtpl::kernel_template<configs_of_wrong_type>);
static_assert(!rocmtpl::kernel_template<int>);
static_assert(rocmtpl::kernel_template<rocmtpl::templates::gemm_policy>);

// Each GEMM path's configuration is a structural aggregate: usable as a template argument.
namespace tpl = rocmtpl::templates;
template <tpl::simt_config C>
struct tuned {
  static constexpr int threads = C.threads();
};
static_assert(tuned<tpl::simt_config{128, 128, 8, 8, 8, 8}>::threads == 256);
template <auto C>
struct threads_of {
  static constexpr int value = C.threads();
};
static_assert(threads_of<tpl::mma_config{}>::value == 128);
static_assert(threads_of<tpl::wgmma_config{}>::value == 384);
static_assert(threads_of<tpl::skinny_config{.k_threads = 2, .p_threads = 128}>::value == 256);
static_assert(threads_of<tpl::skinny_mma_config{.side = tpl::skinny_side::n}>::value == 128);
template <auto V>
struct as_argument {};
template <class T>
concept structural = requires {
  typename as_argument<T{}>;
};
static_assert(structural<tpl::simt_config> && structural<tpl::mma_config> && structural<tpl::wgmma_config> &&
              structural<tpl::skinny_config> && structural<tpl::skinny_mma_config>);
static_assert(!structural<tpl::gemm_config>);  // a class around std::variant: a run-time value only
static_assert(tpl::simt_config{} == tpl::simt_config{64, 64, 16, 4, 4, 8});
static_assert(tpl::simt_config{32} < tpl::simt_config{64});
// gemm_config holds one of them (a std::variant: not structural): equal within a path, ordered by
// the path (gemm_path_list order) and then member-wise.
static_assert(tpl::gemm_config{} == tpl::gemm_config(tpl::simt_config{64, 64, 16, 4, 4, 8}));
static_assert(tpl::gemm_config(tpl::simt_config{32}) < tpl::gemm_config(tpl::simt_config{64}));
static_assert(tpl::gemm_config(tpl::wgmma_config{}) < tpl::gemm_config(tpl::mma_config{}));
static_assert(tpl::gemm_config(tpl::skinny_mma_config{}) < tpl::gemm_config(tpl::skinny_config{}));
static_assert(tpl::gemm_config(tpl::mma_config{}) != tpl::gemm_config(tpl::simt_config{}));
// The constraints are constexpr: a configuration can be checked at compile time.
static_assert(tpl::simt_config{128, 128, 8, 8, 8, 8}.invalid_reason() == std::nullopt);
static_assert(tpl::is_valid(tpl::simt_config{128, 128, 8, 8, 8, 8}));
static_assert(tpl::invalid_reason(tpl::simt_config{64, 64, 16, 12, 4, 1}) ==
              std::string_view("block_m must be a multiple of thread_m"));
static_assert(!tpl::is_valid(tpl::mma_config{.warp_m = 48}));
static_assert(!tpl::is_valid(tpl::wgmma_config{.block_m = 192}));
static_assert(!tpl::is_valid(tpl::skinny_config{.rows = 32}));
static_assert(!tpl::is_valid(tpl::skinny_mma_config{.rows = 4}));

// Typed layer: compile-time facts of static layouts and buffers.
using x_layout = rocmtpl::row_major_layout<rocmtpl::f16_t, rocmtpl::dims<rocmtpl::sym<"M">, rocmtpl::ext<64>>>;
static_assert(x_layout::rank == 2);
static_assert(x_layout::type == rocmtpl::dtype::f16);
static_assert(x_layout::offset == 0);
using x_buffer = rocmtpl::static_buffer<"X", x_layout>;
static_assert(x_buffer::name == "X");
static_assert(rocmtpl::is_identifier("rocm_gemm_0"));
static_assert(!rocmtpl::is_identifier("0abc"));
static_assert(rocmtpl::fixed_string("abc").size() == 3);
static_assert(rocmtpl::dtype_tag_type<rocmtpl::bf16_t>);
