// SPDX-License-Identifier: MIT
// A fake CUDA runtime: the functions gpu_runtime binds from libcudart, with one device whose
// "device memory" is host memory. The GPU runtime tests load it (as a libcudart) to drive the
// loader and the handles through their GPU paths on a machine without a GPU; it counts what was
// created and destroyed (rocmtpl_fake_count).

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <string_view>

namespace {
int streams_created = 0;
int streams_destroyed = 0;
int events_created = 0;
int events_destroyed = 0;
int allocations = 0;
int frees = 0;
int current_device = 0;

void* take(int& counter) {
  ++counter;
  return std::malloc(16);
}
int give(void* p, int& counter) {
  if (p == nullptr) return 400;  // cudaErrorInvalidResourceHandle
  std::free(p);
  ++counter;
  return 0;
}
}  // namespace

#define FAKE extern "C" __attribute__((visibility("default")))

FAKE int rocmtpl_fake_count(const char* what) {
  const std::string_view w(what);
  if (w == "streams_created") return streams_created;
  if (w == "streams_destroyed") return streams_destroyed;
  if (w == "events_created") return events_created;
  if (w == "events_destroyed") return events_destroyed;
  if (w == "allocations") return allocations;
  if (w == "frees") return frees;
  return -1;
}

FAKE int cudaGetDeviceCount(int* n) {
  *n = 1;
  return 0;
}
FAKE int cudaSetDevice(int device) {
  if (device != 0) return 101;  // cudaErrorInvalidDevice
  current_device = device;
  return 0;
}
FAKE int cudaGetDevice(int* device) {
  *device = current_device;
  return 0;
}
// Attribute values are the enumerator times 10, except the compute capability (9.0): a test can
// tell which enumerator was asked for.
FAKE int cudaDeviceGetAttribute(int* value, int attribute, int device) {
  if (device != 0) return 101;
  *value = attribute == 75 ? 9 : attribute == 76 ? 0 : attribute * 10;
  return 0;
}
FAKE int cudaGetDeviceProperties(void* props, int device) {
  if (device != 0) return 101;
  std::strcpy(static_cast<char*>(props), "Fake GPU");
  return 0;
}
FAKE int cudaMemGetInfo(std::size_t* free_bytes, std::size_t* total) {
  *free_bytes = std::size_t{1} << 30;
  *total = std::size_t{2} << 30;
  return 0;
}
FAKE int cudaMalloc(void** p, std::size_t bytes) {
  if (bytes > (std::size_t{1} << 30)) return 2;  // cudaErrorMemoryAllocation
  ++allocations;
  *p = std::malloc(bytes == 0 ? 1 : bytes);
  return 0;
}
FAKE int cudaFree(void* p) { return give(p, frees); }
FAKE int cudaMemcpy(void* dst, const void* src, std::size_t bytes, int) {
  std::memcpy(dst, src, bytes);
  return 0;
}
FAKE int cudaMemcpyAsync(void* dst, const void* src, std::size_t bytes, int, void*) {
  std::memcpy(dst, src, bytes);
  return 0;
}
FAKE int cudaMemsetAsync(void* dst, int value, std::size_t bytes, void*) {
  std::memset(dst, value, bytes);
  return 0;
}
FAKE int cudaStreamCreate(void** s) {
  *s = take(streams_created);
  return 0;
}
FAKE int cudaStreamDestroy(void* s) { return give(s, streams_destroyed); }
FAKE int cudaStreamSynchronize(void*) { return 0; }
FAKE int cudaDeviceSynchronize() { return 0; }
FAKE int cudaEventCreate(void** e) {
  *e = take(events_created);
  return 0;
}
FAKE int cudaEventDestroy(void* e) { return give(e, events_destroyed); }
FAKE int cudaEventRecord(void* e, void*) { return e == nullptr ? 400 : 0; }
FAKE int cudaEventSynchronize(void* e) { return e == nullptr ? 400 : 0; }
FAKE int cudaEventElapsedTime(float* ms, void* start, void* stop) {
  if (start == nullptr || stop == nullptr) return 400;
  *ms = 1.5F;
  return 0;
}
FAKE const char* cudaGetErrorString(int code) { return code == 2 ? "out of memory" : "fake error"; }
FAKE int cudaGetLastError() { return 0; }
FAKE int cudaRuntimeGetVersion(int* version) {
  *version = 13000;
  return 0;
}
