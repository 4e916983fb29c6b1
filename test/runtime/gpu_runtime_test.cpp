// SPDX-License-Identifier: MIT
// Tests include/rocmtpl/runtime/gpu_runtime.hpp on a machine without a GPU: loading never throws,
// the status says why no GPU can be used, every operation throws no_gpu_error. Where a runtime
// library is installed, the test checks that it was found and probed (not merely absent). The
// enumerator values and the HIP 5.2 gcnArchName offset the loader hard-codes are checked against
// the vendors' headers by compiling small programs.

#include <rocmtpl/runtime/gpu_runtime.hpp>

// The loader needs no GPU header: user programs build with a plain host compiler.
#if defined(__CUDA_RUNTIME_API_H__) || defined(HIP_INCLUDE_HIP_HIP_RUNTIME_API_H) || defined(__DRIVER_TYPES_H__)
#error "rocmtpl/runtime/gpu_runtime.hpp must not include CUDA or HIP headers"
#endif

#include <dlfcn.h>
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <map>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

extern char** environ;

namespace {

namespace fs = std::filesystem;
using rocmtpl::runtime::device_buffer;
using rocmtpl::runtime::gpu_error;
using rocmtpl::runtime::gpu_runtime;
using rocmtpl::runtime::gpu_runtime_options;
using rocmtpl::runtime::no_gpu_error;
using rocmtpl::runtime::platform;

static_assert(std::is_base_of_v<rocmtpl::error, gpu_error>);
static_assert(std::is_base_of_v<gpu_error, no_gpu_error>);
static_assert(!std::is_copy_constructible_v<device_buffer> && std::is_nothrow_move_constructible_v<device_buffer>);
static_assert(!std::is_copy_constructible_v<rocmtpl::runtime::stream>);
static_assert(!std::is_copy_constructible_v<rocmtpl::runtime::event>);

// Whether the test process itself can load a library (independently of gpu_runtime).
bool loadable(const std::vector<std::string>& files) {
  for (const auto& f : files) {
    if (void* h = ::dlopen(f.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      ::dlclose(h);
      return true;
    }
  }
  return false;
}

class scoped_env {
 public:
  scoped_env(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value != nullptr) ::setenv(name, value, 1);
    else ::unsetenv(name);
  }
  scoped_env(const scoped_env&) = delete;
  scoped_env& operator=(const scoped_env&) = delete;
  ~scoped_env() {
    if (old_) ::setenv(name_.c_str(), old_->c_str(), 1);
    else ::unsetenv(name_.c_str());
  }

 private:
  std::string name_;
  std::optional<std::string> old_;
};

// Every operation of a runtime that has no GPU throws no_gpu_error whose message carries the status.
void expect_every_operation_refused(const gpu_runtime& rt) {
  ASSERT_FALSE(rt.available());
  EXPECT_EQ(rt.device_count(), 0);
  int host = 0;
  auto expect_refused = [&](auto&& operation, const char* what) {
    try {
      operation();
      ADD_FAILURE() << what << " did not throw";
    } catch (const no_gpu_error& e) {
      const std::string message = e.what();
      EXPECT_NE(message.find(rt.status()), std::string::npos) << what << ": " << message;
      EXPECT_FALSE(e.api().empty());
      EXPECT_TRUE(message.starts_with("rocmtpl: gpu: cannot " + e.api() + ": no GPU")) << message;
    } catch (const std::exception& e) {
      ADD_FAILURE() << what << " threw the wrong type: " << e.what();
    }
  };
  expect_refused([&] { (void)rt.properties(0); }, "properties");
  expect_refused([&] { rt.set_device(0); }, "set_device");
  expect_refused([&] { (void)rt.current_device(); }, "current_device");
  expect_refused([&] { (void)rt.malloc(64); }, "malloc");
  expect_refused([&] { rt.memcpy_to_device(&host, &host, sizeof(host)); }, "memcpy_to_device");
  expect_refused([&] { rt.memcpy_to_host(&host, &host, sizeof(host)); }, "memcpy_to_host");
  expect_refused([&] { rt.memcpy_device(&host, &host, sizeof(host)); }, "memcpy_device");
  expect_refused([&] { rt.memset(&host, 0, sizeof(host)); }, "memset");
  expect_refused([&] { (void)rt.create_stream(); }, "create_stream");
  expect_refused([&] { rt.synchronize(); }, "synchronize");
  expect_refused([&] { rt.device_synchronize(); }, "device_synchronize");
  expect_refused([&] { (void)rt.create_event(); }, "create_event");
  expect_refused([&] { rt.record_event(nullptr, nullptr); }, "record_event");
  expect_refused([&] { (void)rt.elapsed_ms(nullptr, nullptr); }, "elapsed_ms");
  expect_refused([&] { device_buffer b(16, rt); }, "device_buffer");
  expect_refused([&] { rocmtpl::runtime::stream s(rt); }, "stream");
  expect_refused([&] { rocmtpl::runtime::event e(rt); }, "event");
  // Releasing is always safe.
  EXPECT_NO_THROW(rt.free(&host));
  EXPECT_NO_THROW(rt.destroy_stream(&host));
  EXPECT_NO_THROW(rt.destroy_event(&host));
  EXPECT_EQ(host, 0);
}

gpu_runtime_options only(platform kind) {
  auto options = gpu_runtime_options::from_environment();
  options.platform_choice = std::string(rocmtpl::runtime::to_string(kind));
  return options;
}

TEST(GpuRuntime, InstanceLoadsWithoutThrowingAndExplainsItself) {
  gpu_runtime* rt = nullptr;
  ASSERT_NO_THROW(rt = &gpu_runtime::instance());
  EXPECT_EQ(rt, &gpu_runtime::instance()) << "one instance per process";
  ASSERT_FALSE(rt->status().empty());
  if (rt->available()) {
    EXPECT_GT(rt->device_count(), 0);
    EXPECT_TRUE(rt->kind().has_value());
    EXPECT_NE(rt->status().find(" device"), std::string::npos) << rt->status();
    GTEST_SKIP() << "a GPU is present (" << rt->status() << "); test/gpu covers it";
  }
  EXPECT_TRUE(rt->status().starts_with("no GPU: ")) << rt->status();
  std::cout << "status: " << rt->status() << '\n';
  expect_every_operation_refused(*rt);
}

TEST(GpuRuntime, MissingLibrariesGiveAClearStatus) {
  gpu_runtime_options options;
  options.nvidia_libraries = {"librocmtpl-no-such-cudart.so"};
  options.amd_libraries = {"/nonexistent/librocmtpl-no-such-hip.so"};
  const gpu_runtime rt(options);
  EXPECT_FALSE(rt.available());
  EXPECT_FALSE(rt.kind().has_value());
  EXPECT_TRUE(rt.library().empty());
  EXPECT_EQ(rt.runtime_version(), 0);
  EXPECT_NE(rt.status().find("nvidia runtime not found"), std::string::npos) << rt.status();
  EXPECT_NE(rt.status().find("librocmtpl-no-such-cudart.so"), std::string::npos) << rt.status();
  EXPECT_NE(rt.status().find("amd runtime not found"), std::string::npos) << rt.status();
  EXPECT_NE(rt.status().find("/nonexistent/librocmtpl-no-such-hip.so"), std::string::npos) << rt.status();
  EXPECT_EQ(rt.last_error_text(2), "error 2");
  expect_every_operation_refused(rt);
  try {
    (void)rt.malloc(1);
  } catch (const no_gpu_error& e) {
    EXPECT_EQ(e.code(), -1) << "no library: no runtime error code";
    EXPECT_EQ(e.api(), "allocate device memory");
  }
}

TEST(GpuRuntime, PlatformChoiceIsValidated) {
  gpu_runtime_options options = gpu_runtime_options::from_environment();
  options.platform_choice = "bogus";
  const gpu_runtime rt(options);
  EXPECT_FALSE(rt.available());
  EXPECT_FALSE(rt.kind().has_value()) << "nothing is loaded for an invalid choice";
  EXPECT_NE(rt.status().find("invalid ROCMTPL_PLATFORM='bogus'"), std::string::npos) << rt.status();
  EXPECT_NE(rt.status().find("expected amd, nvidia or auto"), std::string::npos) << rt.status();
  expect_every_operation_refused(rt);
}

TEST(GpuRuntime, EnvironmentSelectsPlatformAndArch) {
  {
    const scoped_env platform_env("ROCMTPL_PLATFORM", "bogus");
    const gpu_runtime rt(gpu_runtime_options::from_environment());
    EXPECT_NE(rt.status().find("invalid ROCMTPL_PLATFORM='bogus'"), std::string::npos) << rt.status();
  }
  {
    const scoped_env platform_env("ROCMTPL_PLATFORM", "AMD");
    const scoped_env arch_env("ROCMTPL_AMD_ARCH", "gfx942:sramecc+");
    const auto options = gpu_runtime_options::from_environment();
    EXPECT_EQ(options.platform_choice, "AMD");
    EXPECT_EQ(options.amd_arch_override, "gfx942:sramecc+");
    const gpu_runtime rt(options);
    if (rt.kind()) {
      EXPECT_EQ(*rt.kind(), platform::amd) << "ROCMTPL_PLATFORM=amd never loads CUDA";
    }
    EXPECT_EQ(rt.status().find("nvidia runtime"), std::string::npos) << rt.status();
  }
  {
    const scoped_env platform_env("ROCMTPL_PLATFORM", nullptr);
    const auto options = gpu_runtime_options::from_environment();
    EXPECT_EQ(options.platform_choice, "auto");
    ASSERT_FALSE(options.nvidia_libraries.empty());
    EXPECT_EQ(options.nvidia_libraries.front(), "libcudart.so.13");
    ASSERT_FALSE(options.amd_libraries.empty());
    EXPECT_EQ(options.amd_libraries.front(), "libamdhip64.so");
  }
}

TEST(GpuRuntime, CudaRuntimeIsFoundAndProbedWhereInstalled) {
  const auto options = only(platform::nvidia);
  const gpu_runtime rt(options);
  if (!loadable(options.nvidia_libraries)) {
    EXPECT_FALSE(rt.kind().has_value());
    EXPECT_NE(rt.status().find("nvidia runtime not found"), std::string::npos) << rt.status();
    GTEST_SKIP() << "no libcudart on this machine: " << rt.status();
  }
  ASSERT_TRUE(rt.kind().has_value()) << rt.status();
  EXPECT_EQ(*rt.kind(), platform::nvidia);
  EXPECT_NE(rt.library().find("libcudart.so"), std::string::npos);
  EXPECT_GE(rt.runtime_version(), 9000) << "cudaRuntimeGetVersion, e.g. 13000";
  EXPECT_NE(rt.last_error_text(2), "error 2") << "cudaGetErrorString is used";
  EXPECT_FALSE(rt.last_error_text(2).empty());
  if (rt.available()) GTEST_SKIP() << "CUDA device present: " << rt.status();
  // Installed but unusable here: the status names the library and the driver's answer.
  EXPECT_NE(rt.status().find(rt.library()), std::string::npos) << rt.status();
  const bool says_why = rt.status().find("cudaGetDeviceCount: ") != std::string::npos ||
                        rt.status().find("no CUDA device") != std::string::npos;
  EXPECT_TRUE(says_why) << rt.status();
  expect_every_operation_refused(rt);
}

TEST(GpuRuntime, HipRuntimeIsFoundAndProbedWhereInstalled) {
  const auto options = only(platform::amd);
  const gpu_runtime rt(options);
  if (!loadable(options.amd_libraries)) {
    EXPECT_FALSE(rt.kind().has_value());
    GTEST_SKIP() << "no libamdhip64 on this machine: " << rt.status();
  }
  ASSERT_TRUE(rt.kind().has_value()) << rt.status();
  EXPECT_EQ(*rt.kind(), platform::amd);
  EXPECT_NE(rt.library().find("libamdhip64.so"), std::string::npos);
  EXPECT_NE(rt.last_error_text(100), "error 100") << "hipGetErrorString is used";
  if (rt.available()) GTEST_SKIP() << "HIP device present: " << rt.status();
  const bool says_why = rt.status().find("hipGetDeviceCount: ") != std::string::npos ||
                        rt.status().find("no HIP device") != std::string::npos;
  EXPECT_TRUE(says_why) << rt.status();
  expect_every_operation_refused(rt);
}

TEST(GpuRuntime, AutoProbesEveryPlatformBeforeGivingUp) {
  const auto options = gpu_runtime_options::from_environment();
  const gpu_runtime rt(options);
  if (rt.available()) GTEST_SKIP() << "a GPU is present: " << rt.status();
  // Without a device, both platforms were tried and each says why it cannot be used.
  EXPECT_NE(rt.status().find("nvidia runtime"), std::string::npos) << rt.status();
  EXPECT_NE(rt.status().find("amd runtime"), std::string::npos) << rt.status();
  if (loadable(options.nvidia_libraries)) {
    ASSERT_TRUE(rt.kind().has_value());
    EXPECT_EQ(*rt.kind(), platform::nvidia) << "the first runtime that loaded is reported";
  } else if (loadable(options.amd_libraries)) {
    ASSERT_TRUE(rt.kind().has_value());
    EXPECT_EQ(*rt.kind(), platform::amd);
  }
}

TEST(DeviceBuffer, EmptyBufferIsSafeWithoutAGpu) {
  device_buffer empty;
  EXPECT_FALSE(empty);
  EXPECT_EQ(empty.size(), 0u);
  EXPECT_EQ(empty.get(), nullptr);
  EXPECT_EQ(empty.as<float>(), nullptr);
  int host = 0;
  EXPECT_THROW(empty.copy_to_host(&host, 0), no_gpu_error);
  EXPECT_THROW(empty.copy_from_host(&host, sizeof(host)), rocmtpl::out_of_range_error);
  device_buffer moved = std::move(empty);
  EXPECT_FALSE(moved);
  moved.reset();
  EXPECT_FALSE(moved);
}

TEST(GpuError, CarriesApiCodeAndText) {
  const gpu_error e("cudaMalloc", 2, "out of memory [64 bytes]");
  EXPECT_EQ(e.api(), "cudaMalloc");
  EXPECT_EQ(e.code(), 2);
  EXPECT_STREQ(e.what(), "rocmtpl: gpu: cudaMalloc failed: out of memory [64 bytes] (error 2)");
  const no_gpu_error n("allocate device memory", 35, "no GPU: driver too old");
  EXPECT_EQ(n.code(), 35);
  EXPECT_STREQ(n.what(), "rocmtpl: gpu: cannot allocate device memory: no GPU: driver too old");
  const gpu_error& as_base = n;
  EXPECT_EQ(as_base.api(), "allocate device memory");
}

TEST(GpuRuntimeDetail, ArchFeatureSuffixesAreStripped) {
  using rocmtpl::runtime::detail::strip_arch_features;
  EXPECT_EQ(strip_arch_features("gfx90a:sramecc+:xnack-"), "gfx90a");
  EXPECT_EQ(strip_arch_features("gfx942"), "gfx942");
  EXPECT_EQ(strip_arch_features(" gfx1030 "), "gfx1030");
  EXPECT_EQ(strip_arch_features(""), "");
}

TEST(GpuRuntimeDetail, GcnArchNameIsFoundAtTheHip52OffsetOrBySearch) {
  using rocmtpl::runtime::detail::find_gcn_arch_name;
  constexpr std::size_t offset = rocmtpl::runtime::detail::hip52_gcn_arch_name_offset;
  std::vector<char> props(4096, '\0');
  std::strcpy(props.data(), "AMD Instinct MI210");  // the device name, never taken for the arch
  std::strcpy(props.data() + offset, "gfx90a:sramecc+:xnack-");
  EXPECT_EQ(find_gcn_arch_name(props.data(), props.size(), offset), "gfx90a:sramecc+:xnack-");
  // A ROCm 6 layout: nothing at the 5.2 offset, the name further on.
  std::fill(props.begin() + static_cast<std::ptrdiff_t>(offset), props.begin() + 600, '\0');
  std::memset(props.data() + 600, 7, 12);  // unrelated binary fields
  std::strcpy(props.data() + 1160, "gfx942:sramecc+:xnack-");
  EXPECT_EQ(find_gcn_arch_name(props.data(), props.size(), offset), "gfx942:sramecc+:xnack-");
  std::strcpy(props.data() + 1160, "nothing");
  EXPECT_EQ(find_gcn_arch_name(props.data(), props.size(), offset), "");
  // A name at the start of the buffer is the device name, not the arch.
  std::strcpy(props.data(), "gfx1100");
  EXPECT_EQ(find_gcn_arch_name(props.data(), props.size(), offset), "");
}

TEST(GpuRuntimeDetail, PlatformChoices) {
  using rocmtpl::runtime::detail::parse_platform_choice;
  bool is_auto = false;
  EXPECT_EQ(parse_platform_choice("CUDA", is_auto), platform::nvidia);
  EXPECT_FALSE(is_auto);
  EXPECT_EQ(parse_platform_choice("nvidia", is_auto), platform::nvidia);
  EXPECT_EQ(parse_platform_choice("hip", is_auto), platform::amd);
  EXPECT_EQ(parse_platform_choice("Amd", is_auto), platform::amd);
  EXPECT_EQ(parse_platform_choice("rocm", is_auto), platform::amd);
  EXPECT_FALSE(parse_platform_choice("auto", is_auto).has_value());
  EXPECT_TRUE(is_auto);
  EXPECT_FALSE(parse_platform_choice("", is_auto).has_value());
  EXPECT_TRUE(is_auto);
  EXPECT_FALSE(parse_platform_choice("bogus", is_auto).has_value());
  EXPECT_FALSE(is_auto);
}

// --- the hard-coded values against the vendors' headers -------------------------------------------

struct process_result {
  int exit_code = -1;
  std::string output;
};

process_result run_process(const std::vector<std::string>& argv, const fs::path& log_file) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  process_result result;
  if (rc != 0) {
    result.output = std::string("posix_spawnp failed: ") + std::strerror(rc);
    return result;
  }
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::ifstream in(log_file);
  result.output.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return result;
}

