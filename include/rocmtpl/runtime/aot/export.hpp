// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Shipping pre-tuned GEMMs (`rocmtpl-tune export`): from the tuning database to a C++
/// header with a constexpr dispatch table and a folder of compiled winners, so that an application
/// starts with no compiler and no tuning.
///
/// - collect_pretuned_gemms() reads every GEMM record with a winner, takes its problem from the
///   typed descriptor the autotuner stored with the key (templates::gemm_problem), renders the
///   winner's configuration once and checks that its source hash equals the stored one, so that
///   what is shipped is byte for byte the source that was measured.
/// - render_dispatch_header() writes the table and `find_gemm()`: an exact match, else the nearest
///   compatible tuned shape (see the header's comment for the distance).
/// - build_pretuned_module() compiles each winner once (through the code cache) into
///   `<dir>/<symbol>_<source hash>.so` and writes `<dir>/manifest.json`.
///
/// @code{.cpp}
/// rocmtpl::runtime::tuning_db db;
/// auto found = rocmtpl::runtime::collect_pretuned_gemms(db.list());
/// std::string header = rocmtpl::runtime::render_dispatch_header(found.entries, {.module_dir = "/opt/app/pretuned"});
/// @endcode

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/ir/dtype.hpp>
#include <rocmtpl/kernel/rocm_template.hpp>
#include <rocmtpl/runtime/build/code_cache.hpp>
#include <rocmtpl/runtime/build/compiler.hpp>
#include <rocmtpl/runtime/db/tuning_db.hpp>
#include <rocmtpl/templates/gemm.hpp>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

