// SPDX-License-Identifier: MIT
#include <rocmtpl/runtime/sys/process.hpp>

#include "support/runtime.hpp"

#include <gtest/gtest.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <csignal>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using namespace std::chrono_literals;
using rocmtpl::runtime::executable_not_found_error;
using rocmtpl::runtime::find_executable;
using rocmtpl::runtime::process_error;
using rocmtpl::runtime::process_options;
using rocmtpl::runtime::quote_command;
using rocmtpl::runtime::run_process;
using rocmtpl::test::temp_dir;

TEST(process, exit_codes_are_reported) {
  const auto ok = run_process({"sh", "-c", "exit 0"});
  EXPECT_TRUE(ok.ok());
  EXPECT_EQ(ok.exit_code, 0);
  const auto three = run_process({"sh", "-c", "exit 3"});
  EXPECT_FALSE(three.ok());
  EXPECT_EQ(three.exit_code, 3);
  EXPECT_EQ(three.signal, 0);
  EXPECT_FALSE(three.timed_out);
  // 127 from the child itself is an ordinary exit code, distinct from "not found" (a typed error).
  const auto child127 = run_process({"sh", "-c", "exit 127"});
  EXPECT_EQ(child127.exit_code, 127);
}

TEST(process, stdout_and_stderr_are_merged_in_order) {
  const auto r = run_process({"sh", "-c", "echo one; echo two 1>&2; echo three"});
  EXPECT_EQ(r.output, "one\ntwo\nthree\n");
  EXPECT_GE(r.seconds, 0.0);
}

TEST(process, arguments_are_passed_verbatim_without_a_shell) {
  // Spaces, quotes and $ survive: nothing re-splits or expands the arguments.
  const auto r = run_process({"printf", "%s|%s|%s", "a b", "it's", "$HOME"});
  EXPECT_EQ(r.output, "a b|it's|$HOME");
}

TEST(process, large_output_on_both_streams_does_not_deadlock) {
  const auto r = run_process({"sh", "-c", "head -c 6000000 /dev/zero; head -c 5000000 /dev/zero 1>&2; echo end"},
                             {.timeout = 60s});
  ASSERT_TRUE(r.ok()) << r.exit_code;
  EXPECT_EQ(r.output.size(), 11000004U);
  EXPECT_EQ(r.output.substr(r.output.size() - 4), "end\n");
  EXPECT_FALSE(r.output_truncated);
}

TEST(process, output_beyond_the_cap_is_dropped_but_drained) {
  process_options o;
  o.max_output = 1000;
  const auto r = run_process({"sh", "-c", "head -c 500000 /dev/zero; exit 4"}, o);
  EXPECT_EQ(r.exit_code, 4);  // the child was not blocked on a full pipe
  EXPECT_TRUE(r.output_truncated);
  EXPECT_EQ(r.output.substr(0, 1000), std::string(1000, '\0'));
  EXPECT_NE(r.output.find("truncated"), std::string::npos);
}

TEST(process, missing_executable_is_a_typed_error) {
  try {
    (void)run_process({"/nonexistent/rocmtpl-no-such-program", "--version"});
    FAIL() << "expected executable_not_found_error";
  } catch (const executable_not_found_error& e) {
    EXPECT_EQ(e.executable(), "/nonexistent/rocmtpl-no-such-program");
    EXPECT_NE(std::string(e.what()).find("/nonexistent/rocmtpl-no-such-program"), std::string::npos);
  }
  EXPECT_THROW((void)run_process({"rocmtpl-no-such-program-4f1c"}), executable_not_found_error);
  EXPECT_THROW((void)run_process({}), rocmtpl::invalid_argument_error);
}

TEST(process, script_with_missing_interpreter_is_not_found) {
  temp_dir dir;
  const auto script = dir / "bad.sh";
  rocmtpl::test::write_file(script, "#!/nonexistent/interpreter\necho hi\n");
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  EXPECT_THROW((void)run_process({script.string()}), executable_not_found_error);
}

TEST(process, path_from_the_child_environment_is_searched) {
  temp_dir dir;
  rocmtpl::test::write_script(dir / "rocmtpl-hello", "echo hello from $0\n");
  process_options o;
  o.env = {{"PATH", dir.path().string() + ":/usr/bin:/bin"}};
  const auto r = run_process({"rocmtpl-hello"}, o);
  EXPECT_EQ(r.output, "hello from " + (dir / "rocmtpl-hello").string() + "\n");
}

