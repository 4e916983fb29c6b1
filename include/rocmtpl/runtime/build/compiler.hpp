// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The compiler driver: finds hipcc or nvcc, builds the one command line the library
/// uses, runs it (argv, never a shell) with a timeout, and turns failures into typed exceptions
/// that carry the command, the log and the source.
///
/// Compared with Inductor's ROCm compile command (reference/inductor-behaviour.md §1.5, §2):
/// archs must be concrete (`--offload-arch=native` made upstream's cache key ignore the real
/// GPU), the exported entry point is the only visible symbol (`-fvisibility=hidden`), the
/// compiler-internal `-mllvm -amdgpu-early-inline-all` flags are not passed (pytorch PR #195023:
/// IR growth and compile-time blow-up), fast math is opt-in, and a hung compile is killed.

#include <rocmtpl/core/error.hpp>
#include <rocmtpl/detail/hash.hpp>
#include <rocmtpl/detail/strings.hpp>
#include <rocmtpl/runtime/build/nvrtc.hpp>
#include <rocmtpl/runtime/build/resource_usage.hpp>
#include <rocmtpl/runtime/sys/atomic_file.hpp>
#include <rocmtpl/runtime/sys/cache_root.hpp>
#include <rocmtpl/runtime/sys/platform.hpp>
#include <rocmtpl/runtime/sys/process.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <system_error>
#include <tuple>
#include <utility>
#include <vector>

#include <sys/stat.h>

