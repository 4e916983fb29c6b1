// expect-error: rocmtpl: sanity: the compile-fail harness ran the compiler
// SPDX-License-Identifier: MIT
// Always fails to compile: proves the harness builds the file and matches the compiler's output.
static_assert(sizeof(char) == 0, "rocmtpl: sanity: the compile-fail harness ran the compiler");
