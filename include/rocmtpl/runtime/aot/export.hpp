// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Shipping pre-tuned GEMMs (`rocmtpl-tune export`): from the tuning database to a C++
/// header with a constexpr dispatch table and a folder of compiled winners, so that an application
/// starts with no compiler and no tuning.
///
/// - collect_pretuned_gemms() reads every GEMM record with a winner, rebuilds its problem from the
///   record (shape, dtype, bias and symbolic sizes from the problem signature; layout and epilogue
///   found by rendering the winner's configuration until its source hash equals the stored one),
///   so that what is shipped is byte for byte the source that was measured.
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

#include <rocmtpl/core/error.hpp>
#include <rocmtpl/core/version.hpp>
#include <rocmtpl/ir/buffer.hpp>
#include <rocmtpl/ir/dtype.hpp>
#include <rocmtpl/ir/layout.hpp>
#include <rocmtpl/kernel/rocm_template.hpp>
#include <rocmtpl/runtime/bench/utility_kernels.hpp>
#include <rocmtpl/runtime/build/code_cache.hpp>
#include <rocmtpl/runtime/build/compiler.hpp>
#include <rocmtpl/runtime/db/tuning_db.hpp>
#include <rocmtpl/runtime/sys/atomic_file.hpp>
#include <rocmtpl/templates/gemm.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

namespace rocmtpl::runtime {

/// @brief One GEMM problem as `rocmtpl-tune gemm` describes it: Y = act(X @ W [+ bias]), alpha 1.
struct gemm_problem_spec {
  std::int64_t m = 0;                                       ///< rows of X and Y
  std::int64_t n = 0;                                       ///< columns of W and Y
  std::int64_t k = 0;                                       ///< columns of X, rows of W
  std::int64_t batch = 1;                                   ///< batch count (a leading dimension when > 1 or symbolic)
  dtype type = dtype::f32;                                  ///< dtype of X, W and Y
  std::string layout = "rr";                                ///< X and W storage: r row-major, c column-major
  templates::activation act = templates::activation::none;  ///< the epilogue's activation
  bool bias = false;                                        ///< a bias of N values
  std::vector<std::string> symbolic;  ///< sorted subset of "B", "K", "M", "N": sizes passed at run time

  /// @brief True when the size @p name ("M", "N", "K" or "B") is a kernel argument.
  [[nodiscard]] bool is_symbolic(std::string_view name) const {
    return std::find(symbolic.begin(), symbolic.end(), name) != symbolic.end();
  }
  /// @brief True when the tensors have a leading batch dimension.
  [[nodiscard]] bool batched() const { return batch > 1 || is_symbolic("B"); }

  /// @brief The values of the symbolic sizes (the shape the problem was tuned at).
  [[nodiscard]] size_hints hints() const {
    size_hints h;
    for (const auto& [name, value] :
         std::vector<std::pair<std::string, std::int64_t>>{{"M", m}, {"N", n}, {"K", k}, {"B", batch}}) {
      if (is_symbolic(name)) h[name] = value;
    }
    return h;
  }

