// SPDX-License-Identifier: MIT
// rocmtpl-tune export: the dispatch header and the folder of compiled winners (runtime/aot/export.hpp)
// from the tuning database, for an application that starts with no compile and no tuning.

#include <filesystem>
#include <iostream>
#include <memory>
#include <regex>
#include <string>

#include <fmt/format.h>

#include <rocmtpl/runtime/aot/export.hpp>
#include <rocmtpl/runtime/build/code_cache.hpp>
#include <rocmtpl/runtime/build/compiler.hpp>
#include <rocmtpl/runtime/db/tuning_db.hpp>

#include "commands.hpp"

namespace rocmtpl_tune {

namespace {

namespace fs = std::filesystem;
using namespace rocmtpl::runtime;

/// The export options.
struct export_args {
  std::string db;
  std::string header;
  std::string module;
  std::string name_space = "rocmtpl_pretuned";
  std::string device;
  std::string arch;
  bool header_only = false;
  bool allow_missing_db = false;
};

/// Compiles the winners into @p module (or, with nothing to compile, only creates the folder).
void write_module(const export_args& x, const pretuned_collection& found, const fs::path& module) {
  if (x.header_only || found.entries.empty()) {
    fs::create_directories(module);
    return;
  }
  const auto copts = export_compile_options(found.entries.front().arch);
  const compiler cc = compiler::find(copts.platform);
  code_cache cache;
  const auto mod = build_pretuned_module(found.entries, module, cc, copts, cache);
  std::cout << fmt::format("wrote {} {} ({} compiled, the others from the code cache) and {}\n", mod.libraries,
                           mod.libraries == 1 ? "library" : "libraries", mod.compiled, mod.manifest.string());
}

int run_export(const export_args& x) {
  static const std::regex identifier("[A-Za-z_][A-Za-z0-9_]*(::[A-Za-z_][A-Za-z0-9_]*)*");
  if (!std::regex_match(x.name_space, identifier)) {
    throw usage_error("--namespace '" + x.name_space + "' is not a C++ namespace name");
  }
  // Export reads: it creates no database. With --allow-missing-db a database file that is not there
  // exports an empty table (a build that runs the export before anything was tuned).
  const fs::path location = database_path(x.db);
  const bool missing =
      x.allow_missing_db && location.native().find("://") == std::string::npos && !fs::exists(location);
  std::vector<tuning_record> records;
  if (missing) {
    std::cout << "no database at " << location.string() << ": the table is empty\n";
  } else {
    records = existing_database(x.db).list();
  }
  const auto found = collect_pretuned_gemms(records, {x.device, x.arch});
  for (const auto& note : found.notes) std::cout << "left out " << note << '\n';
  const fs::path header = fs::absolute(x.header);
  const fs::path module = fs::absolute(x.module.empty() ? header.parent_path() / "pretuned" : fs::path(x.module));
  write_module(x, found, module);
  dispatch_header_options options;
  options.name_space = x.name_space;
  options.module_dir = module.string();
  options.origin = location.filename().string();
  write_text(header, render_dispatch_header(found.entries, options));
  std::cout << "wrote " << header.string() << ": " << found.entries.size() << " tuned GEMM problem"
            << (found.entries.size() == 1 ? "" : "s");
  if (!found.entries.empty())
    std::cout << " (" << found.entries.front().device << ", " << found.entries.front().arch << ")";
  std::cout << '\n';
  return 0;
}

}  // namespace

command register_export(CLI::App& app) {
  auto x = std::make_shared<export_args>();
  auto* cmd = app.add_subcommand(
      "export",
      "Write a C++ dispatch header (tuned problem -> winner, nearest-shape fallback) and the compiled "
      "winners from the tuning database, for an application that starts with no compile and no tuning");
  add_database_option(*cmd, x->db, std::string(database_help));
  cmd->add_option("--header", x->header, "the header to write")->required();
  cmd->add_option("--module", x->module, "folder of the winners' shared libraries (default: <header folder>/pretuned)")
      ->type_name("DIR");
  cmd->add_option("--namespace", x->name_space, "namespace of the table")->capture_default_str();
  cmd->add_option("--device", x->device, "only records of this device (needed when the database holds several)");
  cmd->add_option("--arch", x->arch, "only records of this arch");
  cmd->add_flag("--header-only", x->header_only, "write the header only, compile nothing");
  cmd->add_flag("--allow-missing-db", x->allow_missing_db,
                "a database file that does not exist exports an empty table (and is not created)");
  return {cmd, [x] { return run_export(*x); }};
}

}  // namespace rocmtpl_tune
