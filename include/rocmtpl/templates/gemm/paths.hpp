// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The list of GEMM paths and gemm_config, the variant over their configurations.
///
/// Adding a path: its folder under templates/gemm/ (a configuration type and a unit meeting
/// gemm_path), its include and its entry in gemm_path_list below. The list's order is the ranking's
/// tie order (gemm_problem_configs()) and the variant's alternative order.

#include <compare>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/static_string.hpp>
#include <rocmtpl/templates/gemm/mma/path.hpp>
#include <rocmtpl/templates/gemm/path.hpp>
#include <rocmtpl/templates/gemm/simt/path.hpp>
#include <rocmtpl/templates/gemm/skinny/path.hpp>
#include <rocmtpl/templates/gemm/skinny_mma/path.hpp>
#include <rocmtpl/templates/gemm/wgmma/path.hpp>

namespace rocmtpl::templates {

namespace detail {
template <class Config, class... Paths>
struct path_for_config;
template <class Config, class P, class... Rest>
struct path_for_config<Config, P, Rest...>
    : std::conditional_t<std::is_same_v<typename P::config, Config>, std::type_identity<P>,
                         path_for_config<Config, Rest...>> {};
}  // namespace detail

/// @brief A list of GEMM paths (each meets gemm_path).
template <gemm_path... Paths>
struct gemm_path_types {
  /// @brief The variant over the paths' configurations, in list order.
  using config_variant = std::variant<typename Paths::config...>;
  /// @brief True when `C` is the configuration type of one of the paths.
  template <class C>
  static constexpr bool has_config = (std::is_same_v<C, typename Paths::config> || ...);
  /// @brief The path whose configuration type is `C`.
  template <class C>
  using path_of = typename detail::path_for_config<C, Paths...>::type;
  /// @brief Calls `f(std::type_identity<Path>{})` for every path, in list order.
  template <class F>
  static constexpr void for_each(F&& f) {
    (f(std::type_identity<Paths>{}), ...);
  }
};

/// @brief The GEMM paths, in ranking tie order: Hopper, matrix cores, SIMT, then the skinny ones.
using gemm_path_list = gemm_path_types<wgmma_path, mma_path, simt_path, skinny_mma_path, skinny_path>;

/// @brief One GEMM configuration: a configuration of one path (std::variant over gemm_path_list's
/// configuration types). Converts implicitly from each path's configuration; `gemm_config{}` is the
/// default SIMT tiling.
class gemm_config {
 public:
  /// @brief The variant over the paths' configurations.
  using variant_type = gemm_path_list::config_variant;

  /// @brief The default SIMT tiling.
  constexpr gemm_config() noexcept : value_(simt_config{}) {}
  /// @brief A configuration of one path.
  template <class C>
  requires gemm_path_list::has_config<C>
  constexpr gemm_config(const C& c) noexcept : value_(c) {}  // NOLINT(google-explicit-constructor): a variant

  /// @brief The configuration of path `C`'s type, or nullptr.
  template <class C>
  [[nodiscard]] constexpr const C* get_if() const noexcept {
    return std::get_if<C>(&value_);
  }
  /// @brief True when the configuration is of type `C`.
  template <class C>
  [[nodiscard]] constexpr bool holds() const noexcept {
    return std::holds_alternative<C>(value_);
  }
  /// @brief The variant.
  [[nodiscard]] constexpr const variant_type& variant() const noexcept { return value_; }
  /// @brief `f(config)` for the path's configuration.
  template <class F>
  constexpr decltype(auto) visit(F&& f) const {
    return std::visit(std::forward<F>(f), value_);
  }
  /// @brief `f(path, config)`: the path's unit (a std::type_identity of it) and its configuration.
  template <class F>
  constexpr decltype(auto) visit_path(F&& f) const {
    return std::visit(
        [&f](const auto& c) -> decltype(auto) {
          return f(std::type_identity<path_of<std::remove_cvref_t<decltype(c)>>>{}, c);
        },
        value_);
  }

  /// @brief The path's name ("simt", "mma", "wgmma", "skinny", "skinny_mma").
  [[nodiscard]] constexpr std::string_view path() const noexcept {
    return visit_path([](auto p, const auto&) { return decltype(p)::type::name; });
  }
  /// @brief Why the configuration is invalid, or nothing (the path's rules; does not throw).
  [[nodiscard]] constexpr std::optional<std::string_view> invalid_reason() const noexcept {
    return visit([](const auto& c) { return c.invalid_reason(); });
  }
  /// @brief True when invalid_reason() is empty.
  [[nodiscard]] constexpr bool is_valid() const noexcept { return !invalid_reason().has_value(); }
  /// @brief The short deterministic identifier of the path's configuration, as a constant
  /// (`bm64_bn64_bk16_tm4_tn4_g8_s2_v4`, `mma_...`, `wgmma_...`, `skm_...`, `skm_mma_...`).
  [[nodiscard]] constexpr static_string<192> name_text() const {
    return visit([](const auto& c) { return c.name_text(); });
  }
  /// @brief name_text() as a std::string.
  [[nodiscard]] std::string name() const { return name_text().str(); }
  /// @brief Designated-initializer text of the path's configuration, as a constant:
  /// `simt_config{.block_m = 64, .block_n = 64, ...}`.
  [[nodiscard]] constexpr static_string<384> to_text() const {
    return visit_path([](auto p, const auto& c) {
      static_string<384> s(decltype(p)::type::name);
      s += "_config{";
      bool first = true;
      c.visit_fields([&](std::string_view field, int v) {
        s += first ? "." : ", .";
        first = false;
        s += field;
        s += " = ";
        s.append_decimal(v);
      });
      if constexpr (requires { c.side; })
        s += c.side == skinny_side::m ? ", .side = skinny_side::m" : ", .side = skinny_side::n";
      s += "}";
      return s;
    });
  }
  /// @brief to_text() as a std::string.
  [[nodiscard]] std::string to_string() const { return to_text().str(); }

