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
///
/// Nothing is left running: every child the library starts is recorded while it lives, so that
/// stop_child_processes() (async-signal-safe) can stop them all, and a program that wants its
/// children stopped on SIGINT, SIGTERM and SIGHUP says so with stop_child_processes_on_signals()
/// (the library installs no signal handler of its own). A process killed with SIGKILL takes its
/// children along: each child gets PR_SET_PDEATHSIG, and a compile's process group is watched by a
/// small guard process that kills the whole group (the compiler and everything it started) when
/// the caller dies (see process_options::die_with_parent).

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>

#include <atomic>
#include <chrono>
#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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
  /// @brief The child dies with the thread that started it (Linux PR_SET_PDEATHSIG, set in the child
  /// with a check that the parent is still there), even when this process is killed with SIGKILL.
  /// A child in its own process group (run_process()) is started under a guard process that kills
  /// the whole group then, so a compiler's own children (hipcc's clang) go too. The signal comes
  /// when the *thread* that started the child ends: run_process() waits for its child, but a
  /// child_process started by a thread that ends before it must turn this off.
  bool die_with_parent = true;
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

// Where the child's standard streams go: -1 for stdin is /dev/null, -1 for stdout/stderr is the caller's.
struct child_stdio {
  int in = -1;
  int out = -1;
  int err = -1;
  bool own_process_group = true;
};

// A started child: its pid and its slot in the registry of live children (untrack() it once reaped).
struct spawned_child {
  pid_t pid = -1;
  std::size_t slot = static_cast<std::size_t>(-1);
};

// Forks and execs (the child does only async-signal-safe system calls), records the child in the
// registry of live children, and reports an exec failure as a typed error.
[[nodiscard]] spawned_child spawn(const prepared_command& cmd, const std::vector<std::string>& argv,
                                  const process_options& options, const child_stdio& io);

// ---- the registry of live children (what stop_child_processes() stops) ----
// Fixed slots of atomics, so that a signal handler can read it: a negative value is a process
// group (-pgid), a positive one a single process, 0 a free slot.
inline constexpr std::size_t max_tracked_children = 1024;

// Records `id`; returns its slot (npos when every slot is taken: the child is then not tracked).
std::size_t track_child(pid_t id) noexcept;

void untrack_child(std::size_t slot) noexcept;

// The ids recorded now (for tests and messages).
std::vector<pid_t> tracked_children();

// True once stop_child_processes() ran: no further child is started.
bool stopping_children() noexcept;

struct child_registry {
  std::atomic<pid_t> ids[max_tracked_children];
  std::atomic<int> stopping;
};

child_registry& registry() noexcept;

// What the forked child needs, prepared before the fork: after it only async-signal-safe system
// calls run (the parent may have other threads, holding locks the child would never see released).
struct exec_plan {
  const char* program = nullptr;
  char* const* argv = nullptr;
  char* const* envp = nullptr;
  const char* working_dir = nullptr;  // null: the parent's
  child_stdio io{};
  bool die_with_parent = true;
  pid_t parent = -1;
  int report_fd = -1;  // close-on-exec: end of file when exec succeeded, an exec_failure otherwise
};

// What a child that could not exec writes to the report pipe.
struct exec_failure {
  int stage = 0;  // one of the constants below
  int error = 0;  // errno
};
inline constexpr int stage_exec = 1;
inline constexpr int stage_chdir = 2;
inline constexpr int stage_fork = 3;
inline constexpr int stage_parent_gone = 4;

pid_t raw_fork() noexcept;

[[noreturn]] void child_fail(const exec_plan& plan, int stage, int err) noexcept;

bool child_dup(int fd, int target) noexcept;

[[noreturn]] void child_exec(const exec_plan& plan) noexcept;

[[noreturn]] void end_like(int status) noexcept;

[[noreturn]] void child_guard(const exec_plan& plan) noexcept;

[[noreturn]] void child_main(const exec_plan& plan) noexcept;

long long monotonic_ms() noexcept;

bool child_running(pid_t id) noexcept;

void stop_handler(int sig) noexcept;

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

/// @brief Stops every child process the library started and has not reaped yet: SIGTERM to each
/// (a compile's whole process group), up to `grace` for them to end, then SIGKILL to what is left.
/// Afterwards the library starts no more processes in this process (a spawn is refused with
/// process_error). Async-signal-safe: meant for a signal handler (see stop_child_processes_on_signals()).
/// @param grace how long the children get between SIGTERM and SIGKILL
void stop_child_processes(std::chrono::milliseconds grace = std::chrono::milliseconds(1000)) noexcept;

/// @brief Installs handlers for SIGINT, SIGTERM and SIGHUP that stop the library's child processes
/// (stop_child_processes()) and then end the program by the same signal (its default action, so
/// the exit status is the conventional 128 + signal). A signal the program ignores (SIG_IGN, e.g.
/// under nohup) stays ignored. The library never installs a handler by itself: a tool calls this
/// once, early in main().
///
/// @code{.cpp}
/// int main() {
///   rocmtpl::runtime::stop_child_processes_on_signals();  // Ctrl-C stops the compilers too
///   ...
/// }
/// @endcode
/// @throws process_error when sigaction fails
void stop_child_processes_on_signals();

/// @brief Runs a program and waits for it, capturing stdout and stderr merged.
///
/// The child runs in its own process group with stdin on /dev/null and default signal handling;
/// it is recorded as a live child until reaped (stop_child_processes()), and dies with this process
/// (process_options::die_with_parent).
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
/// It is recorded as a live child until reaped (stop_child_processes()); with
/// process_options::die_with_parent (the default) it is killed when the thread that started it
/// ends, so start it from a thread that outlives it (or turn that off).
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
  std::size_t slot_ = static_cast<std::size_t>(-1);
};

}  // namespace rocmtpl::runtime

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/runtime/sys/process-inl.hpp>
#endif
