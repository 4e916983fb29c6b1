// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Run a program from an argv vector (never through a shell), capture its merged
/// stdout+stderr, and stop it when it runs past a deadline.
///
/// Used to drive hipcc/nvcc. What it does better than a `subprocess.check_output(cmd.split(" "))`:
/// paths with spaces survive (argv, no shell); a missing program is a typed error instead of an
/// exit code 127 that could also be the compiler's own; a hung compiler is killed together with
/// everything it started (hipcc is a Perl script that runs clang through `system()`, so the whole
/// process group is signalled); large logs never deadlock (one poll/read loop drains the pipe).

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>

#include <chrono>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include <spawn.h>
#include <sys/types.h>

namespace rocmtpl::runtime {

/// @brief A program could not be started (fork/exec failure, bad working directory, ...).
class process_error : public error {
 public:
  using error::error;
};

/// @brief The program to run does not exist or is not executable.
/// Thrown before anything is spawned, so it is never confused with a child's own exit code 127.
class executable_not_found_error : public process_error {
 public:
  /// @param executable the name or path that was looked for
  /// @param message the full message (what was searched)
  executable_not_found_error(std::string executable, const std::string& message)
      : process_error(message), executable_(std::move(executable)) {}
  /// @brief The name or path that was looked for.
  [[nodiscard]] const std::string& executable() const noexcept { return executable_; }

 private:
  std::string executable_{};
};

/// @brief How to run a program.
struct process_options {
  /// @brief Working directory of the child; empty: inherit the caller's.
  std::filesystem::path working_dir{};
  /// @brief Environment variables to set (or override) in the child, on top of the caller's environment.
  std::vector<std::pair<std::string, std::string>> env{};
  /// @brief Environment variables to remove from the child's environment.
  std::vector<std::string> unset_env{};
  /// @brief Wall-clock limit; zero or negative means none. Past it the child's process group
  /// gets SIGTERM, then SIGKILL after `kill_grace`.
  std::chrono::milliseconds timeout{0};
  /// @brief Time between SIGTERM and SIGKILL when the timeout fires.
  std::chrono::milliseconds kill_grace{2000};
  /// @brief Most bytes of output kept; the rest is read (so the child never blocks) and dropped.
  std::size_t max_output = std::size_t{64} << 20;
};

/// @brief What a finished (or killed) program left.
struct process_result {
  /// @brief Exit status when the child exited normally; -1 when a signal ended it.
  int exit_code = -1;
  /// @brief The signal that ended the child, 0 when it exited normally.
  int signal = 0;
  /// @brief True when the timeout fired and the child was killed.
  bool timed_out = false;
  /// @brief stdout and stderr merged, in the order the child wrote them.
  std::string output{};
  /// @brief True when output went past `process_options::max_output` and was cut.
  bool output_truncated = false;
  /// @brief Wall time from spawn to reaping the child.
  double seconds = 0;