namespace rocmtpl::runtime {

/// @brief What a compile produces.
enum class compile_output {
  shared_library,  ///< host and device code, the extern "C" entry exported (precompile, modules, AOT)
  code_object,     ///< device code only, for the GPU driver's module API (`hipcc --genco`, `nvcc -cubin`);
                   ///< compiled with ROCMTPL_DEVICE_ONLY defined, so generated entries drop out
};

/// @brief Everything that decides how one source is compiled. The command line is built from
/// these fields only, by compiler::command().
struct compile_options {
  /// @brief Platform; must match the compiler's.
  runtime::platform platform = runtime::platform::amd;
  /// @brief Concrete target archs: "gfx90a", "gfx940", "gfx90a:xnack+" (AMD) or "sm_80", "sm_90a"
  /// (NVIDIA). "native" is rejected: the cache key must name the real hardware.
  std::vector<std::string> archs{};
  /// @brief -O level, 0 to 3.
  int opt_level = 3;
  /// @brief -I folders (made absolute), in order.
  std::vector<std::filesystem::path> include_dirs{};
  /// @brief -D definitions, "NAME" or "NAME=VALUE".
  std::vector<std::string> defines{};
  /// @brief Passed through last, before the output/source arguments.
  std::vector<std::string> extra_flags{};
  /// @brief Ask the compiler for per-kernel resource usage and parse it into compile_result::resources.
  bool resource_usage = true;
  /// @brief A compile running longer than this is killed (compile_timeout_error).
  std::chrono::seconds timeout{300};
  /// @brief AMD: -ffast-math -fgpu-flush-denormals-to-zero; NVIDIA: -use_fast_math. Off by default
  /// (upstream turns both on silently, which changes numerics).
  bool fast_math = false;
  /// @brief When not empty, the compiler also writes a Makefile-style list of every header it read
  /// here (-MD -MF); code_cache uses it to notice edited headers.
  std::filesystem::path dependency_file{};
  /// @brief A shared library (the default) or a device-only code object.
  compile_output output = compile_output::shared_library;
  /// @brief NVIDIA code objects for one arch at -O3 without extra flags are compiled in this
  /// process by NVRTC when libnvrtc loads (runtime/build/nvrtc.hpp): no nvcc process. Off: always nvcc.
  /// (An NVRTC compile cannot be killed: `timeout` does not apply to it.)
  bool in_process = true;
};

/// @brief What one compile produced.
struct compile_result {
  /// @brief The shared library, or the code object for compile_output::code_object.
  std::filesystem::path library{};
  /// @brief The exact command that was run.
  std::vector<std::string> argv{};
  /// @brief Compiler output (stdout and stderr merged): warnings and resource remarks.
  std::string log{};
  /// @brief Per-kernel, per-arch resource usage (empty when compile_options::resource_usage is off).
  std::vector<kernel_resource_usage> resources{};
  /// @brief Wall time of the compile that produced the library (for a cache hit: of the original compile).
  double seconds = 0;
  /// @brief True when the library came from code_cache without running the compiler.
  bool cached = false;
};

namespace detail::compiler_impl {

using rusage::for_each_line;
using rusage::trim;

inline std::string read_text_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return {};
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

inline std::string first_lines(std::string_view text, std::size_t max_lines) {
  std::size_t pos = 0;
  for (std::size_t n = 0; n < max_lines; ++n) {
    const auto nl = text.find('\n', pos);
    if (nl == std::string_view::npos) return std::string(text);
    pos = nl + 1;
  }
  if (pos >= text.size()) return std::string(text);
  return std::string(text.substr(0, pos)) + "[... " +
         std::to_string(std::count(text.begin() + static_cast<std::ptrdiff_t>(pos), text.end(), '\n')) +
         " more lines in compile_error::log()]\n";
}

inline bool contains_ci(std::string_view text, std::string_view word) {
  const auto lower = [](char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; };
  if (word.size() > text.size()) return false;
  for (std::size_t i = 0; i + word.size() <= text.size(); ++i) {
    std::size_t j = 0;
    while (j < word.size() && lower(text[i + j]) == word[j]) ++j;
    if (j == word.size()) return true;
  }
  return false;
}

// True when `line` holds "error" followed by optional blanks and ':' ("error:", "ptxas error   :").
inline bool has_error_label(std::string_view line) {
  for (std::size_t i = 0; i + 5 <= line.size(); ++i) {
    if (!contains_ci(line.substr(i, 5), "error")) continue;
    std::size_t j = i + 5;
    while (j < line.size() && (line[j] == ' ' || line[j] == '\t')) ++j;
    if (j < line.size() && line[j] == ':') return true;
  }
  return false;
}

// The compiler's own first error: the first log line labelled "error:" (clang, nvcc, ptxas,
// ld), else the first line that mentions "error" at all; trimmed. Empty when there is none.
inline std::string first_error_line(std::string_view log) {
  std::string labelled;
  std::string mentioned;
  for_each_line(log, [&](std::string_view line) {
    if (labelled.empty() && has_error_label(line)) labelled = std::string(trim(line));
    if (mentioned.empty() && contains_ci(line, "error")) mentioned = std::string(trim(line));
  });
  return labelled.empty() ? mentioned : labelled;
}

// True for a diagnostic located in a file: "<file>:<line>:" (clang, gcc) or "<file>(<line>)"
// (nvcc), before any "error"/"warning" label: the compiler read the file and says what is in it.
inline bool located_diagnostic(std::string_view line) {
  const auto label = std::min(line.find("error"), line.find("warning"));
  const auto head = line.substr(0, label);
  for (std::size_t i = 0; i + 1 < head.size(); ++i) {
    if ((head[i] == ':' || head[i] == '(') && head[i + 1] >= '0' && head[i + 1] <= '9') return true;
  }
  return false;
}

// Failures that say nothing about the source: the compiler could not run properly, could not
// read or write its files, or ran out of a machine resource. Another process (or the same one,
// once the machine is fixed) may well succeed, so these must never be remembered.
inline bool environment_failure(int exit_code, std::string_view log) {
  if (exit_code < 0 || exit_code == 126 || exit_code == 127 || exit_code >= 128) return true;  // signal, exec failure
  static constexpr std::string_view markers[] = {"no such file or directory",
                                                 "permission denied",
                                                 "no space left on device",
                                                 "read-only file system",
                                                 "cannot allocate memory",
                                                 "out of memory",
                                                 "can't exec",
                                                 "cannot exec",
                                                 "command not found",
                                                 "killed",
                                                 "unable to open output file",
                                                 "error opening",
                                                 "cannot open output file",
                                                 "too many open files",
                                                 "input/output error",
                                                 "resource temporarily unavailable"};
  // Only in lines the compiler did not locate in a source: "use of undeclared identifier 'killed'"
  // is the source's problem, "ld: cannot open output file: Permission denied" the machine's.
  bool marked = false;
  for_each_line(log, [&](std::string_view line) {
    if (marked || located_diagnostic(line)) return;
    for (auto m : markers) marked = marked || contains_ci(line, m);
  });
  if (marked) return true;
  return first_error_line(log).empty();  // failed without a diagnostic: the driver, not the source
}

inline std::string compile_error_message(const std::vector<std::string>& argv, std::string_view log, int exit_code,
                                         const std::filesystem::path& source_path, std::string_view headline) {
  const std::string program = argv.empty() ? "compiler" : std::filesystem::path(argv.front()).filename().string();
  const std::string status =
      exit_code < 0 ? program + " was killed" : program + " failed with exit code " + std::to_string(exit_code);
  // The first line is what a one-line report shows: the compiler's own first error when there is one.
  const std::string first = first_error_line(log);
  std::string m = "rocmtpl: ";
  if (!headline.empty()) {
    m += std::string(headline);
  } else if (!first.empty()) {
    m += first + "\n  " + status;
  } else {
    m += status;
  }
  if (!source_path.empty()) m += " compiling " + source_path.string();
  m += "\n  command: " + quote_command(argv) + "\n";
  m += first_lines(log, 40);
  return m;
}

// "12 s", "1.5 s": a timeout as people write it.
inline std::string seconds_text(std::chrono::milliseconds t) {
  if (t.count() % 1000 == 0) return std::to_string(t.count() / 1000) + " s";
  std::string s = std::to_string(static_cast<double>(t.count()) / 1000.0);
  while (!s.empty() && s.back() == '0') s.pop_back();
  return s + " s";
}

}  // namespace detail::compiler_impl

/// @brief Why a compile failed.
enum class compile_failure {
  source,       ///< the compiler rejected the source (or its headers, flags): repeatable, may be cached
  environment,  ///< the compiler could not do its job (killed, files unreadable or unwritable, no diagnostic)
  timeout,      ///< it ran past compile_options::timeout and was killed
};

/// @brief A compile failed. Carries the command, the compiler's log and the source text.
///
/// @code{.cpp}
/// try { cc.compile(src, opts, out); }
/// catch (const rocmtpl::runtime::compile_error& e) { std::cerr << e.log() << e.source_with_line_numbers(); }
/// @endcode
class compile_error : public error {
 public:
  /// @param argv the command that was run
  /// @param log the compiler's merged output
  /// @param source the source text that was compiled
  /// @param exit_code the compiler's exit status (-1: killed)
  /// @param source_path where the source was on disk (may be empty)
  compile_error(std::vector<std::string> argv, std::string log, std::string source, int exit_code = 1,
                std::filesystem::path source_path = {})
      : compile_error(std::string_view{}, argv, log, std::move(source), exit_code, std::move(source_path),
                      detail::compiler_impl::environment_failure(exit_code, log) ? compile_failure::environment
                                                                                 : compile_failure::source) {}

