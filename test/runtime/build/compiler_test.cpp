// SPDX-License-Identifier: MIT
#include <rocmtpl/runtime/build/compiler.hpp>

#include <rocmtpl/runtime/sys/shared_library.hpp>

#include "support/runtime.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

namespace {

using namespace std::chrono_literals;
using rocmtpl::invalid_argument_error;
using rocmtpl::runtime::compile_error;
using rocmtpl::runtime::compile_options;
using rocmtpl::runtime::compile_timeout_error;
using rocmtpl::runtime::compiler;
using rocmtpl::runtime::compiler_not_found_error;
using rocmtpl::runtime::platform;
using rocmtpl::runtime::shared_library;
using rocmtpl::test::scoped_env;
using rocmtpl::test::temp_dir;
namespace fs = std::filesystem;

bool contains(const std::vector<std::string>& v, std::string_view s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

// A stand-in "compiler" so that the command line can be checked without hipcc or nvcc installed.
struct fake_compiler {
  temp_dir dir;
  fs::path path = rocmtpl::test::write_script(dir / "fakecc", "echo fake 1.0\n");
};

compile_options amd(std::vector<std::string> archs) {
  compile_options o;
  o.platform = platform::amd;
  o.archs = std::move(archs);
  return o;
}

TEST(compiler, amd_command_line) {
  fake_compiler fake;
  const compiler cc(platform::amd, fake.path);
  auto o = amd({"gfx940", "gfx90a", "gfx940"});
  o.include_dirs = {"/opt/ck include"};
  o.defines = {"ROCMTPL_TILE=128", "NDEBUG"};
  o.extra_flags = {"-Wno-unused"};
  const auto argv = cc.command(o, "/src/k.hip", "/out/k.so");
  const std::vector<std::string> expected = {fake.path.string(), "-O3", "-x", "hip", "-std=c++17",
                                             // sorted, deduplicated (clang sorts them anyway)
                                             "--offload-arch=gfx90a", "--offload-arch=gfx940", "-fno-gpu-rdc", "-fPIC",
                                             "-shared", "-fvisibility=hidden", "-Rpass-analysis=kernel-resource-usage",
                                             "-DROCMTPL_TILE=128", "-DNDEBUG", "-I/opt/ck include", "-Wno-unused", "-o",
                                             "/out/k.so", "/src/k.hip"};
  EXPECT_EQ(argv, expected);
  // Upstream's compile-time blow-up flags (pytorch PR #195023) are never passed; no fast math by default.
  for (const auto& a : argv) {
    EXPECT_EQ(a.find("-mllvm"), std::string::npos);
    EXPECT_EQ(a.find("amdgpu-early-inline-all"), std::string::npos);
    EXPECT_EQ(a.find("fast-math"), std::string::npos);
    EXPECT_EQ(a.find("native"), std::string::npos);
  }

  o.fast_math = true;
  o.resource_usage = false;
  o.opt_level = 1;
  o.dependency_file = "/out/k.d";
  const auto fast = cc.command(o, "/src/k.hip", "/out/k.so");
  EXPECT_EQ(fast[1], "-O1");
  EXPECT_TRUE(contains(fast, "-ffast-math"));
  EXPECT_TRUE(contains(fast, "-fgpu-flush-denormals-to-zero"));
  EXPECT_FALSE(contains(fast, "-Rpass-analysis=kernel-resource-usage"));
  const auto md = std::find(fast.begin(), fast.end(), "-MD");
  ASSERT_NE(md, fast.end());
  EXPECT_EQ(*(md + 1), "-MF");
  EXPECT_EQ(*(md + 2), "/out/k.d");

  // Relative paths become absolute: the compiler runs in the output's folder.
  const auto rel = cc.command(amd({"gfx90a"}), "k.hip", "out/k.so");
  EXPECT_EQ(rel.back(), (fs::current_path() / "k.hip").string());
  EXPECT_TRUE(contains(rel, (fs::current_path() / "out/k.so").string()));
  EXPECT_EQ(cc.environment(), (std::vector<std::pair<std::string, std::string>>{{"HIP_PLATFORM", "amd"}}));
}

TEST(compiler, nvidia_command_line) {
  fake_compiler fake;
  const compiler cc(platform::nvidia, fake.path);
  compile_options o;
  o.platform = platform::nvidia;
  o.archs = {"sm_90a", "sm_80"};
  o.include_dirs = {"/inc"};
  o.defines = {"X=1"};
  const auto argv = cc.command(o, "/src/k.hip", "/out/k.so");
  const std::vector<std::string> expected = {fake.path.string(),
                                             "-O3",
                                             "-std=c++17",
                                             "-shared",
                                             "-Xcompiler",
                                             "-fPIC,-fvisibility=hidden",
                                             "-cudart",
                                             "shared",
                                             "-gencode",
                                             "arch=compute_80,code=sm_80",
                                             "-gencode",
                                             "arch=compute_90a,code=sm_90a",
                                             "-Xptxas",
                                             "-v",
                                             "-DX=1",
                                             "-I/inc",
                                             "-o",
                                             "/out/k.so",
                                             "-x",
                                             "cu",
                                             "/src/k.hip"};
  EXPECT_EQ(argv, expected);
  o.fast_math = true;
  EXPECT_TRUE(contains(cc.command(o, "/src/k.hip", "/out/k.so"), "-use_fast_math"));
}

TEST(compiler, options_are_validated) {
  fake_compiler fake;
  const compiler cc(platform::amd, fake.path);
  try {
    (void)cc.command(amd({"native"}), "/a.hip", "/a.so");
    FAIL() << "native accepted";
  } catch (const invalid_argument_error& e) {
    EXPECT_NE(std::string(e.what()).find("native"), std::string::npos);
  }
  EXPECT_THROW((void)cc.command(amd({}), "/a.hip", "/a.so"), invalid_argument_error);
  EXPECT_THROW((void)cc.command(amd({"sm_90"}), "/a.hip", "/a.so"), invalid_argument_error);
  EXPECT_THROW((void)cc.command(amd({"gfx90a:bogus+"}), "/a.hip", "/a.so"), invalid_argument_error);
  EXPECT_THROW((void)cc.command(amd({"gfx90a; rm -rf /"}), "/a.hip", "/a.so"), invalid_argument_error);
  EXPECT_NO_THROW((void)cc.command(amd({"gfx90a:xnack+", "gfx1030"}), "/a.hip", "/a.so"));
  auto bad_level = amd({"gfx90a"});
  bad_level.opt_level = 4;
  EXPECT_THROW((void)cc.command(bad_level, "/a.hip", "/a.so"), invalid_argument_error);
  auto bad_define = amd({"gfx90a"});
  bad_define.defines = {"-O0"};
  EXPECT_THROW((void)cc.command(bad_define, "/a.hip", "/a.so"), invalid_argument_error);
  auto wrong_platform = amd({"gfx90a"});
  wrong_platform.platform = platform::nvidia;
  EXPECT_THROW((void)cc.command(wrong_platform, "/a.hip", "/a.so"), invalid_argument_error);

  const compiler nv(platform::nvidia, fake.path);
  compile_options n;
  n.platform = platform::nvidia;
  n.archs = {"native"};
  EXPECT_THROW((void)nv.command(n, "/a.cu", "/a.so"), invalid_argument_error);
  n.archs = {"all-major"};
  EXPECT_THROW((void)nv.command(n, "/a.cu", "/a.so"), invalid_argument_error);
  n.archs = {"gfx90a"};
  EXPECT_THROW((void)nv.command(n, "/a.cu", "/a.so"), invalid_argument_error);
  n.archs = {"sm_100f", "sm_90"};
  EXPECT_NO_THROW((void)nv.command(n, "/a.cu", "/a.so"));
}

TEST(compiler, missing_compiler_names_the_package) {
  {
    scoped_env hipcc("ROCMTPL_HIPCC", "/nonexistent/bin/hipcc");
    try {
      (void)compiler::find(platform::amd);
      FAIL() << "found a compiler at a nonexistent path";
    } catch (const compiler_not_found_error& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find("apt-get install hipcc"), std::string::npos) << what;
      EXPECT_NE(what.find("/nonexistent/bin/hipcc"), std::string::npos) << what;
      EXPECT_EQ(e.platform(), platform::amd);
    }
  }
  {
    scoped_env nvcc("ROCMTPL_NVCC", "/nonexistent/bin/nvcc");
    try {
      (void)compiler::find(platform::nvidia);
      FAIL() << "found a compiler at a nonexistent path";
    } catch (const compiler_not_found_error& e) {
      EXPECT_NE(std::string(e.what()).find("CUDA toolkit"), std::string::npos) << e.what();
    }
  }
  {
    // Nothing anywhere: every place searched is listed.
    temp_dir empty;
    scoped_env a("ROCMTPL_HIPCC", std::nullopt);
    scoped_env b("ROCM_PATH", empty.path().string());
    scoped_env c("PATH", empty.path().string());
    try {
      (void)compiler::find(platform::amd);
      FAIL() << "found hipcc with an empty PATH";
    } catch (const compiler_not_found_error& e) {
      ASSERT_EQ(e.searched().size(), 2U);
      EXPECT_EQ(e.searched()[0], (empty.path() / "bin" / "hipcc").string());
    }
  }
  EXPECT_THROW(compiler(platform::amd, "/nonexistent/hipcc"), compiler_not_found_error);
}

// Issue 22 item 3: a compiler whose `--version` hangs is reported as hung (the command, "timed
// out", after how long), not as "not found ... exit code -1"; the failed probe is remembered, so
// that every later compile does not wait for it again.
TEST(compiler, a_hanging_version_probe_is_reported_as_a_timeout) {
  temp_dir dir;
  scoped_env cache("ROCMTPL_CACHE_DIR", (dir / "cache").string());
  scoped_env timeout("ROCMTPL_COMPILER_PROBE_TIMEOUT", "0.5");
  const auto hang = rocmtpl::test::write_script(dir / "hangcc", "echo starting; sleep 30\n");
  const compiler cc(platform::amd, hang);
  const auto t0 = std::chrono::steady_clock::now();
  try {
    (void)cc.version();
    FAIL() << "a hanging --version answered";
  } catch (const rocmtpl::runtime::compiler_unusable_error& e) {
    const std::string what = e.what();
    EXPECT_TRUE(e.timed_out());
    EXPECT_NE(what.find("hipcc at " + hang.string() + " does not work: `" + hang.string() +
                        " --version` timed out "
                        "after 0.5 s and was killed"),
              std::string::npos)
        << what;
    EXPECT_NE(what.find("ROCMTPL_COMPILER_PROBE_TIMEOUT"), std::string::npos) << what;
    EXPECT_NE(what.find("it printed: starting"), std::string::npos) << what;
    EXPECT_EQ(what.find("not found"), std::string::npos) << what;
    EXPECT_EQ(what.find("exit code"), std::string::npos) << what;
  }
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 5s);
  // Remembered: thrown again at once, also as the compiler_not_found_error callers skip on.
  const auto t1 = std::chrono::steady_clock::now();
  EXPECT_THROW((void)cc.version(), compiler_not_found_error);
  EXPECT_LT(std::chrono::steady_clock::now() - t1, 200ms);
  EXPECT_EQ(rocmtpl::runtime::compiler_probe_timeout(), 500ms);
}

