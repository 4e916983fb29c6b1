// SPDX-License-Identifier: MIT
#pragma once

// The implementation of runtime/build/compiler.hpp: included at its end (header-only) or compiled once by
// src/runtime/build.cpp, after it (so it does not include it back).

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/detail/hash.hpp>
#include <rocmtpl/detail/strings.hpp>
#include <rocmtpl/runtime/build/artifact.hpp>
#include <rocmtpl/runtime/build/nvrtc.hpp>
#include <rocmtpl/runtime/build/resource_usage.hpp>
#include <rocmtpl/runtime/sys/atomic_file.hpp>
#include <rocmtpl/runtime/sys/cache_root.hpp>
#include <rocmtpl/runtime/sys/platform.hpp>
#include <rocmtpl/runtime/sys/process.hpp>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <exception>
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

namespace detail::compiler_impl {

ROCMTPL_INLINE std::string read_text_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) return {};
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

ROCMTPL_INLINE std::string first_lines(std::string_view text, std::size_t max_lines) {
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

ROCMTPL_INLINE bool contains_ci(std::string_view text, std::string_view word) {
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
ROCMTPL_INLINE bool has_error_label(std::string_view line) {
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
ROCMTPL_INLINE std::string first_error_line(std::string_view log) {
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
ROCMTPL_INLINE bool located_diagnostic(std::string_view line) {
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
ROCMTPL_INLINE bool environment_failure(int exit_code, std::string_view log) {
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

ROCMTPL_INLINE std::string compile_error_message(const std::vector<std::string>& argv, std::string_view log,
                                                 int exit_code, const std::filesystem::path& source_path,
                                                 std::string_view headline) {
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
ROCMTPL_INLINE std::string seconds_text(std::chrono::milliseconds t) {
  if (t.count() % 1000 == 0) return std::to_string(t.count() / 1000) + " s";
  std::string s = std::to_string(static_cast<double>(t.count()) / 1000.0);
  while (!s.empty() && s.back() == '0') s.pop_back();
  return s + " s";
}

}  // namespace detail::compiler_impl

ROCMTPL_INLINE compile_error::compile_error(std::vector<std::string> argv, std::string log, std::string source,
                                            int exit_code, std::filesystem::path source_path)
    : compile_error(std::string_view{}, argv, log, std::move(source), exit_code, std::move(source_path),
                    detail::compiler_impl::environment_failure(exit_code, log) ? compile_failure::environment
                                                                               : compile_failure::source) {}

ROCMTPL_INLINE std::string compile_error::first_error_line() const {
  auto line = detail::compiler_impl::first_error_line(log_);
  if (!line.empty()) return line;
  const std::string_view w = what();
  return std::string(w.substr(0, w.find('\n')));
}

ROCMTPL_INLINE std::string compile_error::source_with_line_numbers() const {
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

ROCMTPL_INLINE compile_error::compile_error(std::string_view headline, std::vector<std::string> argv, std::string log,
                                            std::string source, int exit_code, std::filesystem::path source_path,
                                            compile_failure failure)
    : error(detail::compiler_impl::compile_error_message(argv, log, exit_code, source_path, headline)),
      headline_(headline),
      argv_(std::move(argv)),
      log_(std::move(log)),
      source_(std::move(source)),
      source_path_(std::move(source_path)),
      exit_code_(exit_code),
      failure_(failure) {}

ROCMTPL_INLINE compile_timeout_error::compile_timeout_error(std::vector<std::string> argv, std::string log,
                                                            std::string source, std::chrono::milliseconds timeout,
                                                            std::filesystem::path source_path)
    : compile_error("compile timed out after " + detail::compiler_impl::seconds_text(timeout) +
                        " and was killed (compile_options::timeout)",
                    std::move(argv), std::move(log), std::move(source), -1, std::move(source_path),
                    compile_failure::timeout),
      timeout_(timeout) {}

ROCMTPL_INLINE compiler_not_found_error::compiler_not_found_error(runtime::platform platform,
                                                                  std::vector<std::string> searched,
                                                                  const std::string& reason)
    : error(message(platform, searched, reason)), platform_(platform), searched_(std::move(searched)) {}

ROCMTPL_INLINE std::string compiler_not_found_error::install_hint(runtime::platform p) {
  return p == platform::amd
             ? "install it with `apt-get install hipcc` (Debian/Ubuntu) or ROCm, or set ROCMTPL_HIPCC to its path"
             : "install the CUDA toolkit (NVIDIA's cuda-toolkit package, or Debian's nvidia-cuda-toolkit), or set "
               "ROCMTPL_NVCC or CUDA_PATH";
}

ROCMTPL_INLINE std::string compiler_not_found_error::message(runtime::platform p,
                                                             const std::vector<std::string>& searched,
                                                             const std::string& reason) {
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

namespace detail::compiler_impl {

// Debian's hipcc (a Perl script) runs clang through a shell with every argument inside double
// quotes, where $ ` " and \ keep their meaning. Measured with hipcc 5.2 (clang 15) on a source,
// output, -I and -MF path each holding one character: $ (expanded away, "cannot open output
// file"), ` and " (shell syntax errors) break; space ' ; & ( ) * ? # ! { } ~ % = , + @ : | < > [ ]
// ^ and tab work. A backslash works alone but not before $ ` " or another backslash: refused too.
// Control characters (a newline ends the shell's command) are refused as well.
ROCMTPL_INLINE std::optional<char> hipcc_unsafe_char(std::string_view path) {
  for (char c : path) {
    if (c == '$' || c == '`' || c == '"' || c == '\\' || static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return c;
  }
  return std::nullopt;
}

ROCMTPL_INLINE std::string char_name(char c) {
  if (c == '\n') return "a newline";
  if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
    return "control character " + std::to_string(static_cast<int>(c));
  return std::string("'") + c + "'";
}

ROCMTPL_INLINE bool valid_amd_arch(std::string_view a) {
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

ROCMTPL_INLINE bool valid_nvidia_arch(std::string_view a) {
  if (!a.starts_with("sm_")) return false;
  auto digits = a.substr(3);
  if (!digits.empty() && (digits.back() == 'a' || digits.back() == 'f')) digits.remove_suffix(1);
  return !digits.empty() && digits.size() <= 4 &&
         std::all_of(digits.begin(), digits.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// Environment variables the drivers read besides argv: they change the output, so they are part
// of the cache key (upstream hashes only the command string).
ROCMTPL_INLINE const std::vector<std::string>& compiler_env_names(runtime::platform p) {
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
ROCMTPL_INLINE std::string cached_version(const std::filesystem::path& exe, runtime::platform platform,
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
  po.timeout = compiler_probe_timeout();
  po.kill_grace = std::chrono::milliseconds(500);
  const std::vector<std::string> argv{exe.string(), "--version"};
  process_result r;
  try {
    r = run_process(argv, po);
  } catch (const process_error& e) {
    throw compiler_not_found_error(platform, {exe.string()}, e.what());
  }
  if (!r.ok()) {
    const std::string name = platform == platform::amd ? "hipcc" : "nvcc";
    const std::string probe = "`" + quote_command(argv) + "`";
    std::string m = "rocmtpl: " + name + " at " + exe.string() + " does not work: " + probe;
    if (r.timed_out) {
      m += " timed out after " + seconds_text(po.timeout) +
           " and was killed (a hung compiler or an overloaded machine; ROCMTPL_COMPILER_PROBE_TIMEOUT=<seconds> "
           "waits longer)";
    } else if (r.signal != 0) {
      m += " was killed by signal " + std::to_string(r.signal);
    } else {
      m += " failed with exit code " + std::to_string(r.exit_code);
    }
    const std::string head = first_lines(r.output, 10);
    if (const auto said = trim(head); !said.empty()) m += "; it printed: " + std::string(said);
    if (!r.timed_out)
      m += "; reinstall it, or " + std::string(platform == platform::amd ? "set ROCMTPL_HIPCC" : "set ROCMTPL_NVCC") +
           " to a working one";
    throw compiler_unusable_error(platform, exe, m, r.timed_out);
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

}  // namespace detail::compiler_impl

ROCMTPL_INLINE void check_compiler_path(runtime::platform platform, const std::filesystem::path& path,
                                        std::string_view role) {
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

ROCMTPL_INLINE compiler::compiler(runtime::platform platform, std::filesystem::path executable)
    : platform_(platform),
      path_(std::move(executable)),
      state_(std::make_shared<detail::compiler_impl::compiler_state>()) {
  if (!detail::proc::is_executable_file(path_)) {
    throw compiler_not_found_error(platform_, {path_.string()}, path_.string() + " is not an executable file");
  }
  env_ = environment_for(platform_);
}

ROCMTPL_INLINE compiler compiler::amd_emulator(std::filesystem::path cxx, std::filesystem::path runtime_library) {
  compiler cc(platform::amd, std::move(cxx));
  cc.env_.clear();  // clang++, not hipcc
  cc.emulator_runtime_ = std::filesystem::absolute(std::move(runtime_library)).lexically_normal();
  return cc;
}

ROCMTPL_INLINE compiler compiler::find(runtime::platform platform) {
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

ROCMTPL_INLINE const std::string& compiler::version() const {
  std::lock_guard lock(state_->mutex);
  if (state_->version) return *state_->version;
  if (state_->version_error) std::rethrow_exception(state_->version_error);
  try {
    state_->version = detail::compiler_impl::cached_version(path_, platform_, env_);
  } catch (const compiler_not_found_error&) {
    state_->version_error = std::current_exception();
    throw;
  }
  return *state_->version;
}

ROCMTPL_INLINE std::chrono::milliseconds compiler_probe_timeout() {
  const char* v = detail::proc::getenv_or_null("ROCMTPL_COMPILER_PROBE_TIMEOUT");
  if (v == nullptr || *v == '\0') return std::chrono::seconds(60);
  char* end = nullptr;
  const double seconds = std::strtod(v, &end);
  if (end == v || *end != '\0' || !(seconds > 0) || seconds > 1e6) {
    throw invalid_argument_error(std::string("rocmtpl: ROCMTPL_COMPILER_PROBE_TIMEOUT is '") + v +
                                 "'; expected a positive number of seconds");
  }
  return std::chrono::milliseconds(std::max(1LL, static_cast<long long>(seconds * 1000 + 0.5)));
}

ROCMTPL_INLINE std::vector<std::string> compiler::environment_fingerprint() const {
  std::vector<std::string> out;
  for (const auto& [k, v] : env_) out.push_back(k + "=" + v);
  for (const auto& k : detail::compiler_impl::compiler_env_names(platform_)) {
    if (const char* v = detail::proc::getenv_or_null(k.c_str())) out.push_back(k + "=" + v);
  }
  std::sort(out.begin(), out.end());
  return out;
}

ROCMTPL_INLINE void compiler::validate(const compile_options& options) const {
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
  if (is_amd_emulator() && options.output == compile_output::code_object) {
    throw invalid_argument_error(
        "rocmtpl: compile_options.output: the AMD emulator builds shared libraries only (no device code "
        "objects); use compile_output::shared_library");
  }
}

ROCMTPL_INLINE std::vector<std::string> compiler::resolved_archs(const compile_options& options) {
  auto archs = options.archs;
  std::sort(archs.begin(), archs.end());
  archs.erase(std::unique(archs.begin(), archs.end()), archs.end());
  return archs;
}

ROCMTPL_INLINE std::vector<std::string> compiler::command(const compile_options& options,
                                                          const std::filesystem::path& source,
                                                          const std::filesystem::path& output) const {
  validate(options);
  const auto abs = [](const std::filesystem::path& p) {
    return p.empty() ? p : std::filesystem::absolute(p).lexically_normal();
  };
  if (uses_nvrtc(options)) return nvrtc_command(options, abs(source), abs(output));
  if (is_amd_emulator()) return emulator_command(options, abs(source), abs(output));
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
  if (!options.dependency_file.empty()) argv.insert(argv.end(), {"-MD", "-MF", abs(options.dependency_file).string()});
  argv.insert(argv.end(), options.extra_flags.begin(), options.extra_flags.end());
  argv.insert(argv.end(), {"-o", abs(output).string()});
  if (platform_ == platform::nvidia) argv.insert(argv.end(), {"-x", "cu"});
  argv.push_back(abs(source).string());
  return argv;
}

ROCMTPL_INLINE compile_result compiler::compile(const std::filesystem::path& source, const compile_options& options,
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
  check_artifact(argv, r.output, options, src, out);
  compile_result result;
  result.library = out;
  result.argv = std::move(argv);
  result.log = std::move(r.output);
  result.seconds = r.seconds;
  if (options.resource_usage && !is_amd_emulator()) {  // the emulator has no registers to report
    const auto archs = resolved_archs(options);
    result.resources = platform_ == platform::amd ? parse_amd_resource_usage(result.log, archs)
                                                  : parse_nvidia_resource_usage(result.log);
  }
  return result;
}

// NVRTC serves NVIDIA device-only code objects for one arch at -O3 without extra flags.
ROCMTPL_INLINE bool compiler::uses_nvrtc(const compile_options& o) const {
  return platform_ == platform::nvidia && o.output == compile_output::code_object && o.in_process &&
         o.archs.size() == 1 && o.opt_level == 3 && o.extra_flags.empty() && nvrtc() != nullptr;
}

// The pseudo-command of an NVRTC compile: "nvrtc", its version, its options, -o, the source.
// It is what code_cache keys on and what logs show.
ROCMTPL_INLINE std::vector<std::string> compiler::nvrtc_command(const compile_options& o,
                                                                const std::filesystem::path& source,
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
  for (const auto& i : o.include_dirs) argv.push_back("-I" + std::filesystem::absolute(i).lexically_normal().string());
  argv.push_back("-I" + nvrtc_include_dir().string());
  argv.push_back("-I" + (path_.parent_path().parent_path() / "include").lexically_normal().string());
  argv.emplace_back("--pre-include=rocmtpl_nvrtc_prelude.h");
  argv.insert(argv.end(), {"-o", output.string(), source.string()});
  return argv;
}

// Runs an NVRTC pseudo-command in this process and writes the cubin.
ROCMTPL_INLINE compile_result compiler::compile_with_nvrtc(std::vector<std::string> argv, const compile_options& o,
                                                           const std::filesystem::path& src,
                                                           const std::filesystem::path& out) const {
  const auto o_at = std::find(argv.begin(), argv.end(), "-o");
  const std::vector<std::string> options(argv.begin() + 2, o_at);
  const std::string text = detail::compiler_impl::read_text_file(src);
  auto r = nvrtc_compile(*nvrtc(), text, src.filename().string(), options);
  if (!r.ok) throw compile_error(std::move(argv), std::move(r.log), text, 1, src);
  detail::write_file_atomic(out, r.cubin);
  check_artifact(argv, r.log, o, src, out);
  compile_result result;
  result.library = out;
  result.argv = std::move(argv);
  result.log = std::move(r.log);
  result.seconds = r.seconds;
  if (o.resource_usage) result.resources = parse_nvidia_resource_usage(result.log);
  return result;
}

// The AMD emulator's command: the generated source as C++ for the host (the portability header
// includes rocmtpl_amd_emu.h under ROCMTPL_AMD_EMULATOR), its loads and stores reported to the
// emulator's hooks, linked with the emulator's runtime (by path: the kernel library names it).
ROCMTPL_INLINE std::vector<std::string> compiler::emulator_command(const compile_options& o,
                                                                   const std::filesystem::path& source,
                                                                   const std::filesystem::path& output) const {
  std::vector<std::string> argv{path_.string(),
                                "-O" + std::to_string(o.opt_level),
                                "-std=c++17",
                                "-fPIC",
                                "-shared",
                                "-fvisibility=hidden",
                                "-DROCMTPL_AMD_EMULATOR=1",
                                "-fsanitize-coverage=func,inline-bool-flag,trace-loads,trace-stores",
                                "-Wno-psabi"};  // 64-byte vector arguments (MFMA accumulators) by value
  if (o.fast_math) argv.emplace_back("-ffast-math");
  for (const auto& d : o.defines) argv.push_back("-D" + d);
  for (const auto& i : o.include_dirs) argv.push_back("-I" + std::filesystem::absolute(i).lexically_normal().string());
  if (!o.dependency_file.empty()) {
    argv.insert(argv.end(), {"-MD", "-MF", std::filesystem::absolute(o.dependency_file).lexically_normal().string()});
  }
  argv.insert(argv.end(), o.extra_flags.begin(), o.extra_flags.end());
  argv.insert(argv.end(),
              {"-o", output.string(), "-x", "c++", source.string(), "-x", "none", emulator_runtime_.string()});
  return argv;
}

// What the compiler wrote is what was asked for (runtime/build/artifact.hpp); else it is removed and the
// compile fails with the reason. Never a source error: a compiler that exits 0 with a bad file is broken.
ROCMTPL_INLINE void compiler::check_artifact(const std::vector<std::string>& argv, const std::string& log,
                                             const compile_options& o, const std::filesystem::path& src,
                                             const std::filesystem::path& out) const {
  const auto kind = o.output == compile_output::shared_library ? artifact_kind::host_shared_library
                    : platform_ == platform::amd               ? artifact_kind::amd_code_object
                                                               : artifact_kind::nvidia_code_object;
  const auto problem = artifact_problem(detail::compiler_impl::read_text_file(out), kind, o.required_symbols);
  if (problem.empty()) return;
  std::error_code ec;
  std::filesystem::remove(out, ec);
  const std::string program = std::filesystem::path(argv.front()).filename().string();
  throw compile_error(program + " exited 0 but " + problem + " (" + out.string() + ")", argv, log,
                      detail::compiler_impl::read_text_file(src), 0, src, compile_failure::environment);
}

ROCMTPL_INLINE std::vector<std::pair<std::string, std::string>> compiler::environment_for(runtime::platform p) {
  if (p == platform::amd) return {{"HIP_PLATFORM", "amd"}};
  return {};
}

}  // namespace rocmtpl::runtime
