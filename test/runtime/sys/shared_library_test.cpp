// SPDX-License-Identifier: MIT
#include <rocmtpl/runtime/sys/shared_library.hpp>

#include <rocmtpl/runtime/sys/process.hpp>

#include "support/runtime.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include <dlfcn.h>

namespace {

using rocmtpl::runtime::library_load_error;
using rocmtpl::runtime::library_lru;
using rocmtpl::runtime::run_process;
using rocmtpl::runtime::shared_library;
using rocmtpl::runtime::symbol_not_found_error;
using rocmtpl::test::temp_dir;
namespace fs = std::filesystem;

// Small host libraries built once for the whole suite with the system C++ compiler:
// lib<i>.so exports `int rocmtpl_test_value()` returning i, `int rocmtpl_test_add(int, int)` and
// the object `rocmtpl_test_counter`, and keeps `hidden_helper` hidden.
class shared_library_test : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    dir_ = std::make_unique<temp_dir>();
    for (int i = 0; i < 3; ++i) libs_.push_back(build(i, *dir_ / ("lib" + std::to_string(i) + ".so")));
  }
  static void TearDownTestSuite() {
    libs_.clear();
    dir_.reset();
  }
  void SetUp() override {
    if (libs_.empty() || libs_.front().empty()) GTEST_SKIP() << "no host C++ compiler (c++) to build test libraries";
  }

  static fs::path build(int value, const fs::path& out) {
    const auto src = out.parent_path() / (out.stem().string() + ".cpp");
    rocmtpl::test::write_file(
        src, "extern \"C\" __attribute__((visibility(\"default\"))) int rocmtpl_test_value() { return " +
                 std::to_string(value) +
                 "; }\n"
                 "extern \"C\" __attribute__((visibility(\"default\"))) int rocmtpl_test_add(int a, int b) { return a "
                 "+ b; }\n"
                 "extern \"C\" __attribute__((visibility(\"default\"))) int rocmtpl_test_counter = 41;\n"
                 "extern \"C\" int hidden_helper() { return 7; }\n");
    try {
      const auto r = run_process({"c++", "-shared", "-fPIC", "-fvisibility=hidden", src.string(), "-o", out.string()});
      if (!r.ok()) return {};
    } catch (const rocmtpl::runtime::executable_not_found_error&) {
      return {};
    }
    return out;
  }

  static inline std::unique_ptr<temp_dir> dir_;
  static inline std::vector<fs::path> libs_;
};

TEST_F(shared_library_test, loads_and_finds_symbols) {
  const shared_library lib(libs_[1]);
  EXPECT_TRUE(static_cast<bool>(lib));
  EXPECT_EQ(lib.path(), libs_[1]);
  auto* value = lib.symbol<int()>("rocmtpl_test_value");
  EXPECT_EQ(value(), 1);
  auto* add = lib.symbol<int(int, int)>("rocmtpl_test_add");
  EXPECT_EQ(add(40, 2), 42);
  int* counter = lib.symbol<int>("rocmtpl_test_counter");
  EXPECT_EQ(*counter, 41);
  EXPECT_TRUE(lib.has_symbol("rocmtpl_test_add"));
  EXPECT_FALSE(lib.has_symbol("hidden_helper"));  // -fvisibility=hidden
  EXPECT_FALSE(lib.has_symbol("rocmtpl_no_such_symbol"));
}

TEST_F(shared_library_test, missing_symbol_names_symbol_and_library) {
  const shared_library lib(libs_[0]);
  try {
    (void)lib.symbol<int()>("rocmtpl_no_such_symbol");
    FAIL() << "found a symbol that does not exist";
  } catch (const symbol_not_found_error& e) {
    EXPECT_EQ(e.symbol(), "rocmtpl_no_such_symbol");
    EXPECT_EQ(e.library(), libs_[0]);
    const std::string what = e.what();
    EXPECT_NE(what.find("rocmtpl_no_such_symbol"), std::string::npos);
    EXPECT_NE(what.find(libs_[0].string()), std::string::npos);
  }
}

TEST_F(shared_library_test, load_failures_carry_dlerror_text) {
  try {
    shared_library lib(*dir_ / "missing.so");
    FAIL() << "loaded a missing file";
  } catch (const library_load_error& e) {
    EXPECT_EQ(e.path(), *dir_ / "missing.so");
    EXPECT_NE(e.reason().find("No such file"), std::string::npos) << e.reason();
  }
  const auto not_elf = *dir_ / "not_elf.so";
  rocmtpl::test::write_file(not_elf, "this is not a shared library\n");
  EXPECT_THROW(shared_library{not_elf}, library_load_error);
}

