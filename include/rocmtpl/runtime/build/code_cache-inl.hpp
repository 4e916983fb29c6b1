// SPDX-License-Identifier: MIT
#pragma once

// The implementation of runtime/build/code_cache.hpp: included at its end (header-only) or compiled once by
// src/runtime/build.cpp, after it (so it does not include it back).

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/runtime/build/compiler.hpp>
#include <rocmtpl/runtime/build/resource_usage.hpp>
#include <rocmtpl/runtime/sys/atomic_file.hpp>
#include <rocmtpl/runtime/sys/cache_root.hpp>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#ifndef XXH_INLINE_ALL
#define XXH_INLINE_ALL
#endif
#include <xxhash.h>

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/statvfs.h>
#include <unistd.h>

namespace rocmtpl::runtime {

namespace detail::code_cache_impl {

ROCMTPL_INLINE std::string hex64(std::uint64_t v) { return fmt::format("{:016x}", v); }

// The compiled file of an entry: lib.so, or code.co for a device-only code object.
ROCMTPL_INLINE const char* artifact_name(const compile_options& o) {
  return o.output == compile_output::code_object ? "code.co" : "lib.so";
}

// xxh64 of a file's bytes; nullopt when it cannot be read.
ROCMTPL_INLINE std::optional<std::uint64_t> file_xxh64(const fs::path& p) {
  std::FILE* f = std::fopen(p.c_str(), "rb");
  if (f == nullptr) return std::nullopt;
  XXH64_state_t* state = XXH64_createState();
  XXH64_reset(state, 0);
  char buffer[1 << 16];
  std::size_t n = 0;
  bool ok = true;
  while ((n = std::fread(buffer, 1, sizeof buffer, f)) > 0) XXH64_update(state, buffer, n);
  if (std::ferror(f) != 0) ok = false;
  std::fclose(f);
  const auto h = XXH64_digest(state);
  XXH64_freeState(state);
  if (!ok) return std::nullopt;
  return h;
}

ROCMTPL_INLINE std::optional<file_stat> stat_file(const fs::path& p) {
  struct stat st {};
  if (::stat(p.c_str(), &st) != 0 || !S_ISREG(st.st_mode)) return std::nullopt;
  return file_stat{static_cast<std::uintmax_t>(st.st_size),
                   static_cast<std::int64_t>(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec};
}

ROCMTPL_INLINE std::optional<json> read_json(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return std::nullopt;
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  json j = json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) return std::nullopt;
  return j;
}

ROCMTPL_INLINE std::string dump(const json& j) {
  // Compiler logs may hold bytes that are not UTF-8: replace them rather than fail.
  return j.dump(1, ' ', false, json::error_handler_t::replace);
}

ROCMTPL_INLINE json resources_to_json(const std::vector<kernel_resource_usage>& rs) {
  json a = json::array();
  for (const auto& r : rs) {
    a.push_back({{"kernel", r.kernel},
                 {"mangled_name", r.mangled_name},
                 {"arch", r.arch},
                 {"vgprs", r.vgprs},
                 {"sgprs", r.sgprs},
                 {"agprs", r.agprs},
                 {"lds_bytes", r.lds_bytes},
                 {"scratch_bytes", r.scratch_bytes},
                 {"occupancy", r.occupancy},
                 {"sgpr_spills", r.sgpr_spills},
                 {"vgpr_spills", r.vgpr_spills},
                 {"registers", r.registers},
                 {"shared_bytes", r.shared_bytes},
                 {"stack_bytes", r.stack_bytes},
                 {"spill_store_bytes", r.spill_store_bytes},
                 {"spill_load_bytes", r.spill_load_bytes},
                 {"barriers", r.barriers},
                 {"const_bytes", r.const_bytes}});
  }
  return a;
}

ROCMTPL_INLINE std::vector<kernel_resource_usage> resources_from_json(const json& a) {
  std::vector<kernel_resource_usage> out;
  if (!a.is_array()) return out;
  for (const auto& j : a) {
    kernel_resource_usage r;
    r.kernel = j.value("kernel", "");
    r.mangled_name = j.value("mangled_name", "");
    r.arch = j.value("arch", "");
    r.vgprs = j.value("vgprs", 0);
    r.sgprs = j.value("sgprs", 0);
    r.agprs = j.value("agprs", 0);
    r.lds_bytes = j.value("lds_bytes", 0);
    r.scratch_bytes = j.value("scratch_bytes", 0);
    r.occupancy = j.value("occupancy", 0);
    r.sgpr_spills = j.value("sgpr_spills", 0);
    r.vgpr_spills = j.value("vgpr_spills", 0);
    r.registers = j.value("registers", 0);
    r.shared_bytes = j.value("shared_bytes", 0);
    r.stack_bytes = j.value("stack_bytes", 0);
    r.spill_store_bytes = j.value("spill_store_bytes", 0);
    r.spill_load_bytes = j.value("spill_load_bytes", 0);
    r.barriers = j.value("barriers", 0);
    r.const_bytes = j.value("const_bytes", 0);
    out.push_back(std::move(r));
  }
  return out;
}

// Paths listed by a Makefile-style dependency file (-MD), target excluded.
ROCMTPL_INLINE std::vector<fs::path> parse_depfile(std::string_view text) {
  std::vector<fs::path> out;
  // The target ends at the first ':' followed by white space ("lib.so: a.h" or "lib.so : a.h").
  std::size_t start = std::string_view::npos;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == ':' && (i + 1 == text.size() || text[i + 1] == ' ' || text[i + 1] == '\n' || text[i + 1] == '\t' ||
                           text[i + 1] == '\r')) {
      start = i + 1;
      break;
    }
  }
  if (start == std::string_view::npos) return out;
  std::string token;
  auto flush = [&] {
    if (!token.empty()) out.emplace_back(token);
    token.clear();
  };
  for (std::size_t i = start; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\' && i + 1 < text.size()) {
      const char n = text[i + 1];
      if (n == '\n' || n == '\r') {  // line continuation
        flush();
        ++i;
        continue;
      }
      if (n == ' ' || n == '#' || n == '\\') {
        token += n;
        ++i;
        continue;
      }
      token += c;
      continue;
    }
    if (c == '$' && i + 1 < text.size() && text[i + 1] == '$') {
      token += '$';
      ++i;
      continue;
    }
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      flush();
      if (c == '\n' && i + 1 < text.size() && text[i + 1] != ' ' && text[i + 1] != '\t') break;  // next rule
      continue;
    }
    token += c;
  }
  flush();
  return out;
}

