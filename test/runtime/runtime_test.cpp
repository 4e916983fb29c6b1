// SPDX-License-Identifier: MIT
// Tests include/rocmtpl/runtime.hpp, the umbrella of the runtime layer: it gives the whole layer
// (and the pure layer's rocm_template) in one include, and it misses no header: every header of
// include/rocmtpl/runtime/ is included by the umbrella, and every folder runtime/X/ by the
// runtime/X.hpp that gathers it; and every runtime header has a test of the same name.
#include <rocmtpl/runtime.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <type_traits>
#include <vector>

namespace {

namespace fs = std::filesystem;
namespace rt = rocmtpl::runtime;

// One name from each runtime header (a missing include fails to compile here).
static_assert(std::is_enum_v<rt::artifact_kind>);                                         // artifact.hpp
static_assert(std::is_class_v<rt::autotune_report>);                                      // autotuner.hpp
static_assert(std::is_class_v<rt::bench>);                                                // benchmark.hpp
static_assert(std::is_class_v<rt::cache_directory_error>);                                // cache_root.hpp
static_assert(rocmtpl::caller_backend<rocmtpl::runtime::caller_runtime>);                 // caller_runtime.hpp
static_assert(std::is_class_v<rt::code_cache>);                                           // code_cache.hpp
static_assert(std::is_class_v<rt::compiler>);                                             // compiler.hpp
static_assert(std::is_class_v<rt::device_identity>);                                      // device_identity.hpp
static_assert(std::is_class_v<rt::pretuned_gemm>);                                        // export.hpp
static_assert(std::is_class_v<rt::gpu_runtime>);                                          // gpu_runtime.hpp
static_assert(std::is_class_v<rt::gpu_runtime_options>);                                  // gpu/options.hpp
static_assert(std::is_class_v<rt::kernel_entry>);                                         // kernel_call.hpp
static_assert(std::is_class_v<rt::worker_process>);                                       // measure.hpp
static_assert(std::is_class_v<rt::shared_library>);                                       // shared_library.hpp
static_assert(std::is_class_v<rt::batch_summary>);                                        // tune_batch.hpp
static_assert(std::is_class_v<rt::tuning_db>);                                            // tuning_db.hpp
static_assert(std::is_class_v<rt::tuning_db_error>);                                      // db/sqlite.hpp
static_assert(std::is_class_v<rt::no_winner_error>);                                      // typed_autotune.hpp
static_assert(std::is_class_v<rt::workspace_required_error>);                             // typed_kernel.hpp
static_assert(std::is_class_v<rt::plot_result>);                                          // plot.hpp
static_assert(std::is_class_v<rt::worker_pool>);                                          // worker_pool.hpp
static_assert(std::is_enum_v<rt::platform>);                                              // platform.hpp
static_assert(std::is_class_v<rocmtpl::rocm_template<rocmtpl::templates::gemm_policy>>);  // the pure layer

const fs::path test_dir = ROCMTPL_TEST_SOURCE_DIR;
const fs::path include_dir = test_dir.parent_path() / "include";

std::string read_text(const fs::path& file) {
  std::ifstream in(file);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// Headers directly in `folder`, as `#include <...>` spells them; not the implementations
// (`-inl.hpp`, which belong to their header).
std::vector<std::string> headers_in(const fs::path& folder) {
  std::vector<std::string> out;
  for (const auto& entry : fs::directory_iterator(folder)) {
    if (entry.is_regular_file() && entry.path().extension() == ".hpp" &&
        !entry.path().filename().string().ends_with("-inl.hpp")) {
      out.push_back(fs::relative(entry.path(), include_dir).generic_string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

void expect_gathers(const fs::path& gatherer, const std::vector<std::string>& headers) {
  const std::string text = read_text(gatherer);
  ASSERT_FALSE(text.empty()) << gatherer << " is missing";
  for (const auto& h : headers) {
    EXPECT_NE(text.find("#include <" + h + ">"), std::string::npos) << gatherer.filename() << " does not include " << h;
  }
}

// The umbrella names every header of every runtime folder itself.
TEST(RuntimeUmbrella, IncludesEveryRuntimeHeader) {
  const fs::path runtime_dir = include_dir / "rocmtpl" / "runtime";
  std::vector<std::string> headers;
  for (const auto& entry : fs::directory_iterator(runtime_dir)) {
    ASSERT_TRUE(entry.is_directory()) << entry.path() << ": runtime/ holds only its folders";
    const auto in = headers_in(entry.path());
    headers.insert(headers.end(), in.begin(), in.end());
  }
  ASSERT_GT(headers.size(), 30U) << "wrong folder: " << runtime_dir;
  expect_gathers(include_dir / "rocmtpl" / "runtime.hpp", headers);
}

// runtime/ has exactly the layers of docs/ARCHITECTURE.md (their include rules are checked by
// test/unit/rocmtpl_test.cpp), and each is mirrored by a test folder.
TEST(RuntimeUmbrella, RuntimeFoldersAreTheLayers) {
  const fs::path runtime_dir = include_dir / "rocmtpl" / "runtime";
  std::vector<std::string> folders;
  for (const auto& entry : fs::directory_iterator(runtime_dir)) {
    if (entry.is_directory()) folders.push_back(entry.path().filename().string());
    EXPECT_TRUE(fs::is_directory(test_dir / "runtime" / entry.path().filename()))
        << "no test folder test/runtime/" << entry.path().filename().string();
  }
  std::sort(folders.begin(), folders.end());
  EXPECT_EQ(folders, (std::vector<std::string>{"aot", "bench", "build", "db", "gpu", "launch", "sys", "tune"}));
}

// include/rocmtpl/runtime/<path>.hpp is tested by test/runtime/<path>_test.cpp (detail/ headers
// included), and the umbrella include/rocmtpl/runtime.hpp by this file.
TEST(RuntimeUmbrella, EveryRuntimeHeaderHasATestOfTheSameName) {
  EXPECT_TRUE(fs::exists(test_dir / "runtime" / "runtime_test.cpp"));
  const fs::path runtime_dir = include_dir / "rocmtpl" / "runtime";
  std::size_t headers = 0;
  for (const auto& entry : fs::recursive_directory_iterator(runtime_dir)) {
    if (!entry.is_regular_file() || entry.path().extension() != ".hpp") continue;
    if (entry.path().filename().string().ends_with("-inl.hpp")) continue;  // tested through its header
    ++headers;
    fs::path test = test_dir / "runtime" / entry.path().lexically_relative(runtime_dir);
    test.replace_extension();
    test += "_test.cpp";
    EXPECT_TRUE(fs::exists(test)) << entry.path().lexically_relative(include_dir).generic_string() << " has no test "
                                  << test.lexically_relative(test_dir.parent_path()).generic_string();
  }
  EXPECT_GT(headers, 20U) << "wrong folder: " << runtime_dir;
}

}  // namespace
