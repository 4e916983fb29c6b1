// SPDX-License-Identifier: MIT
#pragma once

// Test support, one copy for every test kind: a temporary folder removed at scope exit, scoped
// environment variables, small file helpers and executable scripts (fake compilers).

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>

namespace rocmtpl::test {

namespace fs = std::filesystem;

// A fresh private folder under the system temp dir (mkdtemp), removed with its contents at scope exit
// (kept when ROCMTPL_KEEP_TEST_FILES is set, to look at what a failed test built).
class temp_dir {
 public:
  explicit temp_dir(std::string_view prefix = "rocmtpl-test") {
    std::string pattern = (fs::temp_directory_path() / (std::string(prefix) + "-XXXXXX")).string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed for " + pattern);
    path_ = pattern;
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  ~temp_dir() {
    std::error_code ec;
    if (std::getenv("ROCMTPL_KEEP_TEST_FILES") == nullptr) fs::remove_all(path_, ec);
  }
  [[nodiscard]] const fs::path& path() const noexcept { return path_; }
  [[nodiscard]] fs::path operator/(const std::string& name) const { return path_ / name; }

 private:
  fs::path path_;
};

// Sets (or unsets, with nullopt) an environment variable for the scope; restores it afterwards.
class scoped_env {
 public:
  scoped_env(std::string name, const std::optional<std::string>& value) : name_(std::move(name)) {
    if (const char* old = std::getenv(name_.c_str())) old_ = old;
    if (value) {
      ::setenv(name_.c_str(), value->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }
  scoped_env(const scoped_env&) = delete;
  scoped_env& operator=(const scoped_env&) = delete;
  ~scoped_env() {
    if (old_) {
      ::setenv(name_.c_str(), old_->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }

 private:
  std::string name_;
  std::optional<std::string> old_;
};

// Writes `text` to `p` (folders created), replacing it.
inline void write_file(const fs::path& p, std::string_view text) {
  if (p.has_parent_path()) fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
}

// The bytes of `p`; empty when it cannot be read.
inline std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// An executable shell script (a fake compiler or worker for tests that must not run the real one).
inline fs::path write_script(const fs::path& p, std::string_view body) {
  write_file(p, std::string("#!/bin/sh\n") + std::string(body));
  fs::permissions(p, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec);
  return p;
}

}  // namespace rocmtpl::test
