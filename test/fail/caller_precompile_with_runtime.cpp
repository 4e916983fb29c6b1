// expect-success
// SPDX-License-Identifier: MIT
// Passing twin of caller_precompile_needs_runtime and caller_benchmark_const_output: with the runtime
// layer's backend passed, precompile() and benchmark() (typed pointers, and the unchecked list form) compile.
#include <rocmtpl/runtime/bench/caller_runtime.hpp>

#include "policy_fixture.hpp"
double use(rocmtpl::rocm_template_caller& caller, const float* x, float* y) {
  const rocmtpl::runtime::caller_runtime rt;
  caller.precompile(rt);
  return caller.benchmark(rt, x, y) + caller.benchmark(rt, rocmtpl::unchecked, std::vector<const void*>{x}, y);
}
