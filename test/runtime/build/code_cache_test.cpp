// SPDX-License-Identifier: MIT
#include <rocmtpl/runtime/build/code_cache.hpp>

#include <rocmtpl/runtime/sys/process.hpp>
#include <rocmtpl/runtime/sys/shared_library.hpp>

#include "support/runtime.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstdlib>
#include <fstream>
#include <iostream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <sys/wait.h>
#include <unistd.h>

namespace {

using namespace std::chrono_literals;
using rocmtpl::runtime::code_cache;
using rocmtpl::runtime::code_cache_options;
using rocmtpl::runtime::compile_error;
using rocmtpl::runtime::compile_options;
using rocmtpl::runtime::compile_result;
using rocmtpl::runtime::compile_timeout_error;
using rocmtpl::runtime::compiler;
using rocmtpl::runtime::platform;
using rocmtpl::runtime::run_process;
using rocmtpl::runtime::shared_library;
using rocmtpl::test::entry_fn;
using rocmtpl::test::query_workspace;
using rocmtpl::test::scoped_env;
using rocmtpl::test::temp_dir;
namespace fs = std::filesystem;

compile_options amd(std::vector<std::string> archs = {"gfx90a"}) {
  compile_options o;
  o.platform = platform::amd;
  o.archs = std::move(archs);
  return o;
}

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

std::size_t workspace_of(const fs::path& library, std::int64_t n) {
  const shared_library lib(library);
  return query_workspace(lib.symbol<entry_fn>("entry"), n);
}

// A fake hipcc: prints `version` for --version; otherwise counts its runs in <name>.runs, writes
// the -MF dependency file (listing `header` when given) like a real compiler, then runs `action`
// (fail with a message, or sleep for timeouts).
fs::path fake_compiler(const temp_dir& dir, const std::string& name, const std::string& version,
                       const std::string& action, const std::string& header = {}, bool writes_depfile = true) {
  std::string script = "if [ \"$1\" = --version ]; then echo '" + version + "'; exit 0; fi\necho run >> '" +
                       (dir / (name + ".runs")).string() + "'\n";
  if (writes_depfile) {
    script += "prev=; for a in \"$@\"; do if [ \"$prev\" = -MF ]; then echo \"lib.so: " + header +
              "\" > \"$a\"; fi; prev=$a; done\n";
  }
  return rocmtpl::test::write_script(dir / name, script + action + "\n");
}

std::size_t runs_of(const temp_dir& dir, const std::string& name) {
  const auto text = rocmtpl::test::read_file(dir / (name + ".runs"));
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

TEST(code_cache, key_covers_source_command_compiler_and_archs) {
  temp_dir dir;
  const auto fake_a = fake_compiler(dir, "cc_a", "fake 1.0", "exit 1");
  const auto fake_b = fake_compiler(dir, "cc_b", "fake 2.0", "exit 1");
  const compiler a(platform::amd, fake_a);
  const compiler b(platform::amd, fake_b);
  const code_cache cache(dir / "cache");

  const auto k = cache.key(a, "source", amd({"gfx90a", "gfx940"}));
  EXPECT_EQ(k.size(), 32U);
  EXPECT_EQ(k.find_first_not_of("0123456789abcdef"), std::string::npos);
  EXPECT_EQ(cache.key(a, "source", amd({"gfx90a", "gfx940"})), k);  // deterministic
  EXPECT_EQ(cache.key(a, "source", amd({"gfx940", "gfx90a"})), k);  // arch order does not matter
  EXPECT_NE(cache.key(a, "source ", amd({"gfx90a", "gfx940"})), k);
  EXPECT_NE(cache.key(a, "source", amd({"gfx90a"})), k);
  auto defined = amd({"gfx90a", "gfx940"});
  defined.defines = {"X=1"};
  EXPECT_NE(cache.key(a, "source", defined), k);
  auto fast = amd({"gfx90a", "gfx940"});
  fast.fast_math = true;
  EXPECT_NE(cache.key(a, "source", fast), k);
  // Another compiler (path and version) is another key: a new compiler retries failures.
  EXPECT_NE(cache.key(b, "source", amd({"gfx90a", "gfx940"})), k);
  {
    scoped_env append("HIPCC_COMPILE_FLAGS_APPEND", "-O0");  // read by hipcc, not on the command line
    EXPECT_NE(cache.key(a, "source", amd({"gfx90a", "gfx940"})), k);
  }
  // The key does not depend on where the cache lives (placeholders for the paths).
  EXPECT_EQ(code_cache(dir / "elsewhere").key(a, "source", amd({"gfx90a", "gfx940"})), k);
  EXPECT_THROW((void)cache.key(a, "source", amd({"native"})), rocmtpl::invalid_argument_error);
}

TEST(code_cache, default_root_follows_rocmtpl_cache_dir) {
  temp_dir dir;
  scoped_env env("ROCMTPL_CACHE_DIR", dir.path().string());
  EXPECT_EQ(code_cache::default_root(), fs::canonical(dir.path()) / "kernels");
  EXPECT_EQ(code_cache().root(), fs::canonical(dir.path()) / "kernels");
}

// Compile once, then hits: from the same object, from a fresh object (as another process would),
// with the layout and record on disk.
TEST(code_cache, second_call_is_a_hit_without_compiling) {
  ROCMTPL_REQUIRE_COMPILER(cc, platform::amd);
  temp_dir dir;
  code_cache cache(dir / "cache");
  const auto source = rocmtpl::test::entry_source(7);
  const auto opts = amd({"gfx90a", "gfx940"});

  EXPECT_FALSE(cache.lookup(cc, source, opts).has_value());
  auto t0 = std::chrono::steady_clock::now();
  const auto first = cache.get_or_compile(cc, source, opts);
  const double compile_time = seconds_since(t0);
  EXPECT_FALSE(first.cached);
  EXPECT_EQ(cache.compiles(), 1U);
  EXPECT_EQ(cache.misses(), 1U);
  EXPECT_EQ(workspace_of(first.library, 100), 100U * 7 + 64);

  t0 = std::chrono::steady_clock::now();
  const auto second = cache.get_or_compile(cc, source, opts);
  const double hit_time = seconds_since(t0);
  EXPECT_TRUE(second.cached);
  EXPECT_EQ(cache.compiles(), 1U);
  EXPECT_EQ(cache.hits(), 1U);
  EXPECT_EQ(second.library, first.library);
  EXPECT_EQ(second.argv, first.argv);
  EXPECT_EQ(second.log, first.log);
  EXPECT_EQ(second.resources, first.resources);
  EXPECT_EQ(second.resources.size(), 2U);
  EXPECT_DOUBLE_EQ(second.seconds, first.seconds);
  EXPECT_LT(hit_time, compile_time / 5) << "hit " << hit_time << " s, compile " << compile_time << " s";

  code_cache other(dir / "cache");
  const auto third = other.get_or_compile(cc, source, opts);
  EXPECT_TRUE(third.cached);
  EXPECT_EQ(other.compiles(), 0U);
  ASSERT_TRUE(other.lookup(cc, source, opts).has_value());

  // Layout and record.
  const auto key = cache.key(cc, source, opts);
  const auto entry = dir / "cache" / "so" / key.substr(0, 2) / key;
  EXPECT_EQ(first.library, entry / "lib.so");
  EXPECT_EQ(rocmtpl::test::read_file(entry / "source.hip"), source);
  const auto meta = nlohmann::json::parse(rocmtpl::test::read_file(entry / "meta.json"));
  EXPECT_EQ(meta["key"], key);
  EXPECT_EQ(meta["size"].get<std::uintmax_t>(), fs::file_size(entry / "lib.so"));
  EXPECT_EQ(meta["xxh64"].get<std::string>().size(), 16U);
  EXPECT_EQ(meta["argv"].get<std::vector<std::string>>(), first.argv);
  EXPECT_EQ(meta["compiler"]["version"], cc.version());
  EXPECT_FALSE(meta["dependencies"].empty());  // hip_runtime.h and friends
  EXPECT_TRUE(fs::exists(dir / "cache" / "locks" / (key + ".lock")));
  // The recorded command points at the entry, not at a vanished staging folder.
  EXPECT_NE(std::find(first.argv.begin(), first.argv.end(), (entry / "lib.so").string()), first.argv.end());
  EXPECT_EQ(first.argv.back(), (entry / "source.hip").string());
  for (const auto& e : fs::directory_iterator(entry))
    EXPECT_EQ(e.path().filename().string().find(".build-"), std::string::npos);
}

TEST(code_cache, corrupt_library_is_rebuilt_never_loaded) {
  ROCMTPL_REQUIRE_COMPILER(cc, platform::amd);
  temp_dir dir;
  code_cache cache(dir / "cache");
  const auto source = rocmtpl::test::entry_source(3);
  const auto first = cache.get_or_compile(cc, source, amd());
  ASSERT_EQ(cache.compiles(), 1U);
  const auto good_size = fs::file_size(first.library);

  // Truncated (a crash mid-copy, a full disk).
  fs::resize_file(first.library, good_size / 2);
  EXPECT_FALSE(cache.lookup(cc, source, amd()).has_value());
  const auto rebuilt = cache.get_or_compile(cc, source, amd());
  EXPECT_FALSE(rebuilt.cached);
  EXPECT_EQ(cache.compiles(), 2U);
  EXPECT_EQ(fs::file_size(rebuilt.library), good_size);

  // Same size, one byte flipped: only the checksum can tell.
  {
    std::fstream f(rebuilt.library, std::ios::in | std::ios::out | std::ios::binary);
    f.seekg(static_cast<std::streamoff>(good_size / 2));
    char c = 0;
    f.read(&c, 1);
    c = static_cast<char>(c ^ 0x5a);
    f.seekp(static_cast<std::streamoff>(good_size / 2));
    f.write(&c, 1);
  }
  EXPECT_EQ(fs::file_size(rebuilt.library), good_size);
  EXPECT_FALSE(cache.lookup(cc, source, amd()).has_value());
  const auto again = cache.get_or_compile(cc, source, amd());
  EXPECT_EQ(cache.compiles(), 3U);
  EXPECT_EQ(workspace_of(again.library, 10), 10U * 3 + 64);

  // A damaged record is a miss too.
  const auto meta = again.library.parent_path() / "meta.json";
  rocmtpl::test::write_file(meta, "{ truncated");
  EXPECT_FALSE(cache.lookup(cc, source, amd()).has_value());
  (void)cache.get_or_compile(cc, source, amd());
  EXPECT_EQ(cache.compiles(), 4U);
  EXPECT_TRUE(cache.lookup(cc, source, amd()).has_value());
}

TEST(code_cache, failure_is_replayed_without_running_the_compiler) {
  ROCMTPL_REQUIRE_COMPILER(cc, platform::amd);
  temp_dir dir;
  code_cache cache(dir / "cache");
  const std::string source = "#include <hip/hip_runtime.h>\n__global__ void k(float* y) { y[0] = not_declared; }\n";
  std::vector<std::string> argv;
  std::string log;
  try {
    (void)cache.get_or_compile(cc, source, amd());
    FAIL() << "a broken source compiled";
  } catch (const compile_error& e) {
    EXPECT_FALSE(e.cached());
    EXPECT_NE(e.log().find("not_declared"), std::string::npos);
    argv = e.argv();
    log = e.log();
  }
  EXPECT_EQ(cache.compiles(), 1U);
  const auto key = cache.key(cc, source, amd());
  EXPECT_TRUE(fs::exists(cache.entry_dir(key) / "error.json"));
  EXPECT_FALSE(fs::exists(cache.entry_dir(key) / "lib.so"));

  const auto t0 = std::chrono::steady_clock::now();
  try {
    (void)cache.get_or_compile(cc, source, amd());
    FAIL() << "the replay did not throw";
  } catch (const compile_error& e) {
    EXPECT_TRUE(e.cached());
    EXPECT_EQ(e.argv(), argv);
    EXPECT_EQ(e.log(), log);
    EXPECT_EQ(e.source(), source);
    EXPECT_NE(e.exit_code(), 0);
  }
  EXPECT_LT(seconds_since(t0), 0.5);
  EXPECT_EQ(cache.compiles(), 1U);
  EXPECT_EQ(cache.negative_hits(), 1U);

  // Another cache object on the same root (another process) replays it too.
  code_cache other(dir / "cache");
  EXPECT_THROW((void)other.get_or_compile(cc, source, amd()), compile_error);
  EXPECT_EQ(other.compiles(), 0U);

  // Switched off: the compiler runs again.
  code_cache retry(dir / "cache", code_cache_options{.negative_cache = false, .track_dependencies = true});
  EXPECT_THROW((void)retry.get_or_compile(cc, source, amd()), compile_error);
  EXPECT_EQ(retry.compiles(), 1U);

  // Forgotten: the compiler runs again.
  EXPECT_EQ(cache.clear_errors(), 1U);
  EXPECT_FALSE(fs::exists(cache.entry_dir(key) / "error.json"));
  EXPECT_THROW((void)cache.get_or_compile(cc, source, amd()), compile_error);
  EXPECT_EQ(cache.compiles(), 2U);
}

TEST(code_cache, failures_are_per_compiler_version_and_timeouts_are_not_remembered) {
  temp_dir dir;
  const auto v1 = fake_compiler(dir, "v1", "fake 1.0", "echo 'error: v1 rejects this'; exit 1");
  const auto v2 = fake_compiler(dir, "v2", "fake 2.0", "echo 'error: v2 rejects this'; exit 1");
  code_cache cache(dir / "cache");
  const compiler c1(platform::amd, v1);
  const compiler c2(platform::amd, v2);
  EXPECT_THROW((void)cache.get_or_compile(c1, "src", amd()), compile_error);
  EXPECT_THROW((void)cache.get_or_compile(c1, "src", amd()), compile_error);
  EXPECT_EQ(runs_of(dir, "v1"), 1U);
  // A new compiler version gets its own try.
  try {
    (void)cache.get_or_compile(c2, "src", amd());
    FAIL();
  } catch (const compile_error& e) {
    EXPECT_FALSE(e.cached());
    EXPECT_NE(e.log().find("v2 rejects"), std::string::npos);
  }
  EXPECT_EQ(runs_of(dir, "v2"), 1U);

  // A timeout may be the machine's fault: never replayed.
  const auto slow = fake_compiler(dir, "slow", "slow 1.0", "sleep 30");
  const compiler cs(platform::amd, slow);
  auto opts = amd();
  opts.timeout = 1s;
  EXPECT_THROW((void)cache.get_or_compile(cs, "src", opts), compile_timeout_error);
  EXPECT_THROW((void)cache.get_or_compile(cs, "src", opts), compile_timeout_error);
  EXPECT_EQ(runs_of(dir, "slow"), 2U);
  EXPECT_FALSE(fs::exists(cache.entry_dir(cache.key(cs, "src", opts)) / "error.json"));
}

TEST(code_cache, failures_tied_to_a_header_are_retried_once_it_changes) {
  temp_dir dir;
  const auto header = dir / "config.h";
  rocmtpl::test::write_file(header, "#define BROKEN 1\n");
  const auto fake = fake_compiler(dir, "cc", "fake 1.0", "echo 'error: BROKEN'; exit 1", header.string());
  const compiler cc(platform::amd, fake);
  code_cache cache(dir / "cache");
  EXPECT_THROW((void)cache.get_or_compile(cc, "src", amd()), compile_error);
  EXPECT_THROW((void)cache.get_or_compile(cc, "src", amd()), compile_error);
  EXPECT_EQ(runs_of(dir, "cc"), 1U);  // replayed
  EXPECT_EQ(cache.negative_hits(), 1U);
  rocmtpl::test::write_file(header, "#define BROKEN 0 /* fixed */\n");
  EXPECT_THROW((void)cache.get_or_compile(cc, "src", amd()), compile_error);
  EXPECT_EQ(runs_of(dir, "cc"), 2U);  // the header changed: compiled again

  // A failure without a dependency list (a missing header stops the compiler before it writes
  // one) cannot be invalidated, so it is not remembered.
  const auto early = fake_compiler(dir, "early", "early 1.0", "echo 'fatal error: x.h not found'; exit 1", {}, false);
  const compiler ce(platform::amd, early);
  EXPECT_THROW((void)cache.get_or_compile(ce, "src", amd()), compile_error);
  EXPECT_THROW((void)cache.get_or_compile(ce, "src", amd()), compile_error);
  EXPECT_EQ(runs_of(dir, "early"), 2U);
}

TEST(code_cache, real_header_error_is_retried_after_the_fix) {
  ROCMTPL_REQUIRE_COMPILER(cc, platform::amd);
  temp_dir dir;
  const auto inc = dir / "include";
  rocmtpl::test::write_file(inc / "scale.h", "#define ROCMTPL_TEST_SCALE undeclared_identifier\n");
  code_cache cache(dir / "cache");
  const auto source = rocmtpl::test::entry_source(1, "scale.h");
  auto opts = amd();
  opts.include_dirs = {inc};
  EXPECT_THROW((void)cache.get_or_compile(cc, source, opts), compile_error);
  EXPECT_THROW((void)cache.get_or_compile(cc, source, opts), compile_error);
  EXPECT_EQ(cache.compiles(), 1U);
  rocmtpl::test::write_file(inc / "scale.h", "#define ROCMTPL_TEST_SCALE 4\n");
  const auto fixed = cache.get_or_compile(cc, source, opts);
  EXPECT_EQ(cache.compiles(), 2U);
  EXPECT_EQ(workspace_of(fixed.library, 10), 10U * 4 + 64);
  EXPECT_FALSE(fs::exists(fixed.library.parent_path() / "error.json"));
}

TEST(code_cache, edited_header_triggers_a_rebuild) {
  ROCMTPL_REQUIRE_COMPILER(cc, platform::amd);
  temp_dir dir;
  const auto inc = dir / "include";
  rocmtpl::test::write_file(inc / "scale.h", "#define ROCMTPL_TEST_SCALE 5\n");
  code_cache cache(dir / "cache");
  const auto source = rocmtpl::test::entry_source(1, "scale.h");
  auto opts = amd();
  opts.include_dirs = {inc};

  const auto first = cache.get_or_compile(cc, source, opts);
  EXPECT_EQ(workspace_of(first.library, 10), 10U * 5 + 64);
  // Touched, same bytes: still a hit.
  fs::last_write_time(inc / "scale.h", fs::file_time_type::clock::now() + 2s);
  EXPECT_TRUE(cache.get_or_compile(cc, source, opts).cached);
  EXPECT_EQ(cache.compiles(), 1U);
  // Changed bytes: the old library must not be served.
  rocmtpl::test::write_file(inc / "scale.h", "#define ROCMTPL_TEST_SCALE 9\n");
  EXPECT_FALSE(cache.lookup(cc, source, opts).has_value());
  const auto rebuilt = cache.get_or_compile(cc, source, opts);
  EXPECT_FALSE(rebuilt.cached);
  EXPECT_EQ(cache.compiles(), 2U);
  EXPECT_EQ(workspace_of(rebuilt.library, 10), 10U * 9 + 64);

  // Without tracking, no headers are recorded (and the key differs: no -MD on the command line).
  code_cache untracked(dir / "cache", code_cache_options{.negative_cache = true, .track_dependencies = false});
  EXPECT_NE(untracked.key(cc, source, opts), cache.key(cc, source, opts));
}

TEST(code_cache, threads_wanting_one_key_compile_it_once) {
  ROCMTPL_REQUIRE_COMPILER(cc, platform::amd);
  temp_dir dir;
  code_cache cache(dir / "cache");
  const auto source = rocmtpl::test::entry_source(11);
  std::vector<compile_result> results(4);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < results.size(); ++t) {
    threads.emplace_back([&, t] { results[t] = cache.get_or_compile(cc, source, amd()); });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(cache.compiles(), 1U);
  EXPECT_EQ(cache.misses(), 1U);
  EXPECT_EQ(cache.hits(), 3U);
  for (const auto& r : results) EXPECT_EQ(r.library, results.front().library);
  EXPECT_EQ(workspace_of(results.front().library, 1), 11U + 64);
}

// Child side of the two-process race: runs only when the parent test re-executes this binary.
TEST(code_cache, race_child) {
  const char* root = std::getenv("ROCMTPL_TEST_RACE_ROOT");
  if (root == nullptr) GTEST_SKIP() << "helper for two_processes_wanting_one_key_compile_it_once";
  const auto cc = compiler::find(platform::amd);
  code_cache cache{fs::path(root)};
  const auto r = cache.get_or_compile(cc, rocmtpl::test::entry_source(13), amd());
  std::cout << "RESULT compiles=" << cache.compiles() << " cached=" << r.cached << " library=" << r.library.string()
            << " workspace=" << workspace_of(r.library, 2) << "\n";
}

TEST(code_cache, two_processes_wanting_one_key_compile_it_once) {
  ROCMTPL_REQUIRE_COMPILER(cc, platform::amd);
  temp_dir dir;
  const auto self = fs::read_symlink("/proc/self/exe");
  rocmtpl::runtime::process_options po;
  po.env = {{"ROCMTPL_TEST_RACE_ROOT", (dir / "cache").string()}};
  po.timeout = 300s;
  std::vector<rocmtpl::runtime::process_result> results(2);
  std::vector<std::thread> threads;
  for (std::size_t i = 0; i < results.size(); ++i) {
    threads.emplace_back([&, i] {
      results[i] = run_process({self.string(), "--gtest_filter=code_cache.race_child"}, po);
    });
  }
  for (auto& t : threads) t.join();
  std::size_t compiles = 0;
  std::vector<std::string> libraries;
  for (const auto& r : results) {
    ASSERT_TRUE(r.ok()) << r.output;
    const auto line = r.output.substr(r.output.find("RESULT "));
    compiles += static_cast<std::size_t>(std::stoul(line.substr(line.find("compiles=") + 9)));
    libraries.push_back(line.substr(line.find("library=") + 8, line.find(" workspace=") - line.find("library=") - 8));
    EXPECT_NE(line.find("workspace=90"), std::string::npos) << line;  // 2 * 13 + 64
  }
  EXPECT_EQ(compiles, 1U) << results[0].output << results[1].output;
  EXPECT_EQ(libraries[0], libraries[1]);
  // Exactly one of them compiled; the other waited on the lock and then read the entry.
  const bool first_cached = results[0].output.find("cached=1") != std::string::npos;
  const bool second_cached = results[1].output.find("cached=1") != std::string::npos;
  EXPECT_NE(first_cached, second_cached);
}

TEST(code_cache, nvcc_entries_work_the_same_way) {
  ROCMTPL_REQUIRE_COMPILER(cc, platform::nvidia);
  temp_dir dir;
  code_cache cache(dir / "cache");
  const std::string source = R"(#include <cstddef>
#include <cstdint>
__global__ void k(float* y) { y[threadIdx.x] = 1.f; }
extern "C" __attribute__((visibility("default"))) int entry(const float*, float*, int64_t n, size_t* ws, uint8_t*, cudaStream_t) {
  if (ws != nullptr) { *ws = static_cast<size_t>(n) * 5; return 0; }
  return 1;
}
)";
  compile_options o;
  o.platform = platform::nvidia;
  o.archs = {"sm_90"};
  const auto first = cache.get_or_compile(cc, source, o);
  EXPECT_FALSE(first.cached);
  ASSERT_EQ(first.resources.size(), 1U);
  EXPECT_EQ(first.resources[0].arch, "sm_90");
  const auto meta = nlohmann::json::parse(rocmtpl::test::read_file(first.library.parent_path() / "meta.json"));
  EXPECT_FALSE(meta["dependencies"].empty());  // nvcc wrote its -MD list too
  const auto second = cache.get_or_compile(cc, source, o);
  EXPECT_TRUE(second.cached);
  EXPECT_EQ(cache.compiles(), 1U);
  EXPECT_EQ(second.resources, first.resources);
}

TEST(code_cache, clear_and_erase) {
  temp_dir dir;
  const auto bad = fake_compiler(dir, "bad", "bad 1.0", "echo 'bad.hip:1:1: error: bad'; exit 1");
  const compiler cb(platform::amd, bad);
  code_cache cache(dir / "cache");
  EXPECT_THROW((void)cache.get_or_compile(cb, "a", amd()), compile_error);
  EXPECT_THROW((void)cache.get_or_compile(cb, "b", amd()), compile_error);
  const auto ka = cache.key(cb, "a", amd());
  EXPECT_TRUE(cache.erase(ka));
  EXPECT_FALSE(fs::exists(cache.entry_dir(ka)));
  EXPECT_THROW((void)cache.get_or_compile(cb, "a", amd()), compile_error);
  EXPECT_EQ(runs_of(dir, "bad"), 3U);  // erased: compiled again; "b" untouched
  cache.clear();
  EXPECT_FALSE(fs::exists(dir / "cache" / "so"));
  EXPECT_THROW((void)cache.get_or_compile(cb, "b", amd()), compile_error);
  EXPECT_EQ(runs_of(dir, "bad"), 4U);
}

// Issue 8: a compile that failed because of the machine is not remembered; a source error is.
TEST(code_cache, environment_failures_are_not_remembered) {
  temp_dir dir;
  code_cache cache(dir / "cache");
  const std::vector<std::pair<std::string, std::string>> environment_failures = {
      {"killed", "echo 'compiling...'; kill -KILL $$"},
      {"exec_failed", "echo 'hipcc: cannot exec clang'; exit 127"},
      {"unwritable", "echo \"ld: error: cannot open output file lib.so: Permission denied\"; exit 1"},
      {"silent", "exit 1"},
  };
  for (const auto& [name, action] : environment_failures) {
    const compiler cc(platform::amd, fake_compiler(dir, name, name + " 1.0", action));
    for (int attempt = 0; attempt < 2; ++attempt) {
      try {
        (void)cache.get_or_compile(cc, "src", amd());
        FAIL() << name << ": compiled";
      } catch (const compile_error& e) {
        EXPECT_EQ(e.failure(), rocmtpl::runtime::compile_failure::environment) << name << ": " << e.what();
        EXPECT_FALSE(e.cached()) << name;
      }
    }
    EXPECT_EQ(runs_of(dir, name), 2U) << name << ": the second call must run the compiler again";
    EXPECT_FALSE(fs::exists(cache.entry_dir(cache.key(cc, "src", amd())) / "error.json")) << name;
  }
  EXPECT_EQ(cache.negative_hits(), 0U);

  // The source's own error is remembered (the control: the same machinery does cache).
  const compiler bad(platform::amd,
                     fake_compiler(dir, "bad", "bad 1.0", "echo 'src.hip:2:7: error: unknown type'; exit 1"));
  EXPECT_THROW((void)cache.get_or_compile(bad, "src", amd()), compile_error);
  try {
    (void)cache.get_or_compile(bad, "src", amd());
    FAIL();
  } catch (const compile_error& e) {
    EXPECT_TRUE(e.cached());
    EXPECT_EQ(e.failure(), rocmtpl::runtime::compile_failure::source);
  }
  EXPECT_EQ(runs_of(dir, "bad"), 1U);
}

// Issue 8: hipcc runs clang through a shell with arguments in double quotes; a cache folder with
// $ ` " or \ would fail every compile. Refused before anything runs, naming ROCMTPL_CACHE_DIR.
TEST(code_cache, cache_folder_hipcc_cannot_handle_is_refused_up_front) {
  temp_dir dir;
  const compiler cc(platform::amd, fake_compiler(dir, "cc", "fake 1.0", "echo 'x.hip:1:1: error: no'; exit 1"));
  for (const std::string bad : {"ca$he", "ca`he", "ca\"he", "ca\\he", "ca\nhe"}) {
    code_cache cache(dir / bad);
    try {
      (void)cache.get_or_compile(cc, "src", amd());
      FAIL() << "accepted " << bad;
    } catch (const rocmtpl::runtime::unsupported_path_error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("ROCMTPL_CACHE_DIR"), std::string::npos) << what;
      EXPECT_NE(what.find((dir / bad).string()), std::string::npos) << what;
      EXPECT_EQ(e.path(), dir / bad);
    }
  }
  EXPECT_EQ(runs_of(dir, "cc"), 0U) << "nothing may be spawned";
  // Spaces, quotes and shell operators are fine for hipcc (measured): the compiler runs.
  code_cache spaced(dir / "my cache; (v2) & 'x'");
  EXPECT_THROW((void)spaced.get_or_compile(cc, "src", amd()), compile_error);
  EXPECT_EQ(runs_of(dir, "cc"), 1U);
  // nvcc is a program, not a script: any path is passed as it is.
  const compiler nv(platform::nvidia, fake_compiler(dir, "nv", "nv 1.0", "echo 'x.cu(1): error: no'; exit 1"));
  compile_options o;
  o.platform = platform::nvidia;
  o.archs = {"sm_90"};
  code_cache dollar(dir / "ca$he");
  EXPECT_THROW((void)dollar.get_or_compile(nv, "src", o), compile_error);
}

