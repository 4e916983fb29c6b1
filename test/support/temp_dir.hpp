// SPDX-License-Identifier: MIT
#pragma once

// Test support, one copy for every test kind: a temporary folder removed at scope exit, scoped
// environment variables, small file helpers and executable scripts (fake compilers).

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace rocmtpl::test {

namespace fs = std::filesystem;

// A fresh private folder under the system temp dir (mkdtemp), removed with its contents at scope exit
// (kept when ROCMTPL_KEEP_TEST_FILES is set, to look at what a failed test built).
class temp_dir {
 public:
  explicit temp_dir(std::string_view prefix = "rocmtpl-test");
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  ~temp_dir();
  [[nodiscard]] const fs::path& path() const noexcept { return path_; }
  [[nodiscard]] fs::path operator/(const std::string& name) const { return path_ / name; }

 private:
  fs::path path_;
};

// Sets (or unsets, with nullopt) an environment variable for the scope; restores it afterwards.
class scoped_env {
 public:
  scoped_env(std::string name, const std::optional<std::string>& value);
  scoped_env(const scoped_env&) = delete;
  scoped_env& operator=(const scoped_env&) = delete;
  ~scoped_env();

 private:
  std::string name_;
  std::optional<std::string> old_;
};

// Writes `text` to `p` (folders created), replacing it.
void write_file(const fs::path& p, std::string_view text);

// The bytes of `p`; empty when it cannot be read.
std::string read_file(const fs::path& p);

// An executable shell script (a fake compiler or worker for tests that must not run the real one).
fs::path write_script(const fs::path& p, std::string_view body);

}  // namespace rocmtpl::test
