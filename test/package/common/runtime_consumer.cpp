// SPDX-License-Identifier: MIT
// A consumer of rocmtpl::runtime: builds only if the runtime headers, SQLite, dl and threads come
// through the package. Opens a tuning database at argv[1] (created fresh) and checks it is empty.
#if __has_include(<rocmtpl/runtime.hpp>)
#include <rocmtpl/runtime.hpp>
#else
#include <rocmtpl/runtime/db/tuning_db.hpp>
#endif
#include <rocmtpl/rocm_template.hpp>

#include <cstdio>
#include <exception>
#include <filesystem>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fputs("usage: runtime_consumer <database file>\n", stderr);
    return 2;
  }
  try {
    const std::filesystem::path file = argv[1];
    std::filesystem::remove(file);
    const rocmtpl::runtime::tuning_db db(file);
    if (!std::filesystem::exists(file) || !db.list().empty()) {
      std::fprintf(stderr, "runtime_consumer: %s was not created empty\n", file.c_str());
      return 1;
    }
    std::printf("runtime_consumer: opened %s\n", db.path().c_str());
  } catch (const std::exception& e) {
    std::fprintf(stderr, "runtime_consumer: %s\n", e.what());
    return 1;
  }
  return 0;
}
