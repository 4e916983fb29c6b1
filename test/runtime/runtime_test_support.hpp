// SPDX-License-Identifier: MIT
#pragma once

// Shared helpers of the runtime tests: temporary folders, environment overrides, the HIP source
// the compile tests build, fake compiler scripts.

#include <rocmtpl/runtime/compiler.hpp>

#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <thread>

#include <signal.h>
#include <unistd.h>

namespace rocmtpl::test {

namespace fs = std::filesystem;

// A fresh folder under the system temp dir, removed with its contents at scope exit.
class temp_dir {
 public:
  temp_dir() {
    std::string pattern = (fs::temp_directory_path() / "rocmtpl-test-XXXXXX").string();
    if (::mkdtemp(pattern.data()) == nullptr) throw std::runtime_error("mkdtemp failed");
    path_ = pattern;
  }
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;
  ~temp_dir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  [[nodiscard]] const fs::path& path() const noexcept { return path_; }
  [[nodiscard]] fs::path operator/(const std::string& name) const { return path_ / name; }

 private:
  fs::path path_;
};

// Sets (or unsets, with nullopt) an environment variable for the scope; restores it afterwards.
class scoped_env {
 public:
  scoped_env(std::string name, std::optional<std::string> value) : name_(std::move(name)) {
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

inline void write_file(const fs::path& p, std::string_view text) {
  fs::create_directories(p.parent_path());
  std::ofstream out(p, std::ios::binary | std::ios::trunc);
  out.write(text.data(), static_cast<std::streamsize>(text.size()));
}

inline std::string read_file(const fs::path& p) { return runtime::detail::compiler_impl::read_text_file(p); }

// An executable shell script (a fake compiler for tests that must not run the real one).
inline fs::path write_script(const fs::path& p, std::string_view body) {
  write_file(p, std::string("#!/bin/sh\n") + std::string(body));
  fs::permissions(p, fs::perms::owner_all | fs::perms::group_read | fs::perms::group_exec);
  return p;
}

// True when the process is gone (or a zombie nobody reaped yet, which runs no code either).
inline bool process_gone(pid_t pid) {
  if (::kill(pid, 0) != 0) return true;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const auto close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z';
}

inline bool wait_until_gone(pid_t pid, std::chrono::milliseconds limit = std::chrono::seconds(5)) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (process_gone(pid)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return process_gone(pid);
}

// The kernel library the compile tests build: one kernel and an entry point that follows the
// rocmtpl C ABI. Its workspace query answers n * scale + 64 bytes, so a test can tell which
// build it loaded. `header` (optional) is #included, for dependency tests.
inline std::string entry_source(int scale, std::string_view header = {}) {
  std::string s = "#include <hip/hip_runtime.h>\n#include <cstddef>\n#include <cstdint>\n";
  if (!header.empty()) s += "#include \"" + std::string(header) + "\"\n";
  s += "#ifndef ROCMTPL_TEST_SCALE\n#define ROCMTPL_TEST_SCALE " + std::to_string(scale) + "\n#endif\n";
  s += R"(
__global__ void scale_kernel(const float* __restrict__ x, float* __restrict__ y, int64_t n) {
  __shared__ float tile[256];
  const int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  tile[threadIdx.x] = i < n ? x[i] : 0.f;
  __syncthreads();
  if (i < n) y[i] = 2.f * tile[threadIdx.x];
}

extern "C" __attribute__((visibility("default"))) int entry(const float* x, float* y, int64_t n,
                                                            size_t* workspace_size, uint8_t* workspace,
                                                            hipStream_t stream) {
  if (workspace_size != nullptr) {
    *workspace_size = static_cast<size_t>(n) * ROCMTPL_TEST_SCALE + 64;
    return 0;
  }
  (void)workspace;
  if (x == nullptr || y == nullptr) return 1;
  hipLaunchKernelGGL(scale_kernel, dim3(static_cast<unsigned>((n + 255) / 256)), dim3(256), 0, stream, x, y, n);
  return hipGetLastError() == hipSuccess ? 0 : 2;
}
)";
  return s;
}

// int entry(const float*, float*, int64_t, size_t*, uint8_t*, hipStream_t): the stream is a pointer.
using entry_fn = int(const float*, float*, std::int64_t, std::size_t*, std::uint8_t*, void*);

inline std::size_t query_workspace(entry_fn* entry, std::int64_t n) {
  std::size_t bytes = 0;
  const int rc = entry(nullptr, nullptr, n, &bytes, nullptr, nullptr);
  EXPECT_EQ(rc, 0);
  return bytes;
}

// The real compiler, or nullopt (the caller skips) when it is not installed.
inline std::optional<runtime::compiler> find_compiler(runtime::platform p) {
  try {
    return runtime::compiler::find(p);
  } catch (const runtime::compiler_not_found_error&) {
    return std::nullopt;
  }
}

#define ROCMTPL_REQUIRE_COMPILER(var, platform)                                                  \
  auto var##_found = ::rocmtpl::test::find_compiler(platform);                                    \
  if (!var##_found) GTEST_SKIP() << "no compiler for " << ::rocmtpl::runtime::to_string(platform) \
                                 << " installed (" << ::rocmtpl::runtime::compiler_not_found_error::install_hint(platform) << ")"; \
  [[maybe_unused]] const ::rocmtpl::runtime::compiler& var = *var##_found

}  // namespace rocmtpl::test
