// expect-error: precompile\(\) and benchmark\(\) take the runtime layer's backend; include
// <rocmtpl/runtime/bench/caller_runtime.hpp> SPDX-License-Identifier: MIT rocm_template_caller::precompile() without a
// backend names the header to include.
#include "policy_fixture.hpp"
void use(rocmtpl::rocm_template_caller& caller) { caller.precompile(); }
