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

#include <rocmtpl/core/error.hpp>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

/// @cond ROCMTPL_INTERNAL
extern "C" {
extern char** environ;  // NOLINT: POSIX global (declared by <unistd.h> only under _GNU_SOURCE)
}
/// @endcond

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

inline bool is_executable_file(const std::filesystem::path& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

inline const char* getenv_or_null(const char* name) { return std::getenv(name); }  // NOLINT(concurrency-mt-unsafe)

// The search list when PATH is unset (what execvp uses).
inline constexpr std::string_view default_path = "/usr/local/bin:/usr/bin:/bin";

// Reads whatever is available on a non-blocking fd; returns false at end of file.
inline bool drain_fd(int fd, std::string& out, std::size_t max_output, bool& truncated) {
  char buffer[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buffer, sizeof buffer);
    if (n > 0) {
      const auto room = max_output > out.size() ? max_output - out.size() : std::size_t{0};
      const auto take = std::min(room, static_cast<std::size_t>(n));
      out.append(buffer, take);
      if (take < static_cast<std::size_t>(n)) truncated = true;
      continue;
    }
    if (n == 0) return false;
    if (errno == EINTR) continue;
    return true;  // EAGAIN: nothing more for now
  }
}

[[noreturn]] inline void throw_errno(const std::string& what, int err) {
  throw process_error("rocmtpl: " + what + ": " + std::generic_category().message(err));
}

}  // namespace detail::proc

/// @brief Looks a program name up in a PATH-style list, like execvp would.
/// @param name a bare program name ("hipcc"); a name containing '/' is checked as a path
/// @param path_list colon-separated folders; default: the PATH environment variable
/// @return the executable's path, or nullopt when no executable file of that name is found
[[nodiscard]] inline std::optional<std::filesystem::path> find_executable(
    std::string_view name, std::optional<std::string_view> path_list = std::nullopt) {
  if (name.empty()) return std::nullopt;
  if (name.find('/') != std::string_view::npos) {
    std::filesystem::path p{std::string(name)};
    if (detail::proc::is_executable_file(p)) return p;
    return std::nullopt;
  }
  std::string paths;
  if (path_list) {
    paths = std::string(*path_list);
  } else if (const char* env = detail::proc::getenv_or_null("PATH")) {
    paths = env;
  } else {
    paths = std::string(detail::proc::default_path);
  }
  std::size_t begin = 0;
  for (;;) {
    const auto end = paths.find(':', begin);
    std::string dir = paths.substr(begin, end == std::string::npos ? std::string::npos : end - begin);
    if (dir.empty()) dir = ".";
    std::filesystem::path candidate = std::filesystem::path(dir) / std::string(name);
    if (detail::proc::is_executable_file(candidate)) return candidate;
    if (end == std::string::npos) break;
    begin = end + 1;
  }
  return std::nullopt;
}

/// @brief Renders an argv vector as one shell-quoted line, for messages and logs only
/// (the library never runs it through a shell).
[[nodiscard]] inline std::string quote_command(const std::vector<std::string>& argv) {
  std::string line;
  for (const auto& arg : argv) {
    if (!line.empty()) line += ' ';
    const bool plain = !arg.empty() && std::all_of(arg.begin(), arg.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
             std::string_view("-_=+,./:@%").find(c) != std::string_view::npos;
    });
    if (plain) {
      line += arg;
      continue;
    }
    line += '\'';
    for (char c : arg) {
      if (c == '\'') {
        line += "'\\''";
      } else {
        line += c;
      }
    }
    line += '\'';
  }
  return line;
}

