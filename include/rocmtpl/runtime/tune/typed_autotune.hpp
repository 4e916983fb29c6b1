// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Typed autotune: autotune() on a typed_template (kernel/typed_template.hpp) tunes the
/// runtime-value template underneath with the usual autotuner (runtime/tune/autotuner.hpp) and returns
/// the winner as a typed_kernel (runtime/launch/typed_kernel.hpp), loaded through the signature's exact
/// function type: generate -> tune -> call keeps the signature type all the way.
///
/// @code{.cpp}
/// auto gemm = rocmtpl::make_template(rocmtpl::templates::gemm_policy{}, rocmtpl::inputs<X, W>{},
///                                    rocmtpl::outputs<Y>{});
/// auto tuned = rocmtpl::runtime::autotune(gemm, rocmtpl::hints<"M">{1000}, options);
/// tuned.report.print_table(std::cout);
/// if (tuned.kernel) (*tuned.kernel)(x, w, y, m, stream);  // const half_t*, const half_t*, half_t*, int64_t
/// @endcode

#include <cstddef>
#include <optional>
#include <string>
#include <utility>

#include <rocmtpl/codegen/concepts.hpp>
#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/kernel/typed_template.hpp>
#include <rocmtpl/runtime/build/code_cache.hpp>
#include <rocmtpl/runtime/build/compiler.hpp>
#include <rocmtpl/runtime/launch/typed_kernel.hpp>
#include <rocmtpl/runtime/tune/autotuner.hpp>

namespace rocmtpl::runtime {

/// @brief A typed tune found no winner (no GPU: the tune only compiled; or no candidate ran and
/// verified). The report says why for each candidate.
class no_winner_error : public error {
 public:
  /// @param report the tune's report (its summary and GPU status go into the message)
  explicit no_winner_error(const autotune_report& report);
};

/// @brief What a typed tune did and found: the report, and the winner as a typed_kernel.
/// @tparam Signature the typed_template's kernel_signature
template <class Signature>
struct typed_autotune_result {
  autotune_report report;                         ///< every candidate, as runtime::autotune() reports it
  std::optional<typed_kernel<Signature>> kernel;  ///< the winner; empty when the report has none

  /// @brief The winner.
  /// @throws no_winner_error when there is none (no GPU, or no candidate ran and verified).
  [[nodiscard]] const typed_kernel<Signature>& winner() const {
    if (!kernel) throw no_winner_error(report);
    return *kernel;
  }
};

namespace detail {

// The configuration whose candidate has identity `id` (candidate_report::id, the caller's hash
// key), among the candidates autotune() tried: the policy's ranked configs, the first
// max_candidates of them when that is set. Rendering them again is cheap next to one compile.
template <class Policy, class Signature>
std::optional<typename Policy::config_type> tuned_config(const typed_template<Policy, Signature>& tpl,
                                                         const std::string& id, const size_hints& hints,
                                                         const autotune_options& options) {
  std::size_t tried = 0;
  for (const auto& config : ::rocmtpl::detail::problem_configs(tpl.policy(), tpl.untyped().context(), hints)) {
    if (options.max_candidates != 0 && tried++ >= options.max_candidates) break;
    if (tpl.untyped().generate(config, hints).hash_key() == id) return config;
  }
  return std::nullopt;
}

compile_options tuned_compile_options(const autotune_report& report, const autotune_options& options);

}  // namespace detail

/// @brief Loads the winner of a tune of `tpl` as a typed_kernel: renders the winning configuration
/// again (checked against the signature), takes its library from the code cache the tune used
/// (compiling it when the tune compiled device-only code objects, autotune_options::device_only,
/// or the cache lost it) and loads the entry point through the exact function type. A winner the tuning database
/// remembered loads the same way.
/// @param tpl the template that was tuned
/// @param report what autotune(tpl.untyped(), hints, options) returned
/// @param values the tune's size hints, keyed by the signature's symbols (`hints<"M">{1000}`; a hint
/// for a symbol the signature does not have, or a symbol without one, is a compile error)
/// @param options the tune's options (max_candidates, cache_dir and amd_archs matter here)
/// @return the winner, or nullopt when the report has none
/// @throws template_error when the winner is none of the template's candidates for these hints;
/// signature_error, compile_error, library_load_error, symbol_not_found_error.
template <class Policy, class Signature, fixed_string... Symbols>
[[nodiscard]] std::optional<typed_kernel<Signature>> load_winner(const typed_template<Policy, Signature>& tpl,
                                                                 const autotune_report& report,
                                                                 const hints<Symbols...>& values,
                                                                 const autotune_options& options = {}) {
  static_assert(::rocmtpl::detail::hints_match<Signature, Symbols...>(),
                "rocmtpl: load_winner: the hints are not the signature's size symbols (named above)");
  const size_hints hints = values.to_map();
  const candidate_report* best = report.best();
  if (best == nullptr) return std::nullopt;
  const auto config = detail::tuned_config(tpl, best->id, hints, options);
  if (!config) {
    const std::string name(tpl.untyped().name());
    throw template_error("rocmtpl: autotune: the winner '" + best->id + "' is none of template '" + name +
                             "''s candidates for these sizes; load it with the template, hints and options it was "
                             "tuned with",
                         name);
  }
  const auto copts = detail::tuned_compile_options(report, options);
  code_cache cache(options.cache_dir.empty() ? code_cache::default_root() : options.cache_dir);
  return compile(tpl.generate(*config, values), cache, compiler::find(copts.platform), copts);
}

/// @brief Tunes a typed_template: runtime::autotune() on `tpl.untyped()` (compile in parallel,
/// benchmark, verify, pick, remember in the tuning database), then the winner loaded as a
/// typed_kernel (see load_winner()). Without a GPU the tune only compiles (for
/// `options.amd_archs`) and the result has no kernel.
/// @param tpl the typed template (make_template(policy, inputs<...>{}, outputs<...>{}))
/// @param values values of the symbolic sizes to tune for, keyed by the signature's symbols
/// (`hints<"M">{1000}`; `{}` for a static problem); a hint for a symbol the signature does not
/// have, or a symbol without one, is a compile error naming it
/// @param options the autotuner's options
/// @throws signature_error before any compile when the template renders another signature than
/// the typed template declares; what runtime::autotune() and load_winner() throw.
template <class Policy, class Signature, fixed_string... Symbols>
requires kernel_template<Policy>
[[nodiscard]] typed_autotune_result<Signature> autotune(const typed_template<Policy, Signature>& tpl,
                                                        const hints<Symbols...>& values,
                                                        const autotune_options& options = {}) {
  static_assert(::rocmtpl::detail::hints_match<Signature, Symbols...>(),
                "rocmtpl: autotune: the hints are not the signature's size symbols (named above)");
  const size_hints hints = values.to_map();
  // A signature that does not match fails now, not after a tune.
  const auto configs = ::rocmtpl::detail::problem_configs(tpl.policy(), tpl.untyped().context(), hints);
  if (!configs.empty()) (void)tpl.generate(configs.front(), values);
  typed_autotune_result<Signature> result{autotune(tpl.untyped(), hints, options), std::nullopt};
  result.kernel = load_winner(tpl, result.report, values, options);
  return result;
}

}  // namespace rocmtpl::runtime

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/runtime/tune/typed_autotune-inl.hpp>
#endif