  /// @brief True when the child exited on its own with status 0.
  [[nodiscard]] bool ok() const noexcept { return !timed_out && signal == 0 && exit_code == 0; }
};

namespace detail::proc {

bool is_executable_file(const std::filesystem::path& p);

const char* getenv_or_null(const char* name);

// The search list when PATH is unset (what execvp uses).
inline constexpr std::string_view default_path = "/usr/local/bin:/usr/bin:/bin";

bool drain_fd(int fd, std::string& out, std::size_t max_output, bool& truncated);

[[noreturn]] void throw_errno(const std::string& what, int err);

}  // namespace detail::proc

/// @brief Looks a program name up in a PATH-style list, like execvp would.
/// @param name a bare program name ("hipcc"); a name containing '/' is checked as a path
/// @param path_list colon-separated folders; default: the PATH environment variable
/// @return the executable's path, or nullopt when no executable file of that name is found
[[nodiscard]] std::optional<std::filesystem::path> find_executable(
    std::string_view name, std::optional<std::string_view> path_list = std::nullopt);

/// @brief Renders an argv vector as one shell-quoted line, for messages and logs only
/// (the library never runs it through a shell).
[[nodiscard]] std::string quote_command(const std::vector<std::string>& argv);

namespace detail::proc {

// What a child is started with: its environment and the resolved program.
struct prepared_command {
  std::vector<std::string> env{};
  std::filesystem::path program{};
};

[[nodiscard]] prepared_command prepare_command(const std::vector<std::string>& argv, const process_options& options);

// posix_spawn's two attribute objects, destroyed on every path.
class spawn_attributes {
 public:
  spawn_attributes();
  spawn_attributes(const spawn_attributes&) = delete;
  spawn_attributes& operator=(const spawn_attributes&) = delete;
  ~spawn_attributes();
  posix_spawn_file_actions_t actions{};
  posix_spawnattr_t attr{};
};

// Where the child's standard streams go: -1 for stdin is /dev/null, -1 for stdout/stderr is the caller's.
struct child_stdio {
  int in = -1;
  int out = -1;
  int err = -1;
  bool own_process_group = true;
};

[[nodiscard]] pid_t spawn(const prepared_command& cmd, const std::vector<std::string>& argv,
                          const process_options& options, const child_stdio& io);

// A descriptor closed on destruction.
class unique_fd {
 public:
  unique_fd() = default;
  explicit unique_fd(int fd) noexcept : fd_(fd) {}
  unique_fd(unique_fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  unique_fd& operator=(unique_fd&& o) noexcept;
  unique_fd(const unique_fd&) = delete;
  unique_fd& operator=(const unique_fd&) = delete;
  ~unique_fd() { reset(); }
  [[nodiscard]] int get() const noexcept { return fd_; }
  void reset() noexcept;

 private:
  int fd_ = -1;
};

}  // namespace detail::proc

/// @brief Runs a program and waits for it, capturing stdout and stderr merged.
///
/// The child runs in its own process group with stdin on /dev/null and default signal handling.
/// argv[0] is looked up in PATH (the child's PATH when `options.env` sets one) unless it contains '/'.
/// Safe to call from several threads at once (pipes are close-on-exec, so children never inherit
/// each other's pipe ends).
///
/// @code{.cpp}
/// auto r = rocmtpl::runtime::run_process({"hipcc", "--version"}, {.timeout = std::chrono::seconds(30)});
/// if (!r.ok()) std::cerr << r.output;
/// @endcode
/// @param argv program and arguments
/// @param options working directory, environment changes, timeout
/// @return exit status or signal, merged output, wall time, whether the timeout fired
/// @throws invalid_argument_error when argv is empty
/// @throws executable_not_found_error when argv[0] is not an executable file
/// @throws process_error when the working directory is missing or spawning fails
[[nodiscard]] process_result run_process(const std::vector<std::string>& argv, const process_options& options = {});

/// @brief A child process the caller talks to over its stdin and stdout (a line protocol, for
/// example the benchmark worker's). Started by the same spawner as run_process(): the channel is
/// close-on-exec (other children never inherit it), the child gets default signal handling, and a
/// write to a child that has gone never raises SIGPIPE in this process (send with MSG_NOSIGNAL),
/// so the caller's signal dispositions stay untouched. The child's stderr is the caller's, and it
/// stays in the caller's process group (a Ctrl-C reaches it too). Destruction kills and reaps it.
///
/// @code{.cpp}
/// rocmtpl::runtime::child_process child({"cat"});
/// child.write("hello\n");
/// std::string line;
/// while (line.find('\n') == std::string::npos &&
///        child.read_some(line, std::chrono::seconds(1)) == rocmtpl::runtime::child_process::read_status::data) {}
/// @endcode
class child_process {
 public:
  /// @brief What read_some() saw.
  enum class read_status {
    data,         ///< bytes were appended
    end_of_file,  ///< the child closed its stdout (it exited or crashed)
    timed_out,    ///< nothing arrived within the timeout
  };

  /// @brief Starts the child.
  /// @param argv program and arguments (argv[0] looked up in PATH unless it contains '/')
  /// @param options working directory and environment changes (`timeout` is not used: each read has its own)
  /// @throws invalid_argument_error, executable_not_found_error, process_error as run_process()
  explicit child_process(const std::vector<std::string>& argv, const process_options& options = {});
  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;
  ~child_process() { kill(); }

  /// @brief The child's process id (-1 once reaped).
  [[nodiscard]] pid_t pid() const noexcept { return pid_; }

  /// @brief Writes all of `bytes` to the child's stdin.
  /// @return false when the child no longer reads (it exited or closed stdin): never SIGPIPE
  [[nodiscard]] bool write(std::string_view bytes) noexcept;

  /// @brief Waits up to `timeout` for output and appends what is there to `out`.
  [[nodiscard]] read_status read_some(std::string& out, std::chrono::milliseconds timeout);

  /// @brief Closes the channel and waits for the child to end.
  /// @return how it ended: exit code or signal (`output` stays empty)
  process_result wait();

  /// @brief Kills the child (SIGKILL) and reaps it; nothing when it is already reaped.
  void kill() noexcept;

 private:
  detail::proc::unique_fd channel_{};
  pid_t pid_ = -1;
};

}  // namespace rocmtpl::runtime

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/runtime/sys/process-inl.hpp>
#endif