  /// @brief The GEMM template for this problem (the buffers `x`, `w`, optional `bias`, and `y`).
  [[nodiscard]] rocm_template<templates::gemm_policy> make_template() const {
    auto dim = [&](const char* name, std::int64_t value) {
      return is_symbolic(name) ? sym_expr::symbol(name) : sym_expr(value);
    };
    const sym_expr b = batched() ? dim("B", batch) : sym_expr(1);
    auto shape = [&](const sym_expr& rows, const sym_expr& cols) {
      std::vector<sym_expr> s;
      if (batched()) s.push_back(b);
      s.push_back(rows);
      s.push_back(cols);
      return s;
    };
    auto operand = [&](char order, const sym_expr& rows, const sym_expr& cols) {
      return order == 'r' ? layout::row_major(type, shape(rows, cols)) : layout::col_major(type, shape(rows, cols));
    };
    const sym_expr sm = dim("M", m);
    const sym_expr sn = dim("N", n);
    const sym_expr sk = dim("K", k);
    std::vector<buffer> inputs{buffer("x", operand(layout.at(0), sm, sk)), buffer("w", operand(layout.at(1), sk, sn))};
    if (bias) inputs.emplace_back("bias", layout::row_major(type, {sn}));
    return {templates::gemm_policy(templates::gemm_options{act, 1.0F}), std::move(inputs),
            layout::row_major(type, shape(sm, sn))};
  }
};

/// @brief A tuned GEMM ready to ship: its problem, the winning configuration and its entry point.
struct pretuned_gemm {
  gemm_problem_spec problem;               ///< the shape it was tuned at
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

struct tensor_sig {
  std::string name;
  std::string dtype_name;
  std::vector<std::int64_t> sizes;
};

inline std::vector<std::int64_t> parse_int_list(std::string_view text) {
  std::vector<std::int64_t> out;
  while (!text.empty()) {
    const auto comma = text.find(',');
    const auto item = text.substr(0, comma);
    std::int64_t v = 0;
    auto [ptr, ec] = std::from_chars(item.data(), item.data() + item.size(), v);
    if (ec != std::errc() || ptr != item.data() + item.size()) {
      throw invalid_argument_error("rocmtpl: export: '" + std::string(item) + "' is not an integer size");
    }
    out.push_back(v);
    if (comma == std::string_view::npos) break;
    text.remove_prefix(comma + 1);
  }
  return out;
}

// `x:float32[128,64]/[64,1]+0` (detail::problem_signature's tensor form).
inline std::optional<tensor_sig> parse_tensor(std::string_view token) {
  const auto colon = token.find(':');
  const auto open = token.find('[');
  const auto close = token.find(']');
  if (colon == std::string_view::npos || open == std::string_view::npos || close == std::string_view::npos ||
      !(colon < open && open < close)) {
    return std::nullopt;
  }
  return tensor_sig{std::string(token.substr(0, colon)), std::string(token.substr(colon + 1, open - colon - 1)),
                    parse_int_list(token.substr(open + 1, close - open - 1))};
}

inline std::vector<std::string_view> split_spaces(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    const auto at = text.find(' ');
    if (at != 0) out.push_back(text.substr(0, at));
    if (at == std::string_view::npos) break;
    text.remove_prefix(at + 1);
  }
  return out;
}

inline std::vector<std::pair<std::string, std::int64_t>> candidate_sizes(const std::vector<tensor_sig>& inputs,
                                                                         const tensor_sig& y) {
  const auto& x = inputs.at(0);
  const bool batched = y.sizes.size() == 3;
  const std::size_t r = batched ? 1 : 0;
  return {{"M", y.sizes.at(r)}, {"N", y.sizes.at(r + 1)}, {"K", x.sizes.at(r + 1)}, {"B", batched ? y.sizes[0] : 1}};
}

}  // namespace detail::export_impl

/// @brief Reads a GEMM problem back from a tuning key's problem signature (the autotuner's
/// `x:dtype[sizes]/[strides]+offset ... -> y:... M=.. sources=..` text): sizes, dtype, bias and
/// the symbolic sizes. The layout and the epilogue are not in the signature (see resolve_pretuned_gemm()).
/// @return nullopt when the text is not a GEMM's signature (other inputs, ranks or dtypes).
/// @throws invalid_argument_error for a malformed size list.
[[nodiscard]] inline std::optional<gemm_problem_spec> parse_gemm_signature(std::string_view problem) {
  using namespace detail::export_impl;
  std::vector<tensor_sig> inputs;
  std::optional<tensor_sig> output;
  gemm_problem_spec spec;
  bool after_arrow = false;
  for (auto token : split_spaces(problem)) {
    if (token == "->") {
      after_arrow = true;
    } else if (auto t = parse_tensor(token)) {
      if (after_arrow) {
        output = std::move(*t);
      } else {
        inputs.push_back(std::move(*t));
      }
    } else if (const auto eq = token.find('='); eq != std::string_view::npos && token.substr(0, eq) != "sources") {
      spec.symbolic.emplace_back(token.substr(0, eq));
    }
  }
  if (!output || inputs.size() < 2 || inputs.size() > 3 || inputs[0].name != "x" || inputs[1].name != "w") {
    return std::nullopt;
  }
  const auto rank = output->sizes.size();
  if ((rank != 2 && rank != 3) || inputs[0].sizes.size() != rank || inputs[1].sizes.size() != rank) return std::nullopt;
  spec.bias = inputs.size() == 3;
  if (spec.bias && inputs[2].name != "bias") return std::nullopt;
  try {
    spec.type = parse_dtype(output->dtype_name);
  } catch (const invalid_argument_error&) {
    return std::nullopt;
  }
  for (const auto& [name, value] : candidate_sizes(inputs, *output)) {
    (name == "M" ? spec.m : name == "N" ? spec.n : name == "K" ? spec.k : spec.batch) = value;
  }
  std::sort(spec.symbolic.begin(), spec.symbolic.end());
  return spec;
}

