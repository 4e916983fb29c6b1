// SPDX-License-Identifier: MIT
#pragma once

// The implementation of runtime/sys/shared_library.hpp: included at its end (header-only) or compiled once by
// src/runtime/sys.cpp, after it (so it does not include it back).

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/runtime/sys/log.hpp>

#include <cstddef>
#include <filesystem>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <system_error>
#include <unordered_map>
#include <utility>

#include <dlfcn.h>
#include <sys/stat.h>

namespace rocmtpl::runtime {

ROCMTPL_INLINE library_load_error::library_load_error(std::filesystem::path path, const std::string& reason)
    : error("rocmtpl: cannot load " + path.string() + ": " + reason), path_(std::move(path)), reason_(reason) {}

ROCMTPL_INLINE symbol_not_found_error::symbol_not_found_error(std::string symbol, std::filesystem::path library,
                                                              const std::string& reason)
    : error("rocmtpl: symbol '" + symbol + "' not found in " + library.string() +
            (reason.empty() ? "" : ": " + reason)),
      symbol_(std::move(symbol)),
      library_(std::move(library)) {}

ROCMTPL_INLINE shared_library::shared_library(std::filesystem::path path, int flags) : path_(std::move(path)) {
  ::dlerror();
  handle_ = ::dlopen(path_.c_str(), flags);
  if (handle_ == nullptr) {
    const char* e = ::dlerror();
    throw library_load_error(path_, e != nullptr ? e : "unknown dlopen error");
  }
  log_debug("load {}", path_.string());
}

ROCMTPL_INLINE shared_library& shared_library::operator=(shared_library&& other) noexcept {
  if (this != &other) {
    close();
    path_ = std::move(other.path_);
    handle_ = std::exchange(other.handle_, nullptr);
  }
  return *this;
}

ROCMTPL_INLINE void* shared_library::raw_symbol(std::string_view name) const {
  const std::string n(name);
  if (handle_ == nullptr) throw symbol_not_found_error(n, path_, "the library is not open (moved from)");
  ::dlerror();
  void* p = ::dlsym(handle_, n.c_str());
  if (const char* e = ::dlerror(); e != nullptr || p == nullptr) {
    throw symbol_not_found_error(n, path_, e != nullptr ? e : "the symbol's address is null");
  }
  return p;
}

ROCMTPL_INLINE bool shared_library::has_symbol(std::string_view name) const {
  if (handle_ == nullptr) return false;
  const std::string n(name);
  ::dlerror();
  void* p = ::dlsym(handle_, n.c_str());
  return ::dlerror() == nullptr && p != nullptr;
}

ROCMTPL_INLINE void shared_library::close() noexcept {
  if (handle_ != nullptr) ::dlclose(handle_);
  handle_ = nullptr;
}

ROCMTPL_INLINE std::shared_ptr<shared_library> library_lru::open(const std::filesystem::path& path) {
  std::error_code ec;
  auto canonical = std::filesystem::weakly_canonical(path, ec);
  if (ec) canonical = std::filesystem::absolute(path);
  const std::string key = identity(canonical);
  std::lock_guard lock(mutex_);
  if (auto it = index_.find(key); it != index_.end()) {
    order_.splice(order_.begin(), order_, it->second);
    ++hits_;
    return it->second->lib;
  }
  ++misses_;
  // An entry for an older file at this path is dropped first: when nobody else holds it, the
  // loader unloads it, and the dlopen below maps the new file instead of returning the old one.
  for (auto it = order_.begin(); it != order_.end();) {
    if (it->path == canonical) {
      index_.erase(it->key);
      it = order_.erase(it);
    } else {
      ++it;
    }
  }
  auto lib = std::make_shared<shared_library>(canonical);
  order_.push_front(entry{key, canonical, lib});
  index_[key] = order_.begin();
  while (order_.size() > capacity_) {
    index_.erase(order_.back().key);
    order_.pop_back();
  }
  return lib;
}

ROCMTPL_INLINE std::size_t library_lru::size() const {
  std::lock_guard lock(mutex_);
  return order_.size();
}

ROCMTPL_INLINE std::size_t library_lru::hits() const {
  std::lock_guard lock(mutex_);
  return hits_;
}

ROCMTPL_INLINE std::size_t library_lru::misses() const {
  std::lock_guard lock(mutex_);
  return misses_;
}

ROCMTPL_INLINE void library_lru::clear() {
  std::lock_guard lock(mutex_);
  index_.clear();
  order_.clear();
}

ROCMTPL_INLINE std::string library_lru::identity(const std::filesystem::path& p) {
  struct stat st {};
  std::string key = p.string();
  if (::stat(p.c_str(), &st) == 0) {
    key += '\0' + std::to_string(st.st_dev) + ':' + std::to_string(st.st_ino) + ':' +
           std::to_string(st.st_mtim.tv_sec) + '.' + std::to_string(st.st_mtim.tv_nsec);
  }
  return key;
}

}  // namespace rocmtpl::runtime
