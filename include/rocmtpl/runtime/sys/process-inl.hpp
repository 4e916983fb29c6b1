// SPDX-License-Identifier: MIT
#pragma once

// The implementation of runtime/sys/process.hpp: included at its end (header-only) or compiled once by
// src/runtime/sys.cpp, after it (so it does not include it back).

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>

#include <algorithm>
#include <atomic>
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
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
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
  // Absolute: the child changes to its working directory before exec, where a relative path would
  // name another file.
  cmd.program = std::filesystem::absolute(*resolved);
  if (!options.working_dir.empty()) {
    std::error_code ec;
    if (!std::filesystem::is_directory(options.working_dir, ec)) {
      throw process_error("rocmtpl: cannot run '" + program + "': working directory '" + options.working_dir.string() +
                          "' does not exist");
    }
  }
  return cmd;
}

// ---- the registry of live children --------------------------------------------------------------

// Constant-initialised (no guard, no constructor that runs): safe to read from a signal handler.
ROCMTPL_INLINE child_registry& registry() noexcept {
  static child_registry r{};
  return r;
}

ROCMTPL_INLINE std::size_t track_child(pid_t id) noexcept {
  auto& r = registry();
  for (std::size_t i = 0; i < max_tracked_children; ++i) {
    pid_t expected = 0;
    if (r.ids[i].load(std::memory_order_relaxed) == 0 && r.ids[i].compare_exchange_strong(expected, id)) return i;
  }
  return static_cast<std::size_t>(-1);
}

ROCMTPL_INLINE void untrack_child(std::size_t slot) noexcept {
  if (slot < max_tracked_children) registry().ids[slot].store(0);
}

ROCMTPL_INLINE std::vector<pid_t> tracked_children() {
  std::vector<pid_t> out;
  for (const auto& id : registry().ids) {
    if (const pid_t v = id.load(); v != 0) out.push_back(v);
  }
  return out;
}

ROCMTPL_INLINE bool stopping_children() noexcept { return registry().stopping.load() != 0; }

// ---- starting a child ---------------------------------------------------------------------------

// fork() without the atfork handlers (glibc 2.34+: _Fork, async-signal-safe), else fork().
ROCMTPL_INLINE pid_t raw_fork() noexcept {
#if defined(__GLIBC__) && (__GLIBC__ > 2 || (__GLIBC__ == 2 && __GLIBC_MINOR__ >= 34))
  return ::_Fork();
#else
  return ::fork();
#endif
}

[[noreturn]] ROCMTPL_INLINE void child_fail(const exec_plan& plan, int stage, int err) noexcept {
  const exec_failure f{stage, err};
  ssize_t n = -1;
  do {
    n = ::write(plan.report_fd, &f, sizeof f);
  } while (n < 0 && errno == EINTR);
  ::_exit(127);
}

// Signal `sig` back to its default action (async-signal-safe: the child, the guard and the stop
// handler use it).
ROCMTPL_INLINE void default_disposition(int sig) noexcept {
  struct sigaction dfl {};
  dfl.sa_handler = SIG_DFL;
  sigemptyset(&dfl.sa_mask);
  ::sigaction(sig, &dfl, nullptr);
}

// Points `fd` at `target` for the child (a descriptor already there loses close-on-exec).
ROCMTPL_INLINE bool child_dup(int fd, int target) noexcept {
  if (fd == target) return ::fcntl(fd, F_SETFD, 0) == 0;
  int r = -1;
  do {
    r = ::dup2(fd, target);
  } while (r < 0 && errno == EINTR);
  return r >= 0;
}