  /// @brief Threads per block (NVIDIA).
  [[nodiscard]] constexpr int threads() const noexcept {
    return visit([](const auto& c) { return c.threads(); });
  }
  /// @brief Shared memory per block in bytes (NVIDIA).
  [[nodiscard]] constexpr int shared_bytes() const noexcept {
    return visit([](const auto& c) { return c.shared_bytes(); });
  }
  /// @brief Registers per thread, estimated.
  [[nodiscard]] constexpr int register_estimate() const noexcept {
    return visit([](const auto& c) { return c.register_estimate(); });
  }
  /// @brief K slices.
  [[nodiscard]] constexpr int split_k() const noexcept {
    return visit([](const auto& c) { return c.split_k; });
  }
  /// @brief The same configuration with `s` K slices.
  [[nodiscard]] constexpr gemm_config with_split_k(int s) const noexcept {
    return visit([s](auto c) {
      c.split_k = s;
      return gemm_config(c);
    });
  }

  /// @brief Equal when of one path with equal fields.
  friend constexpr bool operator==(const gemm_config&, const gemm_config&) = default;
  /// @brief Ordered by path (list order), then field-wise.
  friend constexpr auto operator<=>(const gemm_config& a, const gemm_config& b) { return a.value_ <=> b.value_; }

 private:
  template <class C>
  using path_of = gemm_path_list::path_of<C>;
  variant_type value_;
};

/// @brief Why a configuration is invalid, or nothing; does not throw (search spaces filter with it).
[[nodiscard]] constexpr std::optional<std::string_view> invalid_reason(const gemm_config& c) noexcept {
  return c.invalid_reason();
}
/// @brief True when the configuration meets every rule of its path.
[[nodiscard]] constexpr bool is_valid(const gemm_config& c) noexcept { return c.is_valid(); }

/// @brief Checks a configuration before it is rendered.
/// @throws config_error carrying the configuration and the rule it breaks (see invalid_reason()).
void validate(const gemm_config& c);

/// @brief (field, value) pairs of a configuration, `math` first: its serialised form in tuning
/// records and reports (each path writes its own; see parse_gemm_config()).
[[nodiscard]] gemm_config_fields describe(const gemm_config& c);

/// @brief The configuration describe() wrote: the path whose `math` (and fields) they are.
/// @throws invalid_argument_error for an unknown math, a field the path does not have, or a bad value.
[[nodiscard]] gemm_config parse_gemm_config(const gemm_config_fields& fields);

/// @brief Estimated time of a configuration for an M x N x K problem (batch `batch`), in
/// arbitrary units (its path's cost model); only the order matters.
[[nodiscard]] double gemm_estimate_cost(const gemm_config& c, std::int64_t m, std::int64_t n, std::int64_t k,
                                        std::int64_t batch);

/// @brief Whether a skinny (FMA) configuration is bound by its fp32 FMAs rather than by streaming
/// the large operand (skinny_path::fma_bound()); false for other paths.
[[nodiscard]] bool gemm_skinny_fma_bound(const gemm_config& c, std::int64_t m, std::int64_t n, std::int64_t k,
                                         std::int64_t batch);

namespace detail {
// Refuses a (valid) configuration this problem cannot use: its path's reasons, then a split_k
// above 1 without gemm_options::runtime_split_k on a path that splits K only at run time.
void check_gemm_renderable(const gemm_config& config, const gemm_view& v, const gemm_options& options);

// The workspace of a configuration: split_k slices of fp32 partials when K is split (0 otherwise).
[[nodiscard]] sym_expr gemm_workspace_bytes(const gemm_view& v, const gemm_config& config, const gemm_options& options);

// What a plan needs of a configuration (its name, K slices, vector width, split-K kind).
[[nodiscard]] gemm_plan_config plan_config(const gemm_config& config);

// The launch description of a configuration (the checks of render_gemm() first).
[[nodiscard]] launch_description describe_gemm_launch(rocm_template_kernel& kernel, const template_context& ctx,
                                                      const gemm_config& config, const gemm_options& options);

// The translation unit of a configuration (with `fused`, the chain in its epilogue): its path renders it.
[[nodiscard]] rendered_source render_gemm(rocm_template_kernel& kernel, const template_context& ctx,
                                          const gemm_config& config, const gemm_options& options,
                                          const fused_epilogue* fused = nullptr);
}  // namespace detail

}  // namespace rocmtpl::templates

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/templates/gemm/paths-inl.hpp>
#endif
