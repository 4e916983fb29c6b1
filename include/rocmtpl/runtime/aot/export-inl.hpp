// SPDX-License-Identifier: MIT
#pragma once

// The implementation of runtime/aot/export.hpp: included at its end (header-only) or compiled once by
// src/runtime/aot.cpp, after it (so it does not include it back).

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/core/version.hpp>
#include <rocmtpl/ir/buffer.hpp>
#include <rocmtpl/ir/dtype.hpp>
#include <rocmtpl/ir/layout.hpp>
#include <rocmtpl/kernel/rocm_template.hpp>
#include <rocmtpl/runtime/bench/utility_kernels.hpp>
#include <rocmtpl/runtime/build/code_cache.hpp>
#include <rocmtpl/runtime/build/compiler.hpp>
#include <rocmtpl/runtime/build/device_headers.hpp>
#include <rocmtpl/runtime/db/descriptor_json.hpp>
#include <rocmtpl/runtime/db/tuning_db.hpp>
#include <rocmtpl/runtime/sys/atomic_file.hpp>
#include <rocmtpl/templates/gemm.hpp>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <system_error>
#include <tuple>
#include <utility>
#include <variant>
#include <vector>

namespace rocmtpl::runtime {

namespace detail::export_impl {

ROCMTPL_INLINE std::vector<std::string_view> split_spaces(std::string_view text) {
  std::vector<std::string_view> out;
  while (!text.empty()) {
    const auto at = text.find(' ');
    if (at != 0) out.push_back(text.substr(0, at));
    if (at == std::string_view::npos) break;
    text.remove_prefix(at + 1);
  }
  return out;
}

}  // namespace detail::export_impl

ROCMTPL_INLINE templates::gemm_config parse_gemm_config(std::string_view text) {
  templates::gemm_config_fields fields;
  for (auto token : detail::export_impl::split_spaces(text)) {
    const auto eq = token.find('=');
    if (eq == std::string_view::npos) {
      throw invalid_argument_error("rocmtpl: export: '" + std::string(token) +
                                   "' is not a field=value pair of a gemm configuration");
    }
    fields.emplace_back(token.substr(0, eq), token.substr(eq + 1));
  }
  // The math leads describe()'s fields; records list it wherever their writer put it.
  const auto math = std::find_if(fields.begin(), fields.end(), [](const auto& f) { return f.first == "math"; });
  if (math == fields.end()) {
    throw invalid_argument_error("rocmtpl: export: gemm configuration '" + std::string(text) + "' names no math");
  }
  std::rotate(fields.begin(), math, math + 1);
  return templates::parse_gemm_config(fields);
}

ROCMTPL_INLINE std::variant<pretuned_gemm, std::string> resolve_pretuned_gemm(const tuning_record& rec) {
  if (rec.key.template_name != "gemm") return "template '" + rec.key.template_name + "' is not exported";
  if (!rec.winner) return std::string("no winner (tuned without a GPU, or nothing passed)");
  const measurement* won = nullptr;
  for (const auto& m : rec.measurements) {
    if (m.candidate == *rec.winner) won = &m;
  }
  if (won == nullptr) return std::string("the winner has no measurement");
  std::optional<templates::gemm_problem> problem;
  try {
    problem = read_descriptor<templates::gemm_problem>(rec.key.descriptor);
  } catch (const invalid_argument_error& e) {
    return std::string(e.what());
  }
  if (!problem) {
    return std::string(
        "no GEMM problem descriptor (tuned before descriptors were stored, or a template that "
        "rocmtpl-tune gemm's problems do not describe); tune it again");
  }
  if (problem->alpha != 1.0F) return std::string("alpha is not 1 (the dispatch table has no alpha)");
  pretuned_gemm out;
  out.config = parse_gemm_config(won->config);
  const auto caller = templates::make_template(*problem).generate(out.config, problem->hints());
  const auto& r = caller.bmreq();
  if (r.source_hash() != won->source_hash) {
    return std::string("the winner's configuration no longer renders the measured source (another library version)");
  }
  out.problem = *problem;
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

ROCMTPL_INLINE pretuned_collection collect_pretuned_gemms(const std::vector<tuning_record>& records,
                                                          const export_filter& filter) {
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

namespace detail::export_impl {

ROCMTPL_INLINE std::string c_literal(std::string_view s) {
  std::string out = "\"";
  for (char ch : s) {
    if (ch == '"' || ch == '\\') out += '\\';
    out += ch;
  }
  return out + "\"";
}

// One library per distinct source: entries share their template's entry name (`rocm_gemm`), each
// library exports its own.
ROCMTPL_INLINE std::string library_file(const pretuned_gemm& e) {
  return e.symbol + "_" + e.source_hash.substr(0, 16) + ".so";
}

ROCMTPL_INLINE unsigned symbolic_bits(const templates::gemm_problem& p) {
  return (p.is_symbolic("M") ? 1U : 0U) | (p.is_symbolic("N") ? 2U : 0U) | (p.is_symbolic("K") ? 4U : 0U) |
         (p.is_symbolic("B") ? 8U : 0U);
}

ROCMTPL_INLINE std::string entry_text(const pretuned_gemm& e) {
  const auto& p = e.problem;
  if (e.size_args.size() > 4 || e.runtime_args.size() > 4) {
    throw invalid_argument_error("rocmtpl: export: " + e.symbol + " has more than 4 size or runtime arguments");
  }
  std::string sizes;
  for (const auto& s : e.size_args) sizes += (sizes.empty() ? "" : ", ") + c_literal(s);
  std::string runtime;
  for (auto v : e.runtime_args) runtime += (runtime.empty() ? "" : ", ") + std::to_string(v);
  const auto side = e.config.visit([](const auto& c) -> std::optional<templates::skinny_side> {
    if constexpr (requires { c.side; }) return c.side;
    return std::nullopt;
  });
  const std::int64_t max_m = side == templates::skinny_side::m ? templates::gemm_skinny_max_small : 0;
  const std::int64_t max_n = side == templates::skinny_side::n ? templates::gemm_skinny_max_small : 0;
  return fmt::format(
      "    {{{{{}, {}, {}, {}, {}, {}, {}, {}}}, {}U,\n     {}, {},\n     {}, {}, {{{}}}, {}, {{{}}}, {}, {}, {}, "
      "{}}},\n",
      c_literal(name(p.type)), c_literal(p.layout), c_literal(templates::to_string(p.act)), p.bias ? "true" : "false",
      p.batch, p.m, p.n, p.k, symbolic_bits(p), c_literal(e.config.name()), c_literal(e.config.to_string()),
      c_literal(library_file(e)), c_literal(e.symbol), sizes, e.size_args.size(), runtime, e.runtime_args.size(),
      fmt::format("{:.6g}", e.tuned_ms > 0 ? e.tuned_ms : 0.0), max_m, max_n);
}

}  // namespace detail::export_impl

ROCMTPL_INLINE std::string render_dispatch_header(std::vector<pretuned_gemm> entries,
                                                  const dispatch_header_options& options) {
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

ROCMTPL_INLINE compile_options export_compile_options(const std::string& arch) {
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

ROCMTPL_INLINE pretuned_module build_pretuned_module(const std::vector<pretuned_gemm>& entries,
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