// In the child: standard streams, working directory, default signal handling, then exec. Every
// signal is blocked on entry (the parent blocked them around fork), so no handler of the parent's
// can run here before its disposition is reset.
[[noreturn]] ROCMTPL_INLINE void child_exec(const exec_plan& plan) noexcept {
  for (int s = 1; s < NSIG; ++s) {
    if (s == SIGKILL || s == SIGSTOP) continue;
    struct sigaction old {};
    if (::sigaction(s, nullptr, &old) != 0) continue;  // glibc's internal signals
    const bool handled = (old.sa_flags & SA_SIGINFO) != 0 || (old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN);
    const bool reset = s == SIGPIPE || s == SIGINT || s == SIGTERM || s == SIGQUIT || s == SIGHUP || s == SIGCHLD ||
                       s == SIGUSR1 || s == SIGUSR2 || s == SIGALRM;
    if (handled || reset) {
      default_disposition(s);
    }
  }
  if (plan.io.in >= 0) {
    if (!child_dup(plan.io.in, STDIN_FILENO)) child_fail(plan, stage_exec, errno);
  } else {
    const int null_fd = ::open("/dev/null", O_RDONLY);
    if (null_fd < 0) child_fail(plan, stage_exec, errno);
    if (null_fd != STDIN_FILENO) {
      if (!child_dup(null_fd, STDIN_FILENO)) child_fail(plan, stage_exec, errno);
      ::close(null_fd);
    }
  }
  if (plan.io.out >= 0 && !child_dup(plan.io.out, STDOUT_FILENO)) child_fail(plan, stage_exec, errno);
  if (plan.io.err >= 0 && !child_dup(plan.io.err, STDERR_FILENO)) child_fail(plan, stage_exec, errno);
  if (plan.working_dir != nullptr && ::chdir(plan.working_dir) != 0) child_fail(plan, stage_chdir, errno);
  sigset_t none;
  sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
  ::execve(plan.program, plan.argv, plan.envp);
  child_fail(plan, stage_exec, errno);
}

// Ends this process the way `status` says a child ended: the same exit code, or the same signal
// (without a core dump of this copy of the parent).
[[noreturn]] ROCMTPL_INLINE void end_like(int status) noexcept {
  if (WIFSIGNALED(status)) {
    const int sig = WTERMSIG(status);
    const rlimit no_core{};  // 0, 0
    ::setrlimit(RLIMIT_CORE, &no_core);
    default_disposition(sig);
    sigset_t only;
    sigemptyset(&only);
    sigaddset(&only, sig);
    ::kill(::getpid(), sig);
    ::sigprocmask(SIG_UNBLOCK, &only, nullptr);
    ::_exit(128 + sig);
  }
  ::_exit(WIFEXITED(status) ? WEXITSTATUS(status) : 127);
}

// The guard of a process group (the child run_process() starts when die_with_parent is on): it
// leads the group, starts the program as its own child, and waits. When the program ends the
// guard ends the same way (its parent sees the program's exit code or signal); when the parent
// thread dies (PR_SET_PDEATHSIG: SIGHUP) it kills the whole group, so nothing the program started
// outlives the caller. It runs no code but system calls, and holds no descriptor of the parent's.
[[noreturn]] ROCMTPL_INLINE void child_guard(const exec_plan& plan) noexcept {
  for (int s : {SIGCHLD, SIGHUP}) default_disposition(s);  // waited for with sigwaitinfo: must not be ignored
  ::prctl(PR_SET_PDEATHSIG, SIGHUP);
  if (::getppid() != plan.parent) child_fail(plan, stage_parent_gone, ESRCH);
  ::prctl(PR_SET_NAME, "rocmtpl-guard", 0, 0, 0);
  const pid_t guard = ::getpid();
  const pid_t program = raw_fork();
  if (program < 0) child_fail(plan, stage_fork, errno);
  if (program == 0) {
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);      // the guard itself killed with SIGKILL
    if (::getppid() != guard) ::_exit(127);  // it already was
    child_exec(plan);
  }
  // The guard needs no descriptor: closing them all also closes its copy of the report pipe (the
  // parent reads it to end of file) and of every other descriptor the parent had.
#ifdef SYS_close_range
  const bool closed = ::syscall(SYS_close_range, 0U, ~0U, 0U) == 0;
#else
  const bool closed = false;
#endif
  if (!closed) {
    for (int fd = 0; fd < 65536; ++fd) ::close(fd);
  }
  sigset_t wanted;
  sigemptyset(&wanted);
  sigaddset(&wanted, SIGCHLD);
  sigaddset(&wanted, SIGHUP);
  for (;;) {
    siginfo_t info{};
    const int s = ::sigwaitinfo(&wanted, &info);
    if (s == SIGHUP) {
      ::kill(0, SIGKILL);  // the parent died: the whole group, the guard included
      ::_exit(128 + SIGKILL);
    }
    int status = 0;
    const pid_t w = ::waitpid(program, &status, WNOHANG);
    if (w == program) end_like(status);
    if (w < 0 && errno == ECHILD) ::_exit(127);
  }
}

