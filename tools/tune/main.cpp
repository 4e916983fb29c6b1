// SPDX-License-Identifier: MIT
// rocmtpl-tune: the autotuner and the tuning database from the command line.
//
//   rocmtpl-tune gemm --m 4096 --n 4096 --k 4096 --dtype f16 --layout rc --epilogue relu --bias
//   rocmtpl-tune batch problems.json [--db postgresql://host/db] [--lease 60] [--status]
//   rocmtpl-tune db list | show <digest-prefix> | export [FILE] | clear [--template NAME]
//   rocmtpl-tune db plot [<digest-prefix>] --output FILE.png|FILE.svg
//   rocmtpl-tune export --header out/pretuned_gemm.hpp [--module out/pretuned] [--namespace NAME]
//
// gemm renders the GEMM template's candidates for one problem, compiles them in parallel and, where
// a GPU exists, benchmarks them in an isolated worker process (rocmtpl-bench-worker, found next to
// this program), prints the ranked table and writes the reports. Without a GPU it compiles for the
// --arch targets and prints what the compiler says about each candidate's resources.
//
// batch tunes a list of GEMM problems (a JSON array of objects with the gemm options' fields) with
// claims in the tuning database: resumable, and shared without overlap by several tuners (on
// several hosts with a postgresql:// database). --db (or ROCMTPL_TUNING_DB) takes a SQLite file or
// a postgresql:// URL everywhere.
//
// Exit codes: 0 done; 1 the work failed (`rocmtpl-tune: <what>` on stderr); 2 bad arguments
// (one line on stderr). SIGINT, SIGTERM and SIGHUP stop the compilers and benchmark workers this
// tuner started, then end it by that signal (exit status 128 + signal); killed with SIGKILL, its
// children die with it (runtime/sys/process.hpp).
//
// This file sets up the command line and dispatches; options.cpp holds what the subcommands share,
// gemm.cpp, batch.cpp, db.cpp and export.cpp one subcommand each, gemm_problem.cpp the GEMM problem
// that gemm and batch tune.

#include <iostream>
#include <string>

#include <rocmtpl/core/error.hpp>
#include <rocmtpl/core/version.hpp>
#include <rocmtpl/runtime/sys/log.hpp>
#include <rocmtpl/runtime/sys/process.hpp>

#include "commands.hpp"
#include "options.hpp"

namespace {

using namespace rocmtpl_tune;

// "rocmtpl-tune db list": the subcommands the parser entered (also after a parse error), deepest last.
std::string command_path(const CLI::App& app) {
  std::string path = app.get_name();
  for (const CLI::App* at = &app; at != nullptr;) {
    const auto entered = at->get_subcommands();
    at = entered.empty() ? nullptr : entered.front();
    if (at != nullptr) path += ' ' + at->get_name();
  }
  return path;
}

// -q, -v, -vv, else ROCMTPL_LOG (a value that names no level is a usage error), else warn.
void set_log_level(int verbose, bool quiet) {
  using rocmtpl::runtime::log_level;
  if (quiet && verbose > 0) throw usage_error("-q and -v contradict each other");
  if (quiet || verbose > 0) {
    rocmtpl::runtime::set_log_level(quiet ? log_level::error : verbose == 1 ? log_level::info : log_level::debug);
    return;
  }
  try {
    rocmtpl::runtime::set_log_level(rocmtpl::runtime::log_level_from_environment().value_or(log_level::warn));
  } catch (const rocmtpl::error& e) {
    throw usage_error(without_library_prefix(e.what()));
  }
}

int run(int argc, char** argv) {
  CLI::App app{"rocmtpl-tune: tune rocmtpl kernel templates and inspect the tuning database", "rocmtpl-tune"};
  app.set_version_flag("--version", std::string("rocmtpl-tune ") + rocmtpl::version_string);
  // The log level (runtime/sys/log.hpp): -v info, -vv debug, -q errors only; else ROCMTPL_LOG, else
  // warnings. Accepted after a subcommand too (`rocmtpl-tune gemm ... -v`).
  int verbose = 0;
  bool quiet = false;
  app.add_flag("-v,--verbose", verbose, "log each phase to stderr (-vv: also the generated source and commands)");
  app.add_flag("-q,--quiet", quiet, "log errors only");
  app.fallthrough();

  // Added in the order --help lists them.
  const command gemm = register_gemm(app);
  const command db = register_db(app);
  const command batch = register_batch(app);
  const command exp = register_export(app);

  try {
    app.parse(argc, argv);
    set_help_command(command_path(app));
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == static_cast<int>(CLI::ExitCodes::Success)) return app.exit(e);  // --help, --version
    // A usage error after a subcommand points at that subcommand's --help.
    set_help_command(command_path(app));
    std::cerr << "rocmtpl-tune: " << first_line(e.what()) << ' ' << usage_hint() << '\n';
    return 2;
  }

  set_log_level(verbose, quiet);

  // CLI11 parses several subcommands in one line (`db list gemm ...`): the first of these runs.
  for (const command* c : {&exp, &gemm, &batch, &db}) {
    if (c->app->parsed()) return c->run();
  }
  throw usage_error("a command is required: gemm, batch, db or export");
}

}  // namespace

int main(int argc, char** argv) {
  return run_reporting_errors([&] {
    rocmtpl::runtime::stop_child_processes_on_signals();  // a stopped tuner leaves no compiler running
    return run(argc, argv);
  });
}
