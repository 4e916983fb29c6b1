// expect-error: member_size_args_is_declared
// SPDX-License-Identifier: MIT
// A policy with size_args that does not declare it is rejected, naming the member.
#define ROCMTPL_FAIL_UNDECLARE_SIZE_ARGS
#include "policy_fixture.hpp"
std::string use() { return render_fixture(); }
