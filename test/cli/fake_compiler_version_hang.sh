#!/bin/sh
# SPDX-License-Identifier: MIT
# A stand-in hipcc/nvcc for the CLI tests whose `--version` hangs (a compiler that cannot even say
# what it is); the test gives the probe a short timeout (ROCMTPL_COMPILER_PROBE_TIMEOUT).
if [ "$1" = --version ]; then sleep 120; fi
exit 1