TEST_F(shared_library_test, local_binding_keeps_symbols_out_of_the_global_scope) {
  const shared_library lib(libs_[2]);
  EXPECT_EQ(::dlsym(RTLD_DEFAULT, "rocmtpl_test_value"), nullptr);
  EXPECT_EQ(lib.symbol<int()>("rocmtpl_test_value")(), 2);
}

TEST_F(shared_library_test, move_transfers_ownership) {
  shared_library a(libs_[0]);
  void* handle = a.native_handle();
  shared_library b(std::move(a));
  EXPECT_EQ(b.native_handle(), handle);
  EXPECT_FALSE(static_cast<bool>(a));  // NOLINT(bugprone-use-after-move): moved-from state is specified
  EXPECT_FALSE(a.has_symbol("rocmtpl_test_value"));
  EXPECT_THROW((void)a.symbol<int()>("rocmtpl_test_value"), symbol_not_found_error);
  shared_library c(libs_[1]);
  c = std::move(b);
  EXPECT_EQ(c.symbol<int()>("rocmtpl_test_value")(), 0);
}

TEST_F(shared_library_test, lru_reuses_bounds_and_keeps_held_libraries_alive) {
  library_lru lru(2);
  const auto a1 = lru.open(libs_[0]);
  const auto a2 = lru.open(libs_[0]);
  EXPECT_EQ(a1.get(), a2.get());
  EXPECT_EQ(lru.hits(), 1U);
  EXPECT_EQ(lru.misses(), 1U);

  auto* value0 = a1->symbol<int()>("rocmtpl_test_value");
  (void)lru.open(libs_[1]);
  (void)lru.open(libs_[2]);  // evicts lib0 (least recently used)
  EXPECT_EQ(lru.size(), 2U);
  EXPECT_EQ(lru.capacity(), 2U);
  // Evicted from the cache, but a1 still holds it: still loaded and callable.
  EXPECT_EQ(value0(), 0);
  const auto again = lru.open(libs_[0]);
  EXPECT_NE(again.get(), a1.get());  // a new handle object (the loader shares the mapping)
  EXPECT_EQ(lru.misses(), 4U);
  EXPECT_EQ(again->symbol<int()>("rocmtpl_test_value")(), 0);

  // Recently used entries survive: lib0 was just used, lib1 is the oldest now.
  (void)lru.open(libs_[0]);
  (void)lru.open(libs_[2]);
  const auto hits_before = lru.hits();
  (void)lru.open(libs_[2]);
  EXPECT_EQ(lru.hits(), hits_before + 1);
  lru.clear();
  EXPECT_EQ(lru.size(), 0U);
  EXPECT_THROW((void)lru.open(*dir_ / "missing.so"), library_load_error);
}

TEST_F(shared_library_test, lru_opens_a_rebuilt_library_afresh) {
  const auto path = *dir_ / "rebuilt.so";
  fs::copy_file(libs_[0], path, fs::copy_options::overwrite_existing);
  library_lru lru(4);
  {
    const auto first = lru.open(path);
    EXPECT_EQ(first->symbol<int()>("rocmtpl_test_value")(), 0);
  }
  // Replace the file the way code_cache does (new inode under the same name).
  const auto tmp = *dir_ / "rebuilt.so.tmp";
  fs::copy_file(libs_[2], tmp, fs::copy_options::overwrite_existing);
  fs::rename(tmp, path);
  // The cache notices the new file; as nothing else holds the old copy, the new one is mapped.
  const auto second = lru.open(path);
  EXPECT_EQ(second->symbol<int()>("rocmtpl_test_value")(), 2);
  EXPECT_EQ(lru.size(), 1U);
}

TEST_F(shared_library_test, lru_is_thread_safe) {
  library_lru lru(2);
  std::atomic<int> wrong{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < 6; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < 200; ++i) {
        const int which = (t + i) % 3;
        const auto lib = lru.open(libs_[static_cast<std::size_t>(which)]);
        if (lib->symbol<int()>("rocmtpl_test_value")() != which) ++wrong;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
  EXPECT_LE(lru.size(), 2U);
  EXPECT_EQ(lru.hits() + lru.misses(), 1200U);
}

}  // namespace
