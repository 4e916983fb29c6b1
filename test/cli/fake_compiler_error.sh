#!/bin/sh
# SPDX-License-Identifier: MIT
# A stand-in hipcc/nvcc for the CLI tests: every compile fails with a located diagnostic after
# some noise, the way clang reports a source error.
if [ "$1" = --version ]; then echo "rocmtpl fake compiler 1.0"; exit 0; fi
for last in "$@"; do :; done
echo "In file included from $last:1:"
echo "$last:3:7: warning: something harmless"
echo "$last:12:5: error: planted failure for the cli test"
echo "1 error generated."
exit 1
