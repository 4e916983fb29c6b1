// expect-error: the expression .+enable_kernel_template<P> \[with P = fixture_policy\].+ evaluated to .+false
// SPDX-License-Identifier: MIT
// A policy without its opt_in requirement must be rejected with a message naming it.
#define ROCMTPL_FAIL_OMIT_OPT_IN
#include "policy_fixture.hpp"
std::string use() { return render_fixture(); }
