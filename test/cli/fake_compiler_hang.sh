#!/bin/sh
# SPDX-License-Identifier: MIT
# A stand-in hipcc/nvcc for the CLI tests: it answers --version, then every compile hangs (sleeps far
# longer than the test's --compile-timeout).
if [ "$1" = --version ]; then echo "rocmtpl fake compiler 1.0"; exit 0; fi
sleep 120
exit 0
