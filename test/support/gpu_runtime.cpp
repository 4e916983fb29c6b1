// SPDX-License-Identifier: MIT
#include "support/gpu_runtime.hpp"

namespace rocmtpl::test {

bool loadable(const std::vector<std::string>& files) {
  for (const auto& f : files) {
    if (void* h = ::dlopen(f.c_str(), RTLD_NOW | RTLD_LOCAL)) {
      ::dlclose(h);
      return true;
    }
  }
  return false;
}

runtime::gpu_runtime_options no_runtime_options() {
  runtime::gpu_runtime_options options;
  options.nvidia_libraries = {"librocmtpl-no-such-cudart.so"};
  options.amd_libraries = {"/nonexistent/librocmtpl-no-such-hip.so"};
  return options;
}

void expect_every_operation_refused(const runtime::gpu_runtime& rt) {
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
}  // namespace rocmtpl::test
