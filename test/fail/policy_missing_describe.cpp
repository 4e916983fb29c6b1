// expect-error: the required expression .+describe\(c\).+ is invalid
// SPDX-License-Identifier: MIT
// A policy without its describe requirement must be rejected with a message naming it.
#define ROCMTPL_FAIL_OMIT_DESCRIBE
#include "policy_fixture.hpp"
std::string use() { return render_fixture(); }
