#!/bin/sh
# SPDX-License-Identifier: MIT
# A stand-in hipcc/nvcc for the CLI tests that answers --version, then "compiles" by writing text
# where the code object or library should be and exits 0, the way a broken compiler or wrapper can.
if [ "$1" = --version ]; then echo "rocmtpl fake compiler 1.0"; exit 0; fi
out=
while [ $# -gt 0 ]; do
  if [ "$1" = -o ]; then out=$2; shift; fi
  shift
done
[ -n "$out" ] && echo "garbage, not a code object" > "$out"
exit 0
