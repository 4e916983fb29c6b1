// expect-error: the required expression .+p\.configs\(\).+ is invalid
// SPDX-License-Identifier: MIT
// A policy without its configs requirement must be rejected with a message naming it.
#define ROCMTPL_FAIL_OMIT_CONFIGS
#include "policy_fixture.hpp"
std::string use() { return render_fixture(); }