TEST(compiler, a_failing_version_probe_names_the_command_and_the_exit_code) {
  temp_dir dir;
  scoped_env cache("ROCMTPL_CACHE_DIR", (dir / "cache").string());
  const auto broken = rocmtpl::test::write_script(dir / "brokencc", "echo 'libfoo.so: cannot open'; exit 3\n");
  try {
    (void)compiler(platform::nvidia, broken).version();
    FAIL() << "a failing --version answered";
  } catch (const rocmtpl::runtime::compiler_unusable_error& e) {
    const std::string what = e.what();
    EXPECT_FALSE(e.timed_out());
    EXPECT_NE(what.find("nvcc at " + broken.string() + " does not work: `" + broken.string() +
                        " --version` failed with exit code 3; it printed: libfoo.so: cannot open"),
              std::string::npos)
        << what;
  }
  for (const char* bad : {"0", "-1", "ten", "5s"}) {
    scoped_env timeout("ROCMTPL_COMPILER_PROBE_TIMEOUT", bad);
    EXPECT_THROW((void)rocmtpl::runtime::compiler_probe_timeout(), invalid_argument_error) << bad;
  }
  scoped_env unset("ROCMTPL_COMPILER_PROBE_TIMEOUT", std::nullopt);
  EXPECT_EQ(rocmtpl::runtime::compiler_probe_timeout(), 60s);
}