  /// @brief The command that was run, argv[0] first.
  [[nodiscard]] const std::vector<std::string>& argv() const noexcept { return argv_; }
  /// @brief The compiler's merged stdout/stderr.
  [[nodiscard]] const std::string& log() const noexcept { return log_; }
  /// @brief The source text that failed to compile.
  [[nodiscard]] const std::string& source() const noexcept { return source_; }
  /// @brief Where the source was on disk (empty when unknown).
  [[nodiscard]] const std::filesystem::path& source_path() const noexcept { return source_path_; }
  /// @brief The compiler's exit status, -1 when it was killed.
  [[nodiscard]] int exit_code() const noexcept { return exit_code_; }
  /// @brief Why it failed: only compile_failure::source says something about the source itself.
  [[nodiscard]] compile_failure failure() const noexcept { return failure_; }
  /// @brief The compiler's own first error line (the first log line that mentions "error"), or
  /// the first line of what() when the log has none.
  [[nodiscard]] std::string first_error_line() const {
    auto line = detail::compiler_impl::first_error_line(log_);
    if (!line.empty()) return line;
    const std::string_view w = what();
    return std::string(w.substr(0, w.find('\n')));
  }
  /// @brief True when code_cache answered from its record of an earlier failure, without running the compiler.
  [[nodiscard]] bool cached() const noexcept { return cached_; }
  /// @brief Marks the error as replayed from code_cache's negative cache.
  void set_cached(bool cached) noexcept { cached_ = cached; }
  /// @brief The command as one shell-quoted line (to paste into a terminal).
  [[nodiscard]] std::string command_line() const { return quote_command(argv_); }
  /// @brief The source with right-aligned line numbers ("  12 | code"), to read next to the log.
  [[nodiscard]] std::string source_with_line_numbers() const {
    const auto lines = static_cast<std::size_t>(std::count(source_.begin(), source_.end(), '\n')) + 1;
    const auto width = std::to_string(lines).size();
    std::string out;
    std::size_t n = 1;
    std::string_view rest = source_;
    while (true) {
      const auto nl = rest.find('\n');
      auto number = std::to_string(n++);
      out += std::string(width - number.size(), ' ') + number + " | ";
      out += rest.substr(0, nl);
      out += '\n';
      if (nl == std::string_view::npos) break;
      rest.remove_prefix(nl + 1);
      if (rest.empty()) break;
    }
    return out;
  }

 protected:
  /// @brief For derived errors: `headline` replaces the "<compiler> failed with exit code N" part of what().
  compile_error(std::string_view headline, std::vector<std::string> argv, std::string log, std::string source,
                int exit_code, std::filesystem::path source_path, compile_failure failure)
      : error(detail::compiler_impl::compile_error_message(argv, log, exit_code, source_path, headline)),
        argv_(std::move(argv)),
        log_(std::move(log)),
        source_(std::move(source)),
        source_path_(std::move(source_path)),
        exit_code_(exit_code),
        failure_(failure) {}

 private:
  std::vector<std::string> argv_{};
  std::string log_{};
  std::string source_{};
  std::filesystem::path source_path_{};
  int exit_code_ = 1;
  compile_failure failure_ = compile_failure::source;
  bool cached_ = false;
};

/// @brief A compile ran past compile_options::timeout and was killed. Never negatively cached
/// (a machine under load may finish it next time).
class compile_timeout_error : public compile_error {
 public:
  /// @param argv the command that was run
  /// @param log what the compiler printed before it was killed
  /// @param source the source text
  /// @param timeout the limit that was exceeded
  /// @param source_path where the source was on disk
  compile_timeout_error(std::vector<std::string> argv, std::string log, std::string source,
                        std::chrono::milliseconds timeout, std::filesystem::path source_path = {})
      : compile_error("compile timed out after " + detail::compiler_impl::seconds_text(timeout) +
                          " and was killed (compile_options::timeout)",
                      std::move(argv), std::move(log), std::move(source), -1, std::move(source_path),
                      compile_failure::timeout),
        timeout_(timeout) {}
  /// @brief The limit that was exceeded.
  [[nodiscard]] std::chrono::milliseconds timeout() const noexcept { return timeout_; }

 private:
  std::chrono::milliseconds timeout_{};
};

/// @brief No usable hipcc/nvcc. The message lists where it looked and names what to install.
class compiler_not_found_error : public error {
 public:
  /// @param platform the platform whose compiler is missing
  /// @param searched the places looked at, in order
  /// @param reason why the search failed (empty: generic)
  compiler_not_found_error(runtime::platform platform, std::vector<std::string> searched,
                           const std::string& reason = {})
      : error(message(platform, searched, reason)), platform_(platform), searched_(std::move(searched)) {}
  /// @brief The platform whose compiler is missing.
  [[nodiscard]] runtime::platform platform() const noexcept { return platform_; }
  /// @brief The places looked at, in order.
  [[nodiscard]] const std::vector<std::string>& searched() const noexcept { return searched_; }
  /// @brief What to install: "apt-get install hipcc" or the CUDA toolkit.
  [[nodiscard]] static std::string install_hint(runtime::platform p) {
    return p == platform::amd
               ? "install it with `apt-get install hipcc` (Debian/Ubuntu) or ROCm, or set ROCMTPL_HIPCC to its path"
               : "install the CUDA toolkit (NVIDIA's cuda-toolkit package, or Debian's nvidia-cuda-toolkit), or set "
                 "ROCMTPL_NVCC or CUDA_PATH";
  }