TEST(process, working_directory_and_environment) {
  temp_dir dir;
  process_options o;
  o.working_dir = dir.path();
  o.env = {{"ROCMTPL_TEST_VALUE", "forty two"}};
  const auto r = run_process({"sh", "-c", "pwd -P; echo \"$ROCMTPL_TEST_VALUE\""}, o);
  EXPECT_EQ(r.output, std::filesystem::canonical(dir.path()).string() + "\nforty two\n");

  rocmtpl::test::scoped_env home("ROCMTPL_TEST_UNSET_ME", "present");
  process_options u;
  u.unset_env = {"ROCMTPL_TEST_UNSET_ME"};
  EXPECT_EQ(run_process({"sh", "-c", "echo \"[${ROCMTPL_TEST_UNSET_ME-absent}]\""}, u).output, "[absent]\n");
  EXPECT_EQ(run_process({"sh", "-c", "echo \"[${ROCMTPL_TEST_UNSET_ME-absent}]\""}).output, "[present]\n");

  process_options missing;
  missing.working_dir = dir / "does-not-exist";
  EXPECT_THROW((void)run_process({"true"}, missing), process_error);
}

TEST(process, stdin_is_empty) {
  const auto r = run_process({"cat"}, {.timeout = 10s});
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.output, "");
  EXPECT_FALSE(r.timed_out);
}

TEST(process, timeout_kills_the_whole_process_group) {
  temp_dir dir;
  const auto pid_file = dir / "sleep.pid";
  process_options o;
  o.timeout = 300ms;
  const auto r = run_process({"sh", "-c", "sleep 30 & echo $! > '" + pid_file.string() + "'; echo started; wait"}, o);
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.signal, SIGTERM);
  EXPECT_EQ(r.output, "started\n");
  EXPECT_LT(r.seconds, 5.0);
  const pid_t grandchild = std::stoi(rocmtpl::test::read_file(pid_file));
  EXPECT_TRUE(rocmtpl::test::wait_until_gone(grandchild)) << "the grandchild " << grandchild << " survived";
}

TEST(process, sigterm_ignored_gets_sigkill_after_the_grace_period) {
  process_options o;
  o.timeout = 200ms;
  o.kill_grace = 200ms;
  const auto r = run_process({"sh", "-c", "trap '' TERM; while :; do sleep 0.05; done"}, o);
  EXPECT_TRUE(r.timed_out);
  EXPECT_EQ(r.signal, SIGKILL);
  EXPECT_LT(r.seconds, 5.0);
}

TEST(process, death_by_signal_is_reported) {
  const auto r = run_process({"sh", "-c", "kill -USR1 $$"});
  EXPECT_EQ(r.signal, SIGUSR1);
  EXPECT_EQ(r.exit_code, -1);
  EXPECT_FALSE(r.timed_out);
}

TEST(process, capture_pipe_is_not_leaked_into_the_child) {
  // The capture pipe's own ends are close-on-exec: only stdout and stderr of the child refer to
  // it. A leaked copy (in this child, or in one started by another thread) would keep the pipe open.
  const auto r = run_process({"sh", "-c", "ls -l /proc/$$/fd"});
  std::map<std::string, std::string> target;  // fd -> what it refers to
  std::istringstream lines(r.output);
  for (std::string line; std::getline(lines, line);) {
    const auto arrow = line.find(" -> ");
    if (arrow == std::string::npos) continue;
    const auto fd_begin = line.rfind(' ', arrow - 1) + 1;
    target[line.substr(fd_begin, arrow - fd_begin)] = line.substr(arrow + 4);
  }
  ASSERT_TRUE(target.count("1")) << r.output;
  EXPECT_EQ(target["1"].rfind("pipe:", 0), 0U) << r.output;
  EXPECT_EQ(target["2"], target["1"]);
  const auto refs =
      std::count_if(target.begin(), target.end(), [&](const auto& kv) { return kv.second == target["1"]; });
  EXPECT_EQ(refs, 2) << r.output;
}

TEST(process, returns_when_the_child_exits_even_if_a_grandchild_keeps_the_pipe) {
  // A background grandchild inherits stdout; waiting for end-of-file would wait for it.
  temp_dir dir;
  const auto pid_file = dir / "bg.pid";
  const auto r = run_process({"sh", "-c", "sleep 3 & echo $! > '" + pid_file.string() + "'; echo done"});
  EXPECT_TRUE(r.ok());
  EXPECT_EQ(r.output, "done\n");
  EXPECT_LT(r.seconds, 2.0);
  ::kill(std::stoi(rocmtpl::test::read_file(pid_file)), SIGKILL);
}

