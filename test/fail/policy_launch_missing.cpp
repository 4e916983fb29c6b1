// expect-error: declared_launch_has_member_describe_launch
// SPDX-License-Identifier: MIT
// A policy that declares the launch capability without describe_launch(kernel, context, config) is
// rejected, naming the member (issue 9 part 4).
#define ROCMTPL_FAIL_OMIT_DESCRIBE_LAUNCH
#include "policy_fixture.hpp"
std::string use() { return render_fixture(); }