 private:
  static std::string message(runtime::platform p, const std::vector<std::string>& searched, const std::string& reason) {
    std::string m = std::string("rocmtpl: ") + (p == platform::amd ? "hipcc" : "nvcc") + " not found";
    if (!reason.empty()) m += ": " + reason;
    if (!searched.empty()) {
      m += " (looked at:";
      for (const auto& s : searched) m += " " + s;
      m += ")";
    }
    m += "; " + install_hint(p);
    return m;
  }
  runtime::platform platform_;
  std::vector<std::string> searched_{};
};

/// @brief A path the compiler cannot be given: refused before anything runs, never cached as a
/// compile failure. The message names the path, the character and ROCMTPL_CACHE_DIR.
class unsupported_path_error : public invalid_argument_error {
 public:
  /// @param path the path refused
  /// @param character the character the compiler cannot handle
  /// @param message the full message
  unsupported_path_error(std::filesystem::path path, char character, const std::string& message)
      : invalid_argument_error(message), path_(std::move(path)), character_(character) {}
  /// @brief The path refused.
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }
  /// @brief The character the compiler cannot handle.
  [[nodiscard]] char character() const noexcept { return character_; }

 private:
  std::filesystem::path path_;
  char character_;
};

namespace detail::compiler_impl {

// Debian's hipcc (a Perl script) runs clang through a shell with every argument inside double
// quotes, where $ ` " and \ keep their meaning. Measured with hipcc 5.2 (clang 15) on a source,
// output, -I and -MF path each holding one character: $ (expanded away, "cannot open output
// file"), ` and " (shell syntax errors) break; space ' ; & ( ) * ? # ! { } ~ % = , + @ : | < > [ ]
// ^ and tab work. A backslash works alone but not before $ ` " or another backslash: refused too.
// Control characters (a newline ends the shell's command) are refused as well.
inline std::optional<char> hipcc_unsafe_char(std::string_view path) {
  for (char c : path) {
    if (c == '$' || c == '`' || c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return c;
  }
  return std::nullopt;
}

inline std::string char_name(char c) {
  if (c == '\n') return "a newline";
  if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
    return "control character " + std::to_string(static_cast<int>(c));
  return std::string("'") + c + "'";
}

inline bool valid_amd_arch(std::string_view a) {
  // gfx<hex digits> plus optional target-id features (gfx90a:xnack+:sramecc-).
  if (!a.starts_with("gfx")) return false;
  const auto colon = a.find(':');
  const auto proc = a.substr(3, colon == std::string_view::npos ? std::string_view::npos : colon - 3);
  if (proc.empty() ||
      !std::all_of(proc.begin(), proc.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); }))
    return false;
  auto features = colon == std::string_view::npos ? std::string_view{} : a.substr(colon + 1);
  while (!features.empty()) {
    const auto next = features.find(':');
    const auto f = features.substr(0, next);
    if (f != "xnack+" && f != "xnack-" && f != "sramecc+" && f != "sramecc-") return false;
    features = next == std::string_view::npos ? std::string_view{} : features.substr(next + 1);
  }
  return true;
}

inline bool valid_nvidia_arch(std::string_view a) {
  if (!a.starts_with("sm_")) return false;
  auto digits = a.substr(3);
  if (!digits.empty() && (digits.back() == 'a' || digits.back() == 'f')) digits.remove_suffix(1);
  return !digits.empty() && digits.size() <= 4 &&
         std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Environment variables the drivers read besides argv: they change the output, so they are part
// of the cache key (upstream hashes only the command string).
inline const std::vector<std::string>& compiler_env_names(runtime::platform p) {
  static const std::vector<std::string> amd = {"CPATH",
                                               "CPLUS_INCLUDE_PATH",
                                               "C_INCLUDE_PATH",
                                               "DEVICE_LIB_PATH",
                                               "HIP_CLANG_HCC_COMPAT_MODE",
                                               "HIP_CLANG_PATH",
                                               "HIP_COMPILE_CXX_AS_HIP",
                                               "HIP_COMPILER",
                                               "HIP_DEVICE_LIB_PATH",
                                               "HIP_PATH",
                                               "HIP_ROCCLR_HOME",
                                               "HIP_RUNTIME",
                                               "HIPCC_COMPILE_FLAGS_APPEND",
                                               "HIPCC_LINK_FLAGS_APPEND",
                                               "HSA_PATH",
                                               "LIBRARY_PATH",
                                               "ROCM_PATH"};
  static const std::vector<std::string> nvidia = {
      "CPATH",      "CPLUS_INCLUDE_PATH", "C_INCLUDE_PATH", "LIBRARY_PATH", "NVCC_APPEND_FLAGS",
      "NVCC_CCBIN", "NVCC_PREPEND_FLAGS"};
  return p == platform::amd ? amd : nvidia;
}

// `--version` output per (path, size, mtime), in memory and in <cache root>/compilers/ so that a
// fresh process (a warm tune) spawns no compiler at all; a replaced compiler binary is noticed.
inline std::string cached_version(const std::filesystem::path& exe, runtime::platform platform,
                                  const std::vector<std::pair<std::string, std::string>>& env) {
  struct stat st {};
  if (::stat(exe.c_str(), &st) != 0) {
    throw compiler_not_found_error(platform, {exe.string()}, "cannot stat " + exe.string());
  }
  using key_t = std::tuple<std::string, long long, long long, long long>;
  static std::mutex mutex;
  static std::map<key_t, std::string> versions;
  const key_t key{exe.string(), static_cast<long long>(st.st_size), static_cast<long long>(st.st_mtim.tv_sec),
                  static_cast<long long>(st.st_mtim.tv_nsec)};
  {
    std::lock_guard lock(mutex);
    if (auto it = versions.find(key); it != versions.end()) return it->second;
  }
  std::filesystem::path disk;
  try {
    disk = cache_root() / "compilers" /
           (::rocmtpl::detail::hash_hex(std::get<0>(key) + "|" + std::to_string(std::get<1>(key)) + "|" +
                                        std::to_string(std::get<2>(key)) + "|" + std::to_string(std::get<3>(key))) +
            ".version");
    std::ifstream in(disk, std::ios::binary);
    std::stringstream text;
    if (in && (text << in.rdbuf()) && !text.str().empty()) {
      std::lock_guard lock(mutex);
      versions.emplace(key, text.str());
      return text.str();
    }
  } catch (const std::exception&) {
    disk.clear();  // no usable cache folder: ask the compiler every time
  }
  process_options po;
  po.env = env;
  if (platform == platform::amd) {
    // Without a target, hipcc runs rocm_agent_enumerator, which prints a Python traceback on a
    // machine without /sys/class/kfd; naming any target skips it.
    po.env.emplace_back("HCC_AMDGPU_TARGET", "gfx90a");
  }
  po.timeout = std::chrono::seconds(60);
  process_result r;
  try {
    r = run_process({exe.string(), "--version"}, po);
  } catch (const process_error& e) {
    throw compiler_not_found_error(platform, {exe.string()}, e.what());
  }
  if (!r.ok()) {
    throw compiler_not_found_error(platform, {exe.string()},
                                   exe.string() + " --version failed (exit code " + std::to_string(r.exit_code) +
                                       "): " + first_lines(r.output, 10));
  }
  std::string version;
  for_each_line(r.output, [&](std::string_view line) {
    line = trim(line);
    if (line.empty()) return;
    if (!version.empty()) version += '\n';
    version += line;
  });
  if (!disk.empty() && !version.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(disk.parent_path(), ec);
    try {
      write_file_atomic(disk, version);
    } catch (const file_write_error&) {
      // Only a shortcut for the next process: it asks the compiler again.
    }
  }
  std::lock_guard lock(mutex);
  versions.emplace(key, version);
  return version;
}

struct compiler_state {
  std::once_flag version_once{};
  std::string version{};
};

}  // namespace detail::compiler_impl

