// SPDX-License-Identifier: MIT
#pragma once

// Test support: watching processes a test started (the library's run_process is the runner).

#include <chrono>
#include <fstream>
#include <string>
#include <thread>

#include <signal.h>
#include <sys/types.h>

namespace rocmtpl::test {

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
