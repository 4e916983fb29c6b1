// SPDX-License-Identifier: MIT
#pragma once

// The implementation of runtime/sys/process.hpp: included at its end (header-only) or compiled once by
// src/runtime/sys.cpp, after it (so it does not include it back).

#include <rocmtpl/core/config.hpp>
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

namespace detail::proc {

ROCMTPL_INLINE bool is_executable_file(const std::filesystem::path& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

ROCMTPL_INLINE const char* getenv_or_null(const char* name) {
  return std::getenv(name);  // NOLINT(concurrency-mt-unsafe)
}

// Reads whatever is available on a non-blocking fd; returns false at end of file.
ROCMTPL_INLINE bool drain_fd(int fd, std::string& out, std::size_t max_output, bool& truncated) {
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

ROCMTPL_INLINE void throw_errno(const std::string& what, int err) {
  throw process_error("rocmtpl: " + what + ": " + std::generic_category().message(err));
}

}  // namespace detail::proc

ROCMTPL_INLINE std::optional<std::filesystem::path> find_executable(std::string_view name,
                                                                    std::optional<std::string_view> path_list) {
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

ROCMTPL_INLINE std::string quote_command(const std::vector<std::string>& argv) {
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

// The child's environment (the caller's, less unset_env, plus env) and argv[0] resolved in the
// child's PATH. A missing program is a typed error here, never an exit code 127 later.
ROCMTPL_INLINE prepared_command prepare_command(const std::vector<std::string>& argv, const process_options& options) {
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

ROCMTPL_INLINE spawn_attributes::spawn_attributes() {
  if (int rc = ::posix_spawn_file_actions_init(&actions); rc != 0) throw_errno("posix_spawn_file_actions_init", rc);
  if (int rc = ::posix_spawnattr_init(&attr); rc != 0) {
    ::posix_spawn_file_actions_destroy(&actions);
    throw_errno("posix_spawnattr_init", rc);
  }
}

ROCMTPL_INLINE spawn_attributes::~spawn_attributes() {
  ::posix_spawn_file_actions_destroy(&actions);
  ::posix_spawnattr_destroy(&attr);
}

// The one place the library starts a process. The child gets an empty signal mask and default
// handlers (a caller that ignores SIGPIPE or SIGINT does not pass that on), runs in its own
// process group when asked (so a timeout can kill what it started), and inherits no descriptor
// of ours beyond `io` (the library's own descriptors are all close-on-exec).
ROCMTPL_INLINE pid_t spawn(const prepared_command& cmd, const std::vector<std::string>& argv,
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

ROCMTPL_INLINE unique_fd& unique_fd::operator=(unique_fd&& o) noexcept {
  if (this != &o) {
    reset();
    fd_ = std::exchange(o.fd_, -1);
  }
  return *this;
}

ROCMTPL_INLINE void unique_fd::reset() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

}  // namespace detail::proc

ROCMTPL_INLINE process_result run_process(const std::vector<std::string>& argv, const process_options& options) {
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

ROCMTPL_INLINE child_process::child_process(const std::vector<std::string>& argv, const process_options& options) {
  const auto cmd = detail::proc::prepare_command(argv, options);
  int fds[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, fds) != 0) detail::proc::throw_errno("socketpair", errno);
  channel_ = detail::proc::unique_fd(fds[0]);
  detail::proc::unique_fd child_end(fds[1]);
  pid_ = detail::proc::spawn(cmd, argv, options, {child_end.get(), child_end.get(), -1, false});
}

ROCMTPL_INLINE bool child_process::write(std::string_view bytes) noexcept {
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

ROCMTPL_INLINE child_process::read_status child_process::read_some(std::string& out,
                                                                   std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  for (;;) {
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now()).count();
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

ROCMTPL_INLINE process_result child_process::wait() {
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

ROCMTPL_INLINE void child_process::kill() noexcept {
  if (pid_ > 0) ::kill(pid_, SIGKILL);
  try {
    (void)wait();
  } catch (...) {  // NOLINT(bugprone-empty-catch): nothing to report from a destructor
  }
}

}  // namespace rocmtpl::runtime