/// @brief Refuses a path the platform's compiler cannot be given: for AMD (hipcc) one holding
/// $ ` " \\ or a control character (see unsupported_path_error); nvcc takes any path. Callers check
/// the cache folder with it up front, before any compile.
/// @param platform whose compiler will see the path
/// @param path the path to check
/// @param role what it is, for the message ("cache folder", "source", "output", "include folder")
/// @throws unsupported_path_error naming the path, the character, and ROCMTPL_CACHE_DIR
inline void check_compiler_path(runtime::platform platform, const std::filesystem::path& path, std::string_view role) {
  if (platform != platform::amd) return;
  const auto bad = detail::compiler_impl::hipcc_unsafe_char(path.string());
  if (!bad) return;
  throw unsupported_path_error(
      path, *bad,
      "rocmtpl: compile: the " + std::string(role) + " path '" + path.string() + "' contains " +
          detail::compiler_impl::char_name(*bad) +
          ", which hipcc cannot pass to clang (it runs clang through a shell); use a path without $ ` \" \\ or "
          "control characters (for the kernel cache: set ROCMTPL_CACHE_DIR to such a folder)");
}

/// @brief Drives hipcc (AMD) or nvcc (NVIDIA). Cheap to copy; thread-safe.
///
/// @code{.cpp}
/// using namespace rocmtpl::runtime;
/// const auto cc = compiler::find(platform::amd);
/// compile_options opts{.platform = platform::amd, .archs = {"gfx90a", "gfx940"}};
/// compile_result r = cc.compile("kernel.hip", opts, "/tmp/kernel.so");
/// for (const auto& k : r.resources) std::cout << to_string(k) << '\n';
/// @endcode
class compiler {
 public:
  /// @brief Uses the compiler at `executable` for `platform`.
  /// @throws compiler_not_found_error when `executable` is not an executable file
  compiler(runtime::platform platform, std::filesystem::path executable)
      : platform_(platform),
        path_(std::move(executable)),
        state_(std::make_shared<detail::compiler_impl::compiler_state>()) {
    if (!detail::proc::is_executable_file(path_)) {
      throw compiler_not_found_error(platform_, {path_.string()}, path_.string() + " is not an executable file");
    }
    env_ = environment_for(platform_);
  }

