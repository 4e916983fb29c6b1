// SPDX-License-Identifier: MIT
#include "support/pg_server.hpp"

#include <rocmtpl/runtime/sys/process.hpp>

#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <stdexcept>
#include <system_error>
#include <utility>

namespace rocmtpl::test {

std::string pg_server::unavailable_reason() {
  if (!bin_dir()) {
    return "PostgreSQL server binaries (initdb, pg_ctl) not found on PATH or in /usr/lib/postgresql/*/bin; "
           "apt-get install postgresql";
  }
  if (::geteuid() == 0 && !runner()) return "running as root and neither setpriv nor runuser is available";
  return {};
}

pg_server::pg_server() {
  std::string pattern = "/tmp/rocmtpl-pg-XXXXXX";  // short: a socket path has at most 107 bytes
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error(fmt::format("mkdtemp failed for {}", pattern));
  dir_ = pattern;
  if (::geteuid() == 0) {
    // The server runs as nobody: it must own its folder.
    if (::chown(dir_.c_str(), 65534, 65534) != 0)
      throw std::runtime_error(fmt::format("chown failed on {}", dir_.string()));
  }
  const auto bin = *bin_dir();
  run({(bin / "initdb").string(), "-D", (dir_ / "data").string(), "-U", "rocmtpl", "-A", "trust", "-E", "UTF8",
       "--locale=C", "--no-sync"},
      "initdb");
  run({(bin / "pg_ctl").string(), "-D", (dir_ / "data").string(), "-l", (dir_ / "server.log").string(), "-w", "-t",
       "60", "-o", fmt::format("-k {} -c listen_addresses= -F", dir_.string()), "start"},
      "pg_ctl start");
  started_ = true;
}

pg_server::~pg_server() {
  if (started_) {
    try {
      run({(*bin_dir() / "pg_ctl").string(), "-D", (dir_ / "data").string(), "-m", "immediate", "-w", "stop"},
          "pg_ctl stop");
    } catch (...) {  // NOLINT(bugprone-empty-catch): nothing more to do in a destructor
    }
  }
  std::error_code ec;
  if (std::getenv("ROCMTPL_KEEP_TEST_FILES") == nullptr) std::filesystem::remove_all(dir_, ec);
}

std::string pg_server::url(const std::string& db) const {
  return fmt::format("postgresql:///{}?host={}&user=rocmtpl", db, dir_.string());
}

std::string pg_server::create_database(const std::string& name) const {
  const auto psql_in_bin = *bin_dir() / "psql";
  const auto psql =
      std::filesystem::exists(psql_in_bin) ? std::optional(psql_in_bin) : runtime::find_executable("psql");
  if (!psql) throw std::runtime_error("psql not found next to initdb or on PATH");
  run({psql->string(), "-h", dir_.string(), "-U", "rocmtpl", "-d", "postgres", "-q", "-c",
       fmt::format("CREATE DATABASE {}", name)},
      "psql CREATE DATABASE", false);
  return url(name);
}

std::optional<std::filesystem::path> pg_server::bin_dir() {
  if (auto initdb = runtime::find_executable("initdb")) {
    // Follow links (/usr/local/bin/initdb -> /usr/lib/postgresql/15/bin/initdb): psql and
    // pg_ctl are taken from the folder that really holds initdb.
    std::error_code ec;
    const auto real = std::filesystem::canonical(*initdb, ec);
    const auto bin = ec ? initdb->parent_path() : real.parent_path();
    if (std::filesystem::exists(bin / "pg_ctl")) return bin;
  }
  std::vector<std::filesystem::path> found;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/usr/lib/postgresql", ec)) {
    if (std::filesystem::exists(e.path() / "bin" / "initdb") && std::filesystem::exists(e.path() / "bin" / "pg_ctl"))
      found.push_back(e.path() / "bin");
  }
  if (found.empty()) return std::nullopt;
  // Newest version: compare the numbers, not the text ("9.6" < "15").
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) {
    return std::atof(a.parent_path().filename().c_str()) < std::atof(b.parent_path().filename().c_str());
  });
  return found.back();
}

std::optional<std::vector<std::string>> pg_server::runner() {
  if (auto setpriv = runtime::find_executable("setpriv")) {
    return std::vector<std::string>{setpriv->string(), "--reuid=65534", "--regid=65534", "--clear-groups"};
  }
  if (auto runuser = runtime::find_executable("runuser")) {
    return std::vector<std::string>{runuser->string(), "-u", "nobody", "--"};
  }
  return std::nullopt;
}

void pg_server::run(std::vector<std::string> argv, const std::string& what, bool as_server_user) const {
  if (as_server_user && ::geteuid() == 0) {
    auto prefix = *runner();
    argv.insert(argv.begin(), prefix.begin(), prefix.end());
  }
  runtime::process_options o;
  o.working_dir = dir_;  // nobody may not be able to enter the caller's folder
  o.timeout = std::chrono::seconds(120);
  const auto r = runtime::run_process(argv, o);
  if (!r.ok()) {
    throw std::runtime_error(what + " failed (exit " + std::to_string(r.exit_code) + "): " + r.output);
  }
}

}  // namespace rocmtpl::test
