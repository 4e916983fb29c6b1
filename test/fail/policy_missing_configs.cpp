// expect-error: rocmtpl: kernel_template: policy has no member configs\(\)
// SPDX-License-Identifier: MIT
// A policy without its configs requirement must be rejected with a message naming it.
#define ROCMTPL_FAIL_OMIT_CONFIGS
#include "policy_fixture.hpp"
std::string use() { return render_fixture(); }
