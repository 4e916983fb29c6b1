// expect-error: member_describe_launch_is_declared
// SPDX-License-Identifier: MIT
// A policy with describe_launch that does not declare it is rejected: a forgotten declaration
// cannot switch device-only tuning off silently.
#define ROCMTPL_FAIL_UNDECLARE_LAUNCH
#include "policy_fixture.hpp"
std::string use() { return render_fixture(); }