namespace rocmtpl::runtime {

/// @brief A tuned GEMM ready to ship: its problem, the winning configuration and its entry point.
struct pretuned_gemm {
  templates::gemm_problem problem;         ///< the problem it was tuned for (alpha 1)
  templates::gemm_config config;           ///< the winner
  std::string symbol;                      ///< the C entry point (`symbol` + "_packed" takes void* const* args)
  std::vector<std::string> size_args;      ///< the entry's size arguments, in order
  std::vector<std::int64_t> runtime_args;  ///< the template's runtime arguments (after the sizes)
  std::string source;                      ///< the rendered source (its hash equals the measured one)
  std::string source_hash;                 ///< hash of `source`
  double tuned_ms = 0;                     ///< the winner's best time at the tuned shape
  std::string arch;                        ///< the record's arch ("sm_90", "gfx90a,gfx940", ...)
  std::string device;                      ///< the record's device ("NVIDIA H100 80GB HBM3", "none")
  std::string digest;                      ///< the record's tuning_key digest
};

/// @brief What collect_pretuned_gemms() found: the entries, and one note per record left out.
struct pretuned_collection {
  std::vector<pretuned_gemm> entries;  ///< one per exported problem
  std::vector<std::string> notes;      ///< why each record left out was left out
};

namespace detail::export_impl {

std::vector<std::string_view> split_spaces(std::string_view text);

}  // namespace detail::export_impl

/// @brief Reads a configuration back from the autotuner's text of it (`math=simt block_m=64 ...`,
/// the caller's info_dict without backend and name).
/// @throws invalid_argument_error for a text without a math, a field its path does not have, or a bad value.
[[nodiscard]] templates::gemm_config parse_gemm_config(std::string_view text);

/// @brief Rebuilds one record's winner, or says why it cannot be shipped.
///
/// The problem is the key's descriptor (templates::gemm_problem, stored by the autotuner); the
/// winner's configuration is rendered for it once, and its source hash must equal the winner's
/// stored one (so a shipped kernel is always the measured one).
/// @return the entry, or the reason as a string: no descriptor (a record from before descriptors,
///         or a template no gemm_problem describes), alpha other than 1 (the dispatch table has
///         none), or a source that no longer renders the same (another library version).
[[nodiscard]] std::variant<pretuned_gemm, std::string> resolve_pretuned_gemm(const tuning_record& rec);

/// @brief Which records collect_pretuned_gemms() takes.
struct export_filter {
  std::string device;  ///< only records of this device (empty: all, which must then be one device)
  std::string arch;    ///< only records of this arch (empty: all, which must then be one arch)
};

/// @brief Every GEMM record with a winner, rebuilt (resolve_pretuned_gemm()); records are taken
/// newest first, and an older record of a problem already taken is left out with a note.
/// @throws invalid_argument_error when the records span several devices or archs and the filter
///         does not pick one (measurements of different GPUs are not comparable).
[[nodiscard]] pretuned_collection collect_pretuned_gemms(const std::vector<tuning_record>& records,
                                                         const export_filter& filter = {});

/// @brief How render_dispatch_header() names things.
struct dispatch_header_options {
  std::string name_space = "rocmtpl_pretuned";  ///< the namespace of the table
  std::string module_dir;                       ///< the folder build_pretuned_module() writes, as the app finds it
  std::string origin;                           ///< where the entries came from (a comment line)
};

namespace detail::export_impl {

std::string c_literal(std::string_view s);

std::string library_file(const pretuned_gemm& e);

unsigned symbolic_bits(const templates::gemm_problem& p);

std::string entry_text(const pretuned_gemm& e);

// The fixed part of the header: types, the distance and the lookup (raw text, no substitutions).
inline constexpr std::string_view dispatch_code = R"hip(
/// A GEMM problem: Y = epilogue(X @ W [+ bias]); X [batch, m, k], W [batch, k, n] (no batch dimension when batch is 1).
struct gemm_key {
  std::string_view dtype;     ///< "float32", "float16", "bfloat16"
  std::string_view layout;    ///< X and W storage: "rr", "rc", "cr", "cc" (r row-major, c column-major)
  std::string_view epilogue;  ///< "none", "relu", "gelu", "gelu_tanh", "silu", "sigmoid", "tanh"
  bool bias;                  ///< a bias of n values is added
  std::int64_t batch, m, n, k;
};

/// Which sizes an entry's kernel takes as arguments (any value works there); the others are baked in.
enum symbolic_size : unsigned { symbolic_m = 1U, symbolic_n = 2U, symbolic_k = 4U, symbolic_batch = 8U };

/// One tuned problem and its winner.
struct gemm_entry {
  gemm_key key;                               ///< the shape it was tuned at
  unsigned symbolic;                          ///< symbolic_size bits
  std::string_view config;                    ///< gemm_config::name() of the winner
  std::string_view config_init;               ///< the winner as a designated initializer
  std::string_view library;                   ///< its shared library, in module_dir
  std::string_view symbol;                    ///< its C entry; symbol + "_packed" takes (void* const* args, ...)
  std::array<std::string_view, 4> size_args;  ///< the entry's size arguments, in order
  std::size_t size_arg_count;
  std::array<std::int64_t, 4> runtime_args;   ///< the template's runtime arguments, after the sizes
  std::size_t runtime_arg_count;
  double tuned_ms;                            ///< the winner's best time at the tuned shape (0: not timed)
  std::int64_t max_m, max_n;                  ///< the winner is made for m (n) up to this (a skinny kernel); 0: any
};

/// What find_gemm() chose.
struct gemm_choice {
  const gemm_entry* entry = nullptr;  ///< nullptr: no tuned kernel can run this problem
  bool exact = false;                 ///< tuned at exactly this shape
  double distance = 0;                ///< 1 when exact; see gemm_distance()
  bool made_for = false;              ///< the problem is within the entry's max_m / max_n
};

/// The distance between a problem and a tuned entry: the product over batch, m, n and k of
/// max(problem, tuned) / min(problem, tuned), so log2(distance) = sum of |log2(problem / tuned)|
/// (a 2x miss in any one size weighs the same; 1 is the tuned shape itself). An entry whose kernel
/// cannot run the problem -- another dtype, layout, epilogue or bias, or a size baked into the
/// kernel (not symbolic) that differs -- is at distance 0 (incompatible).
constexpr double gemm_distance(const gemm_key& q, const gemm_entry& e) noexcept {
  const gemm_key& t = e.key;
  if (q.dtype != t.dtype || q.layout != t.layout || q.epilogue != t.epilogue || q.bias != t.bias) return 0;
  const std::int64_t qs[4] = {q.batch, q.m, q.n, q.k};
  const std::int64_t ts[4] = {t.batch, t.m, t.n, t.k};
  const unsigned bits[4] = {symbolic_batch, symbolic_m, symbolic_n, symbolic_k};
  double d = 1;
  for (int i = 0; i < 4; ++i) {
    if (qs[i] <= 0) return 0;
    if (qs[i] != ts[i] && (e.symbolic & bits[i]) == 0U) return 0;
    d *= qs[i] > ts[i] ? static_cast<double>(qs[i]) / static_cast<double>(ts[i])
                       : static_cast<double>(ts[i]) / static_cast<double>(qs[i]);
  }
  return d;
}

/// Whether an entry's kernel is made for a problem's size: a skinny winner (few rows or columns)
/// runs any size, but at a large m (n) a tiled kernel is far faster.
constexpr bool gemm_made_for(const gemm_key& q, const gemm_entry& e) noexcept {
  return (e.max_m == 0 || q.m <= e.max_m) && (e.max_n == 0 || q.n <= e.max_n);
}

/// The entry for a problem: the one tuned at this shape, else the nearest compatible one (smallest
/// gemm_distance(); among entries made for the problem's size first, gemm_made_for(); ties go to
/// the earlier entry of gemm_table), else none.
constexpr gemm_choice find_gemm(const gemm_key& q) noexcept {
  gemm_choice best;
  for (const auto& e : gemm_table) {
    const double d = gemm_distance(q, e);
    if (d == 0) continue;
    const bool made_for = gemm_made_for(q, e);
    if (best.entry == nullptr || (made_for && !best.made_for) || (made_for == best.made_for && d < best.distance)) {
      best = {&e, d == 1, d, made_for};
    }
  }
  return best;
}

// Every tuned shape dispatches to its own entry.
consteval bool every_entry_finds_itself() {
  for (const auto& e : gemm_table) {
    if (find_gemm(e.key).entry != &e) return false;
  }
  return true;
}
static_assert(every_entry_finds_itself(), "rocmtpl export: two entries share a tuned shape; re-export");
)hip";

}  // namespace detail::export_impl