// Issue 8: a process killed mid-compile leaves `.build-<pid>-...`; the next compile of that entry
// removes it once that pid is gone, and leaves a live owner's folder alone.
TEST(code_cache, staging_folders_of_dead_processes_are_reclaimed) {
  temp_dir dir;
  const compiler cc(platform::amd, fake_compiler(dir, "cc", "fake 1.0", "echo 'x.hip:1:1: error: no'; exit 1"));
  code_cache cache(dir / "cache", code_cache_options{.negative_cache = false, .track_dependencies = true});
  const auto entry = cache.entry_dir(cache.key(cc, "src", amd()));
  // A pid that is certainly gone: a child that has exited and been reaped.
  const auto done = run_process({"sh", "-c", "echo $$"});
  const int dead_pid = std::stoi(done.output);
  ASSERT_NE(::kill(dead_pid, 0), 0);
  // A live owner: a child that sleeps until the test ends.
  rocmtpl::runtime::child_process live({"sleep", "30"});
  const auto dead_dir = entry / (".build-" + std::to_string(dead_pid) + "-1234");
  const auto live_dir = entry / (".build-" + std::to_string(live.pid()) + "-5678");
  fs::create_directories(dead_dir);
  fs::create_directories(live_dir);
  rocmtpl::test::write_file(dead_dir / "lib.so", "half a library");
  // Half-written temporaries of the atomic write, from a dead and from a live writer.
  const auto dead_tmp = entry / (".meta.json.tmp-" + std::to_string(dead_pid) + "-42");
  const auto live_tmp = entry / (".meta.json.tmp-" + std::to_string(live.pid()) + "-43");
  rocmtpl::test::write_file(dead_tmp, "{\"for");
  rocmtpl::test::write_file(live_tmp, "{\"for");
  EXPECT_THROW((void)cache.get_or_compile(cc, "src", amd()), compile_error);
  EXPECT_FALSE(fs::exists(dead_dir)) << "the dead owner's staging folder must be reclaimed";
  EXPECT_TRUE(fs::exists(live_dir)) << "a live owner's staging folder must be kept";
  EXPECT_FALSE(fs::exists(dead_tmp)) << "the dead writer's temporary must be reclaimed";
  EXPECT_TRUE(fs::exists(live_tmp)) << "a live writer's temporary must be kept";
}

