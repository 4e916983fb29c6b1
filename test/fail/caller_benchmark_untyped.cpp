// expect-error: benchmark takes pointers to the tensors' element types
// expect-lines: 10
// SPDX-License-Identifier: MIT
// rocm_template_caller::benchmark() refuses untyped pointers at compile time: they go only through
// benchmark(backend, unchecked, ...) (twin: caller_benchmark_untyped_twin.cpp).
#include <rocmtpl/runtime/bench/caller_runtime.hpp>

#include "policy_fixture.hpp"
double use(rocmtpl::rocm_template_caller& caller, const void* x, void* y) {
  return caller.benchmark(rocmtpl::runtime::caller_runtime{}, x, y);
}