namespace detail::proc {

// What a child is started with: its environment and the resolved program.
struct prepared_command {
  std::vector<std::string> env{};
  std::filesystem::path program{};
};

// The child's environment (the caller's, less unset_env, plus env) and argv[0] resolved in the
// child's PATH. A missing program is a typed error here, never an exit code 127 later.
[[nodiscard]] inline prepared_command prepare_command(const std::vector<std::string>& argv,
                                                      const process_options& options) {
  if (argv.empty() || argv.front().empty()) {
    throw invalid_argument_error("rocmtpl: run_process: argv is empty; pass the program as argv[0]");
  }
  prepared_command cmd;
  auto overridden = [&](std::string_view entry) {
    const auto name = entry.substr(0, entry.find('='));
    for (const auto& [k, v] : options.env)
      if (k == name) return true;
    for (const auto& k : options.unset_env)
      if (k == name) return true;
    return false;
  };
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    if (!overridden(*e)) cmd.env.emplace_back(*e);
  }
  std::optional<std::string> child_path;
  if (const char* p = getenv_or_null("PATH")) child_path = p;
  for (const auto& k : options.unset_env)
    if (k == "PATH") child_path.reset();
  for (const auto& [k, v] : options.env) {
    cmd.env.push_back(k + "=" + v);
    if (k == "PATH") child_path = v;
  }
  const std::string& program = argv.front();
  auto resolved = find_executable(program, child_path ? std::string_view(*child_path) : std::string_view(default_path));
  if (!resolved) {
    throw executable_not_found_error(
        program, program.find('/') != std::string::npos
                     ? "rocmtpl: cannot run '" + program + "': no executable file at that path"
                     : "rocmtpl: cannot run '" + program + "': not found in PATH (" + child_path.value_or("") + ")");
  }
  cmd.program = std::move(*resolved);
  if (!options.working_dir.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_directory(options.working_dir, ec)) {
      throw process_error("rocmtpl: cannot run '" + program + "': working directory '" + options.working_dir.string() +
                          "' does not exist");
    }
  }
  return cmd;
}

