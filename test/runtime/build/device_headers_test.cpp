// SPDX-License-Identifier: MIT
// Tests include/rocmtpl/runtime/build/device_headers.hpp and cache_root.hpp: where the cache lives,
// the ROCMTPL_DEVICE_INCLUDE_DIR override, writing the embedded header once and atomically, and
// many threads and processes asking at the same time.

#include <rocmtpl/detail/hash.hpp>
#include <rocmtpl/device/amd_emulator.hpp>
#include <rocmtpl/device/hip_portable.hpp>
#include <rocmtpl/runtime/build/device_headers.hpp>
#include <rocmtpl/runtime/sys/cache_root.hpp>

#include "support/temp_dir.hpp"

#include <gtest/gtest.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <regex>
#include <string>
#include <thread>
#include <vector>

namespace {

namespace fs = std::filesystem;
using rocmtpl::runtime::cache_directory_error;
using rocmtpl::runtime::cache_root;
using rocmtpl::runtime::device_include_dir;

using rocmtpl::test::read_file;
using rocmtpl::test::scoped_env;
using rocmtpl::test::temp_dir;

std::vector<fs::path> entries(const fs::path& dir) {
  std::vector<fs::path> names;
  for (const auto& e : fs::directory_iterator(dir)) names.push_back(e.path().filename());
  std::sort(names.begin(), names.end());
  return names;
}

// What the folder holds: both headers (sorted by name).
const std::vector<fs::path> both_headers{fs::path(rocmtpl::device::amd_emulator_header_name),
                                         fs::path(rocmtpl::device::portable_header_name)};

const std::string_view header_name = rocmtpl::device::portable_header_name;
const std::string_view header_text = rocmtpl::device::portable_header_source;

TEST(CacheRoot, PrefersRocmtplCacheDir) {
  temp_dir tmp;
  const scoped_env cache("ROCMTPL_CACHE_DIR", (tmp.path() / "a" / "b").string());
  const scoped_env xdg("XDG_CACHE_HOME", (tmp.path() / "xdg").string());
  const fs::path root = cache_root();
  EXPECT_EQ(root, tmp.path() / "a" / "b");
  EXPECT_TRUE(fs::is_directory(root)) << "created";
  EXPECT_FALSE(fs::exists(tmp.path() / "xdg"));
}

TEST(CacheRoot, ThenXdgCacheHomeThenHome) {
  temp_dir tmp;
  const scoped_env cache("ROCMTPL_CACHE_DIR", std::nullopt);
  {
    const scoped_env xdg("XDG_CACHE_HOME", (tmp.path() / "xdg").string());
    EXPECT_EQ(cache_root(), tmp.path() / "xdg" / "rocmtpl");
  }
  {
    // The XDG specification says relative values are to be ignored.
    const scoped_env xdg("XDG_CACHE_HOME", "relative/cache");
    const scoped_env home("HOME", (tmp.path() / "home").string());
    EXPECT_EQ(cache_root(), tmp.path() / "home" / ".cache" / "rocmtpl");
    EXPECT_TRUE(fs::is_directory(tmp.path() / "home" / ".cache" / "rocmtpl"));
  }
  {
    const scoped_env xdg("XDG_CACHE_HOME", std::nullopt);
    const scoped_env home("HOME", std::nullopt);
    EXPECT_THROW((void)cache_root(), cache_directory_error);
  }
}

TEST(CacheRoot, UncreatableFolderIsATypedError) {
  temp_dir tmp;
  std::ofstream(tmp.path() / "file") << "not a folder";
  const scoped_env cache("ROCMTPL_CACHE_DIR", (tmp.path() / "file" / "sub").string());
  try {
    (void)cache_root();
    FAIL() << "expected cache_directory_error";
  } catch (const cache_directory_error& e) {
    EXPECT_EQ(e.path(), tmp.path() / "file" / "sub");
    EXPECT_NE(std::string(e.what()).find("cannot create"), std::string::npos) << e.what();
  }
}

TEST(DeviceHeaders, HashIsSixteenHexDigitsOfTheText) {
  const std::string hex = rocmtpl::runtime::device_header_hash_hex();
  EXPECT_TRUE(std::regex_match(hex, std::regex("[0-9a-f]{16}"))) << hex;
  // Both texts, each framed by its 64-bit length (issue 23: the emulator's header shares the folder).
  const auto framed = [](std::string_view a, std::string_view b) {
    std::string material;
    for (const std::string_view text : {a, b}) {
      const std::uint64_t size = text.size();
      material.append(reinterpret_cast<const char*>(&size), sizeof size);
      material.append(text);
    }
    return XXH3_64bits(material.data(), material.size());
  };
  const std::string_view emu = rocmtpl::device::amd_emulator_header_source;
  EXPECT_EQ(rocmtpl::runtime::device_header_hash(), framed(header_text, emu));
  EXPECT_NE(rocmtpl::runtime::device_header_hash(), framed(header_text, emu.substr(1)));
  EXPECT_NE(rocmtpl::runtime::device_header_hash(), XXH3_64bits(header_text.data(), header_text.size()));
}

TEST(DeviceHeaders, MaterialisedUnderTheCacheRootOnce) {
  temp_dir tmp;
  const scoped_env cache("ROCMTPL_CACHE_DIR", tmp.path().string());
  const scoped_env override_dir("ROCMTPL_DEVICE_INCLUDE_DIR", std::nullopt);
  const fs::path dir = device_include_dir();
  EXPECT_EQ(dir, tmp.path() / "device-include" / rocmtpl::runtime::device_header_hash_hex());
  const fs::path file = dir / header_name;
  ASSERT_TRUE(fs::is_regular_file(file));
  EXPECT_EQ(read_file(file), header_text);
  EXPECT_EQ(read_file(dir / rocmtpl::device::amd_emulator_header_name), rocmtpl::device::amd_emulator_header_source);
  EXPECT_EQ(entries(dir), both_headers) << "no temporary files left";

  // Idempotent: the second call finds the file and leaves it alone (same inode, same mtime).
  struct stat before {};
  ASSERT_EQ(::stat(file.c_str(), &before), 0);
  EXPECT_EQ(device_include_dir(), dir);
  struct stat after {};
  ASSERT_EQ(::stat(file.c_str(), &after), 0);
  EXPECT_EQ(before.st_ino, after.st_ino);
  EXPECT_EQ(before.st_mtim.tv_sec, after.st_mtim.tv_sec);
  EXPECT_EQ(before.st_mtim.tv_nsec, after.st_mtim.tv_nsec);
}

TEST(DeviceHeaders, DamagedCopyIsReplaced) {
  temp_dir tmp;
  const scoped_env cache("ROCMTPL_CACHE_DIR", tmp.path().string());
  const scoped_env override_dir("ROCMTPL_DEVICE_INCLUDE_DIR", std::nullopt);
  const fs::path file = device_include_dir() / header_name;
  // Same size, different bytes: a size check alone would not notice.
  std::string damaged(header_text);
  damaged[damaged.size() / 2] ^= 0x20;
  std::ofstream(file, std::ios::binary | std::ios::trunc) << damaged;
  ASSERT_NE(read_file(file), header_text);
  (void)device_include_dir();
  EXPECT_EQ(read_file(file), header_text);
  std::ofstream(file, std::ios::binary | std::ios::trunc) << "truncated";
  (void)device_include_dir();
  EXPECT_EQ(read_file(file), header_text);
  fs::remove(file);
  (void)device_include_dir();
  EXPECT_EQ(read_file(file), header_text);
}

TEST(DeviceHeaders, EnvironmentOverride) {
  temp_dir tmp;
  const scoped_env cache("ROCMTPL_CACHE_DIR", (tmp.path() / "cache").string());
  const fs::path custom = tmp.path() / "custom";
  fs::create_directories(custom);
  {
    const scoped_env override_dir("ROCMTPL_DEVICE_INCLUDE_DIR", custom.string());
    try {
      (void)device_include_dir();
      FAIL() << "a folder without the header must be refused";
    } catch (const cache_directory_error& e) {
      EXPECT_NE(std::string(e.what()).find("ROCMTPL_DEVICE_INCLUDE_DIR"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(std::string(header_name)), std::string::npos) << e.what();
      EXPECT_EQ(e.path(), custom);
    }
    std::ofstream(custom / header_name) << "// an edited header\n";
    EXPECT_EQ(device_include_dir(), custom);
    EXPECT_EQ(read_file(custom / header_name), "// an edited header\n") << "the override is never rewritten";
    EXPECT_FALSE(fs::exists(tmp.path() / "cache" / "device-include")) << "the cache is not touched";
  }
  {
    const scoped_env override_dir("ROCMTPL_DEVICE_INCLUDE_DIR", "");  // empty means unset
    EXPECT_EQ(device_include_dir().parent_path(), tmp.path() / "cache" / "device-include");
  }
}

TEST(DeviceHeaders, ConcurrentThreadsAgree) {
  temp_dir tmp;
  const scoped_env cache("ROCMTPL_CACHE_DIR", tmp.path().string());
  const scoped_env override_dir("ROCMTPL_DEVICE_INCLUDE_DIR", std::nullopt);
  constexpr int thread_count = 16;
  std::vector<fs::path> results(thread_count);
  std::vector<std::string> errors(thread_count);
  std::vector<std::thread> threads;
  for (int t = 0; t < thread_count; ++t) {
    threads.emplace_back([&, t] {
      try {
        for (int i = 0; i < 20; ++i) {
          results[static_cast<std::size_t>(t)] = device_include_dir();
          // Every reader sees a complete file, never a partial write.
          if (read_file(results[static_cast<std::size_t>(t)] / header_name) != header_text) {
            errors[static_cast<std::size_t>(t)] = "incomplete header seen";
          }
        }
      } catch (const std::exception& e) {
        errors[static_cast<std::size_t>(t)] = e.what();
      }
    });
  }
  for (auto& th : threads) th.join();
  for (int t = 0; t < thread_count; ++t) {
    EXPECT_EQ(errors[static_cast<std::size_t>(t)], "") << "thread " << t;
    EXPECT_EQ(results[static_cast<std::size_t>(t)], results[0]);
  }
  EXPECT_EQ(entries(results[0]), both_headers);
}

TEST(DeviceHeaders, ConcurrentProcessesAgree) {
  temp_dir tmp;
  const scoped_env cache("ROCMTPL_CACHE_DIR", tmp.path().string());
  const scoped_env override_dir("ROCMTPL_DEVICE_INCLUDE_DIR", std::nullopt);
  const fs::path expected = tmp.path() / "device-include" / rocmtpl::runtime::device_header_hash_hex();
  constexpr int process_count = 8;
  // All children wait on one pipe and start together when the parent closes it, so that they
  // race to create the folder and write the file.
  int gate[2];
  ASSERT_EQ(::pipe(gate), 0);
  std::vector<pid_t> children;
  for (int p = 0; p < process_count; ++p) {
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0) << "fork failed";
    if (pid == 0) {
      ::close(gate[1]);
      char byte = 0;
      while (::read(gate[0], &byte, 1) > 0) {
      }
      int code = 0;
      try {
        for (int i = 0; i < 30 && code == 0; ++i) {
          const fs::path dir = device_include_dir();
          if (dir != expected)
            code = 2;
          else if (read_file(dir / header_name) != header_text)
            code = 3;
        }
      } catch (...) {
        code = 4;
      }
      std::_Exit(code);
    }
    children.push_back(pid);
  }
  ::close(gate[0]);
  ::close(gate[1]);
  for (const pid_t pid : children) {
    int status = 0;
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    ASSERT_TRUE(WIFEXITED(status));
    EXPECT_EQ(WEXITSTATUS(status), 0) << "2: another folder, 3: a partial or wrong header, 4: an exception";
  }
  EXPECT_EQ(device_include_dir(), expected);
  EXPECT_EQ(read_file(expected / header_name), header_text);
  EXPECT_EQ(entries(expected), both_headers) << "no temporary files left";
}

}  // namespace
