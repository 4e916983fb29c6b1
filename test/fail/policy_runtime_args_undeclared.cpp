// expect-error: members_runtime_arg_info_and_values_are_declared
// SPDX-License-Identifier: MIT
// A policy with runtime_arg_info/runtime_arg_values that does not declare them is rejected.
#define ROCMTPL_FAIL_UNDECLARE_RUNTIME_ARGS
#include "policy_fixture.hpp"
std::string use() { return render_fixture(); }