// The forked child: its own process group when asked, bound to the parent's life, then exec.
[[noreturn]] ROCMTPL_INLINE void child_main(const exec_plan& plan) noexcept {
  if (plan.io.own_process_group) ::setpgid(0, 0);
  if (plan.die_with_parent) {
    if (plan.io.own_process_group) child_guard(plan);
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (::getppid() != plan.parent) child_fail(plan, stage_parent_gone, ESRCH);  // the parent died before prctl
  }
  child_exec(plan);
}

// The one place the library starts a process. The child gets an empty signal mask and default
// handlers (a caller that ignores SIGPIPE or SIGINT does not pass that on), runs in its own
// process group when asked (so a timeout can kill what it started), dies with its parent
// (die_with_parent), and inherits no descriptor of ours beyond `io` (the library's own
// descriptors are all close-on-exec).
ROCMTPL_INLINE spawned_child spawn(const prepared_command& cmd, const std::vector<std::string>& argv,
                                   const process_options& options, const child_stdio& io) {
  std::vector<char*> c_argv;
  c_argv.reserve(argv.size() + 1);
  for (const auto& a : argv) c_argv.push_back(const_cast<char*>(a.c_str()));  // NOLINT: POSIX signature
  c_argv.push_back(nullptr);
  std::vector<std::string> env = cmd.env;
  std::vector<char*> c_env;
  c_env.reserve(env.size() + 1);
  for (auto& e : env) c_env.push_back(e.data());
  c_env.push_back(nullptr);

  int report[2];
  if (::pipe2(report, O_CLOEXEC) != 0) throw_errno("pipe2", errno);
  unique_fd report_read(report[0]);
  unique_fd report_write(report[1]);

  exec_plan plan;
  plan.program = cmd.program.c_str();
  plan.argv = c_argv.data();
  plan.envp = c_env.data();
  plan.working_dir = options.working_dir.empty() ? nullptr : options.working_dir.c_str();
  plan.io = io;
  plan.die_with_parent = options.die_with_parent;
  plan.parent = ::getpid();
  plan.report_fd = report_write.get();

  // Every signal blocked around fork: a handler of ours must not run in the child.
  sigset_t all;
  sigset_t old;
  sigfillset(&all);
  ::pthread_sigmask(SIG_SETMASK, &all, &old);
  const pid_t pid = raw_fork();
  if (pid == 0) child_main(plan);
  const int fork_errno = errno;
  ::pthread_sigmask(SIG_SETMASK, &old, nullptr);
  if (pid < 0) throw_errno("cannot run '" + cmd.program.string() + "': fork", fork_errno);
  // Recorded before anything else, then the stop flag read at once (stop_child_processes() sets
  // the flag, then reads the records): either it sees this child, or this sees the flag. (Read
  // after the exec report, the flag could come from a stop that had seen and stopped this child,
  // and the caller was told "not running" about a child that ran.)
  const spawned_child child{pid, track_child(io.own_process_group ? -pid : pid)};
  const bool stopped = stopping_children();
  report_write.reset();

  exec_failure failure{};
  ssize_t n = -1;
  if (!stopped) {
    do {
      n = ::read(report_read.get(), &failure, sizeof failure);
    } while (n < 0 && errno == EINTR);
  }
  if (n == static_cast<ssize_t>(sizeof failure) || stopped) {
    if (stopped) ::kill(io.own_process_group ? -pid : pid, SIGKILL);
    int status = 0;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    untrack_child(child.slot);
    if (stopped) {
      throw process_error("rocmtpl: not running '" + cmd.program.string() +
                          "': this process is stopping its child processes (stop_child_processes())");
    }
    const std::string err = std::generic_category().message(failure.error);
    switch (failure.stage) {
      case stage_chdir:
        throw process_error("rocmtpl: cannot run '" + argv.front() + "': cannot enter working directory '" +
                            options.working_dir.string() + "': " + err);
      case stage_fork: throw_errno("cannot run '" + cmd.program.string() + "': fork", failure.error);
      case stage_parent_gone:
        throw process_error("rocmtpl: cannot run '" + cmd.program.string() + "': its parent thread ended");
      default:
        if (failure.error == ENOENT) {
          throw executable_not_found_error(argv.front(),
                                           "rocmtpl: cannot run '" + cmd.program.string() +
                                               "': exec failed with ENOENT (a script whose interpreter is missing?)");
        }
        throw_errno("cannot run '" + cmd.program.string() + "'", failure.error);
    }
  }
  return child;
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
  const auto child = detail::proc::spawn(cmd, argv, options, {-1, write_end.get(), write_end.get(), true});
  const pid_t pid = child.pid;
  write_end.reset();
  // Until reaped: killed and reaped if this function leaves early (an allocation failure), and
  // recorded as a live child either way.
  struct reaper {
    pid_t pid;
    std::size_t slot;
    bool reaped = false;
    ~reaper() {
      if (!reaped) {
        ::kill(-pid, SIGKILL);
        while (::waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {
        }
      }
      detail::proc::untrack_child(slot);
    }
  } guard{pid, child.slot};
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
      if (w == pid) exited = guard.reaped = true;
      if (w < 0 && errno == ECHILD)
        exited = status_lost = guard.reaped = true;  // SIGCHLD ignored: reaped by the kernel
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
  const auto child = detail::proc::spawn(cmd, argv, options, {child_end.get(), child_end.get(), -1, false});
  pid_ = child.pid;
  slot_ = child.slot;
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
  if (pid_ > 0) detail::proc::untrack_child(slot_);
  pid_ = -1;
  slot_ = static_cast<std::size_t>(-1);
  return r;
}

ROCMTPL_INLINE void child_process::kill() noexcept {
  if (pid_ > 0) ::kill(pid_, SIGKILL);
  try {
    (void)wait();
  } catch (...) {  // NOLINT(bugprone-empty-catch): nothing to report from a destructor
  }
}

namespace detail::proc {

// Monotonic milliseconds (clock_gettime: async-signal-safe, unlike std::chrono's clocks in theory).
ROCMTPL_INLINE long long monotonic_ms() noexcept {
  timespec t{};
  ::clock_gettime(CLOCK_MONOTONIC, &t);
  return static_cast<long long>(t.tv_sec) * 1000 + t.tv_nsec / 1000000;
}

// True while the child recorded as `id` has not ended (ended: exited but not yet reaped, or gone).
ROCMTPL_INLINE bool child_running(pid_t id) noexcept {
  const pid_t pid = id < 0 ? -id : id;
  siginfo_t info{};
  if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0) return errno != ECHILD;
  return info.si_pid != pid;
}

ROCMTPL_INLINE void stop_handler(int sig) noexcept {
  const int saved = errno;
  stop_child_processes();
  default_disposition(sig);
  sigset_t only;
  sigemptyset(&only);
  sigaddset(&only, sig);
  ::pthread_sigmask(SIG_UNBLOCK, &only, nullptr);
  ::raise(sig);  // the default action: the process ends by this signal
  errno = saved;
  ::_exit(128 + sig);
}

}  // namespace detail::proc