TEST(compiler, override_variable_is_used) {
  fake_compiler fake;
  scoped_env hipcc("ROCMTPL_HIPCC", fake.path.string());
  const auto cc = compiler::find(platform::amd);
  EXPECT_EQ(cc.path(), fake.path);
  EXPECT_EQ(cc.version(), "fake 1.0");
}

TEST(compiler, real_hipcc_version) {
  ROCMTPL_REQUIRE_COMPILER(cc, platform::amd);
  const auto& v = cc.version();
  EXPECT_NE(v.find("clang version"), std::string::npos) << v;
  EXPECT_EQ(v.find("Traceback"), std::string::npos) << v;  // rocm_agent_enumerator noise kept out
  EXPECT_EQ(&cc.version(), &cc.version());                 // cached
}

// The main path: build the C-ABI entry point for two archs, load it, query the workspace.
TEST(compiler, hipcc_builds_a_loadable_library) {
  ROCMTPL_REQUIRE_COMPILER(cc, platform::amd);
  temp_dir dir;
  const auto src = dir / "with space" / "entry.hip";
  rocmtpl::test::write_file(src, rocmtpl::test::entry_source(12));
  const auto out = dir / "build" / "libentry.so";
  const auto r = cc.compile(src, amd({"gfx940", "gfx90a"}), out);
  EXPECT_EQ(r.library, out);
  EXPECT_TRUE(fs::is_regular_file(out));
  EXPECT_FALSE(r.cached);
  EXPECT_GT(r.seconds, 0.0);
  EXPECT_EQ(r.argv, cc.command(amd({"gfx90a", "gfx940"}), src, out));
  // Nothing is left next to the source or the library.
  EXPECT_EQ(std::distance(fs::directory_iterator(src.parent_path()), fs::directory_iterator()), 1);
  EXPECT_EQ(std::distance(fs::directory_iterator(out.parent_path()), fs::directory_iterator()), 1);

  // One resource record per kernel and arch, attributed.
  ASSERT_EQ(r.resources.size(), 2U) << r.log;
  std::vector<std::string> archs;
  for (const auto& k : r.resources) {
    EXPECT_EQ(k.kernel, "scale_kernel(float const*, float*, long)");
    EXPECT_EQ(k.lds_bytes, 1024);
    EXPECT_GT(k.vgprs, 0);
    archs.push_back(k.arch);
  }
  std::sort(archs.begin(), archs.end());
  EXPECT_EQ(archs, (std::vector<std::string>{"gfx90a", "gfx940"}));

  const shared_library lib(out);
  auto* entry = lib.symbol<rocmtpl::test::entry_fn>("entry");
  for (std::int64_t n : {0, 1, 1000, 1 << 20}) {
    EXPECT_EQ(rocmtpl::test::query_workspace(entry, n), static_cast<std::size_t>(n) * 12 + 64);
  }
  // A launch with null pointers is refused with a code, not a crash (checked before any HIP call).
  EXPECT_EQ(entry(nullptr, nullptr, 10, nullptr, nullptr, nullptr), 1);
}

