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
inline bool loadable(const std::vector<std::string>& files) {
  for (const auto& f : files) {
    if (void* h = ::dlopen(f.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      ::dlclose(h);
      return true;
    }
  }
  return false;
}

// Options under which no runtime library can load.
inline runtime::gpu_runtime_options no_runtime_options() {
  runtime::gpu_runtime_options options;
  options.nvidia_libraries = {"librocmtpl-no-such-cudart.so"};
  options.amd_libraries = {"/nonexistent/librocmtpl-no-such-hip.so"};
  return options;
}

// Every operation of a runtime that has no GPU throws no_gpu_error whose message carries the status.
inline void expect_every_operation_refused(const runtime::gpu_runtime& rt) {
  ASSERT_FALSE(rt.available());
  EXPECT_EQ(rt.device_count(), 0);
  int host = 0;
  auto expect_refused = [&](auto&& operation, const char* what) {
    try {
      operation();
      ADD_FAILURE() << what << " did not throw";
    } catch (const runtime::no_gpu_error& e) {
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
  expect_refused([&] { runtime::device_buffer b(16, rt); }, "device_buffer");
  expect_refused([&] { runtime::stream s(rt); }, "stream");
  expect_refused([&] { runtime::event e(rt); }, "event");
  // Releasing is always safe.
  EXPECT_NO_THROW(rt.free(&host));
  EXPECT_NO_THROW(rt.destroy_stream(&host));
  EXPECT_NO_THROW(rt.destroy_event(&host));
  EXPECT_EQ(host, 0);
}

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