// ---- issue 22 item 11: a complete cache that cannot be written -----------------------------------

// A fake compiler whose compiles succeed: it copies a shared object the host compiler built (so
// that the artefact check passes) to -o and writes the -MF file.
struct copying_compiler {
  temp_dir dir;
  fs::path script;
  bool usable = false;

  copying_compiler() {
    const auto cxx = rocmtpl::runtime::find_executable("c++");
    if (!cxx) return;
    rocmtpl::test::write_file(dir / "lib.cpp", "extern \"C\" int rocmtpl_ro_entry(int a) { return a; }\n");
    usable =
        run_process({cxx->string(), "-shared", "-fPIC", "-o", (dir / "lib.so").string(), (dir / "lib.cpp").string()},
                    {.timeout = 120s})
            .ok();
    script = rocmtpl::test::write_script(
        dir / "copycc",
        "if [ \"$1\" = --version ]; then echo 'copy 1.0'; exit 0; fi\necho run >> '" + (dir / "runs").string() +
            "'\nprev=; for a in \"$@\"; do\n  if [ \"$prev\" = -o ]; then cp '" + (dir / "lib.so").string() +
            "' \"$a\"; fi\n  if [ \"$prev\" = -MF ]; then echo 'lib.so:' > \"$a\"; fi\n  prev=$a\ndone\n");
  }
};

