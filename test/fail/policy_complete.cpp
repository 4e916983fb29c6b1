// expect-success
// SPDX-License-Identifier: MIT
// Passing twin of every policy_missing_* case: the same fixture with nothing removed.
#include "policy_fixture.hpp"
static_assert(rocmtpl::kernel_template<fixture_policy>);
std::string twin() { return render_fixture(); }
