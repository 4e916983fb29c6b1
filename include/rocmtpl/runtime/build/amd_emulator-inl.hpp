// SPDX-License-Identifier: MIT
#pragma once

// The implementation of runtime/build/amd_emulator.hpp: included at its end (header-only) or compiled once by
// src/runtime/build.cpp, after it (so it does not include it back).

#include <unistd.h>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <system_error>
#include <thread>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <rocmtpl/detail/hash.hpp>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/device/amd_emulator.hpp>
#include <rocmtpl/runtime/build/compiler.hpp>
#include <rocmtpl/runtime/build/device_headers.hpp>
#include <rocmtpl/runtime/gpu/loader.hpp>
#include <rocmtpl/runtime/gpu/options.hpp>
#include <rocmtpl/runtime/sys/atomic_file.hpp>
#include <rocmtpl/runtime/sys/cache_root.hpp>
#include <rocmtpl/runtime/sys/process.hpp>
#include <rocmtpl/runtime/sys/shared_library.hpp>

namespace rocmtpl::runtime {

ROCMTPL_INLINE std::filesystem::path find_amd_emulator_cxx() {
  if (const char* v = detail::non_empty_env("ROCMTPL_AMD_EMU_CXX")) {
    if (detail::proc::is_executable_file(v)) return v;
    throw compiler_not_found_error(platform::amd, {std::string("ROCMTPL_AMD_EMU_CXX=") + v},
                                   std::string("ROCMTPL_AMD_EMU_CXX names ") + v + ", which is not an executable file");
  }
  std::vector<std::string> searched;
  for (const char* name : {"clang++-15", "clang++-16", "clang++-17", "clang++-18", "clang++-19", "clang++"}) {
    if (auto p = find_executable(name)) return *p;
    searched.emplace_back(name);
  }
  throw compiler_not_found_error(platform::amd, searched,
                                 "no clang++ (15 or later) for the AMD emulator on PATH; install clang-15 "
                                 "(apt-get install clang-15) or set ROCMTPL_AMD_EMU_CXX");
}

ROCMTPL_INLINE std::filesystem::path amd_emulator_runtime_library(const std::filesystem::path& cxx) {
  namespace fs = std::filesystem;
  const fs::path include = device_include_dir();
  // The compiler's version (through a compiler object, whose version query is cached) names the build.
  const compiler probe(platform::amd, cxx);
  const std::string material = device_header_hash_hex() + "\n" + fs::absolute(cxx).string() + "\n" + probe.version();
  const fs::path dir = cache_root() / "amd-emu" / ::rocmtpl::detail::hash_hex(material);
  const fs::path library = dir / "librocmtpl_amd_emu.so";
  std::error_code ec;
  if (fs::is_regular_file(library, ec)) return library;
  fs::create_directories(dir, ec);
  if (ec) throw cache_directory_error(dir, "cannot create", ec.message());
  const fs::path source = dir / "rocmtpl_amd_emu_runtime.cpp";
  detail::write_file_atomic(source, "#define ROCMTPL_AMD_EMU_IMPLEMENTATION\n#include \"rocmtpl_amd_emu.h\"\n");
  // Built under a private name, then renamed: another thread or process may build it at the same time.
  const fs::path tmp = dir / fmt::format(".librocmtpl_amd_emu.so.{}.{}", ::getpid(),
                                         std::hash<std::thread::id>{}(std::this_thread::get_id()));
  const std::vector<std::string> argv{cxx.string(),   "-O2",
                                      "-std=c++17",   "-fPIC",
                                      "-shared",      "-fvisibility=hidden",
                                      "-pthread",     "-I" + include.string(),
                                      "-o",           tmp.string(),
                                      source.string()};
  process_options po;
  po.working_dir = dir;
  po.timeout = std::chrono::minutes(5);
  const auto r = run_process(argv, po);
  if (!r.ok()) {
    fs::remove(tmp, ec);
    throw compile_error(argv, r.output, std::string(rocmtpl::device::amd_emulator_header_source),
                        r.timed_out ? -1 : r.exit_code, source);
  }
  fs::rename(tmp, library, ec);
  if (ec) throw cache_directory_error(library, "cannot rename the emulator's runtime library into", ec.message());
  return library;
}

ROCMTPL_INLINE compiler amd_emulator_compiler() {
  const auto cxx = find_amd_emulator_cxx();
  return compiler::amd_emulator(cxx, amd_emulator_runtime_library(cxx));
}

ROCMTPL_INLINE compiler use_amd_emulator() {
  compiler cc = amd_emulator_compiler();
  const std::string library = cc.amd_emulator_runtime().string();
  if (!gpu_runtime::preset(gpu_runtime_options::amd_emulator(library))) {
    throw ::rocmtpl::error("rocmtpl: AMD emulator: this process's GPU runtime was loaded before (" +
                           gpu_runtime::instance().status() +
                           "); choose the emulator before the first GPU use (use_amd_emulator())");
  }
  const auto& rt = gpu_runtime::instance();
  if (!rt.available()) throw ::rocmtpl::error("rocmtpl: AMD emulator: its runtime did not load: " + rt.status());
  return cc;
}

ROCMTPL_INLINE compile_options amd_emulator_compile_options(std::string arch, int opt_level) {
  compile_options o;
  o.platform = platform::amd;
  o.archs = {std::move(arch)};
  o.opt_level = opt_level;
  o.include_dirs = {device_include_dir()};
  o.resource_usage = false;
  return o;
}

ROCMTPL_INLINE amd_emulator_runtime::amd_emulator_runtime(const std::filesystem::path& library)
    : library_(std::make_shared<shared_library>(library)) {
  malloc_ = library_->symbol<int(void**, std::size_t)>("rocmtpl_emu_malloc");
  free_ = library_->symbol<int(void*)>("rocmtpl_emu_free");
  message_ = library_->symbol<const char*()>("rocmtpl_emu_last_message");
  launches_ = library_->symbol<unsigned long long()>("rocmtpl_emu_launches");
  checked_ = library_->symbol<unsigned long long()>("rocmtpl_emu_checked_accesses");
}

ROCMTPL_INLINE void* amd_emulator_runtime::malloc(std::size_t bytes) const {
  void* p = nullptr;
  if (const int rc = malloc_(&p, bytes); rc != 0) {
    throw ::rocmtpl::error("rocmtpl: AMD emulator: cannot map " + std::to_string(bytes) +
                           " bytes of device memory (error " + std::to_string(rc) + ")");
  }
  return p;
}

ROCMTPL_INLINE void amd_emulator_runtime::free(void* ptr) const noexcept { (void)free_(ptr); }

ROCMTPL_INLINE std::string amd_emulator_runtime::last_message() const { return message_(); }

ROCMTPL_INLINE unsigned long long amd_emulator_runtime::launches() const { return launches_(); }

ROCMTPL_INLINE unsigned long long amd_emulator_runtime::checked_accesses() const { return checked_(); }

}  // namespace rocmtpl::runtime
