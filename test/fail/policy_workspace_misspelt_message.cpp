// expect-error: rocmtpl: kernel_template: capabilities declare workspace but the policy has no member workspace_bytes
// SPDX-License-Identifier: MIT
// check_kernel_template names a misspelt declared workspace_bytes in a sentence that says how to fix it.
#define ROCMTPL_FAIL_MISSPELL_WORKSPACE
#include "policy_fixture.hpp"
static_assert(rocmtpl::check_kernel_template<fixture_policy>());