ROCMTPL_INLINE std::optional<std::string> unwritable_reason(const fs::path& root) {
  std::vector<fs::path> folders;
  std::error_code ec;
  for (const auto& f : {root, root / "so", root / "locks"}) {
    if (fs::is_directory(f, ec)) folders.push_back(f);
  }
  if (folders.empty()) {  // not made yet: where it would be made
    fs::path p = root;
    while (!fs::exists(p, ec) && p.has_parent_path() && p != p.parent_path()) p = p.parent_path();
    folders.push_back(p);
  }
  for (const auto& f : folders) {
    struct statvfs vfs {};
    if (::statvfs(f.c_str(), &vfs) == 0 && (vfs.f_flag & ST_RDONLY) != 0) return "on a read-only file system";
    if (::access(f.c_str(), W_OK) != 0 && (errno == EACCES || errno == EPERM || errno == EROFS)) {
      return errno == EROFS ? "on a read-only file system" : f.string() + " is not writable by this user";
    }
  }
  return std::nullopt;
}

ROCMTPL_INLINE std::string read_only_message(const fs::path& root, std::string_view why, std::string_view key) {
  return fmt::format(
      "rocmtpl: code_cache: the kernel cache {} is read-only ({}): kernel {} is not in it and cannot be compiled "
      "into it; its other kernels are served as they are. Point ROCMTPL_CACHE_DIR at a writable folder (or at a "
      "cache that holds this kernel)",
      root.string(), why, key);
}

