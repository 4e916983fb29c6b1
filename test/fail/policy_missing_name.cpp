// expect-error: the required expression .+P::name\(\).+ is invalid
// SPDX-License-Identifier: MIT
// A policy without its name requirement must be rejected with a message naming it.
#define ROCMTPL_FAIL_OMIT_NAME
#include "policy_fixture.hpp"
std::string use() { return render_fixture(); }