TEST(compiler, broken_source_gives_compile_error_with_log_and_source) {
  ROCMTPL_REQUIRE_COMPILER(cc, platform::amd);
  temp_dir dir;
  const auto src = dir / "broken.hip";
  const std::string text = "#include <hip/hip_runtime.h>\n__global__ void k(float* y) {\n  y[0] = undefined_name;\n}\n";
  rocmtpl::test::write_file(src, text);
  const auto out = dir / "broken.so";
  try {
    (void)cc.compile(src, amd({"gfx90a"}), out);
    FAIL() << "a broken source compiled";
  } catch (const compile_error& e) {
    EXPECT_NE(e.exit_code(), 0);
    EXPECT_NE(e.log().find("undefined_name"), std::string::npos) << e.log();
    EXPECT_NE(e.log().find("error"), std::string::npos);
    EXPECT_EQ(e.argv(), cc.command(amd({"gfx90a"}), src, out));
    EXPECT_EQ(e.source(), text);
    EXPECT_EQ(e.source_path(), src);
    EXPECT_FALSE(e.cached());
    EXPECT_NE(e.source_with_line_numbers().find("3 |   y[0] = undefined_name;"), std::string::npos)
        << e.source_with_line_numbers();
    const std::string what = e.what();
    EXPECT_NE(what.find("undefined_name"), std::string::npos);  // the message shows the log's head
    EXPECT_NE(what.find(src.string()), std::string::npos);
    // Issue 8: the first line is the compiler's own first error, not "exit code 1".
    const auto first = what.substr(0, what.find('\n'));
    EXPECT_NE(first.find("error"), std::string::npos) << first;
    EXPECT_NE(first.find("undefined_name"), std::string::npos) << first;
    EXPECT_EQ(e.first_error_line(), first.substr(std::string_view("rocmtpl: ").size()));
    EXPECT_EQ(e.failure(), rocmtpl::runtime::compile_failure::source);
  }
  EXPECT_FALSE(fs::exists(out));
}

