// SPDX-License-Identifier: MIT
#pragma once

// Test support: a minimal process runner and watching processes a test started. The runner is
// plain POSIX so that unit tests, which must not link the runtime layer, can use it too; runtime
// tests that test the library's own spawner use rocmtpl::runtime::run_process.

#include <chrono>
#include <filesystem>
#include <string>
#include <vector>

#include <signal.h>
#include <sys/types.h>

namespace rocmtpl::test {

// What run_logged() saw: the exit code (128 + signal when killed, -1 when it did not start) and the
// output (stdout and stderr together).
struct process_result {
  int exit_code = -1;
  std::string output;
};

// Runs argv (no shell; argv[0] searched on PATH when it has no '/'), stdout and stderr into
// `log_file`, waits for it and returns its exit code and output.
process_result run_logged(const std::vector<std::string>& argv, const std::filesystem::path& log_file);

// True when the process is gone (or a zombie nobody reaped yet, which runs no code either).
bool process_gone(pid_t pid);

// Waits up to `limit` for process_gone(pid).
bool wait_until_gone(pid_t pid, std::chrono::milliseconds limit = std::chrono::seconds(5));

}  // namespace rocmtpl::test
