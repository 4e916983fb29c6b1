// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The AMD emulator's toolchain and host side (issue 23): the clang++ that builds generated
/// AMD sources for the CPU, the emulator's runtime library (built once into the cache from the
/// embedded rocmtpl_amd_emu.h, device/amd_emulator.hpp), the compiler and options for emulated
/// builds, and the runtime's host API in this process (device memory, the last launch's message).
///
/// @code{.cpp}
/// using namespace rocmtpl::runtime;
/// const compiler cc = amd_emulator_compiler();          // clang++, runtime library built once
/// code_cache cache(code_cache::default_root());
/// const auto lib = cache.get_or_compile(cc, caller.source(), amd_emulator_compile_options()).library;
/// const amd_emulator_runtime emu(cc.amd_emulator_runtime());
/// void* x = emu.malloc(bytes);                           // checked device memory
/// kernel_entry k(std::make_shared<shared_library>(lib), "rocm_gemm", caller.bmreq().signature);
/// k.call({x, ...}, sizes, nullptr, nullptr, nullptr);    // runs every block on this thread
/// @endcode

#include <cstddef>
#include <filesystem>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/runtime/build/compiler.hpp>
#include <rocmtpl/runtime/gpu/loader.hpp>
#include <rocmtpl/runtime/sys/shared_library.hpp>

namespace rocmtpl::runtime {

/// @brief clang++ for the AMD emulator: `ROCMTPL_AMD_EMU_CXX` (an error when it names no executable
/// file), else the first of clang++-15 (hipcc's clang, which CI installs), clang++-16 ... clang++-19
/// and clang++ on PATH (clang 14 and earlier have no _Float16 on x86-64 and fail the build).
/// @throws compiler_not_found_error naming the places searched
[[nodiscard]] std::filesystem::path find_amd_emulator_cxx();

/// @brief The emulator's runtime library built by `cxx`: `<cache_root()>/amd-emu/<hash>/librocmtpl_amd_emu.so`,
/// the hash over the device headers' texts and the compiler's path and version. Built on first use
/// (a private name, then renamed: safe from several threads and processes).
/// @throws compile_error when the build fails; cache_directory_error when the folder cannot be made
[[nodiscard]] std::filesystem::path amd_emulator_runtime_library(const std::filesystem::path& cxx);

/// @brief The compiler for emulated AMD builds: find_amd_emulator_cxx() with its runtime library
/// (compiler::amd_emulator()).
/// @throws compiler_not_found_error without clang++; compile_error when the runtime does not build
[[nodiscard]] compiler amd_emulator_compiler();

/// @brief Makes the AMD emulator this process's GPU runtime (gpu_runtime::preset() with
/// gpu_runtime_options::amd_emulator() of the compiler's runtime library), so that device buffers,
/// streams and the helper kernels of the benchmark run on it; call it before the first GPU use.
/// @return the emulator's compiler (amd_emulator_compiler())
/// @throws error when the process's GPU runtime was loaded before with other settings, or the
///         emulator's runtime does not load; compiler_not_found_error without clang++
[[nodiscard]] compiler use_amd_emulator();

/// @brief Options for emulated builds: platform amd, `arch` (the target the source is written for:
/// it enters the cache key; the emulator runs both gfx90a's and gfx940's code), the device headers'
/// folder, -O2 (an emulated kernel's speed hardly depends on -O3; -O1 compiles faster).
[[nodiscard]] compile_options amd_emulator_compile_options(std::string arch = "gfx90a", int opt_level = 2);

/// @brief The emulator's runtime in this process, through its library (the file emulated kernels
/// link: the dynamic loader loads it once, so both see one state). Cheap to copy.
class amd_emulator_runtime {
 public:
  /// @brief Loads the runtime library (see amd_emulator_runtime_library(), compiler::amd_emulator_runtime()).
  /// @throws library_load_error, symbol_not_found_error
  explicit amd_emulator_runtime(const std::filesystem::path& library);

  /// @brief Device memory for emulated kernels: page-aligned, filled with 0xff bytes, between
  /// unmapped pages; accesses outside it stop a launch. nullptr for 0 bytes.
  /// @throws error when the memory cannot be mapped
  [[nodiscard]] void* malloc(std::size_t bytes) const;

  /// @brief Frees memory from malloc(); nullptr does nothing.
  void free(void* ptr) const noexcept;

  /// @brief The message of the last launch that failed (out-of-bounds access, deadlock, divergent
  /// lane operations, trap), naming kernel, block, thread, wave, lane and address; empty after a
  /// launch that succeeded.
  [[nodiscard]] std::string last_message() const;

  /// @brief Launches run so far in this process.
  [[nodiscard]] unsigned long long launches() const;

  /// @brief Loads and stores of kernel code checked against the shared, argument, read-only and
  /// device ranges so far (accesses to a lane's own stack pass without a look-up and are not counted).
  [[nodiscard]] unsigned long long checked_accesses() const;

  /// @brief The runtime library.
  [[nodiscard]] const std::filesystem::path& library() const noexcept { return library_->path(); }

 private:
  std::shared_ptr<shared_library> library_;
  int (*malloc_)(void**, std::size_t) = nullptr;
  int (*free_)(void*) = nullptr;
  const char* (*message_)() = nullptr;
  unsigned long long (*launches_)() = nullptr;
  unsigned long long (*checked_)() = nullptr;
};

/// @brief Device memory of the emulator, freed on destruction. Move-only.
class amd_emulator_buffer {
 public:
  /// @brief `bytes` of emulated device memory (see amd_emulator_runtime::malloc()).
  amd_emulator_buffer(const amd_emulator_runtime& emu, std::size_t bytes)
      : emu_(emu), bytes_(bytes), ptr_(emu.malloc(bytes)) {}
  amd_emulator_buffer(const amd_emulator_buffer&) = delete;
  amd_emulator_buffer& operator=(const amd_emulator_buffer&) = delete;
  /// @brief Takes over `other`'s memory.
  amd_emulator_buffer(amd_emulator_buffer&& other) noexcept
      : emu_(other.emu_), bytes_(other.bytes_), ptr_(std::exchange(other.ptr_, nullptr)) {}
  amd_emulator_buffer& operator=(amd_emulator_buffer&&) = delete;
  ~amd_emulator_buffer() { emu_.free(ptr_); }

  /// @brief The memory (also readable and writable from the host).
  [[nodiscard]] void* get() const noexcept { return ptr_; }
  /// @brief Its size in bytes.
  [[nodiscard]] std::size_t size() const noexcept { return bytes_; }

 private:
  amd_emulator_runtime emu_;
  std::size_t bytes_;
  void* ptr_;
};

}  // namespace rocmtpl::runtime

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/runtime/build/amd_emulator-inl.hpp>
#endif