TEST(compiler, bad_flag_gives_compile_error) {
  ROCMTPL_REQUIRE_COMPILER(cc, platform::amd);
  temp_dir dir;
  const auto src = dir / "ok.hip";
  rocmtpl::test::write_file(src, rocmtpl::test::entry_source(1));
  auto o = amd({"gfx90a"});
  o.extra_flags = {"--rocmtpl-no-such-flag"};
  try {
    (void)cc.compile(src, o, dir / "ok.so");
    FAIL() << "an unknown flag was accepted";
  } catch (const compile_error& e) {
    EXPECT_NE(e.log().find("rocmtpl-no-such-flag"), std::string::npos) << e.log();
    EXPECT_TRUE(contains(e.argv(), "--rocmtpl-no-such-flag"));
  }
}

TEST(compiler, hung_compiler_is_killed_at_the_timeout) {
  temp_dir dir;
  const auto pid_file = dir / "sleep.pid";
  const auto fake = rocmtpl::test::write_script(
      dir / "slowcc",
      "if [ \"$1\" = --version ]; then echo slow 1.0; exit 0; fi\necho compiling...\nsleep 60 &\necho $! > '" +
          pid_file.string() + "'\nwait\n");
  scoped_env hipcc("ROCMTPL_HIPCC", fake.string());
  const auto cc = compiler::find(platform::amd);
  const auto src = dir / "k.hip";
  rocmtpl::test::write_file(src, "// nothing\n");
  auto o = amd({"gfx90a"});
  o.timeout = 1s;
  const auto start = std::chrono::steady_clock::now();
  try {
    (void)cc.compile(src, o, dir / "k.so");
    FAIL() << "the hung compile returned";
  } catch (const compile_timeout_error& e) {
    EXPECT_EQ(e.timeout(), 1s);
    EXPECT_EQ(e.log(), "compiling...\n");
    EXPECT_EQ(e.exit_code(), -1);
    EXPECT_NE(std::string(e.what()).find("timed out after 1 s"), std::string::npos) << e.what();
    EXPECT_EQ(e.failure(), rocmtpl::runtime::compile_failure::timeout);
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
  EXPECT_TRUE(rocmtpl::test::wait_until_gone(std::stoi(rocmtpl::test::read_file(pid_file))));
}

TEST(compiler, nvcc_builds_a_library_with_resources) {
  ROCMTPL_REQUIRE_COMPILER(cc, platform::nvidia);
  EXPECT_NE(cc.version().find("Cuda compilation tools"), std::string::npos) << cc.version();
  temp_dir dir;
  const auto src = dir / "k.hip";  // -x cu: the extension does not matter
  rocmtpl::test::write_file(src, R"(#include <cstddef>
#include <cstdint>
__global__ void scale_kernel(const float* x, float* y, int64_t n) {
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  if (i < n) y[i] = 2.f * x[i];
}
extern "C" __attribute__((visibility("default"))) int entry(const float* x, float* y, int64_t n, size_t* ws, uint8_t*, cudaStream_t s) {
  if (ws != nullptr) { *ws = static_cast<size_t>(n) * 3; return 0; }
  scale_kernel<<<static_cast<unsigned>((n + 255) / 256), 256, 0, s>>>(x, y, n);
  return cudaGetLastError() == cudaSuccess ? 0 : 2;
}
)");
  compile_options o;
  o.platform = platform::nvidia;
  o.archs = {"sm_90", "sm_80"};
  const auto r = cc.compile(src, o, dir / "k.so");
  EXPECT_TRUE(fs::is_regular_file(r.library));
  ASSERT_EQ(r.resources.size(), 2U) << r.log;
  EXPECT_EQ(r.resources[0].kernel, "scale_kernel(float const*, float*, long)");
  EXPECT_GT(r.resources[0].registers, 0);
}

// Issue 8: what a one-line report shows is the compiler's first error line, whatever comes before it.
TEST(compiler, first_line_of_the_message_is_the_compilers_first_error) {
  temp_dir dir;
  const auto fake = rocmtpl::test::write_script(
      dir / "cc",
      "if [ \"$1\" = --version ]; then echo fake 1.0; exit 0; fi\n"
      "echo 'In file included from k.hip:1:'\necho 'k.hip:7:3: warning: unused'\n"
      "echo 'k.hip:9:5: error: expected ; after expression'\necho 'k.hip:12:1: error: second'\nexit 1\n");
  const compiler cc(platform::amd, fake);
  const auto src = dir / "k.hip";
  rocmtpl::test::write_file(src, "// k\n");
  try {
    (void)cc.compile(src, amd({"gfx90a"}), dir / "k.so");
    FAIL();
  } catch (const compile_error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.substr(0, what.find('\n')), "rocmtpl: k.hip:9:5: error: expected ; after expression") << what;
    EXPECT_NE(what.find("failed with exit code 1"), std::string::npos) << what;  // still said, on line 2
    EXPECT_EQ(e.failure(), rocmtpl::runtime::compile_failure::source);
  }
  // A located diagnostic is the source's problem, whatever words it quotes.
  const auto quoting = rocmtpl::test::write_script(
      dir / "quoting",
      "if [ \"$1\" = --version ]; then echo q 1.0; exit 0; fi\n"
      "echo \"k.hip:3:1: error: use of undeclared identifier 'killed'\"\n"
      "echo \"k.cu(4): error: identifier \\\"Permission denied\\\" is undefined\"\nexit 1\n");
  try {
    (void)compiler(platform::amd, quoting).compile(src, amd({"gfx90a"}), dir / "k.so");
    FAIL();
  } catch (const compile_error& e) {
    EXPECT_EQ(e.failure(), rocmtpl::runtime::compile_failure::source) << e.log();
  }
  // Without a diagnostic the first line says how the compiler ended.
  const auto silent = rocmtpl::test::write_script(
      dir / "silent", "if [ \"$1\" = --version ]; then echo s 1.0; exit 0; fi\nkill -KILL $$\n");
  try {
    (void)compiler(platform::amd, silent).compile(src, amd({"gfx90a"}), dir / "k.so");
    FAIL();
  } catch (const compile_error& e) {
    const std::string what = e.what();
    EXPECT_EQ(what.rfind("rocmtpl: silent was killed", 0), 0U) << what;
    EXPECT_EQ(e.failure(), rocmtpl::runtime::compile_failure::environment);
  }
}

