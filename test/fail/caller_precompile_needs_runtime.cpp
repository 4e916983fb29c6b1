// expect-error: precompile\(\) and benchmark\(\) need the runtime layer; include <rocmtpl/runtime/caller_runtime.hpp>
// SPDX-License-Identifier: MIT
// rocm_template_caller::precompile() in a program of the pure layer alone names the header to include.
#include "policy_fixture.hpp"
void use(rocmtpl::rocm_template_caller& caller) { caller.precompile(); }
