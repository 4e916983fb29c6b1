// SPDX-License-Identifier: MIT
// rocmtpl-bench-worker: the isolated benchmarking process of the autotuner. It reads one JSON
// command per line on stdin and answers one JSON line on stdout (see runtime/bench/measure.hpp); a
// candidate that crashes or hangs takes only this process down.
#include <cstdio>

#include <rocmtpl/runtime/bench/measure.hpp>

int main() { return rocmtpl::runtime::run_worker(stdin, stdout); }
