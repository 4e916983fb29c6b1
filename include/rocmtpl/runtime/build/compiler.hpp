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

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/runtime/build/artifact.hpp>
#include <rocmtpl/runtime/build/resource_usage.hpp>
#include <rocmtpl/runtime/sys/platform.hpp>
#include <rocmtpl/runtime/sys/process.hpp>

#include <chrono>
#include <cstddef>
#include <exception>
#include <filesystem>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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
  /// @brief Symbols the compiled file must define: all of one of the sets (the C entry of a shared
  /// library; the kernels of one of a code object's launch variants; a code object with none of them
  /// has no device code for this target and passes, see artifact_problem()). Whatever the compiler wrote is
  /// checked before it is accepted (runtime/build/artifact.hpp): its format always, these symbols when
  /// given; a bad file is a compile_error (compile_failure::environment). Not part of the command line
  /// (nor of code_cache's key).
  symbol_sets required_symbols{};
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

std::string read_text_file(const std::filesystem::path& p);

std::string first_lines(std::string_view text, std::size_t max_lines);

bool contains_ci(std::string_view text, std::string_view word);

bool has_error_label(std::string_view line);

std::string first_error_line(std::string_view log);

bool located_diagnostic(std::string_view line);

bool environment_failure(int exit_code, std::string_view log);

std::string compile_error_message(const std::vector<std::string>& argv, std::string_view log, int exit_code,
                                  const std::filesystem::path& source_path, std::string_view headline);

std::string seconds_text(std::chrono::milliseconds t);

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
                std::filesystem::path source_path = {});

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
  [[nodiscard]] std::string first_error_line() const;
  /// @brief True when code_cache answered from its record of an earlier failure, without running the compiler.
  [[nodiscard]] bool cached() const noexcept { return cached_; }
  /// @brief Marks the error as replayed from code_cache's negative cache.
  void set_cached(bool cached) noexcept { cached_ = cached; }
  /// @brief The command as one shell-quoted line (to paste into a terminal).
  [[nodiscard]] std::string command_line() const { return quote_command(argv_); }
  /// @brief The source with right-aligned line numbers ("  12 | code"), to read next to the log.
  [[nodiscard]] std::string source_with_line_numbers() const;
  /// @brief What replaced "<compiler> failed with exit code N" in what() (empty: nothing did).
  [[nodiscard]] const std::string& headline() const noexcept { return headline_; }

  /// @brief A failure said in the library's own words: `headline` replaces the "<compiler> failed
  /// with exit code N" part of what() (e.g. "hipcc exited 0 but wrote no ELF file ..."), and `failure`
  /// is given rather than read from the log.
  compile_error(std::string_view headline, std::vector<std::string> argv, std::string log, std::string source,
                int exit_code, std::filesystem::path source_path, compile_failure failure);

 private:
  std::string headline_{};
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
                        std::chrono::milliseconds timeout, std::filesystem::path source_path = {});
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
                           const std::string& reason = {});
  /// @brief The platform whose compiler is missing.
  [[nodiscard]] runtime::platform platform() const noexcept { return platform_; }
  /// @brief The places looked at, in order.
  [[nodiscard]] const std::vector<std::string>& searched() const noexcept { return searched_; }
  /// @brief What to install: "apt-get install hipcc" or the CUDA toolkit.
  [[nodiscard]] static std::string install_hint(runtime::platform p);

 protected:
  /// @brief For derived errors: `what` is the whole message.
  struct whole_message {};
  /// @param platform the platform whose compiler is unusable
  /// @param searched the places looked at
  /// @param what the message
  compiler_not_found_error(runtime::platform platform, std::vector<std::string> searched, const std::string& what,
                           whole_message)
      : error(what), platform_(platform), searched_(std::move(searched)) {}

 private:
  static std::string message(runtime::platform p, const std::vector<std::string>& searched, const std::string& reason);
  runtime::platform platform_;
  std::vector<std::string> searched_{};
};

