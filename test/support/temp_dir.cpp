// SPDX-License-Identifier: MIT
#include "support/temp_dir.hpp"

#include <cstdlib>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <system_error>
#include <utility>

namespace rocmtpl::test {

temp_dir::temp_dir(std::string_view prefix) {
  std::string pattern = (fs::temp_directory_path() / (std::string(prefix) + "-XXXXXX")).string();
  if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed for " + pattern);
  path_ = pattern;
}

temp_dir::~temp_dir() {
  std::error_code ec;
  if (std::getenv("ROCMTPL_KEEP_TEST_FILES") == nullptr) fs::remove_all(path_, ec);
}

scoped_env::scoped_env(std::string name, const std::optional<std::string>& value) : name_(std::move(name)) {
  if (const char* old = std::getenv(name_.c_str())) old_ = old;
  if (value) {
    ::setenv(name_.c_str(), value->c_str(), 1);
  } else {
    ::unsetenv(name_.c_str());
  }
}

scoped_env::~scoped_env() {
  if (old_) {
    ::setenv(name_.c_str(), old_->c_str(), 1);
  } else {
    ::unsetenv(name_.c_str());
  }
}

void write_file(const fs::path& p, std::string_view text) {
  if (p.has_parent_path()) fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
}

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

fs::path write_script(const fs::path& p, std::string_view body) {
  write_file(p, std::string("#!/bin/sh\n") + std::string(body));
  fs::permissions(p, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec);
  return p;
}
}  // namespace rocmtpl::test
