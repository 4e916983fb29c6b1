// SPDX-License-Identifier: MIT
// Tests include/rocmtpl/runtime/gpu/vendor_api.hpp: the arch-name helpers, the symbol
// table binding, and the enumerator values and HIP 5.2 gcnArchName offset the loader hard-codes,
// checked against the vendors' headers by compiling small programs.
#include <rocmtpl/runtime/gpu/vendor_api.hpp>

#include "support/process.hpp"
#include "support/temp_dir.hpp"

#include <dlfcn.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace {

namespace fs = std::filesystem;
using rocmtpl::runtime::platform;
using rocmtpl::test::run_logged;

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

TEST(GpuRuntimeDetail, BindingReportsEveryMissingSymbolByItsVendorName) {
  // The test program exports no runtime function: every required one is reported, with its prefix.
  void* self = ::dlopen(nullptr, RTLD_NOW);
  ASSERT_NE(self, nullptr);
  for (platform kind : {platform::nvidia, platform::amd}) {
    rocmtpl::runtime::detail::runtime_api api;
    const std::string missing = rocmtpl::runtime::detail::bind_runtime_api(self, kind, api);
    const std::string prefix = kind == platform::nvidia ? "cuda" : "hip";
    for (const char* suffix : {"GetDeviceCount", "Malloc", "MemcpyAsync", "EventElapsedTime", "RuntimeGetVersion"}) {
      EXPECT_NE(missing.find(prefix + suffix), std::string::npos) << missing;
    }
    EXPECT_NE(missing.find(prefix + "GetDeviceProperties"), std::string::npos) << missing;
    EXPECT_EQ(missing.find(kind == platform::nvidia ? "hip" : "cuda"), std::string::npos) << missing;
    EXPECT_EQ(api.malloc, nullptr);
  }
  ::dlclose(self);
}

TEST(GpuRuntimeDetail, AttributeTableFollowsThePlatform) {
  using rocmtpl::runtime::detail::attributes_of;
  EXPECT_EQ(&attributes_of(platform::nvidia), &rocmtpl::runtime::detail::cuda_attributes);
  EXPECT_EQ(&attributes_of(platform::amd), &rocmtpl::runtime::detail::hip_attributes);
  static_assert(attributes_of(platform::nvidia).warp_size != attributes_of(platform::amd).warp_size);
}

TEST(GpuRuntimeDetail, BindSymbolResolvesAnExportedFunction) {
  void* self = ::dlopen(nullptr, RTLD_NOW);
  ASSERT_NE(self, nullptr);
  int (*get_pid)() = nullptr;  // getpid has the shape of a runtime function without arguments
  EXPECT_TRUE(rocmtpl::runtime::detail::bind_symbol(self, get_pid, "getpid"));
  ASSERT_NE(get_pid, nullptr);
  EXPECT_EQ(get_pid(), ::getpid());
  EXPECT_FALSE(rocmtpl::runtime::detail::bind_symbol(self, get_pid, "rocmtpl_no_such_symbol"));
  ::dlclose(self);
}

// --- the hard-coded values against the vendors' headers -------------------------------------------

// Builds `source` with g++ and runs it; returns "name value" lines as a map.
std::map<std::string, long> build_and_run(const std::string& source, const std::vector<std::string>& flags) {
  const rocmtpl::test::temp_dir tmp("rocmtpl-gpu-runtime-test");
  const fs::path& dir = tmp.path();
  rocmtpl::test::write_file(dir / "probe.cpp", source);
  std::vector<std::string> argv = {"g++", "-std=c++17", "-w"};
  argv.insert(argv.end(), flags.begin(), flags.end());
  argv.insert(argv.end(), {(dir / "probe.cpp").string(), "-o", (dir / "probe").string()});
  const auto built = run_logged(argv, dir / "build.log");
  std::map<std::string, long> values;
  if (built.exit_code != 0) {
    ADD_FAILURE() << "cannot build the probe:\n" << built.output;
  } else {
    const auto ran = run_logged({(dir / "probe").string()}, dir / "run.log");
    EXPECT_EQ(ran.exit_code, 0) << ran.output;
    std::istringstream in(ran.output);
    std::string name;
    long value = 0;
    while (in >> name >> value) values[name] = value;
  }
  return values;
}

// The values a probe program printed against one vendor's table, the memcpy kinds and the
// properties buffer.
void expect_table_matches(const std::map<std::string, long>& v, const rocmtpl::runtime::detail::attribute_ids& ids) {
  const std::pair<const char*, int> attributes[] = {
      {"max_threads_per_block", ids.max_threads_per_block},
      {"max_shared_memory_per_block", ids.max_shared_memory_per_block},
      {"max_shared_memory_per_block_optin", ids.max_shared_memory_per_block_optin},
      {"warp_size", ids.warp_size},
      {"clock_rate", ids.clock_rate},
      {"multiprocessor_count", ids.multiprocessor_count},
      {"l2_cache_size", ids.l2_cache_size},
      {"compute_capability_major", ids.compute_capability_major},
      {"compute_capability_minor", ids.compute_capability_minor}};
  for (const auto& [name, value] : attributes) EXPECT_EQ(v.at(name), value) << name;
  EXPECT_EQ(v.at("h2d"), rocmtpl::runtime::detail::memcpy_host_to_device);
  EXPECT_EQ(v.at("d2h"), rocmtpl::runtime::detail::memcpy_device_to_host);
  EXPECT_EQ(v.at("d2d"), rocmtpl::runtime::detail::memcpy_device_to_device);
  EXPECT_EQ(v.at("success"), 0);
  EXPECT_EQ(v.at("name_offset"), 0);
  EXPECT_LE(v.at("prop_size"), static_cast<long>(rocmtpl::runtime::detail::device_prop_buffer_bytes));
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
  expect_table_matches(v, rocmtpl::runtime::detail::cuda_attributes);
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
  std::printf("max_shared_memory_per_block_optin %d\n", (int)hipDeviceAttributeSharedMemPerBlockOptin);
  std::printf("warp_size %d\n", (int)hipDeviceAttributeWarpSize);
  std::printf("h2d %d\nd2h %d\nd2d %d\nsuccess %d\n", (int)hipMemcpyHostToDevice, (int)hipMemcpyDeviceToHost,
              (int)hipMemcpyDeviceToDevice, (int)hipSuccess);
  std::printf("name_offset %zu\ngcn_arch_name_offset %zu\nprop_size %zu\n", offsetof(hipDeviceProp_t, name),
              offsetof(hipDeviceProp_t, gcnArchName), sizeof(hipDeviceProp_t));
}
)",
                               {"-D__HIP_PLATFORM_AMD__", "-I", include.string()});
  ASSERT_FALSE(v.empty());
  expect_table_matches(v, rocmtpl::runtime::detail::hip_attributes);
  if (v.at("hip_major") == 5) {
    EXPECT_EQ(v.at("gcn_arch_name_offset"), static_cast<long>(rocmtpl::runtime::detail::hip52_gcn_arch_name_offset));
  } else {
    // Other layouts are handled by searching the buffer; the field must still lie inside it.
    EXPECT_LT(v.at("gcn_arch_name_offset"), static_cast<long>(rocmtpl::runtime::detail::device_prop_buffer_bytes));
  }
}

}  // namespace
