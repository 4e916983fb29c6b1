// expect-error: member_workspace_bytes_is_declared
// SPDX-License-Identifier: MIT
// A policy with workspace_bytes that does not declare it is rejected: a forgotten declaration cannot
// leave the scheduler querying at run time what the policy describes.
#define ROCMTPL_FAIL_UNDECLARE_WORKSPACE
#include "policy_fixture.hpp"
std::string use() { return render_fixture(); }
