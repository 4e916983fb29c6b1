// SPDX-License-Identifier: MIT
// A fake CUDA driver: the module-API functions runtime/launch/module_launcher.hpp binds from libcuda.
// A "code object" is any file; a kernel exists when its name occurs in the file's bytes. Every
// launch is recorded (grid, block, shared bytes, the first 8 bytes of each parameter) so that
// test/runtime/launch/module_launcher_fake_test.cpp checks, without a GPU, what the launcher passes.

#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

namespace {
struct module {
  std::string image;
};
struct function {
  std::string name;
  int max_dynamic_shared = 48 * 1024;
};
struct launch_record {
  std::string kernel;
  unsigned grid[3];
  unsigned block[3];
  unsigned shared;
  std::vector<std::uint64_t> params;
};
std::vector<function*> functions;
std::vector<launch_record> launches;
int param_count = 0;
int modules_loaded = 0;
int modules_unloaded = 0;
int maps_encoded = 0;
}  // namespace

#define FAKE extern "C" __attribute__((visibility("default")))

FAKE int cuInit(unsigned) { return 0; }
FAKE int cuModuleLoadData(void** m, const void* image) {
  // The test's code objects are text files ending in a NUL.
  *m = new module{static_cast<const char*>(image)};
  ++modules_loaded;
  return 0;
}
FAKE int cuModuleUnload(void* m) {
  delete static_cast<module*>(m);
  ++modules_unloaded;
  return 0;
}
FAKE int cuModuleGetFunction(void** f, void* m, const char* name) {
  if (static_cast<module*>(m)->image.find(name) == std::string::npos) return 500;  // CUDA_ERROR_NOT_FOUND
  functions.push_back(new function{name});
  *f = functions.back();
  return 0;
}
FAKE int cuFuncSetAttribute(void* f, int attribute, int value) {
  if (attribute != 8 || value > 232448) return 1;  // CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES
  static_cast<function*>(f)->max_dynamic_shared = value;
  return 0;
}
FAKE int cuLaunchKernel(void* f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by, unsigned bz,
                        unsigned shared, void*, void** params, void**) {
  auto* fn = static_cast<function*>(f);
  if (static_cast<int>(shared) > fn->max_dynamic_shared) return 1;  // CUDA_ERROR_INVALID_VALUE
  launch_record r{fn->name, {gx, gy, gz}, {bx, by, bz}, shared, {}};
  for (int i = 0; i < param_count; ++i) {
    std::uint64_t v = 0;
    std::memcpy(&v, params[i], sizeof v);
    r.params.push_back(v);
  }
  launches.push_back(r);
  return 0;
}
FAKE int cuTensorMapEncodeTiled(void* map, int type, unsigned rank, void* address, const std::uint64_t* dims,
                                const std::uint64_t* strides, const std::uint32_t* box, const std::uint32_t*, int, int,
                                int, int) {
  // The map's first words: address, type, rank, dims, the row stride in bytes, box.
  std::uint64_t words[8] = {reinterpret_cast<std::uintptr_t>(address),
                            static_cast<std::uint64_t>(type),
                            rank,
                            dims[0],
                            dims[1],
                            strides[0],
                            box[0],
                            box[1]};
  std::memcpy(map, words, sizeof words);
  ++maps_encoded;
  return 0;
}
FAKE int cuGetErrorString(int, const char** text) {
  *text = "fake driver error";
  return 0;
}

// Test access.
FAKE void rocmtpl_fake_driver_params(int n) { param_count = n; }
FAKE int rocmtpl_fake_driver_count(const char* what) {
  const std::string w(what);
  if (w == "launches") return static_cast<int>(launches.size());
  if (w == "modules_loaded") return modules_loaded;
  if (w == "modules_unloaded") return modules_unloaded;
  if (w == "maps_encoded") return maps_encoded;
  return -1;
}
// Launch `i`: its kernel name (returned), grid, block, shared bytes and parameter words.
FAKE const char* rocmtpl_fake_driver_launch(int i, unsigned* grid, unsigned* block, unsigned* shared,
                                            std::uint64_t* params) {
  const auto& r = launches.at(static_cast<std::size_t>(i));
  std::memcpy(grid, r.grid, sizeof r.grid);
  std::memcpy(block, r.block, sizeof r.block);
  *shared = r.shared;
  std::memcpy(params, r.params.data(), r.params.size() * sizeof(std::uint64_t));
  return r.kernel.c_str();
}