// posix_spawn's two attribute objects, destroyed on every path.
class spawn_attributes {
 public:
  spawn_attributes() {
    if (int rc = ::posix_spawn_file_actions_init(&actions); rc != 0) throw_errno("posix_spawn_file_actions_init", rc);
    if (int rc = ::posix_spawnattr_init(&attr); rc != 0) {
      ::posix_spawn_file_actions_destroy(&actions);
      throw_errno("posix_spawnattr_init", rc);
    }
  }
  spawn_attributes(const spawn_attributes&) = delete;
  spawn_attributes& operator=(const spawn_attributes&) = delete;
  ~spawn_attributes() {
    ::posix_spawn_file_actions_destroy(&actions);
    ::posix_spawnattr_destroy(&attr);
  }
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

// The one place the library starts a process. The child gets an empty signal mask and default
// handlers (a caller that ignores SIGPIPE or SIGINT does not pass that on), runs in its own
// process group when asked (so a timeout can kill what it started), and inherits no descriptor
// of ours beyond `io` (the library's own descriptors are all close-on-exec).
[[nodiscard]] inline pid_t spawn(const prepared_command& cmd, const std::vector<std::string>& argv,
                                 const process_options& options, const child_stdio& io) {
  spawn_attributes sa;
  if (io.in >= 0) {
    ::posix_spawn_file_actions_adddup2(&sa.actions, io.in, STDIN_FILENO);
  } else {
    ::posix_spawn_file_actions_addopen(&sa.actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  }
  if (io.out >= 0) ::posix_spawn_file_actions_adddup2(&sa.actions, io.out, STDOUT_FILENO);
  if (io.err >= 0) ::posix_spawn_file_actions_adddup2(&sa.actions, io.err, STDERR_FILENO);
  if (!options.working_dir.empty()) {
    if (int rc = ::posix_spawn_file_actions_addchdir_np(&sa.actions, options.working_dir.c_str()); rc != 0)
      throw_errno("posix_spawn_file_actions_addchdir_np", rc);
  }
  sigset_t empty_mask;
  sigemptyset(&empty_mask);
  sigset_t defaults;
  sigemptyset(&defaults);
  for (int s : {SIGPIPE, SIGINT, SIGTERM, SIGQUIT, SIGHUP, SIGCHLD, SIGUSR1, SIGUSR2, SIGALRM}) sigaddset(&defaults, s);
  ::posix_spawnattr_setsigmask(&sa.attr, &empty_mask);
  ::posix_spawnattr_setsigdefault(&sa.attr, &defaults);
  short flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF;
  if (io.own_process_group) {
    ::posix_spawnattr_setpgroup(&sa.attr, 0);
    flags = static_cast<short>(flags | POSIX_SPAWN_SETPGROUP);
  }
  ::posix_spawnattr_setflags(&sa.attr, flags);

  std::vector<char*> c_argv;
  c_argv.reserve(argv.size() + 1);
  for (const auto& a : argv) c_argv.push_back(const_cast<char*>(a.c_str()));  // NOLINT: POSIX signature
  c_argv.push_back(nullptr);
  std::vector<std::string> env = cmd.env;
  std::vector<char*> c_env;
  c_env.reserve(env.size() + 1);
  for (auto& e : env) c_env.push_back(e.data());
  c_env.push_back(nullptr);

  pid_t pid = -1;
  if (int rc = ::posix_spawn(&pid, cmd.program.c_str(), &sa.actions, &sa.attr, c_argv.data(), c_env.data()); rc != 0) {
    if (rc == ENOENT) {
      throw executable_not_found_error(argv.front(),
                                       "rocmtpl: cannot run '" + cmd.program.string() +
                                           "': exec failed with ENOENT (a script whose interpreter is missing?)");
    }
    throw_errno("cannot run '" + cmd.program.string() + "'", rc);
  }
  return pid;
}

// A descriptor closed on destruction.
class unique_fd {
 public:
  unique_fd() = default;
  explicit unique_fd(int fd) noexcept : fd_(fd) {}
  unique_fd(unique_fd&& o) noexcept : fd_(std::exchange(o.fd_, -1)) {}
  unique_fd& operator=(unique_fd&& o) noexcept {
    if (this != &o) {
      reset();
      fd_ = std::exchange(o.fd_, -1);
    }
    return *this;
  }
  unique_fd(const unique_fd&) = delete;
  unique_fd& operator=(const unique_fd&) = delete;
  ~unique_fd() { reset(); }
  [[nodiscard]] int get() const noexcept { return fd_; }
  void reset() noexcept {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

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
[[nodiscard]] inline process_result run_process(const std::vector<std::string>& argv,
                                                const process_options& options = {}) {
  using clock = std::chrono::steady_clock;
  const auto cmd = detail::proc::prepare_command(argv, options);
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) detail::proc::throw_errno("pipe2", errno);
  detail::proc::unique_fd read_end(fds[0]);
  detail::proc::unique_fd write_end(fds[1]);

  const auto start = clock::now();
  const pid_t pid = detail::proc::spawn(cmd, argv, options, {-1, write_end.get(), write_end.get(), true});
  write_end.reset();
  ::fcntl(read_end.get(), F_SETFL, ::fcntl(read_end.get(), F_GETFL) | O_NONBLOCK);

  process_result result;
  const bool has_deadline = options.timeout.count() > 0;
  const auto deadline = start + options.timeout;
  std::optional<clock::time_point> term_sent;
  bool kill_sent = false;
  bool eof = false;
  bool exited = false;
  bool status_lost = false;
  int status = 0;

  for (;;) {
    if (!eof) eof = !detail::proc::drain_fd(read_end.get(), result.output, options.max_output, result.output_truncated);
    if (!exited) {
      pid_t w = ::waitpid(pid, &status, WNOHANG);
      while (w < 0 && errno == EINTR) w = ::waitpid(pid, &status, WNOHANG);
      if (w == pid) exited = true;
      if (w < 0 && errno == ECHILD) exited = status_lost = true;  // SIGCHLD ignored: reaped by the kernel
    }
    if (exited) {
      // The child is gone; take what it wrote and stop (a grandchild that keeps the pipe open
      // must not keep us waiting).
      if (!eof) detail::proc::drain_fd(read_end.get(), result.output, options.max_output, result.output_truncated);
      break;
    }
    const auto now = clock::now();
    if (has_deadline && now >= deadline) {
      if (!term_sent) {
        result.timed_out = true;
        ::kill(-pid, SIGTERM);
        term_sent = now;
      } else if (!kill_sent && now >= *term_sent + options.kill_grace) {
        ::kill(-pid, SIGKILL);
        kill_sent = true;
      }
    }
    // Sleep until output arrives, or at most 50 ms so that exit and deadline are noticed.
    auto wait = std::chrono::milliseconds(50);
    if (has_deadline && !term_sent) {
      wait = std::min(wait, std::chrono::ceil<std::chrono::milliseconds>(deadline - now));
    }
    wait = std::max(wait, std::chrono::milliseconds(1));
    if (!eof) {
      pollfd pfd{read_end.get(), POLLIN, 0};
      ::poll(&pfd, 1, static_cast<int>(wait.count()));
    } else {
      ::poll(nullptr, 0, static_cast<int>(std::min(wait, std::chrono::milliseconds(10)).count()));
    }
  }
  if (result.timed_out) ::kill(-pid, SIGKILL);  // anything the child left in its group

  result.seconds = std::chrono::duration<double>(clock::now() - start).count();
  if (status_lost) {
    result.exit_code = -1;
    result.output += "\n[rocmtpl: exit status lost: SIGCHLD is ignored in this process]\n";
  } else if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
    result.exit_code = -1;
  }
  if (result.output_truncated) {
    result.output += "\n[rocmtpl: output truncated at " + std::to_string(options.max_output) + " bytes]\n";
  }
  return result;
}

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
  explicit child_process(const std::vector<std::string>& argv, const process_options& options = {}) {
    const auto cmd = detail::proc::prepare_command(argv, options);
    int fds[2];
    if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) detail::proc::throw_errno("socketpair", errno);
    channel_ = detail::proc::unique_fd(fds[0]);
    detail::proc::unique_fd child_end(fds[1]);
    pid_ = detail::proc::spawn(cmd, argv, options, {child_end.get(), child_end.get(), -1, false});
  }
  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;
  ~child_process() { kill(); }

