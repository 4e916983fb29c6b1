// expect-error: rocmtpl: kernel_template: policy is not opted in
// SPDX-License-Identifier: MIT
// A policy without its opt_in requirement must be rejected with a message naming it.
#define ROCMTPL_FAIL_OMIT_OPT_IN
#include "policy_fixture.hpp"
std::string use() { return render_fixture(); }