// Builds `source` with g++ and runs it; returns "name value" lines as a map.
std::map<std::string, long> build_and_run(const std::string& source, const std::vector<std::string>& flags) {
  const fs::path dir = fs::temp_directory_path() / ("rocmtpl-gpu-runtime-test-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "probe.cpp") << source;
  std::vector<std::string> argv = {"g++", "-std=c++17", "-w"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), {(dir / "probe.cpp").string(), "-o", (dir / "probe").string()});
  const auto built = run_process(argv, dir / "build.log");
  std::map<std::string, long> values;
  if (built.exit_code != 0) {
    ADD_FAILURE() << "cannot build the probe:\n" << built.output;
  } else {
    const auto ran = run_process({(dir / "probe").string()}, dir / "run.log");
    EXPECT_EQ(ran.exit_code, 0) << ran.output;
    std::istringstream in(ran.output);
    std::string name;
    long value = 0;
    while (in >> name >> value) values[name] = value;
  }
  std::error_code ec;
  fs::remove_all(dir, ec);
  return values;
}

TEST(GpuRuntimeLayout, CudaEnumeratorsMatchTheCudaHeaders) {
  const char* cuda = std::getenv("CUDA_PATH");
  const fs::path include = fs::path(cuda != nullptr ? cuda : "/usr/local/cuda") / "include";
  if (!fs::exists(include / "cuda_runtime_api.h")) GTEST_SKIP() << "no CUDA headers in " << include;
  const auto v = build_and_run(R"(#include <cuda_runtime_api.h>
#include <cstddef>
#include <cstdio>
int main() {
  std::printf("max_threads_per_block %d\n", (int)cudaDevAttrMaxThreadsPerBlock);
  std::printf("max_shared_memory_per_block %d\n", (int)cudaDevAttrMaxSharedMemoryPerBlock);
  std::printf("warp_size %d\n", (int)cudaDevAttrWarpSize);
  std::printf("clock_rate %d\n", (int)cudaDevAttrClockRate);
  std::printf("multiprocessor_count %d\n", (int)cudaDevAttrMultiProcessorCount);
  std::printf("l2_cache_size %d\n", (int)cudaDevAttrL2CacheSize);
  std::printf("compute_capability_major %d\n", (int)cudaDevAttrComputeCapabilityMajor);
  std::printf("compute_capability_minor %d\n", (int)cudaDevAttrComputeCapabilityMinor);
  std::printf("max_shared_memory_per_block_optin %d\n", (int)cudaDevAttrMaxSharedMemoryPerBlockOptin);
  std::printf("h2d %d\nd2h %d\nd2d %d\nsuccess %d\n", (int)cudaMemcpyHostToDevice, (int)cudaMemcpyDeviceToHost,
              (int)cudaMemcpyDeviceToDevice, (int)cudaSuccess);
  std::printf("name_offset %zu\nprop_size %zu\n", offsetof(cudaDeviceProp, name), sizeof(cudaDeviceProp));
}
)",
                               {"-I", include.string()});
  ASSERT_FALSE(v.empty());
  namespace ca = rocmtpl::runtime::detail::cuda_attribute;
  EXPECT_EQ(v.at("max_threads_per_block"), ca::max_threads_per_block);
  EXPECT_EQ(v.at("max_shared_memory_per_block"), ca::max_shared_memory_per_block);
  EXPECT_EQ(v.at("warp_size"), ca::warp_size);
  EXPECT_EQ(v.at("clock_rate"), ca::clock_rate);
  EXPECT_EQ(v.at("multiprocessor_count"), ca::multiprocessor_count);
  EXPECT_EQ(v.at("l2_cache_size"), ca::l2_cache_size);
  EXPECT_EQ(v.at("compute_capability_major"), ca::compute_capability_major);
  EXPECT_EQ(v.at("compute_capability_minor"), ca::compute_capability_minor);
  EXPECT_EQ(v.at("max_shared_memory_per_block_optin"), ca::max_shared_memory_per_block_optin);
  EXPECT_EQ(v.at("h2d"), rocmtpl::runtime::detail::memcpy_host_to_device);
  EXPECT_EQ(v.at("d2h"), rocmtpl::runtime::detail::memcpy_device_to_host);
  EXPECT_EQ(v.at("d2d"), rocmtpl::runtime::detail::memcpy_device_to_device);
  EXPECT_EQ(v.at("success"), 0);
  EXPECT_EQ(v.at("name_offset"), 0);
  EXPECT_LE(v.at("prop_size"), static_cast<long>(rocmtpl::runtime::detail::device_prop_buffer_bytes));
}