TEST(process, concurrent_runs_from_many_threads) {
  std::vector<std::thread> threads;
  std::atomic<int> wrong{0};
  for (int t = 0; t < 8; ++t) {
    threads.emplace_back([t, &wrong] {
      for (int i = 0; i < 10; ++i) {
        const auto text = std::to_string(t) + "-" + std::to_string(i);
        const auto r = run_process({"sh", "-c", "echo \"$0\"; exit $1", text, std::to_string(i)});
        if (r.output != text + "\n" || r.exit_code != i) ++wrong;
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_EQ(wrong.load(), 0);
}

TEST(process, find_executable_and_quote_command) {
  const auto sh = find_executable("sh");
  ASSERT_TRUE(sh.has_value());
  EXPECT_TRUE(sh->is_absolute());
  EXPECT_FALSE(find_executable("rocmtpl-no-such-program-4f1c").has_value());
  EXPECT_FALSE(find_executable("sh", "/nonexistent-dir").has_value());
  EXPECT_EQ(quote_command({"hipcc", "-O3", "a b.hip", "it's"}), "hipcc -O3 'a b.hip' 'it'\\''s'");
}

// ---- issue 22 item 2: nothing the library started outlives its caller --------------------------

// The pids a script listed in `file` (one a line), once it has listed `count` of them.
std::vector<pid_t> wait_for_pids(const std::filesystem::path& file, std::size_t count,
                                 std::chrono::milliseconds limit = 10s) {
  const auto end = std::chrono::steady_clock::now() + limit;
  std::vector<pid_t> pids;
  while (std::chrono::steady_clock::now() < end) {
    pids.clear();
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);) {
      if (!line.empty()) pids.push_back(static_cast<pid_t>(std::stoi(line)));
    }
    if (pids.size() >= count) return pids;
    std::this_thread::sleep_for(20ms);
  }
  return pids;
}

// A script that records its pid and its background child's, then waits (a compiler driver that
// hangs in the compiler it started).
std::vector<std::string> hanging_script(const std::filesystem::path& pid_file) {
  return {"sh", "-c",
          "echo $$ >> '" + pid_file.string() + "'; sleep 60 & echo $! >> '" + pid_file.string() + "'; wait"};
}

// Forks this test process; the fork runs `body` and ends with its exit code.
template <class Body>
pid_t fork_running(Body body) {
  const pid_t pid = ::fork();
  if (pid == 0) {
    int code = 99;
    try {
      code = body();
    } catch (...) {
      code = 98;
    }
    ::_exit(code);
  }
  return pid;
}

TEST(process, a_caller_killed_with_sigkill_takes_the_whole_compile_along) {
  // The caller (a fork of this test) waits in run_process() for a driver that hangs in its own
  // child; SIGKILL leaves no chance to clean up: the guard process kills the group.
  temp_dir dir;
  const auto pid_file = dir / "pids";
  const pid_t caller = fork_running([&] {
    (void)run_process(hanging_script(pid_file), {.timeout = 120s});
    return 0;
  });
  ASSERT_GT(caller, 0);
  const auto pids = wait_for_pids(pid_file, 2);
  ASSERT_EQ(pids.size(), 2U) << "the script did not start";
  ASSERT_EQ(::kill(caller, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(caller, &status, 0), caller);
  for (const pid_t p : pids)
    EXPECT_TRUE(rocmtpl::test::wait_until_gone(p, 2s)) << "process " << p << " outlived its caller";
}

TEST(process, a_child_process_dies_with_the_thread_that_started_it) {
  temp_dir dir;
  const auto pid_file = dir / "pids";
  const pid_t caller = fork_running([&] {
    rocmtpl::runtime::child_process child({"sh", "-c", "echo $$ > '" + pid_file.string() + "'; exec sleep 60"});
    std::this_thread::sleep_for(120s);
    return 0;
  });
  ASSERT_GT(caller, 0);
  const auto pids = wait_for_pids(pid_file, 1);
  ASSERT_EQ(pids.size(), 1U);
  ASSERT_EQ(::kill(caller, SIGKILL), 0);
  int status = 0;
  ASSERT_EQ(::waitpid(caller, &status, 0), caller);
  EXPECT_TRUE(rocmtpl::test::wait_until_gone(pids[0], 2s)) << "the worker outlived its caller";
}

TEST(process, stop_child_processes_stops_every_live_child_and_starts_no_more) {
  // In a fork: stopping is for good in the process that does it.
  temp_dir dir;
  const auto pid_file = dir / "pids";
  const pid_t caller = fork_running([&] {
    std::atomic<int> compile_signal{-1};
    std::thread compile([&] { compile_signal = run_process(hanging_script(pid_file), {.timeout = 120s}).signal; });
    rocmtpl::runtime::child_process worker({"sleep", "60"});
    if (wait_for_pids(pid_file, 2).size() != 2) return 10;
    if (rocmtpl::runtime::detail::proc::tracked_children().size() != 2) return 11;
    const auto t0 = std::chrono::steady_clock::now();
    rocmtpl::runtime::stop_child_processes(std::chrono::milliseconds(1000));
    compile.join();
    if (std::chrono::steady_clock::now() - t0 > 5s) return 12;
    if (compile_signal != SIGTERM) return 13;
    if (worker.wait().signal != SIGTERM) return 14;
    try {
      (void)run_process({"true"});
      return 15;  // started after the stop
    } catch (const process_error& e) {
      if (std::string(e.what()).find("stop_child_processes") == std::string::npos) return 16;
    }
    return rocmtpl::runtime::detail::proc::tracked_children().empty() ? 0 : 17;
  });
  ASSERT_GT(caller, 0);
  int status = 0;
  ASSERT_EQ(::waitpid(caller, &status, 0), caller);
  ASSERT_TRUE(WIFEXITED(status)) << "status " << status;
  EXPECT_EQ(WEXITSTATUS(status), 0) << "see the return codes in the test";
  for (const pid_t p : wait_for_pids(pid_file, 2, 0ms)) EXPECT_TRUE(rocmtpl::test::wait_until_gone(p, 2s)) << p;
}

TEST(process, the_signal_handlers_stop_the_children_and_end_by_the_signal) {
  for (const int sig : {SIGTERM, SIGINT}) {
    temp_dir dir;
    const auto pid_file = dir / "pids";
    const pid_t caller = fork_running([&] {
      rocmtpl::runtime::stop_child_processes_on_signals();
      (void)run_process(hanging_script(pid_file), {.timeout = 120s});
      return 0;
    });
    ASSERT_GT(caller, 0);
    const auto pids = wait_for_pids(pid_file, 2);
    ASSERT_EQ(pids.size(), 2U);
    const auto t0 = std::chrono::steady_clock::now();
    ASSERT_EQ(::kill(caller, sig), 0);
    int status = 0;
    ASSERT_EQ(::waitpid(caller, &status, 0), caller);
    EXPECT_LT(std::chrono::steady_clock::now() - t0, 3s);
    ASSERT_TRUE(WIFSIGNALED(status)) << "signal " << sig << ": status " << status;
    EXPECT_EQ(WTERMSIG(status), sig);
    for (const pid_t p : pids) EXPECT_TRUE(rocmtpl::test::wait_until_gone(p, 2s)) << "signal " << sig << ": " << p;
  }
}

TEST(process, ignored_signals_stay_ignored) {
  const pid_t caller = fork_running([] {
    ::signal(SIGHUP, SIG_IGN);
    rocmtpl::runtime::stop_child_processes_on_signals();
    struct sigaction hup {};
    struct sigaction term {};
    ::sigaction(SIGHUP, nullptr, &hup);
    ::sigaction(SIGTERM, nullptr, &term);
    return hup.sa_handler == SIG_IGN && term.sa_handler != SIG_DFL && term.sa_handler != SIG_IGN ? 0 : 1;
  });
  int status = 0;
  ASSERT_EQ(::waitpid(caller, &status, 0), caller);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

TEST(process, an_exec_failure_is_a_typed_error_and_leaves_nothing_recorded) {
  // The forked child reports why exec failed (here ENOEXEC: an executable file in no format the
  // kernel runs), and the child is reaped and forgotten.
  temp_dir dir;
  const auto garbage = dir / "garbage";
  rocmtpl::test::write_file(garbage, std::string("\x01\x02\x03 not a program\n"));
  std::filesystem::permissions(garbage, std::filesystem::perms::owner_all);
  try {
    (void)run_process({garbage.string()});
    FAIL() << "ran a file that is no program";
  } catch (const process_error& e) {
    EXPECT_NE(std::string(e.what()).find("cannot run '" + garbage.string() + "'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("format"), std::string::npos) << e.what();
  }
  EXPECT_TRUE(rocmtpl::runtime::detail::proc::tracked_children().empty());
}

// ---- child_process: the same spawner with a two-way channel (the benchmark worker's) ----------

std::string read_line(rocmtpl::runtime::child_process& child, std::chrono::milliseconds timeout = 5s) {
  std::string got;
  while (got.find('\n') == std::string::npos) {
    if (child.read_some(got, timeout) != rocmtpl::runtime::child_process::read_status::data) break;
  }
  return got;
}

TEST(child_process, talks_over_stdin_and_stdout) {
  rocmtpl::runtime::child_process child({"sh", "-c", "while read line; do echo \"got $line\"; done"});
  ASSERT_GT(child.pid(), 0);
  ASSERT_TRUE(child.write("one\n"));
  EXPECT_EQ(read_line(child), "got one\n");
  ASSERT_TRUE(child.write("two\n"));
  EXPECT_EQ(read_line(child), "got two\n");
  const auto r = child.wait();  // closing the channel is end of input: the loop ends
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.signal, 0);
}

TEST(child_process, silence_is_a_timeout_and_a_crash_is_end_of_file) {
  rocmtpl::runtime::child_process quiet({"sleep", "30"});
  std::string got;
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_EQ(quiet.read_some(got, 200ms), rocmtpl::runtime::child_process::read_status::timed_out);
  EXPECT_LT(std::chrono::steady_clock::now() - t0, 3s);
  const pid_t pid = quiet.pid();
  quiet.kill();
  EXPECT_TRUE(rocmtpl::test::wait_until_gone(pid));

  rocmtpl::runtime::child_process crash({"sh", "-c", "read line; kill -SEGV $$"});
  ASSERT_TRUE(crash.write("go\n"));
  EXPECT_EQ(crash.read_some(got, 5s), rocmtpl::runtime::child_process::read_status::end_of_file);
  EXPECT_EQ(crash.wait().signal, SIGSEGV);
}

// Issue 8: writing to a child that has gone must not raise SIGPIPE, and the library must not
// change the process's SIGPIPE disposition to get there.
TEST(child_process, writing_to_a_dead_child_fails_without_sigpipe) {
  struct sigaction before {};
  ASSERT_EQ(::sigaction(SIGPIPE, nullptr, &before), 0);
  ASSERT_EQ(before.sa_handler, SIG_DFL) << "the test needs SIGPIPE at its default (it would kill the test)";
  rocmtpl::runtime::child_process child({"true"});
  const pid_t pid = child.pid();
  ASSERT_TRUE(rocmtpl::test::wait_until_gone(pid));
  bool failed = false;
  for (int i = 0; i < 100 && !failed; ++i) failed = !child.write(std::string(65536, 'x'));
  EXPECT_TRUE(failed) << "a write to a child that exited must report failure";
  struct sigaction after {};
  ASSERT_EQ(::sigaction(SIGPIPE, nullptr, &after), 0);
  EXPECT_EQ(after.sa_handler, SIG_DFL) << "SIGPIPE disposition changed";
}

// Issue 8: the channel is close-on-exec: a child started while another one runs does not hold it.
TEST(child_process, channel_is_not_inherited_by_other_children) {
  rocmtpl::runtime::child_process child({"cat"});
  const auto r = run_process({"sh", "-c", "ls -l /proc/$$/fd"});
  EXPECT_NE(r.output.find("pipe:"), std::string::npos) << r.output;  // the listing worked
  EXPECT_EQ(r.output.find("socket:"), std::string::npos) << "the channel leaked:\n" << r.output;
  // And the child itself sees the channel only as its stdin and stdout.
  ASSERT_TRUE(child.write("x\n"));
  EXPECT_EQ(read_line(child), "x\n");
  // (Descriptors the test runner itself leaks into every child may show up too; sockets are ours.)
  const auto own = run_process({"sh", "-c", "ls -l /proc/" + std::to_string(child.pid()) + "/fd"});
  std::istringstream lines(own.output);
  std::vector<std::string> sockets;
  for (std::string line; std::getline(lines, line);) {
    const auto arrow = line.find(" -> socket:");
    if (arrow == std::string::npos) continue;
    sockets.push_back(line.substr(line.rfind(' ', arrow - 1) + 1, arrow - line.rfind(' ', arrow - 1) - 1));
  }
  EXPECT_EQ(sockets, (std::vector<std::string>{"0", "1"})) << own.output;
}

TEST(child_process, missing_program_is_a_typed_error) {
  EXPECT_THROW(rocmtpl::runtime::child_process({"rocmtpl-no-such-program-4f1c"}), executable_not_found_error);
}

}  // namespace
