// expect-error: rocmtpl: kernel_template: capabilities declare reference but the policy has no member render_reference
// SPDX-License-Identifier: MIT
// check_kernel_template names a misspelt declared member in a sentence that says how to fix it.
#define ROCMTPL_FAIL_MISSPELL_REFERENCE
#include "policy_fixture.hpp"
static_assert(rocmtpl::check_kernel_template<fixture_policy>());
