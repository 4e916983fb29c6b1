// expect-error: declared_problem_configs_has_member_configs_context_hints
// SPDX-License-Identifier: MIT
// A policy that declares problem_configs without configs(context, hints) is rejected, naming the member.
#define ROCMTPL_FAIL_DECLARE_PROBLEM_CONFIGS
#include "policy_fixture.hpp"
std::string use() { return render_fixture(); }