/// @brief Reads a configuration back from the autotuner's text of it (`math=simt block_m=64 ...`,
/// the caller's info_dict without backend and name).
/// @throws invalid_argument_error for a field gemm_config does not have, or a bad value.
[[nodiscard]] inline templates::gemm_config parse_gemm_config(std::string_view text) {
  templates::gemm_config c;
  const std::map<std::string, int templates::gemm_config::*, std::less<>> ints{
      {"block_m", &templates::gemm_config::block_m},   {"block_n", &templates::gemm_config::block_n},
      {"block_k", &templates::gemm_config::block_k},   {"thread_m", &templates::gemm_config::thread_m},
      {"thread_n", &templates::gemm_config::thread_n}, {"group_m", &templates::gemm_config::group_m},
      {"warp_m", &templates::gemm_config::warp_m},     {"warp_n", &templates::gemm_config::warp_n},
      {"stages", &templates::gemm_config::stages},     {"vector", &templates::gemm_config::vector},
      {"split_k", &templates::gemm_config::split_k}};
  // Fields describe() leaves out for the math path are 0 there (skinny: thread_m 1, set below).
  c.thread_m = c.thread_n = c.warp_m = c.warp_n = 0;
  for (auto token : detail::export_impl::split_spaces(text)) {
    const auto eq = token.find('=');
    const auto key = token.substr(0, eq);
    const auto value = eq == std::string_view::npos ? std::string_view() : token.substr(eq + 1);
    if (key == "math") {
      bool found = false;
      for (auto m : {templates::gemm_math::simt, templates::gemm_math::matrix_core, templates::gemm_math::wgmma,
                     templates::gemm_math::skinny_m, templates::gemm_math::skinny_n}) {
        if (templates::to_string(m) == value) {
          c.math = m;
          found = true;
        }
      }
      if (!found) throw invalid_argument_error("rocmtpl: export: unknown gemm math '" + std::string(value) + "'");
      continue;
    }
    auto it = ints.find(key);
    int v = 0;
    auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
    if (it == ints.end() || ec != std::errc() || ptr != value.data() + value.size()) {
      throw invalid_argument_error("rocmtpl: export: '" + std::string(token) +
                                   "' is not a gemm_config field; the record was written by another template version");
    }
    c.*(it->second) = v;
  }
  if (templates::is_skinny(c.math)) c.thread_m = 1;  // describe() leaves it out: skinny configs have 1
  return c;
}

/// @brief Rebuilds one record's winner, or says why it cannot be shipped.
///
/// The layout and epilogue are not part of the problem signature: each of the 4 layouts and 5
/// epilogues is rendered with the winner's configuration, and the one whose source hash equals the
/// winner's stored source hash is taken (so a shipped kernel is always the measured one).
/// @return the entry, or the reason as a string.
[[nodiscard]] inline std::variant<pretuned_gemm, std::string> resolve_pretuned_gemm(const tuning_record& rec) {
  if (rec.key.template_name != "gemm") return "template '" + rec.key.template_name + "' is not exported";
  if (!rec.winner) return std::string("no winner (tuned without a GPU, or nothing passed)");
  const measurement* won = nullptr;
  for (const auto& m : rec.measurements) {
    if (m.candidate == *rec.winner) won = &m;
  }
  if (won == nullptr) return std::string("the winner has no measurement");
  auto spec = parse_gemm_signature(rec.key.problem);
  if (!spec) return std::string("the problem signature is not a GEMM's");
  pretuned_gemm out;
  out.config = parse_gemm_config(won->config);
  for (std::string layout : {"rr", "rc", "cr", "cc"}) {
    for (auto act : templates::all_activations) {
      spec->layout = layout;
      spec->act = act;
      const auto caller = spec->make_template().generate(out.config, spec->hints());
      const auto& r = caller.bmreq();
      if (r.source_hash() != won->source_hash) continue;
      out.problem = *spec;
      out.symbol = r.kernel_name;
      out.size_args = r.size_arg_names;
      out.runtime_args.assign(r.extra_args.begin() + static_cast<std::ptrdiff_t>(r.size_arg_count), r.extra_args.end());
      out.source = r.source_code;
      out.source_hash = r.source_hash();
      out.tuned_ms = won->min_ms;
      out.arch = rec.key.arch;
      out.device = rec.key.device;
      out.digest = rec.key.digest();
      return out;
    }
  }
  return std::string("no layout and epilogue renders the measured source (alpha != 1, or another library version)");
}

