// expect-success
// SPDX-License-Identifier: MIT
// The passing twin of caller_benchmark_untyped.cpp: the same untyped pointers, through unchecked.
#include <rocmtpl/runtime/bench/caller_runtime.hpp>

#include "policy_fixture.hpp"
double use(rocmtpl::rocm_template_caller& caller, const void* x, void* y) {
  return caller.benchmark(rocmtpl::runtime::caller_runtime{}, rocmtpl::unchecked, x, y);
}