ROCMTPL_INLINE file_lock::file_lock(const fs::path& path, const fs::path& root) {
  std::error_code ec;
  fs::create_directories(path.parent_path(), ec);
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0) {
    const int err = errno;
    if (!root.empty() && (err == EROFS || err == EACCES || err == EPERM)) {
      const std::string why =
          err == EROFS ? "on a read-only file system" : path.parent_path().string() + " is not writable by this user";
      throw code_cache_read_only_error(root, why, read_only_message(root, why, path.stem().string()));
    }
    throw code_cache_error("rocmtpl: code_cache: cannot open lock file " + path.string() + ": " +
                           std::generic_category().message(err));
  }
  while (::flock(fd_, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    const int err = errno;
    ::close(fd_);
    throw code_cache_error("rocmtpl: code_cache: cannot lock " + path.string() + ": " +
                           std::generic_category().message(err));
  }
}

ROCMTPL_INLINE file_lock::~file_lock() {
  ::flock(fd_, LOCK_UN);
  ::close(fd_);
}

// Replaces whole arguments equal to `from` by `to` (staging paths by the entry's final paths).
ROCMTPL_INLINE std::vector<std::string> replace_args(std::vector<std::string> argv,
                                                     const std::vector<std::pair<std::string, std::string>>& subst) {
  for (auto& a : argv) {
    for (const auto& [from, to] : subst) {
      if (a == from) a = to;
    }
  }
  return argv;
}

}  // namespace detail::code_cache_impl

ROCMTPL_INLINE code_cache::code_cache(std::filesystem::path root, code_cache_options options)
    : root_(std::filesystem::absolute(std::move(root)).lexically_normal()), options_(options) {}

ROCMTPL_INLINE std::string code_cache::key(const compiler& cc, std::string_view source,
                                           const compile_options& options) const {
  auto opts = options;
  opts.dependency_file = options_.track_dependencies ? std::filesystem::path("/@DEPFILE@") : std::filesystem::path();
  const auto argv = cc.command(opts, "/@SOURCE@", "/@OUTPUT@");
  std::string material;
  auto field = [&](std::string_view f) {
    material += std::to_string(f.size());
    material += ':';
    material += f;
    material += '\n';
  };
  field("rocmtpl.code_cache.v1");
  field(to_string(cc.platform()));
  field(cc.path().string());
  field(cc.version());
  for (const auto& e : cc.environment_fingerprint()) field(e);
  field("archs");
  for (const auto& a : compiler::resolved_archs(options)) field(a);
  field("argv");
  for (const auto& a : argv) field(a);
  field("source");
  field(source);
  const XXH128_hash_t h = XXH3_128bits(material.data(), material.size());
  return detail::code_cache_impl::hex64(h.high64) + detail::code_cache_impl::hex64(h.low64);
}

ROCMTPL_INLINE compile_result code_cache::get_or_compile(const compiler& cc, std::string_view source,
                                                         const compile_options& options) {
  cc.check_path(root_, "cache folder");  // up front: a path hipcc mangles fails every compile, and is no source error
  const auto k = key(cc, source, options);
  const auto dir = entry_dir(k);
  const auto artifact = detail::code_cache_impl::artifact_name(options);
  if (auto hit = load_entry(dir, k, artifact)) {
    hits_.fetch_add(1);
    return std::move(*hit);
  }
  if (options_.negative_cache) replay_failure(dir, k, source);
  // A miss writes (a lock file, the entry): say so plainly where the cache cannot be written.
  if (auto why = options_.read_only ? std::optional<std::string>("opened read-only: code_cache_options::read_only")
                                    : detail::code_cache_impl::unwritable_reason(root_)) {
    throw code_cache_read_only_error(root_, *why, detail::code_cache_impl::read_only_message(root_, *why, k));
  }
  detail::code_cache_impl::file_lock lock(root_ / "locks" / (k + ".lock"), root_);
  // Another thread or process may have finished the entry while this one waited.
  if (auto hit = load_entry(dir, k, artifact)) {
    hits_.fetch_add(1);
    return std::move(*hit);
  }
  if (options_.negative_cache) replay_failure(dir, k, source);
  misses_.fetch_add(1);
  return build(cc, source, options, k, dir);
}

