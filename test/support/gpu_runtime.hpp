// SPDX-License-Identifier: MIT
#pragma once

// Shared helpers of the GPU runtime tests (test/runtime/gpu/*_test.cpp,
// test/runtime/gpu/gpu_runtime_test.cpp).

#include <rocmtpl/runtime/gpu/handles.hpp>
#include <rocmtpl/runtime/gpu/loader.hpp>

#include <dlfcn.h>
#include <gtest/gtest.h>

#include <exception>
#include <string>
#include <vector>

namespace rocmtpl::test {

// Whether the test process itself can load a library (independently of gpu_runtime).
bool loadable(const std::vector<std::string>& files);

// Options under which no runtime library can load.
runtime::gpu_runtime_options no_runtime_options();

// Every operation of a runtime that has no GPU throws no_gpu_error whose message carries the status.
void expect_every_operation_refused(const runtime::gpu_runtime& rt);

#ifdef ROCMTPL_FAKE_CUDART
// Options that load the fake CUDA runtime (test/runtime/gpu/fake_cudart.cpp): one device
// whose memory is host memory.
inline runtime::gpu_runtime_options fake_runtime_options() {
  runtime::gpu_runtime_options options;
  options.platform_choice = runtime::platform::nvidia;
  options.nvidia_libraries = {ROCMTPL_FAKE_CUDART};
  return options;
}

// How many of `what` ("streams_created", "frees", ...) the fake runtime has seen in this process.
inline int fake_count(const char* what) {
  void* lib = ::dlopen(ROCMTPL_FAKE_CUDART, RTLD_NOW | RTLD_NOLOAD);
  if (lib == nullptr) return -1;
  auto count = reinterpret_cast<int (*)(const char*)>(::dlsym(lib, "rocmtpl_fake_count"));
  const int n = count != nullptr ? count(what) : -1;
  ::dlclose(lib);
  return n;
}
#endif

}  // namespace rocmtpl::test