bool mentions(const std::string& text, std::string_view part) { return text.find(part) != std::string::npos; }

TEST(code_cache, a_read_only_cache_serves_hits_and_says_a_miss_cannot_be_compiled) {
  copying_compiler fake;
  if (!fake.usable) GTEST_SKIP() << "no host C++ compiler (c++) to build the fake compiler's output with";
  temp_dir dir;
  const compiler cc(platform::amd, fake.script);
  {
    code_cache writer(dir / "cache");
    EXPECT_FALSE(writer.get_or_compile(cc, "// kernel A\n", amd()).cached);
  }
  fs::remove_all(dir / "cache" / "locks");  // so that a lock file made by reading would show
  code_cache reader(dir / "cache", {.read_only = true});
  const auto hit = reader.get_or_compile(cc, "// kernel A\n", amd());
  EXPECT_TRUE(hit.cached);
  EXPECT_TRUE(fs::is_regular_file(hit.library));
  try {
    (void)reader.get_or_compile(cc, "// kernel B\n", amd());
    FAIL() << "a read-only cache compiled";
  } catch (const rocmtpl::runtime::code_cache_read_only_error& e) {
    const std::string what = e.what();
    EXPECT_TRUE(mentions(what, "the kernel cache " + (dir / "cache").string() + " is read-only (opened read-only"))
        << what;
    EXPECT_TRUE(mentions(what, "is not in it and cannot be compiled into it")) << what;
    EXPECT_TRUE(mentions(what, "ROCMTPL_CACHE_DIR")) << what;
  }
  EXPECT_EQ(reader.compiles(), 0U);
  EXPECT_EQ(reader.hits(), 1U);
  EXPECT_FALSE(fs::exists(dir / "cache" / "locks")) << "reading wrote a lock file";
}

