// expect-error: the required expression .+p\.render\(k, ctx, c\).+ is invalid
// SPDX-License-Identifier: MIT
// A policy without its render requirement must be rejected with a message naming it.
#define ROCMTPL_FAIL_OMIT_RENDER
#include "policy_fixture.hpp"
std::string use() { return render_fixture(); }