/// @brief Which records collect_pretuned_gemms() takes.
struct export_filter {
  std::string device;  ///< only records of this device (empty: all, which must then be one device)
  std::string arch;    ///< only records of this arch (empty: all, which must then be one arch)
};

/// @brief Every GEMM record with a winner, rebuilt (resolve_pretuned_gemm()); records are taken
/// newest first, and an older record of a problem already taken is left out with a note.
/// @throws invalid_argument_error when the records span several devices or archs and the filter
///         does not pick one (measurements of different GPUs are not comparable).
[[nodiscard]] inline pretuned_collection collect_pretuned_gemms(const std::vector<tuning_record>& records,
                                                                const export_filter& filter = {}) {
  pretuned_collection out;
  std::set<std::pair<std::string, std::string>> targets;
  std::set<
      std::tuple<std::string, std::string, std::string, bool, std::int64_t, std::int64_t, std::int64_t, std::int64_t>>
      taken;
  for (const auto& rec : records) {
    if (!filter.device.empty() && rec.key.device != filter.device) continue;
    if (!filter.arch.empty() && rec.key.arch != filter.arch) continue;
    auto resolved = resolve_pretuned_gemm(rec);
    if (auto* why = std::get_if<std::string>(&resolved)) {
      out.notes.push_back(rec.key.digest().substr(0, 12) + ": " + *why);
      continue;
    }
    auto& e = std::get<pretuned_gemm>(resolved);
    targets.emplace(e.arch, e.device);
    const auto& p = e.problem;
    if (!taken
             .emplace(std::string(name(p.type)), p.layout, std::string(templates::to_string(p.act)), p.bias, p.batch,
                      p.m, p.n, p.k)
             .second) {
      out.notes.push_back(rec.key.digest().substr(0, 12) + ": an older record of a problem already exported");
      continue;
    }
    out.entries.push_back(std::move(e));
  }
  if (targets.size() > 1) {
    std::string list;
    for (const auto& [arch, device] : targets) list += (list.empty() ? "" : ", ") + device + " (" + arch + ")";
    throw invalid_argument_error("rocmtpl: export: the database holds winners of several devices (" + list +
                                 "); export one device at a time (--device, --arch)");
  }
  return out;
}

/// @brief How render_dispatch_header() names things.
struct dispatch_header_options {
  std::string name_space = "rocmtpl_pretuned";  ///< the namespace of the table
  std::string module_dir;                       ///< the folder build_pretuned_module() writes, as the app finds it
  std::string origin;                           ///< where the entries came from (a comment line)
};