ROCMTPL_INLINE void stop_child_processes(std::chrono::milliseconds grace) noexcept {
  auto& reg = detail::proc::registry();
  reg.stopping.store(1);  // first: a spawn after this sees it (see spawn())
  for (auto& slot : reg.ids) {
    if (const pid_t id = slot.load(); id != 0) ::kill(id, SIGTERM);  // -pgid: the whole group
  }
  const long long deadline = detail::proc::monotonic_ms() + grace.count();
  for (;;) {
    bool running = false;
    for (auto& slot : reg.ids) {
      if (const pid_t id = slot.load(); id != 0 && detail::proc::child_running(id)) running = true;
    }
    if (!running || detail::proc::monotonic_ms() >= deadline) break;
    const timespec pause{0, 10 * 1000 * 1000};
    ::nanosleep(&pause, nullptr);
  }
  // What is left (a group's other members too, whether or not its leader ended).
  for (auto& slot : reg.ids) {
    if (const pid_t id = slot.load(); id != 0) ::kill(id, SIGKILL);
  }
}

ROCMTPL_INLINE void stop_child_processes_on_signals() {
  struct sigaction sa {};
  sa.sa_handler = detail::proc::stop_handler;
  sigemptyset(&sa.sa_mask);
  for (int s : {SIGINT, SIGTERM, SIGHUP}) sigaddset(&sa.sa_mask, s);  // one handler at a time
  for (int s : {SIGINT, SIGTERM, SIGHUP}) {
    struct sigaction old {};
    if (::sigaction(s, nullptr, &old) != 0) detail::proc::throw_errno("sigaction", errno);
    if ((old.sa_flags & SA_SIGINFO) == 0 && old.sa_handler == SIG_IGN) continue;  // nohup, a background job
    if (::sigaction(s, &sa, nullptr) != 0) detail::proc::throw_errno("sigaction", errno);
  }
}

}  // namespace rocmtpl::runtime
