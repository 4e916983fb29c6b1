// SPDX-License-Identifier: MIT
#pragma once

// Test support: a minimal process runner and watching processes a test started. The runner is
// plain POSIX so that unit tests, which must not link the runtime layer, can use it too; runtime
// tests that test the library's own spawner use rocmtpl::runtime::run_process.

#include <cerrno>
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace rocmtpl::test {

// What run_logged() saw: the exit code (128 + signal when killed, -1 when it did not start) and the
// output (stdout and stderr together).
struct process_result {
  int exit_code = -1;
  std::string output;
};

// Runs argv (no shell; argv[0] searched on PATH when it has no '/'), stdout and stderr into
// `log_file`, waits for it and returns its exit code and output.
inline process_result run_logged(const std::vector<std::string>& argv, const std::filesystem::path& log_file) {
  process_result result;
  if (argv.empty()) {
    result.output = "run_logged: empty argv";
    return result;
  }
  std::vector<char*> args;
  args.reserve(argv.size() + 1);
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, log_file.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_adddup2(&actions, STDOUT_FILENO, STDERR_FILENO);
  pid_t pid = 0;
  const int rc = posix_spawnp(&pid, args[0], &actions, nullptr, args.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) {
    result.output = "posix_spawnp " + argv[0] + " failed: " + std::strerror(rc);
    return result;
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  std::ifstream in(log_file);
  result.output.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  return result;
}

// True when the process is gone (or a zombie nobody reaped yet, which runs no code either).
inline bool process_gone(pid_t pid) {
  if (::kill(pid, 0) != 0) return true;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  std::getline(stat, line);
  const auto close = line.rfind(')');
  return close != std::string::npos && close + 2 < line.size() && line[close + 2] == 'Z';
}

// Waits up to `limit` for process_gone(pid).
inline bool wait_until_gone(pid_t pid, std::chrono::milliseconds limit = std::chrono::seconds(5)) {
  const auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (process_gone(pid)) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return process_gone(pid);
}

}  // namespace rocmtpl::test