/// @brief The compiler exists but does not work: its `--version` probe hung (and was killed after
/// compiler_probe_timeout()), failed or was killed. A compiler_not_found_error, so that whoever skips
/// without a compiler skips here too; the message names the command, what happened and, for a
/// timeout, after how long.
class compiler_unusable_error : public compiler_not_found_error {
 public:
  /// @param platform the platform of the compiler
  /// @param executable the compiler that was probed
  /// @param what the whole message
  /// @param timed_out whether the probe ran past its timeout
  compiler_unusable_error(runtime::platform platform, const std::filesystem::path& executable, const std::string& what,
                          bool timed_out)
      : compiler_not_found_error(platform, {executable.string()}, what, whole_message{}), timed_out_(timed_out) {}
  /// @brief True when the probe ran past compiler_probe_timeout() and was killed.
  [[nodiscard]] bool timed_out() const noexcept { return timed_out_; }

 private:
  bool timed_out_ = false;
};

/// @brief How long a compiler's `--version` probe may run before it is killed and the compiler
/// reported unusable (compiler_unusable_error): 60 s, or `ROCMTPL_COMPILER_PROBE_TIMEOUT` (seconds,
/// e.g. "5" or "0.5").
/// @throws invalid_argument_error when the variable is set to something else than a positive number
[[nodiscard]] std::chrono::milliseconds compiler_probe_timeout();

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

std::optional<char> hipcc_unsafe_char(std::string_view path);

std::string char_name(char c);

bool valid_amd_arch(std::string_view a);

bool valid_nvidia_arch(std::string_view a);

const std::vector<std::string>& compiler_env_names(runtime::platform p);

std::string cached_version(const std::filesystem::path& exe, runtime::platform platform,
                           const std::vector<std::pair<std::string, std::string>>& env);

struct compiler_state {
  std::mutex mutex{};
  std::optional<std::string> version{};
  std::exception_ptr version_error{};  // a failed probe, rethrown: a hung compiler costs one timeout
};

}  // namespace detail::compiler_impl

