// SPDX-License-Identifier: MIT
#pragma once

// Test support: a private PostgreSQL server for one test process. initdb into a fresh folder under
// /tmp, started with pg_ctl listening only on a Unix socket in that folder (no TCP port, no system
// service), stopped and removed at scope exit. initdb refuses to run as root: when the tests run as
// root the server runs as `nobody` (setpriv, else runuser). Binaries come from PATH, else the
// newest /usr/lib/postgresql/<version>/bin.

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace rocmtpl::test {

class pg_server {
 public:
  // Why no server can be started here (empty: one can): the message a skipped test prints.
  [[nodiscard]] static std::string unavailable_reason();

  pg_server();
  pg_server(const pg_server&) = delete;
  pg_server& operator=(const pg_server&) = delete;
  ~pg_server();

  // A libpq URL of database `db` on this server (the socket folder as host).
  [[nodiscard]] std::string url(const std::string& db = "postgres") const;

  // Creates a fresh database and returns its URL.
  std::string create_database(const std::string& name) const;

  [[nodiscard]] const std::filesystem::path& dir() const noexcept { return dir_; }

  // The folder of initdb, pg_ctl and psql: initdb's on PATH, else the newest /usr/lib/postgresql/<version>/bin.
  static std::optional<std::filesystem::path> bin_dir();

 private:
  static std::optional<std::vector<std::string>> runner();
  void run(std::vector<std::string> argv, const std::string& what, bool as_server_user = true) const;

  std::filesystem::path dir_;
  bool started_ = false;
};

}  // namespace rocmtpl::test
