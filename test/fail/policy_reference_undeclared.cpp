// expect-error: member_render_reference_is_declared
// SPDX-License-Identifier: MIT
// A policy with render_reference that does not declare it is rejected: a forgotten declaration
// cannot switch verification off.
#define ROCMTPL_FAIL_UNDECLARE_REFERENCE
#include "policy_fixture.hpp"
std::string use() { return render_fixture(); }