ROCMTPL_INLINE std::optional<compile_result> code_cache::lookup(const compiler& cc, std::string_view source,
                                                                const compile_options& options) const {
  const auto k = key(cc, source, options);
  return load_entry(entry_dir(k), k, detail::code_cache_impl::artifact_name(options));
}

ROCMTPL_INLINE void code_cache::clear() {
  std::error_code ec;
  std::filesystem::remove_all(root_ / "so", ec);
  if (ec) throw code_cache_error("rocmtpl: code_cache: cannot clear " + (root_ / "so").string() + ": " + ec.message());
}

ROCMTPL_INLINE std::size_t code_cache::clear_errors() {
  std::size_t n = 0;
  std::error_code ec;
  if (!std::filesystem::is_directory(root_ / "so", ec)) return 0;
  for (auto it = std::filesystem::recursive_directory_iterator(root_ / "so", ec);
       !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
    if (it->path().filename() == "error.json" && std::filesystem::remove(it->path(), ec)) ++n;
  }
  return n;
}

ROCMTPL_INLINE bool code_cache::erase(const std::string& key) {
  const auto dir = entry_dir(key);
  detail::code_cache_impl::file_lock lock(root_ / "locks" / (key + ".lock"));
  std::error_code ec;
  return std::filesystem::remove_all(dir, ec) > 0;
}

ROCMTPL_INLINE std::optional<compile_result> code_cache::load_entry(const std::filesystem::path& dir,
                                                                    const std::string& k, const char* artifact) const {
  namespace impl = detail::code_cache_impl;
  const auto meta = impl::read_json(dir / "meta.json");
  if (!meta || meta->value("format", 0) != impl::format_version || meta->value("key", "") != k) return std::nullopt;
  const auto lib = dir / artifact;
  const auto st = impl::stat_file(lib);
  if (!st || st->size != meta->value("size", std::uintmax_t{0})) return std::nullopt;
  const auto sum = impl::file_xxh64(lib);
  if (!sum || impl::hex64(*sum) != meta->value("xxh64", "")) return std::nullopt;
  if (options_.track_dependencies && !dependencies_unchanged(meta->value("dependencies", nlohmann::json::array())))
    return std::nullopt;
  compile_result r;
  r.library = lib;
  r.argv = meta->value("argv", std::vector<std::string>{});
  r.log = meta->value("log", "");
  r.resources = impl::resources_from_json(meta->value("resources", nlohmann::json::array()));
  r.seconds = meta->value("seconds", 0.0);
  r.cached = true;
  return r;
}

ROCMTPL_INLINE bool code_cache::dependencies_unchanged(const nlohmann::json& deps) {
  namespace impl = detail::code_cache_impl;
  if (!deps.is_array()) return false;
  for (const auto& d : deps) {
    const std::filesystem::path p = d.value("path", "");
    const auto st = impl::stat_file(p);
    if (!st) return false;
    if (st->size == d.value("size", std::uintmax_t{0}) && st->mtime_ns == d.value("mtime_ns", std::int64_t{0}))
      continue;
    // Touched but maybe not changed: compare the bytes.
    const auto sum = impl::file_xxh64(p);
    if (!sum || impl::hex64(*sum) != d.value("xxh64", "")) return false;
  }
  return true;
}

ROCMTPL_INLINE void code_cache::replay_failure(const std::filesystem::path& dir, const std::string& k,
                                               std::string_view source) {
  const auto err = detail::code_cache_impl::read_json(dir / "error.json");
  if (!err || err->value("format", 0) != detail::code_cache_impl::format_version || err->value("key", "") != k) return;
  // A failure caused by a header (a template's, the device header) is stale once that header changed.
  if (options_.track_dependencies && !dependencies_unchanged(err->value("dependencies", nlohmann::json::array())))
    return;
  negative_hits_.fetch_add(1);
  compile_error e(err->value("argv", std::vector<std::string>{}), err->value("log", ""), std::string(source),
                  err->value("exit_code", 1), std::filesystem::path(err->value("source_path", "")));
  e.set_cached(true);
  throw e;
}

