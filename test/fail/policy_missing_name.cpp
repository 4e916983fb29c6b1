// expect-error: rocmtpl: kernel_template: policy has no static member name\(\)
// SPDX-License-Identifier: MIT
// A policy without its name requirement must be rejected with a message naming it.
#define ROCMTPL_FAIL_OMIT_NAME
#include "policy_fixture.hpp"
std::string use() { return render_fixture(); }
