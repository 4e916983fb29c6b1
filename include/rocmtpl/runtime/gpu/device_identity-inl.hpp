// SPDX-License-Identifier: MIT
#pragma once

// The implementation of runtime/gpu/device_identity.hpp: included at its end (header-only) or compiled once by
// src/runtime/gpu.cpp, after it (so it does not include it back).

#include <algorithm>
#include <cstdlib>
#include <exception>
#include <filesystem>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include <nlohmann/json.hpp>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/detail/hash.hpp>
#include <rocmtpl/runtime/gpu/gpu_runtime.hpp>
#include <rocmtpl/runtime/sys/atomic_file.hpp>
#include <rocmtpl/runtime/sys/cache_root.hpp>

namespace rocmtpl::runtime {

namespace detail {
ROCMTPL_INLINE std::string read_small_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  if (in) s << in.rdbuf();
  return s.str();
}

// Contents of every file directly under `dir`/<entry>/`leaf`, in name order.
ROCMTPL_INLINE std::string read_entries(const std::filesystem::path& dir, const char* leaf) {
  std::error_code ec;
  std::vector<std::filesystem::path> entries;
  for (const auto& e : std::filesystem::directory_iterator(dir, ec)) entries.push_back(e.path());
  std::sort(entries.begin(), entries.end());
  std::string out;
  for (const auto& e : entries) out += e.filename().string() + "\n" + read_small_file(e / leaf);
  return out;
}
}  // namespace detail

ROCMTPL_INLINE std::optional<std::string> gpu_fingerprint() {
  std::string text;
  for (const char* var : {"CUDA_VISIBLE_DEVICES", "HIP_VISIBLE_DEVICES", "ROCR_VISIBLE_DEVICES", "ROCMTPL_PLATFORM",
                          "ROCMTPL_AMD_ARCH"}) {
    const char* v = std::getenv(var);
    text += std::string(var) + "=" + (v ? v : "") + "\n";
  }
  std::string driver;
  if (std::filesystem::exists("/proc/driver/nvidia/gpus")) {
    driver += detail::read_small_file("/proc/driver/nvidia/version");
    driver += detail::read_entries("/proc/driver/nvidia/gpus", "information");
  }
  if (std::filesystem::exists("/sys/class/kfd/kfd/topology/nodes")) {
    driver += detail::read_entries("/sys/class/kfd/kfd/topology/nodes", "properties");
  }
  if (driver.empty()) return std::nullopt;
  return ::rocmtpl::detail::hash_hex(text + driver);
}

namespace detail {
ROCMTPL_INLINE std::optional<std::filesystem::path> identity_file() {
  const auto fp = gpu_fingerprint();
  if (!fp) return std::nullopt;
  try {
    return cache_root() / "devices" / (*fp + ".json");
  } catch (const std::exception&) {
    return std::nullopt;
  }
}
}  // namespace detail

ROCMTPL_INLINE std::optional<device_identity> cached_device_identity() {
  const auto file = detail::identity_file();
  if (!file) return std::nullopt;
  const auto text = detail::read_small_file(*file);
  if (text.empty()) return std::nullopt;
  try {
    const auto j = nlohmann::json::parse(text);
    device_identity id;
    id.kind = j.at("platform").get<std::string>() == "amd" ? platform::amd : platform::nvidia;
    id.name = j.at("name").get<std::string>();
    id.arch = j.at("arch").get<std::string>();
    return id;
  } catch (const std::exception&) {
    return std::nullopt;  // unreadable: the caller asks the runtime and rewrites it
  }
}

ROCMTPL_INLINE std::optional<device_identity> query_device_identity() {
  const auto& rt = gpu_runtime::instance();
  if (!rt.available()) return std::nullopt;
  const auto p = rt.properties(rt.current_device());
  device_identity id{p.kind, p.name, p.arch};
  if (const auto file = detail::identity_file()) {
    std::error_code ec;
    std::filesystem::create_directories(file->parent_path(), ec);
    const nlohmann::json j{{"platform", std::string(to_string(id.kind))}, {"name", id.name}, {"arch", id.arch}};
    try {
      detail::write_file_atomic(*file, j.dump());
    } catch (const file_write_error&) {
      // Only a shortcut: without the record the next process asks the runtime again.
    }
  }
  return id;
}

}  // namespace rocmtpl::runtime