ROCMTPL_INLINE compile_result code_cache::build(const compiler& cc, std::string_view source,
                                                const compile_options& options, const std::string& k,
                                                const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  namespace impl = detail::code_cache_impl;
  using nlohmann::json;
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw code_cache_error("rocmtpl: code_cache: cannot create " + dir.string() + ": " + ec.message());
  remove_stale_staging(dir);
  const auto source_file = dir / "source.hip";
  detail::write_file_atomic(source_file, source);

  const auto staging = dir / (".build-" + detail::unique_file_suffix());
  fs::create_directories(staging, ec);
  if (ec) throw code_cache_error("rocmtpl: code_cache: cannot create " + staging.string() + ": " + ec.message());
  struct remove_on_exit {
    fs::path path;
    ~remove_on_exit() {
      std::error_code e;
      fs::remove_all(path, e);
    }
  } cleanup{staging};

  auto opts = options;
  opts.dependency_file = options_.track_dependencies ? staging / "deps.d" : fs::path();
  const auto staged_lib = staging / impl::artifact_name(options);
  const auto lib = dir / impl::artifact_name(options);
  const auto depfile = dir / "deps.d";
  std::vector<std::pair<std::string, std::string>> subst = {{staged_lib.string(), lib.string()}};
  if (options_.track_dependencies) subst.emplace_back(opts.dependency_file.string(), depfile.string());
  compile_result r;
  compiles_.fetch_add(1);
  try {
    r = cc.compile(source_file, opts, staged_lib);
  } catch (const compile_timeout_error&) {
    throw;  // the machine may be busy: never remembered as a failure
  } catch (const compile_error& e) {
    std::string headline = e.headline();  // it may name the staged file: name the entry's
    for (std::size_t at = 0; (at = headline.find(staged_lib.string(), at)) != std::string::npos;) {
      headline.replace(at, staged_lib.string().size(), lib.string());
      at += lib.string().size();
    }
    compile_error stable(headline, impl::replace_args(e.argv(), subst), e.log(), std::string(source), e.exit_code(),
                         e.source_path(), e.failure());
    if (e.failure() != compile_failure::source) {
      // The compiler was killed, could not read or write its files, or said nothing: the machine,
      // not the source, failed. Never remembered, and an older record is kept as it was.
      throw stable;
    }
    // Remembered only when it can be invalidated: with tracking on, the headers read must be known
    // (a failure before the compiler wrote its dependency list, such as a missing header, is not).
    std::optional<json> deps = options_.track_dependencies
                                   ? read_dependencies(opts.dependency_file, source_file, staging)
                                   : std::optional<json>(json::array());
    if (options_.negative_cache && deps) {
      json err = {{"format", impl::format_version},
                  {"key", k},
                  {"argv", stable.argv()},
                  {"log", stable.log()},
                  {"exit_code", stable.exit_code()},
                  {"source_path", stable.source_path().string()},
                  {"dependencies", std::move(*deps)},
                  {"compiler", {{"path", cc.path().string()}, {"version", cc.version()}}},
                  {"created",
                   std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch())
                       .count()}};
      fs::remove(dir / "meta.json", ec);
      detail::write_file_atomic(dir / "error.json", impl::dump(err));
    } else if (options_.negative_cache) {
      fs::remove(dir / "error.json", ec);  // an older record may no longer be checkable
    }
    throw stable;
  }

  // Invalidate the old record first: a reader never pairs an old meta.json with a new lib.so.
  fs::remove(dir / "meta.json", ec);
  fs::remove(dir / "error.json", ec);
  json deps = json::array();
  if (options_.track_dependencies) {
    // A wrapper that ignores -MD leaves none: the entry then cannot notice edited headers.
    if (auto read = read_dependencies(opts.dependency_file, source_file, staging)) deps = std::move(*read);
    fs::rename(opts.dependency_file, depfile, ec);
  }
  const auto st = impl::stat_file(staged_lib);
  const auto sum = impl::file_xxh64(staged_lib);
  if (!st || !sum) throw code_cache_error("rocmtpl: code_cache: cannot read the compiled " + staged_lib.string());
  fs::rename(staged_lib, lib, ec);
  if (ec) throw code_cache_error("rocmtpl: code_cache: cannot rename into " + lib.string() + ": " + ec.message());

  r.library = lib;
  r.argv = impl::replace_args(std::move(r.argv), subst);
  r.cached = false;
  json meta = {
      {"format", impl::format_version},
      {"key", k},
      {"compiler",
       {{"path", cc.path().string()}, {"version", cc.version()}, {"platform", std::string(to_string(cc.platform()))}}},
      {"archs", compiler::resolved_archs(options)},
      {"argv", r.argv},
      {"log", r.log},
      {"resources", impl::resources_to_json(r.resources)},
      {"seconds", r.seconds},
      {"size", st->size},
      {"xxh64", impl::hex64(*sum)},
      {"dependencies", std::move(deps)},
      {"created",
       std::chrono::duration_cast<std::chrono::seconds>(std::chrono::system_clock::now().time_since_epoch()).count()}};
  detail::write_file_atomic(dir / "meta.json", impl::dump(meta));
  return r;
}