  /// @brief Finds the compiler for a platform.
  ///
  /// hipcc: `ROCMTPL_HIPCC`, then `$ROCM_PATH/bin/hipcc`, then PATH.
  /// nvcc: `ROCMTPL_NVCC`, then `$CUDA_PATH/bin/nvcc`, then `/usr/local/cuda/bin/nvcc`, then PATH.
  /// An override variable that names a missing file is an error (not a silent fallback).
  /// @throws compiler_not_found_error naming the places searched and the package to install
  [[nodiscard]] static compiler find(runtime::platform platform) {
    const bool amd = platform == platform::amd;
    const char* override_var = amd ? "ROCMTPL_HIPCC" : "ROCMTPL_NVCC";
    const char* name = amd ? "hipcc" : "nvcc";
    std::vector<std::string> searched;
    if (const char* v = detail::proc::getenv_or_null(override_var); v != nullptr && *v != '\0') {
      std::filesystem::path p(v);
      if (detail::proc::is_executable_file(p)) return compiler(platform, p);
      throw compiler_not_found_error(platform, {std::string(override_var) + "=" + v},
                                     std::string(override_var) + " names " + v + ", which is not an executable file");
    }
    // One search (find_executable, execvp's rules) over the toolkit folders, then PATH.
    std::vector<std::string> folders;
    if (const char* root = detail::proc::getenv_or_null(amd ? "ROCM_PATH" : "CUDA_PATH");
        root != nullptr && *root != '\0') {
      folders.push_back((std::filesystem::path(root) / "bin").string());
    }
    if (!amd) folders.emplace_back("/usr/local/cuda/bin");
    for (const auto& f : folders) searched.push_back((std::filesystem::path(f) / name).string());
    const char* path_env = detail::proc::getenv_or_null("PATH");
    const std::string path_list = path_env != nullptr ? path_env : std::string(detail::proc::default_path);
    searched.push_back("PATH (" + path_list + ")");
    folders.push_back(path_list);
    if (auto p = find_executable(name, ::rocmtpl::detail::join(folders, ":"))) return compiler(platform, *p);
    throw compiler_not_found_error(platform, std::move(searched));
  }

