#!/bin/sh
# SPDX-License-Identifier: MIT
# A stand-in hipcc/nvcc for the CLI tests: it answers --version, then every compile hangs (sleeps far
# longer than the test's --compile-timeout). With ROCMTPL_TEST_PID_FILE set, the hang is in a child
# of its own (a driver waiting for the compiler it started), and the script appends
# "<its pid> <the child's pid>" to that file, so that a test can check that neither outlives the tuner.
if [ "$1" = --version ]; then echo "rocmtpl fake compiler 1.0"; exit 0; fi
if [ -n "${ROCMTPL_TEST_PID_FILE:-}" ]; then
  sleep 120 &
  echo "$$ $!" >> "$ROCMTPL_TEST_PID_FILE"
  wait
  exit 0
fi
sleep 120
exit 0