/// @brief Refuses a path the platform's compiler cannot be given: for AMD (hipcc) one holding
/// $ ` " \\ or a control character (see unsupported_path_error); nvcc takes any path. Callers check
/// the cache folder with it up front, before any compile.
/// @param platform whose compiler will see the path
/// @param path the path to check
/// @param role what it is, for the message ("cache folder", "source", "output", "include folder")
/// @throws unsupported_path_error naming the path, the character, and ROCMTPL_CACHE_DIR
void check_compiler_path(runtime::platform platform, const std::filesystem::path& path, std::string_view role);

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
  compiler(runtime::platform platform, std::filesystem::path executable);

  /// @brief Finds the compiler for a platform.
  ///
  /// hipcc: `ROCMTPL_HIPCC`, then `$ROCM_PATH/bin/hipcc`, then PATH.
  /// nvcc: `ROCMTPL_NVCC`, then `$CUDA_PATH/bin/nvcc`, then `/usr/local/cuda/bin/nvcc`, then PATH.
  /// An override variable that names a missing file is an error (not a silent fallback).
  /// @throws compiler_not_found_error naming the places searched and the package to install
  [[nodiscard]] static compiler find(runtime::platform platform);

  /// @brief A compiler for the AMD emulator (issue 23): `cxx` (clang++ 15 or later) builds generated
  /// AMD sources for the host with the emulator's header (device/amd_emulator.hpp), linked with
  /// `runtime_library`, the emulator's runtime (runtime/build/amd_emulator.hpp builds both:
  /// amd_emulator_compiler()). Platform amd; shared libraries only.
  /// @throws compiler_not_found_error when `cxx` is not an executable file
  [[nodiscard]] static compiler amd_emulator(std::filesystem::path cxx, std::filesystem::path runtime_library);

  /// @brief True for a compiler made by amd_emulator().
  [[nodiscard]] bool is_amd_emulator() const noexcept { return !emulator_runtime_.empty(); }

  /// @brief The emulator's runtime library every emulated kernel links (empty unless is_amd_emulator()).
  [[nodiscard]] const std::filesystem::path& amd_emulator_runtime() const noexcept { return emulator_runtime_; }

  /// @brief The compiler executable.
  [[nodiscard]] const std::filesystem::path& path() const noexcept { return path_; }
  /// @brief The platform it compiles for.
  [[nodiscard]] runtime::platform platform() const noexcept { return platform_; }
  /// @brief The output of `<compiler> --version`, trimmed (queried once per executable and process;
  /// a failed query is remembered by this object and its copies, and thrown again).
  /// @throws compiler_unusable_error when `--version` hangs past compiler_probe_timeout(), fails or is killed
  /// @throws compiler_not_found_error when the compiler does not run
  [[nodiscard]] const std::string& version() const;
  /// @brief Variables set in the compiler's environment on every run (hipcc: HIP_PLATFORM=amd, so
  /// an installed nvcc never makes hipcc switch to its NVIDIA mode).
  [[nodiscard]] const std::vector<std::pair<std::string, std::string>>& environment() const noexcept { return env_; }
  /// @brief "NAME=value" for each environment variable that changes what the driver does, sorted;
  /// part of the code_cache key.
  [[nodiscard]] std::vector<std::string> environment_fingerprint() const;

  /// @brief Checks options for this compiler: platform matches, archs concrete and well formed,
  /// opt level 0-3, defines non-empty.
  /// @throws invalid_argument_error naming the bad value and what is expected
  void validate(const compile_options& options) const;

  /// @brief The archs as the compiler will see them: sorted, duplicates removed (clang sorts
  /// offload archs anyway, so {gfx940, gfx90a} and {gfx90a, gfx940} are one cache entry).
  [[nodiscard]] static std::vector<std::string> resolved_archs(const compile_options& options);

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
  /// The AMD emulator (amd_emulator()): the generated AMD source for the host, every load and store
  /// of its kernels checked (the emulator's hooks), linked with the emulator's runtime library:
  /// @code{.sh}
  /// clang++ -O<n> -std=c++17 -fPIC -shared -fvisibility=hidden -DROCMTPL_AMD_EMULATOR=1
  ///   -fsanitize-coverage=func,inline-bool-flag,trace-loads,trace-stores -Wno-psabi [-ffast-math]
  ///   -D... -I... [-MD -MF <dep>] <extra> -o <output> -x c++ <source> -x none <runtime library>
  /// @endcode
  /// Include dirs, source and output are made absolute (the compiler runs in the output's folder).
  /// @throws invalid_argument_error when the options are invalid (see validate())
  [[nodiscard]] std::vector<std::string> command(const compile_options& options, const std::filesystem::path& source,
                                                 const std::filesystem::path& output) const;

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
  /// @throws compile_error when the compiler fails (carries argv, log, source), or exits 0 with a file
  ///         that is not what was asked for (artifact_problem(): format, required_symbols)
  /// @throws compile_timeout_error when the compile runs past options.timeout
  /// @throws compiler_not_found_error when the compiler vanished
  [[nodiscard]] compile_result compile(const std::filesystem::path& source, const compile_options& options,
                                       const std::filesystem::path& output) const;

 private:
  static constexpr std::string_view nvrtc_marker = "nvrtc";

  [[nodiscard]] bool uses_nvrtc(const compile_options& o) const;

  [[nodiscard]] std::vector<std::string> nvrtc_command(const compile_options& o, const std::filesystem::path& source,
                                                       const std::filesystem::path& output) const;

  [[nodiscard]] compile_result compile_with_nvrtc(std::vector<std::string> argv, const compile_options& o,
                                                  const std::filesystem::path& src,
                                                  const std::filesystem::path& out) const;

  void check_artifact(const std::vector<std::string>& argv, const std::string& log, const compile_options& o,
                      const std::filesystem::path& src, const std::filesystem::path& out) const;

  static std::vector<std::pair<std::string, std::string>> environment_for(runtime::platform p);

  [[nodiscard]] std::vector<std::string> emulator_command(const compile_options& o, const std::filesystem::path& source,
                                                          const std::filesystem::path& output) const;

  runtime::platform platform_;
  std::filesystem::path path_{};
  std::filesystem::path emulator_runtime_{};  // the AMD emulator's runtime library (emulator mode only)
  std::vector<std::pair<std::string, std::string>> env_{};
  std::shared_ptr<detail::compiler_impl::compiler_state> state_{};
};

}  // namespace rocmtpl::runtime

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/runtime/build/compiler-inl.hpp>
#endif