/// @brief The dispatch header: a constexpr table of the entries (sorted by dtype, layout,
/// epilogue, bias, batch, m, n, k), `gemm_distance()` and `find_gemm()`. Self-contained (the
/// standard library only), so an application includes it without rocmtpl.
[[nodiscard]] std::string render_dispatch_header(std::vector<pretuned_gemm> entries,
                                                 const dispatch_header_options& options = {});

/// @brief What build_pretuned_module() wrote.
struct pretuned_module {
  std::filesystem::path dir;       ///< the folder
  std::filesystem::path manifest;  ///< `<dir>/manifest.json`
  std::size_t libraries = 0;       ///< shared libraries in the folder (one per distinct source)
  std::size_t compiled = 0;        ///< compiler runs (the rest came from the code cache)
};

/// @brief Compile options for the arch a record was tuned on: `gfx...` (a comma list) is AMD,
/// anything else (`sm_90`) NVIDIA with the portability header.
[[nodiscard]] compile_options export_compile_options(const std::string& arch);

/// @brief Compiles each entry's source once (through @p cache) and copies the libraries into
/// @p dir as `<symbol>_<source hash>.so`, with `manifest.json` listing the entries; libraries
/// that the folder's previous manifest listed and this export does not are removed.
/// @throws compile_error when a winner does not compile (it did when it was tuned: another compiler?)
[[nodiscard]] pretuned_module build_pretuned_module(const std::vector<pretuned_gemm>& entries,
                                                    const std::filesystem::path& dir, const compiler& cc,
                                                    const compile_options& options, code_cache& cache);

}  // namespace rocmtpl::runtime

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/runtime/aot/export-inl.hpp>
#endif
