// expect-success
// SPDX-License-Identifier: MIT
// Passing twin of caller_precompile_needs_runtime and caller_benchmark_const_output: with the runtime
// layer's backend included, precompile() and benchmark() (pointer pack and list forms) compile.
#include <rocmtpl/runtime/caller_runtime.hpp>

#include "policy_fixture.hpp"
double use(rocmtpl::rocm_template_caller& caller, const float* x, float* y) {
  caller.precompile();
  return caller.benchmark(x, y) + caller.benchmark(std::vector<const void*>{x}, y);
}
