// expect-error: benchmark's last pointer is the output; pass it as a pointer to non-const
// SPDX-License-Identifier: MIT
// rocm_template_caller::benchmark(inputs..., out) refuses a const output pointer at compile time.
#include <rocmtpl/runtime/bench/caller_runtime.hpp>

#include "policy_fixture.hpp"
double use(rocmtpl::rocm_template_caller& caller, const float* x, const float* y) {
  return caller.benchmark(rocmtpl::runtime::caller_runtime{}, x, y);
}
