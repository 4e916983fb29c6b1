// SPDX-License-Identifier: MIT
#include "options.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <regex>
#include <utility>

#include <rocmtpl/core/error.hpp>
#include <rocmtpl/ir/dtype.hpp>
#include <rocmtpl/runtime/build/compiler.hpp>
#include <rocmtpl/runtime/db/database.hpp>
#include <rocmtpl/runtime/sys/atomic_file.hpp>

namespace rocmtpl_tune {

namespace fs = std::filesystem;

std::string without_library_prefix(std::string_view what) {
  constexpr std::string_view prefix = "rocmtpl: ";
  if (what.substr(0, prefix.size()) == prefix) what.remove_prefix(prefix.size());
  return std::string(what);
}

std::string first_line(std::string_view text) { return std::string(text.substr(0, text.find('\n'))); }

void add_database_option(CLI::App& app, std::string& db, const std::string& help) { app.add_option("--db", db, help); }

fs::path database_path(const std::string& db) {
  return db.empty() ? rocmtpl::runtime::tuning_db::default_path() : fs::path(db);
}

rocmtpl::runtime::tuning_db existing_database(const std::string& db) {
  return rocmtpl::runtime::tuning_db::open_existing(db.empty() ? fs::path() : fs::path(db));
}

void add_tuning_options(CLI::App& app, tuning_settings& t, const tuning_help& help) {
  app.add_option("--arch", t.archs, "AMD targets compiled for when there is no GPU")
      ->delimiter(',')
      ->check(amd_arch_validator())
      ->capture_default_str();
  app.add_option("--top-k", t.top_k, help.top_k)->check(count_validator(true))->capture_default_str();
  app.add_option("--jobs,-j", t.jobs, help.jobs)->check(count_validator(true));
  app.add_option("--budget-ms", t.budget_ms, "GPU time spent timing each candidate")
      ->check(positive_real_validator())
      ->capture_default_str();
  app.add_option("--finalists", t.finalists,
                 "the fastest candidates (within 10%, where they take 0.5 ms or more) timed again under sustained "
                 "load before the pick; 0: the lowest minimum time wins")
      ->check(count_validator(true))
      ->capture_default_str();
  app.add_option("--compile-timeout", t.compile_timeout_s, "seconds a compile may run before it is killed")
      ->check(count_validator(false))
      ->capture_default_str();
  app.add_flag("--no-verify", t.no_verify, "do not check candidates against the reference kernel");
  app.add_flag("--no-isolate", t.no_isolate, "benchmark in this process instead of rocmtpl-bench-worker");
}

// "gfx90a", "gfx940", "gfx1030", with optional feature suffixes ("gfx90a:xnack+").
std::string amd_arch_error(const std::string& value) {
  static const std::regex pattern("gfx[0-9]{2,4}[a-z]?(:[a-z_-]+[+-])*");
  if (std::regex_match(value, pattern)) return {};
  return "'" + value + "' is not an AMD GPU target (gfx90a, gfx940, gfx1030, ...)";
}

CLI::Validator amd_arch_validator() {
  return CLI::Validator([](std::string& value) { return amd_arch_error(value); }, "ARCH");
}

std::string gemm_dtype_error(std::string& value) {
  constexpr std::array<std::pair<rocmtpl::dtype, std::string_view>, 3> tunable{
      {{rocmtpl::dtype::f32, "f32"}, {rocmtpl::dtype::f16, "f16"}, {rocmtpl::dtype::bf16, "bf16"}}};
  try {
    const auto type = rocmtpl::parse_dtype(value);
    for (const auto& [d, short_name] : tunable) {
      if (d == type) {
        value = short_name;
        return {};
      }
    }
  } catch (const rocmtpl::error&) {
  }
  return "'" + value +
         "' is not a GEMM element type (f16 = fp16 = half = float16, bf16 = bfloat16, f32 = fp32 = float)";
}

CLI::Validator gemm_dtype_validator() {
  return CLI::Validator([](std::string& value) { return gemm_dtype_error(value); }, "f16|bf16|f32");
}

CLI::Validator count_validator(bool allow_zero) {
  return CLI::Validator(
      [allow_zero](std::string& value) -> std::string {
        std::int64_t v = 0;
        const char* end = value.data() + value.size();
        auto [ptr, ec] = std::from_chars(value.data(), end, v);
        if (ec == std::errc() && ptr == end && (v > 0 || (allow_zero && v == 0))) return {};
        return "'" + value + "' is not a " + (allow_zero ? "non-negative" : "positive") + " integer";
      },
      allow_zero ? "INT>=0" : "INT>0");
}

// A positive finite number.
CLI::Validator positive_real_validator() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        char* end = nullptr;
        const double v = std::strtod(value.c_str(), &end);
        if (!value.empty() && end == value.c_str() + value.size() && v > 0 && std::isfinite(v)) return {};
        return "'" + value + "' is not a positive number";
      },
      "NUMBER>0");
}

// A finite float: NaN, infinities and values beyond float's range cannot be rendered into a kernel.
CLI::Validator finite_float_validator() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        char* end = nullptr;
        const float v = std::strtof(value.c_str(), &end);
        if (!value.empty() && end == value.c_str() + value.size() && std::isfinite(v)) return {};
        return "'" + value + "' is not a finite number (NaN and infinities cannot be rendered into a kernel)";
      },
      "NUMBER");
}

CLI::Validator plot_file_validator() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        const auto ext = fs::path(value).extension();
        if (ext == ".png" || ext == ".svg") return {};
        return "'" + value + "' must end in .png or .svg";
      },
      "FILE.png|FILE.svg");
}

CLI::Validator hex_validator() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        if (!value.empty() && value.find_first_not_of("0123456789abcdef") == std::string::npos) return {};
        return "'" + value + "' is not a hex digest prefix (lowercase 0-9a-f, see rocmtpl-tune db list)";
      },
      "HEX");
}

void normalize_symbols(std::vector<std::string>& symbols) {
  for (auto& s : symbols)
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  std::sort(symbols.begin(), symbols.end());
  symbols.erase(std::unique(symbols.begin(), symbols.end()), symbols.end());
}

void write_text(const fs::path& file, std::string_view text) {
  // Creates the file's folder first, so that `--json out/report.json` works in a fresh tree.
  if (file.has_parent_path()) fs::create_directories(file.parent_path());
  rocmtpl::runtime::detail::write_file_atomic(file, text);
}

namespace {
std::string& help_command_storage() {
  static std::string command = "rocmtpl-tune";
  return command;
}
}  // namespace

void set_help_command(std::string command) { help_command_storage() = std::move(command); }

std::string usage_hint() { return "(see " + help_command_storage() + " --help)"; }

int run_reporting_errors(const std::function<int()>& body) {
  try {
    return body();
  } catch (const usage_error& e) {
    std::cerr << "rocmtpl-tune: " << e.what() << ' ' << usage_hint() << '\n';
    return 2;
  } catch (const rocmtpl::runtime::compile_error& e) {
    // The log can be long: the compiler's own first error line only.
    std::cerr << "rocmtpl-tune: " << without_library_prefix(e.first_error_line()) << '\n';
    return 1;
  } catch (const rocmtpl::error& e) {
    std::cerr << "rocmtpl-tune: " << without_library_prefix(e.what()) << '\n';
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "rocmtpl-tune: " << without_library_prefix(e.what()) << '\n';
    return 1;
  }
}

}  // namespace rocmtpl_tune