  /// @brief The compiler executable.
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }
  /// @brief The platform it compiles for.
  [[nodiscard]] runtime::platform platform() const noexcept { return platform_; }
  /// @brief The output of `<compiler> --version`, trimmed (queried once per executable and process).
  /// @throws compiler_not_found_error when the compiler does not run
  [[nodiscard]] const std::string& version() const {
    std::call_once(state_->version_once,
                   [&] { state_->version = detail::compiler_impl::cached_version(path_, platform_, env_); });
    return state_->version;
  }
  /// @brief Variables set in the compiler's environment on every run (hipcc: HIP_PLATFORM=amd, so
  /// an installed nvcc never makes hipcc switch to its NVIDIA mode).
  [[nodiscard]] const std::vector<std::pair<std::string, std::string>>& environment() const noexcept { return env_; }
  /// @brief "NAME=value" for each environment variable that changes what the driver does, sorted;
  /// part of the code_cache key.
  [[nodiscard]] std::vector<std::string> environment_fingerprint() const {
    std::vector<std::string> out;
    for (const auto& [k, v] : env_) out.push_back(k + "=" + v);
    for (const auto& k : detail::compiler_impl::compiler_env_names(platform_)) {
      if (const char* v = detail::proc::getenv_or_null(k.c_str())) out.push_back(k + "=" + v);
    }
    std::sort(out.begin(), out.end());
    return out;
  }

  /// @brief Checks options for this compiler: platform matches, archs concrete and well formed,
  /// opt level 0-3, defines non-empty.
  /// @throws invalid_argument_error naming the bad value and what is expected
  void validate(const compile_options& options) const {
    if (options.platform != platform_) {
      throw invalid_argument_error("rocmtpl: compile_options.platform is " + std::string(to_string(options.platform)) +
                                   " but this compiler (" + path_.string() + ") targets " +
                                   std::string(to_string(platform_)));
    }
    if (options.archs.empty()) {
      throw invalid_argument_error(
          std::string("rocmtpl: compile_options.archs is empty; name at least one concrete arch (") +
          (platform_ == platform::amd ? "gfx90a, gfx940" : "sm_80, sm_90") + ")");
    }
    for (const auto& a : options.archs) {
      if (a == "native" || a == "all" || a == "all-major") {
        throw invalid_argument_error(
            "rocmtpl: compile_options.archs: '" + a +
            "' is not allowed; name the concrete arch (query the device, e.g. gfx90a or sm_90) so "
            "that the cache key names the real hardware");
      }
      const bool ok = platform_ == platform::amd ? detail::compiler_impl::valid_amd_arch(a)
                                                 : detail::compiler_impl::valid_nvidia_arch(a);
      if (!ok) {
        throw invalid_argument_error(
            "rocmtpl: compile_options.archs: '" + a + "' is not a valid " + std::string(to_string(platform_)) +
            " arch; expected " +
            (platform_ == platform::amd ? "gfx<id>[:xnack+|-][:sramecc+|-], e.g. gfx90a" : "sm_<nn>[a|f], e.g. sm_90"));
      }
    }
    if (options.opt_level < 0 || options.opt_level > 3) {
      throw invalid_argument_error("rocmtpl: compile_options.opt_level is " + std::to_string(options.opt_level) +
                                   "; expected 0 to 3");
    }
    for (const auto& d : options.defines) {
      if (d.empty() || d.front() == '=' || d.front() == '-') {
        throw invalid_argument_error("rocmtpl: compile_options.defines: '" + d + "' is not NAME or NAME=VALUE");
      }
    }
    if (options.timeout.count() <= 0) {
      throw invalid_argument_error("rocmtpl: compile_options.timeout must be positive");
    }
  }

  /// @brief The archs as the compiler will see them: sorted, duplicates removed (clang sorts
  /// offload archs anyway, so {gfx940, gfx90a} and {gfx90a, gfx940} are one cache entry).
  [[nodiscard]] static std::vector<std::string> resolved_archs(const compile_options& options) {
    auto archs = options.archs;
    std::sort(archs.begin(), archs.end());
    archs.erase(std::unique(archs.begin(), archs.end()), archs.end());
    return archs;
  }

  /// @brief Refuses a path this compiler cannot be given (see check_compiler_path()).
  /// @throws unsupported_path_error naming the path, the character, and ROCMTPL_CACHE_DIR
  void check_path(const std::filesystem::path& path, std::string_view role) const {
    check_compiler_path(platform_, path, role);
  }

  /// @brief The full command for one compile; every flag the library passes comes from here.
  ///
  /// AMD:
  /// @code{.sh}
  /// hipcc -O<n> -x hip -std=c++17 --offload-arch=<a>... -fno-gpu-rdc -fPIC -shared
  ///   -fvisibility=hidden [-Rpass-analysis=kernel-resource-usage] [-ffast-math
  ///   -fgpu-flush-denormals-to-zero] -D... -I... [-MD -MF <dep>] <extra> -o <output> <source>
  /// @endcode
  /// Device-only code objects (compile_output::code_object): AMD `hipcc -O<n> -x hip -std=c++17
  /// --offload-arch=<a>... --genco -fno-gpu-rdc ... -DROCMTPL_DEVICE_ONLY=1`, NVIDIA `nvcc -O<n>
  /// -std=c++17 -cubin (-fatbin for several archs) -gencode ... -DROCMTPL_DEVICE_ONLY=1`, then the
  /// same -D, -I, -MD, extra flags, output and source.
  /// NVIDIA:
  /// @code{.sh}
  /// nvcc -O<n> -std=c++17 -shared -Xcompiler -fPIC,-fvisibility=hidden -cudart shared
  ///   -gencode arch=compute_<nn>,code=sm_<nn>... [-Xptxas -v] [-use_fast_math] -D... -I... [-MD -MF <dep>]
  ///   <extra> -o <output> -x cu <source>
  /// @endcode
  /// NVIDIA code objects that NVRTC serves (compile_options::in_process) get NVRTC's options
  /// instead, behind the marker "nvrtc" and its version (see runtime/build/nvrtc.hpp).
  /// Include dirs, source and output are made absolute (the compiler runs in the output's folder).
  /// @throws invalid_argument_error when the options are invalid (see validate())
  [[nodiscard]] std::vector<std::string> command(const compile_options& options, const std::filesystem::path& source,
                                                 const std::filesystem::path& output) const {
    validate(options);
    const auto abs = [](const std::filesystem::path& p) {
      return p.empty() ? p : std::filesystem::absolute(p).lexically_normal();
    };
    if (uses_nvrtc(options)) return nvrtc_command(options, abs(source), abs(output));
    std::vector<std::string> argv{path_.string(), "-O" + std::to_string(options.opt_level)};
    const auto archs = resolved_archs(options);
    // Device-only code objects: no host compile, no link (issue 9 part 4's lever).
    const bool device_only = options.output == compile_output::code_object;
    if (platform_ == platform::amd) {
      argv.insert(argv.end(), {"-x", "hip", "-std=c++17"});
      for (const auto& a : archs) argv.push_back("--offload-arch=" + a);
      if (device_only) {
        argv.insert(argv.end(), {"--genco", "-fno-gpu-rdc"});
      } else {
        argv.insert(argv.end(), {"-fno-gpu-rdc", "-fPIC", "-shared", "-fvisibility=hidden"});
      }
      if (options.resource_usage) argv.emplace_back("-Rpass-analysis=kernel-resource-usage");
      if (options.fast_math) argv.insert(argv.end(), {"-ffast-math", "-fgpu-flush-denormals-to-zero"});
    } else {
      argv.emplace_back("-std=c++17");
      if (device_only) {
        argv.emplace_back(archs.size() == 1 ? "-cubin" : "-fatbin");
      } else {
        argv.insert(argv.end(), {"-shared", "-Xcompiler", "-fPIC,-fvisibility=hidden", "-cudart", "shared"});
      }
      for (const auto& a : archs) {
        const auto sm = a.substr(3);
        argv.emplace_back("-gencode");
        argv.push_back("arch=compute_" + sm + ",code=sm_" + sm);
      }
      if (options.resource_usage) argv.insert(argv.end(), {"-Xptxas", "-v"});
      if (options.fast_math) argv.emplace_back("-use_fast_math");
    }
    if (device_only) argv.emplace_back("-DROCMTPL_DEVICE_ONLY=1");
    for (const auto& d : options.defines) argv.push_back("-D" + d);
    for (const auto& i : options.include_dirs) argv.push_back("-I" + abs(i).string());
    if (!options.dependency_file.empty())
      argv.insert(argv.end(), {"-MD", "-MF", abs(options.dependency_file).string()});
    argv.insert(argv.end(), options.extra_flags.begin(), options.extra_flags.end());
    argv.insert(argv.end(), {"-o", abs(output).string()});
    if (platform_ == platform::nvidia) argv.insert(argv.end(), {"-x", "cu"});
    argv.push_back(abs(source).string());
    return argv;
  }

  /// @brief Compiles `source` into the shared library (or, with compile_output::code_object, the
  /// device code object) `output` (its folder is created).
  ///
  /// The compiler runs with the output's folder as working directory (never the caller's), with
  /// a timeout, and the log is parsed for per-kernel resource usage.
  /// @param source a HIP source file
  /// @param options archs, flags, timeout
  /// @param output the shared library to write; removed again when the compile fails
  /// @return the library, the command, the log, resources and wall time
  /// @throws invalid_argument_error for invalid options or a missing source file
  /// @throws unsupported_path_error for a path the compiler cannot be given (see check_path())
  /// @throws compile_error when the compiler fails (carries argv, log, source)
  /// @throws compile_timeout_error when the compile runs past options.timeout
  /// @throws compiler_not_found_error when the compiler vanished
  [[nodiscard]] compile_result compile(const std::filesystem::path& source, const compile_options& options,
                                       const std::filesystem::path& output) const {
    const auto src = std::filesystem::absolute(source).lexically_normal();
    const auto out = std::filesystem::absolute(output).lexically_normal();
    std::error_code ec;
    if (!std::filesystem::is_regular_file(src, ec)) {
      throw invalid_argument_error("rocmtpl: compile: source file " + src.string() + " does not exist");
    }
    check_path(src, "source");
    check_path(out, "output");
    for (const auto& i : options.include_dirs) check_path(std::filesystem::absolute(i), "include folder");
    if (!options.dependency_file.empty())
      check_path(std::filesystem::absolute(options.dependency_file), "dependency file");
    auto argv = command(options, src, out);
    std::filesystem::create_directories(out.parent_path());
    if (argv.front() == nvrtc_marker) return compile_with_nvrtc(std::move(argv), options, src, out);
    process_options po;
    po.working_dir = out.parent_path();
    po.env = env_;
    po.timeout = options.timeout;
    process_result r;
    try {
      r = run_process(argv, po);
    } catch (const executable_not_found_error& e) {
      throw compiler_not_found_error(platform_, {path_.string()}, e.what());
    }
    if (r.timed_out) {
      std::filesystem::remove(out, ec);
      throw compile_timeout_error(std::move(argv), std::move(r.output), detail::compiler_impl::read_text_file(src),
                                  std::chrono::duration_cast<std::chrono::milliseconds>(options.timeout), src);
    }
    if (!r.ok()) {
      std::filesystem::remove(out, ec);
      throw compile_error(std::move(argv), std::move(r.output), detail::compiler_impl::read_text_file(src), r.exit_code,
                          src);
    }
    if (!std::filesystem::is_regular_file(out, ec)) {
      throw compile_error(std::move(argv),
                          r.output + "\n[rocmtpl: the compiler exited with 0 but wrote no " + out.string() + "]\n",
                          detail::compiler_impl::read_text_file(src), 0, src);
    }
    compile_result result;
    result.library = out;
    result.argv = std::move(argv);
    result.log = std::move(r.output);
    result.seconds = r.seconds;
    if (options.resource_usage) {
      const auto archs = resolved_archs(options);
      result.resources = platform_ == platform::amd ? parse_amd_resource_usage(result.log, archs)
                                                    : parse_nvidia_resource_usage(result.log);
    }
    return result;
  }

 private:
  static constexpr std::string_view nvrtc_marker = "nvrtc";

  // NVRTC serves NVIDIA device-only code objects for one arch at -O3 without extra flags.
  [[nodiscard]] bool uses_nvrtc(const compile_options& o) const {
    return platform_ == platform::nvidia && o.output == compile_output::code_object && o.in_process &&
           o.archs.size() == 1 && o.opt_level == 3 && o.extra_flags.empty() && nvrtc() != nullptr;
  }

  // The pseudo-command of an NVRTC compile: "nvrtc", its version, its options, -o, the source.
  // It is what code_cache keys on and what logs show.
  [[nodiscard]] std::vector<std::string> nvrtc_command(const compile_options& o, const std::filesystem::path& source,
                                                       const std::filesystem::path& output) const {
    const auto* api = nvrtc();
    std::vector<std::string> argv{std::string(nvrtc_marker),
                                  "version " + std::to_string(api->major) + "." + std::to_string(api->minor),
                                  "--gpu-architecture=" + o.archs.front(),
                                  "-std=c++17",
                                  "-default-device",
                                  "-DROCMTPL_DEVICE_ONLY=1"};
    if (o.resource_usage) argv.emplace_back("--ptxas-options=-v");
    if (o.fast_math) argv.emplace_back("--use_fast_math");
    for (const auto& d : o.defines) argv.push_back("-D" + d);
    for (const auto& i : o.include_dirs)
      argv.push_back("-I" + std::filesystem::absolute(i).lexically_normal().string());
    argv.push_back("-I" + nvrtc_include_dir().string());
    argv.push_back("-I" + (path_.parent_path().parent_path() / "include").lexically_normal().string());
    argv.emplace_back("--pre-include=rocmtpl_nvrtc_prelude.h");
    argv.insert(argv.end(), {"-o", output.string(), source.string()});
    return argv;
  }

  // Runs an NVRTC pseudo-command in this process and writes the cubin.
  [[nodiscard]] compile_result compile_with_nvrtc(std::vector<std::string> argv, const compile_options& o,
                                                  const std::filesystem::path& src,
                                                  const std::filesystem::path& out) const {
    const auto o_at = std::find(argv.begin(), argv.end(), "-o");
    const std::vector<std::string> options(argv.begin() + 2, o_at);
    const std::string text = detail::compiler_impl::read_text_file(src);
    auto r = nvrtc_compile(*nvrtc(), text, src.filename().string(), options);
    if (!r.ok) throw compile_error(std::move(argv), std::move(r.log), text, 1, src);
    detail::write_file_atomic(out, r.cubin);
    compile_result result;
    result.library = out;
    result.argv = std::move(argv);
    result.log = std::move(r.log);
    result.seconds = r.seconds;
    if (o.resource_usage) result.resources = parse_nvidia_resource_usage(result.log);
    return result;
  }

  static std::vector<std::pair<std::string, std::string>> environment_for(runtime::platform p) {
    if (p == platform::amd) return {{"HIP_PLATFORM", "amd"}};
    return {};
  }

  runtime::platform platform_;
  std::filesystem::path path_{};
  std::vector<std::pair<std::string, std::string>> env_{};
  std::shared_ptr<detail::compiler_impl::compiler_state> state_{};
};

}  // namespace rocmtpl::runtime
