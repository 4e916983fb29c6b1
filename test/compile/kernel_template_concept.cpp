// SPDX-License-Identifier: MIT
// static_assert-only checks of the kernel_template concept and the typed layer.
#include <rocmtpl/rocm_template.hpp>

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
  std::string render(rocmtpl::rocm_template_kernel&, const rocmtpl::template_context&, const cfg&) const { return {}; }
};
// Structurally identical but not opted in: rejected (opt-in guards against accidental matches).
struct not_opted_in {
  using config_type = cfg;
  static std::string_view name() { return "x"; }
  std::vector<cfg> configs() const { return {}; }
  std::string render(rocmtpl::rocm_template_kernel&, const rocmtpl::template_context&, const cfg&) const { return {}; }
};
struct wrong_render_signature {
  using policy_concept = rocmtpl::kernel_template_tag;
  using config_type = cfg;
  static std::string_view name() { return "x"; }
  std::vector<cfg> configs() const { return {}; }
  std::string render(const cfg&) const { return {}; }
};
struct configs_of_wrong_type {
  using policy_concept = rocmtpl::kernel_template_tag;
  using config_type = cfg;
  static std::string_view name() { return "x"; }
  std::vector<std::string> configs() const { return {}; }
  std::string render(rocmtpl::rocm_template_kernel&, const rocmtpl::template_context&, const cfg&) const { return {}; }
};
struct with_runtime_args : complete {
  std::vector<rocmtpl::arg_info> runtime_arg_info() const { return {}; }
  std::vector<rocmtpl::runtime_arg_value> runtime_arg_values(const cfg&) const { return {}; }
};
}  // namespace

template <>
inline constexpr bool rocmtpl::enable_kernel_template<not_opted_in> = false;

static_assert(rocmtpl::kernel_template<complete>);
static_assert(rocmtpl::kernel_template<with_runtime_args>);
static_assert(rocmtpl::detail::has_runtime_args<with_runtime_args>);
static_assert(!rocmtpl::detail::has_runtime_args<complete>);
static_assert(!rocmtpl::kernel_template<not_opted_in>);
static_assert(!rocmtpl::kernel_template<wrong_render_signature>);
static_assert(!rocmtpl::kernel_template<configs_of_wrong_type>);
static_assert(!rocmtpl::kernel_template<int>);
static_assert(rocmtpl::kernel_template<rocmtpl::templates::gemm_policy>);

// gemm_config is a structural aggregate: usable as a template argument.
template <rocmtpl::templates::gemm_config C>
struct tuned {
  static constexpr int threads = C.threads();
};
static_assert(tuned<rocmtpl::templates::gemm_config{128, 128, 8, 8, 8, 8}>::threads == 256);
static_assert(rocmtpl::templates::gemm_config{} == rocmtpl::templates::gemm_config{64, 64, 16, 4, 4, 8});
static_assert(rocmtpl::templates::gemm_config{32} < rocmtpl::templates::gemm_config{64});

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