// Issue 8: hipcc is a Perl script that passes every argument to a shell inside double quotes.
TEST(compiler, paths_hipcc_cannot_handle_are_refused_before_running_it) {
  temp_dir dir;
  const auto runs = dir / "runs";
  const auto fake = rocmtpl::test::write_script(
      dir / "cc",
      "if [ \"$1\" = --version ]; then echo fake 1.0; exit 0; fi\necho run >> '" + runs.string() + "'\nexit 1\n");
  const compiler cc(platform::amd, fake);
  const auto bad = dir / "a$b";
  fs::create_directories(bad);
  rocmtpl::test::write_file(bad / "k.hip", "// k\n");
  rocmtpl::test::write_file(dir / "k.hip", "// k\n");
  EXPECT_THROW((void)cc.compile(bad / "k.hip", amd({"gfx90a"}), dir / "k.so"),
               rocmtpl::runtime::unsupported_path_error);
  EXPECT_THROW((void)cc.compile(dir / "k.hip", amd({"gfx90a"}), dir / "x`y" / "k.so"),
               rocmtpl::runtime::unsupported_path_error);
  auto o = amd({"gfx90a"});
  o.include_dirs = {dir / "in\"c"};
  try {
    (void)cc.compile(dir / "k.hip", o, dir / "k.so");
    FAIL();
  } catch (const rocmtpl::runtime::unsupported_path_error& e) {
    EXPECT_EQ(e.character(), '"');
    EXPECT_NE(std::string(e.what()).find("include folder"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(fs::exists(runs)) << "the compiler must not run";
  EXPECT_THROW((void)cc.compile(dir / "k.hip", amd({"gfx90a"}), dir / "with space" / "k.so"), compile_error);
  EXPECT_TRUE(fs::exists(runs));
}

// The real hipcc agrees: a folder with a space works, one with '$' would have failed (measured).
TEST(compiler, real_hipcc_builds_in_a_folder_with_spaces_and_quotes) {
  ROCMTPL_REQUIRE_COMPILER(cc, platform::amd);
  temp_dir dir;
  const auto folder = dir / "a b;c 'd' (e)";
  fs::create_directories(folder);
  rocmtpl::test::write_file(folder / "k.hip", rocmtpl::test::entry_source(1));
  auto o = amd({"gfx90a"});
  o.resource_usage = false;
  o.opt_level = 0;
  const auto r = cc.compile(folder / "k.hip", o, folder / "k.so");
  EXPECT_TRUE(fs::exists(r.library));
}

}  // namespace
