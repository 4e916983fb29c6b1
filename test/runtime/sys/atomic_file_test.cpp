// SPDX-License-Identifier: MIT
// Tests the library's one atomic file write (runtime/sys/atomic_file.hpp).
#include <rocmtpl/runtime/sys/atomic_file.hpp>

#include "support/runtime.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace fs = std::filesystem;
using rocmtpl::runtime::file_write_error;
using rocmtpl::runtime::detail::file_sync;
using rocmtpl::runtime::detail::write_file_atomic;
using rocmtpl::test::read_file;
using rocmtpl::test::temp_dir;

std::size_t entries_in(const fs::path& dir) {
  std::size_t n = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir)) ++n;
  return n;
}

TEST(AtomicFile, WritesAndReplacesLeavingNoTemporary) {
  temp_dir dir;
  const auto file = dir / "meta.json";
  write_file_atomic(file, "first");
  EXPECT_EQ(read_file(file), "first");
  write_file_atomic(file, std::string("sec\0nd", 6), file_sync::durable);  // bytes, not text
  EXPECT_EQ(read_file(file), std::string("sec\0nd", 6));
  write_file_atomic(file, "");
  EXPECT_TRUE(fs::exists(file));
  EXPECT_EQ(fs::file_size(file), 0U);
  EXPECT_EQ(entries_in(dir.path()), 1U) << "a temporary file was left behind";
}

TEST(AtomicFile, FailureNamesThePathAndLeavesNothing) {
  temp_dir dir;
  const auto missing = dir / "no-such-folder" / "x.json";
  try {
    write_file_atomic(missing, "data");
    FAIL() << "wrote into a missing folder";
  } catch (const file_write_error& e) {
    EXPECT_EQ(e.path(), missing);
    EXPECT_NE(std::string(e.what()).find(missing.string()), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("No such file or directory"), std::string::npos) << e.what();
  }
  // The target is a folder: the rename fails, the temporary is removed.
  fs::create_directories(dir / "taken" / "inner");
  EXPECT_THROW(write_file_atomic(dir / "taken", "data"), file_write_error);
  EXPECT_EQ(entries_in(dir.path()), 1U);
}

TEST(AtomicFile, ConcurrentWritersNeverShowHalfAFile) {
  temp_dir dir;
  const auto file = dir / "shared";
  const std::string a(1 << 20, 'a');
  const std::string b(1 << 20, 'b');
  write_file_atomic(file, a);
  std::atomic<bool> stop{false};
  std::atomic<int> torn{0};
  std::thread reader([&] {
    while (!stop.load()) {
      const auto text = read_file(file);
      if (text != a && text != b) ++torn;
    }
  });
  std::vector<std::thread> writers;
  for (int t = 0; t < 4; ++t) {
    writers.emplace_back([&, t] {
      for (int i = 0; i < 20; ++i) write_file_atomic(file, (t + i) % 2 == 0 ? a : b);
    });
  }
  for (auto& w : writers) w.join();
  stop = true;
  reader.join();
  EXPECT_EQ(torn.load(), 0);
  EXPECT_EQ(entries_in(dir.path()), 1U);
}

TEST(AtomicFile, TemporaryNamesAreUnique) {
  const auto a = rocmtpl::runtime::detail::unique_file_suffix();
  const auto b = rocmtpl::runtime::detail::unique_file_suffix();
  EXPECT_NE(a, b);
  EXPECT_EQ(a.rfind(std::to_string(::getpid()) + "-", 0), 0U) << a;
}

TEST(AtomicFile, TemporariesNameTheirOwner) {
  using rocmtpl::runtime::detail::owner_gone;
  using rocmtpl::runtime::detail::owner_pid;
  EXPECT_EQ(owner_pid(".meta.json.tmp-1234-99887766", ".tmp-"), 1234);
  EXPECT_EQ(owner_pid(".build-77-5", ".build-"), 77);
  EXPECT_EQ(owner_pid("meta.json", ".tmp-"), 0);
  EXPECT_EQ(owner_pid(".x.tmp-12", ".tmp-"), 0);     // no random part: not one of ours
  EXPECT_EQ(owner_pid(".x.tmp-abc-1", ".tmp-"), 0);  // no pid
  EXPECT_FALSE(owner_gone(::getpid()));              // never this process
  EXPECT_FALSE(owner_gone(0));
  const auto suffix = rocmtpl::runtime::detail::unique_file_suffix();
  EXPECT_EQ(owner_pid(".f.tmp-" + suffix, ".tmp-"), ::getpid());
}

}  // namespace