// The headers a compile read (its -MD file), each with size, mtime and xxh64; nullopt when the
// compiler wrote no dependency file.
ROCMTPL_INLINE std::optional<nlohmann::json> code_cache::read_dependencies(const std::filesystem::path& depfile,
                                                                           const std::filesystem::path& source_file,
                                                                           const std::filesystem::path& staging) {
  namespace impl = detail::code_cache_impl;
  std::error_code ec;
  if (!std::filesystem::is_regular_file(depfile, ec)) return std::nullopt;
  nlohmann::json deps = nlohmann::json::array();
  const auto text = detail::compiler_impl::read_text_file(depfile);
  for (const auto& p : impl::parse_depfile(text)) {
    const auto abs = (p.is_absolute() ? p : staging / p).lexically_normal();  // the compiler ran in staging
    if (abs == source_file || abs.string().starts_with(staging.string())) continue;
    const auto st = impl::stat_file(abs);
    const auto sum = impl::file_xxh64(abs);
    if (!st || !sum) continue;
    deps.push_back(
        {{"path", abs.string()}, {"size", st->size}, {"mtime_ns", st->mtime_ns}, {"xxh64", impl::hex64(*sum)}});
  }
  return deps;
}

// Staging folders left by a process that died mid-compile (killed, crashed). Each is named
// `.build-<pid>-<random>`: one whose owner process is gone (kill(pid, 0) fails with ESRCH) is
// removed at once. One whose pid is alive may be a live compile (clear() while another process
// compiles re-creates lock files) or a reused pid: removed only after a day.
ROCMTPL_INLINE void code_cache::remove_stale_staging(const std::filesystem::path& dir) {
  namespace fs = std::filesystem;
  std::error_code ec;
  const auto now = fs::file_time_type::clock::now();
  for (auto it = fs::directory_iterator(dir, ec); !ec && it != fs::directory_iterator(); it.increment(ec)) {
    const auto name = it->path().filename().string();
    std::error_code e2;
    // Temporaries of write_file_atomic (".<file>.tmp-<pid>-...") left by a killed writer, too.
    if (name.starts_with(".") && detail::owner_gone(detail::owner_pid(name, ".tmp-"))) {
      fs::remove(it->path(), e2);
      continue;
    }
    if (!name.starts_with(".build-")) continue;
    if (detail::owner_gone(detail::owner_pid(name, ".build-"))) {
      fs::remove_all(it->path(), e2);
      continue;
    }
    const auto t = fs::last_write_time(it->path(), e2);
    if (!e2 && now - t > std::chrono::hours(24)) fs::remove_all(it->path(), e2);
  }
}

}  // namespace rocmtpl::runtime