  /// @brief The child's process id (-1 once reaped).
  [[nodiscard]] pid_t pid() const noexcept { return pid_; }

  /// @brief Writes all of `bytes` to the child's stdin.
  /// @return false when the child no longer reads (it exited or closed stdin): never SIGPIPE
  [[nodiscard]] bool write(std::string_view bytes) noexcept {
    while (!bytes.empty()) {
      const ::ssize_t n = ::send(channel_.get(), bytes.data(), bytes.size(), MSG_NOSIGNAL);
      if (n < 0) {
        if (errno == EINTR) continue;
        return false;  // EPIPE, ECONNRESET, a closed channel
      }
      bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
  }

  /// @brief Waits up to `timeout` for output and appends what is there to `out`.
  [[nodiscard]] read_status read_some(std::string& out, std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      const auto left =
          std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
      if (left <= 0) return read_status::timed_out;
      pollfd p{channel_.get(), POLLIN, 0};
      const int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1000)));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) continue;
      char chunk[4096];
      const ::ssize_t n = ::read(channel_.get(), chunk, sizeof chunk);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return read_status::end_of_file;
      out.append(chunk, static_cast<std::size_t>(n));
      return read_status::data;
    }
  }

  /// @brief Closes the channel and waits for the child to end.
  /// @return how it ended: exit code or signal (`output` stays empty)
  process_result wait() {
    channel_.reset();
    process_result r;
    int status = 0;
    pid_t w = -1;
    while (pid_ > 0 && (w = ::waitpid(pid_, &status, 0)) < 0 && errno == EINTR) {
    }
    if (w == pid_ && pid_ > 0) {
      if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
      if (WIFSIGNALED(status)) r.signal = WTERMSIG(status);
    }
    pid_ = -1;
    return r;
  }

  /// @brief Kills the child (SIGKILL) and reaps it; nothing when it is already reaped.
  void kill() noexcept {
    if (pid_ > 0) ::kill(pid_, SIGKILL);
    try {
      (void)wait();
    } catch (...) {  // NOLINT(bugprone-empty-catch): nothing to report from a destructor
    }
  }

 private:
  detail::proc::unique_fd channel_{};
  pid_t pid_ = -1;
};

}  // namespace rocmtpl::runtime
