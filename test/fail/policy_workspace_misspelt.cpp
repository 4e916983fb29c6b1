// expect-error: declared_workspace_has_member_workspace_bytes
// SPDX-License-Identifier: MIT
// A policy that declares its workspace but misspells workspace_bytes is rejected, naming the member
// (otherwise the scheduler would silently fall back to a run-time query).
#define ROCMTPL_FAIL_MISSPELL_WORKSPACE
#include "policy_fixture.hpp"
std::string use() { return render_fixture(); }
