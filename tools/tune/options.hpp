// SPDX-License-Identifier: MIT
// rocmtpl-tune: what the subcommands share. The --db option, the tuning options of gemm and batch,
// the argument checks, the exit-code conventions and writing a report file.
//
// Each subcommand binds the common options to values of its own: CLI11 parses several subcommands
// in one command line (`batch f.json --db a.sqlite3 export --header h.hpp` runs export on the
// default database), and one subcommand's options never change another's.
#pragma once

#include <CLI/CLI.hpp>

#include <cstddef>
#include <filesystem>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace rocmtpl::runtime {
class tuning_db;
}  // namespace rocmtpl::runtime

namespace rocmtpl_tune {

/// A problem with the arguments found after parsing: reported like a parse error (exit code 2).
class usage_error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// Library messages start with "rocmtpl: "; the tool prefixes its own name instead.
std::string without_library_prefix(std::string_view what);

std::string first_line(std::string_view text);

/// What gemm and batch tune with: their common options (a batch problem may override each).
struct tuning_settings {
  std::vector<std::string> archs{"gfx90a", "gfx940"};
  std::size_t top_k = 16;
  unsigned jobs = 0;
  double budget_ms = 25.0;
  std::size_t finalists = 4;  ///< autotune_options::finalists: re-timed under sustained load before the pick
  unsigned compile_timeout_s = 300;
  bool no_verify = false;
  bool no_isolate = false;
  bool shared_libraries = false;
  bool emulate_amd = false;  ///< gemm --emulate-amd: run on the AMD emulator, verified, never timed (issue 23)
};

/// A subcommand added to the application, and what runs it once parsed (returns the exit code).
struct command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

/// --db's help on db and export; gemm says "tuning " first.
inline constexpr std::string_view database_help =
    "database: a file or a postgresql:// URL (default: ROCMTPL_TUNING_DB, else <cache>/tuning.sqlite3, "
    "ROCMTPL_CACHE_DIR)";

/// Adds --db (a SQLite file or a postgresql:// URL), bound to @p db.
void add_database_option(CLI::App& app, std::string& db, const std::string& help);

/// The database --db names, else tuning_db::default_path() (ROCMTPL_TUNING_DB, else the cache's).
std::filesystem::path database_path(const std::string& db);

/// The database --db names (else the default one) for a command that reads it (db list, show,
/// export, plot, clear; export; batch --status): a file that does not exist is an error, and
/// neither it nor its folder (nor the cache folder) is created. Only tuning creates a database.
rocmtpl::runtime::tuning_db existing_database(const std::string& db);

/// The help of the tuning options that gemm and batch word differently.
struct tuning_help {
  std::string top_k;
  std::string jobs;
};

/// Adds --arch, --top-k, --jobs, --budget-ms, --no-verify and --no-isolate, bound to @p t.
void add_tuning_options(CLI::App& app, tuning_settings& t, const tuning_help& help);

/// An empty string when @p value is an AMD GPU target, else why not.
std::string amd_arch_error(const std::string& value);

CLI::Validator amd_arch_validator();

/// An empty string when @p value spells an element type the GEMM tuner takes (f16, fp16, half, float16,
/// bf16, bfloat16, f32, fp32, float, float32), which it rewrites to its short name; else why not.
std::string gemm_dtype_error(std::string& value);
CLI::Validator gemm_dtype_validator();
/// A positive (or, with allow_zero, non-negative) integer, with a message that says so.
CLI::Validator count_validator(bool allow_zero);
CLI::Validator positive_real_validator();
/// A number that is finite as a float (no NaN, no infinity, nothing beyond float's range).
CLI::Validator finite_float_validator();
CLI::Validator plot_file_validator();
CLI::Validator hex_validator();

/// --symbolic accepts m,n,k,b too; the symbols are the upper-case names, each once.
void normalize_symbols(std::vector<std::string>& symbols);

/// Writes a report atomically (a reader never sees half of it), creating its folder first.
void write_text(const std::filesystem::path& file, std::string_view text);

/// The command whose --help a usage error points at ("rocmtpl-tune gemm"): the deepest subcommand
/// on the command line; "rocmtpl-tune" until one is parsed.
void set_help_command(std::string command);
/// "(see <command> --help)".
std::string usage_hint();

/// Runs @p body and turns an exception into one line on stderr and the exit code: 2 for a usage
/// error, 1 for a failure.
int run_reporting_errors(const std::function<int()>& body);

}  // namespace rocmtpl_tune