namespace detail::export_impl {

inline std::string c_literal(std::string_view s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out + "\"";
}

// One library per distinct source: entries share their template's entry name (`rocm_gemm`), each
// library exports its own.
inline std::string library_file(const pretuned_gemm& e) { return e.symbol + "_" + e.source_hash.substr(0, 16) + ".so"; }

inline unsigned symbolic_bits(const gemm_problem_spec& p) {
  return (p.is_symbolic("M") ? 1U : 0U) | (p.is_symbolic("N") ? 2U : 0U) | (p.is_symbolic("K") ? 4U : 0U) |
         (p.is_symbolic("B") ? 8U : 0U);
}

inline std::string entry_text(const pretuned_gemm& e) {
  const auto& p = e.problem;
  if (e.size_args.size() > 4 || e.runtime_args.size() > 4) {
    throw invalid_argument_error("rocmtpl: export: " + e.symbol + " has more than 4 size or runtime arguments");
  }
  std::string sizes;
  for (const auto& s : e.size_args) sizes += (sizes.empty() ? "" : ", ") + c_literal(s);
  std::string runtime;
  for (auto v : e.runtime_args) runtime += (runtime.empty() ? "" : ", ") + std::to_string(v);
  const std::int64_t max_m = e.config.math == templates::gemm_math::skinny_m ? templates::gemm_skinny_max_small : 0;
  const std::int64_t max_n = e.config.math == templates::gemm_math::skinny_n ? templates::gemm_skinny_max_small : 0;
  return fmt::format(
      "    {{{{{}, {}, {}, {}, {}, {}, {}, {}}}, {}U,\n     {}, {},\n     {}, {}, {{{}}}, {}, {{{}}}, {}, {}, {}, "
      "{}}},\n",
      c_literal(name(p.type)), c_literal(p.layout), c_literal(templates::to_string(p.act)), p.bias ? "true" : "false",
      p.batch, p.m, p.n, p.k, symbolic_bits(p), c_literal(e.config.name()), c_literal(e.config.to_string()),
      c_literal(library_file(e)), c_literal(e.symbol), sizes, e.size_args.size(), runtime, e.runtime_args.size(),
      fmt::format("{:.6g}", e.tuned_ms > 0 ? e.tuned_ms : 0.0), max_m, max_n);
}

// The fixed part of the header: types, the distance and the lookup (raw text, no substitutions).
inline constexpr std::string_view dispatch_code = R"hip(
/// A GEMM problem: Y = epilogue(X @ W [+ bias]); X [batch, m, k], W [batch, k, n] (no batch dimension when batch is 1).
struct gemm_key {
  std::string_view dtype;     ///< "float32", "float16", "bfloat16"
  std::string_view layout;    ///< X and W storage: "rr", "rc", "cr", "cc" (r row-major, c column-major)
  std::string_view epilogue;  ///< "none", "relu", "gelu", "silu", "sigmoid"
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
[[nodiscard]] inline std::string render_dispatch_header(std::vector<pretuned_gemm> entries,
                                                        const dispatch_header_options& options = {}) {
  using detail::export_impl::c_literal;
  std::sort(entries.begin(), entries.end(), [](const pretuned_gemm& a, const pretuned_gemm& b) {
    auto key = [](const pretuned_gemm& e) {
      const auto& p = e.problem;
      return std::make_tuple(std::string(name(p.type)), p.layout, std::string(templates::to_string(p.act)), p.bias,
                             p.batch, p.m, p.n, p.k);
    };
    return key(a) < key(b);
  });
  std::string arch = entries.empty() ? std::string() : entries.front().arch;
  std::string device = entries.empty() ? std::string() : entries.front().device;
  std::string out = "// SPDX-License-Identifier: MIT\n// Generated by rocmtpl-tune export";
  out += options.origin.empty() ? std::string() : " from " + options.origin;
  out += fmt::format(": {} tuned GEMM problem{}. Do not edit; export again.\n", entries.size(),
                     entries.size() == 1 ? "" : "s");
  out += "#pragma once\n\n#include <array>\n#include <cstddef>\n#include <cstdint>\n#include <string_view>\n\n";
  out += "namespace " + options.name_space + " {\n\n";
  out += "/// The folder of the winners' shared libraries (rocmtpl-tune export --module).\n";
  out += "inline constexpr std::string_view module_dir = " + c_literal(options.module_dir) + ";\n";
  out += "/// The arch and device the winners were tuned on.\n";
  out += "inline constexpr std::string_view arch = " + c_literal(arch) + ";\n";
  out += "inline constexpr std::string_view device = " + c_literal(device) + ";\n";
  // The types come first; the table and the lookup need them.
  const auto code = detail::export_impl::dispatch_code;
  const auto split = code.find("/// What find_gemm() chose.");
  out += code.substr(0, split);
  out += fmt::format("\n/// The tuned problems.\ninline constexpr std::array<gemm_entry, {}> gemm_table{{",
                     entries.size());
  if (entries.empty()) {
    out += "};\n";
  } else {
    out += "{\n";
    for (const auto& e : entries) out += detail::export_impl::entry_text(e);
    out += "}};\n";
  }
  out += "\n";
  out += code.substr(split);
  out += "\n}  // namespace " + options.name_space + "\n";
  return out;
}

/// @brief What build_pretuned_module() wrote.
struct pretuned_module {
  std::filesystem::path dir;       ///< the folder
  std::filesystem::path manifest;  ///< `<dir>/manifest.json`
  std::size_t libraries = 0;       ///< shared libraries in the folder (one per distinct source)
  std::size_t compiled = 0;        ///< compiler runs (the rest came from the code cache)
};

/// @brief Compile options for the arch a record was tuned on: `gfx...` (a comma list) is AMD,
/// anything else (`sm_90`) NVIDIA with the portability header.
[[nodiscard]] inline compile_options export_compile_options(const std::string& arch) {
  if (arch.rfind("gfx", 0) == 0) {
    std::vector<std::string> archs;
    std::string_view rest = arch;
    while (!rest.empty()) {
      const auto comma = rest.find(',');
      archs.emplace_back(rest.substr(0, comma));
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
    return amd_compile_options(std::move(archs));
  }
  compile_options o;
  o.platform = platform::nvidia;
  o.archs = {device_compile_arch(platform::nvidia, arch)};
  o.include_dirs = {device_include_dir()};
  return o;
}

/// @brief Compiles each entry's source once (through @p cache) and copies the libraries into
/// @p dir as `<symbol>_<source hash>.so`, with `manifest.json` listing the entries; libraries
/// that the folder's previous manifest listed and this export does not are removed.
/// @throws compile_error when a winner does not compile (it did when it was tuned: another compiler?)
[[nodiscard]] inline pretuned_module build_pretuned_module(const std::vector<pretuned_gemm>& entries,
                                                           const std::filesystem::path& dir, const compiler& cc,
                                                           const compile_options& options, code_cache& cache) {
  namespace fs = std::filesystem;
  fs::create_directories(dir);
  pretuned_module out{dir, dir / "manifest.json", 0, 0};
  const auto before = cache.compiles();
  nlohmann::json list = nlohmann::json::array();
  std::set<std::string> written;
  for (const auto& e : entries) {
    const auto file = detail::export_impl::library_file(e);
    if (written.insert(file).second) {
      const auto built = cache.get_or_compile(cc, e.source, options);
      const auto staging = dir / (file + ".tmp");
      fs::copy_file(built.library, staging, fs::copy_options::overwrite_existing);
      fs::rename(staging, dir / file);
    }
    const auto& p = e.problem;
    list.push_back({{"dtype", std::string(name(p.type))},
                    {"layout", p.layout},
                    {"epilogue", std::string(templates::to_string(p.act))},
                    {"bias", p.bias},
                    {"batch", p.batch},
                    {"m", p.m},
                    {"n", p.n},
                    {"k", p.k},
                    {"symbolic", p.symbolic},
                    {"config", e.config.name()},
                    {"library", file},
                    {"symbol", e.symbol},
                    {"size_args", e.size_args},
                    {"runtime_args", e.runtime_args},
                    {"tuned_ms", e.tuned_ms},
                    {"digest", e.digest}});
  }
  out.libraries = written.size();
  out.compiled = cache.compiles() - before;
  // Libraries an earlier export listed and this one does not: gone, so the folder holds the winners only.
  std::error_code ec;
  if (fs::exists(out.manifest, ec)) {
    try {
      const auto old = nlohmann::json::parse(std::ifstream(out.manifest));
      for (const auto& e : old.at("entries")) {
        const auto file = e.at("library").get<std::string>();
        if (!written.contains(file) && file.find('/') == std::string::npos) fs::remove(dir / file, ec);
      }
    } catch (const std::exception&) {
      // not a manifest of ours: leave the folder's other files alone
    }
  }
  const nlohmann::json manifest{{"format", 1},
                                {"kind", "rocmtpl.pretuned"},
                                {"arch", entries.empty() ? std::string() : entries.front().arch},
                                {"device", entries.empty() ? std::string() : entries.front().device},
                                {"compile_archs", options.archs},
                                {"rocmtpl_version", version_string},
                                {"entries", std::move(list)}};
  detail::write_file_atomic(out.manifest, manifest.dump(2) + "\n");
  return out;
}

}  // namespace rocmtpl::runtime
