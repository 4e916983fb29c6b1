// SPDX-License-Identifier: MIT
// Tests runtime/sys/cache_root.hpp: ROCMTPL_CACHE_DIR wins over XDG_CACHE_HOME (used only when absolute)
// which wins over HOME/.cache; the answer is absolute, normalised and created; a file in the way and
// an environment with none of the variables are errors that say so.
#include <rocmtpl/runtime/sys/cache_root.hpp>

#include "support/temp_dir.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>

namespace {
namespace fs = std::filesystem;
using rocmtpl::runtime::cache_directory_error;
using rocmtpl::runtime::cache_root;
using rocmtpl::test::scoped_env;
using rocmtpl::test::temp_dir;

// The three variables cache_root() reads, set (or unset with nullopt) for the scope.
struct cache_env {
  scoped_env rocmtpl_dir;
  scoped_env xdg;
  scoped_env home;
  cache_env(const std::optional<std::string>& dir, const std::optional<std::string>& xdg_home,
            const std::optional<std::string>& home_dir)
      : rocmtpl_dir("ROCMTPL_CACHE_DIR", dir), xdg("XDG_CACHE_HOME", xdg_home), home("HOME", home_dir) {}
};

std::string str(const fs::path& p) { return p.string(); }

TEST(CacheRoot, RocmtplCacheDirWinsAndIsCreated) {
  temp_dir dir;
  const auto wanted = dir.path() / "explicit" / "cache";
  const cache_env env(str(wanted), str(dir.path() / "xdg"), str(dir.path() / "home"));
  EXPECT_EQ(cache_root(), wanted);
  EXPECT_TRUE(fs::is_directory(wanted));
  EXPECT_FALSE(fs::exists(dir.path() / "xdg"));
  EXPECT_FALSE(fs::exists(dir.path() / "home"));
}

// Issue 22 item 9: readers locate the cache folder without creating it.
TEST(CacheRoot, LocationIsTheSameFolderNotCreated) {
  temp_dir dir;
  const auto wanted = dir.path() / "explicit" / "cache";
  const cache_env env(str(wanted) + "/", std::nullopt, std::nullopt);
  EXPECT_EQ(rocmtpl::runtime::cache_root_location(), wanted);
  EXPECT_FALSE(fs::exists(dir.path() / "explicit"));
  EXPECT_EQ(cache_root(), wanted);
  EXPECT_TRUE(fs::is_directory(wanted));
}

TEST(CacheRoot, XdgCacheHomeComesNextThenHome) {
  temp_dir dir;
  {
    const cache_env env(std::nullopt, str(dir.path() / "xdg"), str(dir.path() / "home"));
    EXPECT_EQ(cache_root(), dir.path() / "xdg" / "rocmtpl");
  }
  {
    const cache_env env(std::string(), std::nullopt, str(dir.path() / "home"));  // empty counts as unset
    EXPECT_EQ(cache_root(), dir.path() / "home" / ".cache" / "rocmtpl");
    EXPECT_TRUE(fs::is_directory(dir.path() / "home" / ".cache" / "rocmtpl"));
  }
}

TEST(CacheRoot, RelativeXdgCacheHomeIsIgnored) {
  temp_dir dir;
  const cache_env env(std::nullopt, std::string("relative/xdg"), str(dir.path() / "home"));
  EXPECT_EQ(cache_root(), dir.path() / "home" / ".cache" / "rocmtpl");
}

TEST(CacheRoot, RelativeCacheDirIsMadeAbsolute) {
  temp_dir dir;
  const auto old_cwd = fs::current_path();
  fs::current_path(dir.path());
  const cache_env env(std::string("rel/cache"), std::nullopt, std::nullopt);
  fs::path got;
  try {
    got = cache_root();
  } catch (...) {
    fs::current_path(old_cwd);
    throw;
  }
  fs::current_path(old_cwd);
  EXPECT_TRUE(got.is_absolute()) << got;
  EXPECT_EQ(fs::weakly_canonical(got), fs::weakly_canonical(dir.path() / "rel" / "cache"));
  EXPECT_TRUE(fs::is_directory(dir.path() / "rel" / "cache"));
}

TEST(CacheRoot, TrailingSlashAndDotsAreNormalised) {
  temp_dir dir;
  std::string with_slash = str(dir.path() / "a" / "." / "b");
  with_slash += "/";
  const cache_env env(with_slash, std::nullopt, std::nullopt);
  const auto got = cache_root();
  EXPECT_EQ(got, dir.path() / "a" / "b");
  EXPECT_TRUE(got.has_filename()) << got;
}

TEST(CacheRoot, AFileInTheWayIsAnErrorNamingIt) {
  temp_dir dir;
  const auto file = dir.path() / "not_a_folder";
  rocmtpl::test::write_file(file, "x");
  const cache_env env(str(file), std::nullopt, std::nullopt);
  try {
    (void)cache_root();
    FAIL() << "a file was accepted as the cache folder";
  } catch (const cache_directory_error& e) {
    EXPECT_EQ(e.path(), file);
    EXPECT_NE(std::string(e.what()).find(str(file)), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("rocmtpl: cache:"), std::string::npos) << e.what();
  }
}

TEST(CacheRoot, NothingSetIsAnErrorThatSaysWhatToSet) {
  const cache_env env(std::nullopt, std::nullopt, std::nullopt);
  try {
    (void)cache_root();
    FAIL() << "no variable set, yet a cache folder was found";
  } catch (const cache_directory_error& e) {
    EXPECT_NE(std::string(e.what()).find("ROCMTPL_CACHE_DIR"), std::string::npos) << e.what();
    EXPECT_TRUE(e.path().empty());
  }
}

}  // namespace