// The same without the switch, on a cache that really cannot be written: made read-only with
// chmod -R a-w where this runs as another user than root; as root (whom file modes do not stop) in a
// mount namespace of its own, on a read-only bind mount of the cache (a fork does it, so that nothing
// outside the test sees the mount). Skipped, with why, where neither is possible.
TEST(code_cache, a_cache_that_cannot_be_written_is_detected_and_still_serves_hits) {
  copying_compiler fake;
  if (!fake.usable) GTEST_SKIP() << "no host C++ compiler (c++) to build the fake compiler's output with";
  temp_dir dir;
  const auto root = dir / "cache";
  const compiler cc(platform::amd, fake.script);
  (void)code_cache(root).get_or_compile(cc, "// kernel A\n", amd());
  (void)cc.version();  // asked before the fork: the child spawns nothing it need not
  const bool as_root = ::geteuid() == 0;
  if (!as_root) {
    for (const auto& e : fs::recursive_directory_iterator(root)) {
      fs::permissions(e.path(), fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write,
                      fs::perm_options::remove);
    }
    fs::permissions(root, fs::perms::owner_write | fs::perms::group_write | fs::perms::others_write,
                    fs::perm_options::remove);
  }
  const pid_t child = ::fork();
  if (child == 0) {
    int code = 0;
    try {
      if (as_root) {
        if (::unshare(CLONE_NEWNS) != 0) ::_exit(77);
        if (::mount("none", "/", nullptr, MS_REC | MS_PRIVATE, nullptr) != 0) ::_exit(77);
        if (::mount(root.c_str(), root.c_str(), nullptr, MS_BIND | MS_REC, nullptr) != 0) ::_exit(77);
        if (::mount(nullptr, root.c_str(), nullptr, MS_REMOUNT | MS_BIND | MS_RDONLY, nullptr) != 0) ::_exit(77);
      }
      code_cache cache(root);
      if (!cache.get_or_compile(cc, "// kernel A\n", amd()).cached) ::_exit(10);
      try {
        (void)cache.get_or_compile(cc, "// kernel B\n", amd());
        code = 11;
      } catch (const rocmtpl::runtime::code_cache_read_only_error& e) {
        const std::string what = e.what();
        const std::string why = as_root ? "is read-only (on a read-only file system)" : "is not writable by this user";
        if (!mentions(what, why) || !mentions(what, "cannot be compiled into it")) code = 12;
      }
      if (cache.compiles() != 0) code = 13;
    } catch (...) {
      code = 14;
    }
    ::_exit(code);
  }
  int status = 0;
  ASSERT_EQ(::waitpid(child, &status, 0), child);
  if (!as_root) {
    for (const auto& e : fs::recursive_directory_iterator(root)) {
      fs::permissions(e.path(), fs::perms::owner_write, fs::perm_options::add);
    }
    fs::permissions(root, fs::perms::owner_write, fs::perm_options::add);
  }
  ASSERT_TRUE(WIFEXITED(status)) << status;
  if (WEXITSTATUS(status) == 77) {
    GTEST_SKIP() << "running as root, and no mount namespace with a read-only bind mount could be made here "
                    "(file modes do not stop root); the read-only path is covered by code_cache_options::read_only";
  }
  EXPECT_EQ(WEXITSTATUS(status), 0)
      << "10: no hit, 11: a miss compiled, 12: the message, 13: the compiler ran, 14: threw";
}

TEST(code_cache, depfile_parser) {
  using rocmtpl::runtime::detail::code_cache_impl::parse_depfile;
  const auto clang = parse_depfile("/out/lib.so: /src/k.hip \\\n  /inc/a\\ b.h /inc/c.h \\\n  /inc/$$d.h\n");
  EXPECT_EQ(clang, (std::vector<fs::path>{"/src/k.hip", "/inc/a b.h", "/inc/c.h", "/inc/$d.h"}));
  const auto nvcc = parse_depfile(
      "lib.so : k.cu \\\n    /usr/include/stdc-predef.h \\\n    /cuda/include/cuda_runtime.h\n\nextra.h:\n");
  EXPECT_EQ(nvcc, (std::vector<fs::path>{"k.cu", "/usr/include/stdc-predef.h", "/cuda/include/cuda_runtime.h"}));
  EXPECT_TRUE(parse_depfile("").empty());
}

}  // namespace