TEST(GpuRuntimeLayout, HipEnumeratorsAndGcnArchNameOffsetMatchHip52Headers) {
  const char* rocm = std::getenv("ROCM_PATH");
  fs::path include = rocm != nullptr ? fs::path(rocm) / "include" : fs::path("/usr/include");
  if (!fs::exists(include / "hip" / "hip_runtime_api.h")) GTEST_SKIP() << "no HIP headers in " << include;
  const auto v = build_and_run(R"(#include <hip/hip_runtime_api.h>
#include <hip/hip_version.h>
#include <cstddef>
#include <cstdio>
int main() {
  std::printf("hip_major %d\n", HIP_VERSION_MAJOR);
  std::printf("clock_rate %d\n", (int)hipDeviceAttributeClockRate);
  std::printf("l2_cache_size %d\n", (int)hipDeviceAttributeL2CacheSize);
  std::printf("compute_capability_major %d\n", (int)hipDeviceAttributeComputeCapabilityMajor);
  std::printf("max_threads_per_block %d\n", (int)hipDeviceAttributeMaxThreadsPerBlock);
  std::printf("compute_capability_minor %d\n", (int)hipDeviceAttributeComputeCapabilityMinor);
  std::printf("multiprocessor_count %d\n", (int)hipDeviceAttributeMultiprocessorCount);
  std::printf("max_shared_memory_per_block %d\n", (int)hipDeviceAttributeMaxSharedMemoryPerBlock);
  std::printf("shared_mem_per_block_optin %d\n", (int)hipDeviceAttributeSharedMemPerBlockOptin);
  std::printf("warp_size %d\n", (int)hipDeviceAttributeWarpSize);
  std::printf("h2d %d\nd2h %d\nd2d %d\nsuccess %d\n", (int)hipMemcpyHostToDevice, (int)hipMemcpyDeviceToHost,
              (int)hipMemcpyDeviceToDevice, (int)hipSuccess);
  std::printf("name_offset %zu\ngcn_arch_name_offset %zu\nprop_size %zu\n", offsetof(hipDeviceProp_t, name),
              offsetof(hipDeviceProp_t, gcnArchName), sizeof(hipDeviceProp_t));
}
)",
                               {"-D__HIP_PLATFORM_AMD__", "-I", include.string()});
  ASSERT_FALSE(v.empty());
  namespace ha = rocmtpl::runtime::detail::hip_attribute;
  EXPECT_EQ(v.at("clock_rate"), ha::clock_rate);
  EXPECT_EQ(v.at("l2_cache_size"), ha::l2_cache_size);
  EXPECT_EQ(v.at("compute_capability_major"), ha::compute_capability_major);
  EXPECT_EQ(v.at("max_threads_per_block"), ha::max_threads_per_block);
  EXPECT_EQ(v.at("compute_capability_minor"), ha::compute_capability_minor);
  EXPECT_EQ(v.at("multiprocessor_count"), ha::multiprocessor_count);
  EXPECT_EQ(v.at("max_shared_memory_per_block"), ha::max_shared_memory_per_block);
  EXPECT_EQ(v.at("shared_mem_per_block_optin"), ha::shared_mem_per_block_optin);
  EXPECT_EQ(v.at("warp_size"), ha::warp_size);
  EXPECT_EQ(v.at("h2d"), rocmtpl::runtime::detail::memcpy_host_to_device);
  EXPECT_EQ(v.at("d2h"), rocmtpl::runtime::detail::memcpy_device_to_host);
  EXPECT_EQ(v.at("d2d"), rocmtpl::runtime::detail::memcpy_device_to_device);
  EXPECT_EQ(v.at("success"), 0);
  EXPECT_EQ(v.at("name_offset"), 0);
  EXPECT_LE(v.at("prop_size"), static_cast<long>(rocmtpl::runtime::detail::device_prop_buffer_bytes));
  if (v.at("hip_major") == 5) {
    EXPECT_EQ(v.at("gcn_arch_name_offset"), static_cast<long>(rocmtpl::runtime::detail::hip52_gcn_arch_name_offset));
  } else {
    // Other layouts are handled by searching the buffer; the field must still lie inside it.
    EXPECT_LT(v.at("gcn_arch_name_offset"), static_cast<long>(rocmtpl::runtime::detail::device_prop_buffer_bytes));
  }
}

}  // namespace
