#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# ctest cli.gemm_killed_mid_compile (issue 22 item 2): a tuner stopped while its compilers run leaves
# none running. rocmtpl-tune compiles with a fake compiler that hangs in a child of its own and
# records both pids (fake_compiler_hang.sh, ROCMTPL_TEST_PID_FILE); the tuner is killed mid-compile,
# once with SIGTERM (it stops its compilers, then ends by the signal: exit status 143) and once with
# SIGKILL (no handler runs: the children die with it, status 137). Two seconds later no compiler
# process (driver or its child) may be alive.
#   test/cli/kill_tuner.sh <rocmtpl-tune> <fake compiler>
set -uo pipefail
tune=$1
fake=$2
work=$(mktemp -d /tmp/rocmtpl-kill-tuner-XXXXXX)
tuner=
cleanup() {
  [ -n "$tuner" ] && kill -KILL "$tuner" 2>/dev/null
  [ -f "$work/pids" ] && for p in $(cat "$work/pids"); do kill -KILL "$p" 2>/dev/null; done
  rm -rf "$work"
}
trap cleanup EXIT

# Alive and not a zombie (an orphan's zombie may wait for a slow reaper: it runs no code).
alive() { [ -r "/proc/$1/stat" ] && ! awk '{exit !($3 == "Z")}' "/proc/$1/stat" 2>/dev/null; }

failures=0
for sig in TERM KILL; do
  rm -rf "$work/cache" "$work/pids" "$work/db.sqlite3"
  ROCMTPL_CACHE_DIR="$work/cache" ROCMTPL_HIPCC="$fake" ROCMTPL_NVCC="$fake" ROCMTPL_TEST_PID_FILE="$work/pids" \
    "$tune" gemm --m 40 --n 24 --k 16 --dtype f16 --arch gfx90a --top-k 2 --jobs 2 --compile-timeout 100 \
    --db "$work/db.sqlite3" > "$work/out.log" 2>&1 &
  tuner=$!
  # Both compiles running (two lines of pids), within a minute.
  for _ in $(seq 600); do
    [ -f "$work/pids" ] && [ "$(wc -l < "$work/pids")" -ge 2 ] && break
    kill -0 "$tuner" 2>/dev/null || break
    sleep 0.1
  done
  if ! [ -f "$work/pids" ] || [ "$(wc -l < "$work/pids")" -lt 2 ]; then
    echo "FAIL $sig: the compilers did not start; the tuner said:"; cat "$work/out.log"
    failures=$((failures + 1)); continue
  fi
  pids=$(cat "$work/pids")
  start=$(date +%s%N)
  kill -"$sig" "$tuner"
  wait "$tuner"
  status=$?
  tuner=
  ms=$((($(date +%s%N) - start) / 1000000))
  expected=$((128 + $(kill -l "$sig")))
  if [ "$status" -ne "$expected" ]; then
    echo "FAIL $sig: the tuner's exit status is $status, not $expected; it said:"; cat "$work/out.log"
    failures=$((failures + 1))
  fi
  sleep 2
  left=
  for p in $pids; do alive "$p" && left="$left $p"; done
  if [ -n "$left" ]; then
    echo "FAIL $sig: compiler processes alive 2 s after the tuner ended:$left"
    ps -o pid,ppid,pgid,stat,args -p "${left# }" || true
    for p in $left; do kill -KILL "$p" 2>/dev/null; done
    failures=$((failures + 1))
  else
    echo "ok   SIG$sig: the tuner ended in $ms ms (status $status), none of its compiler processes ($(echo $pids)) is left"
  fi
done
[ "$failures" -eq 0 ] && echo "killed tuner leaves no compiler: PASS" || echo "killed tuner leaves no compiler: $failures FAILED"
exit $((failures > 0))
