// expect-error: declared_reference_has_member_render_reference
// SPDX-License-Identifier: MIT
// A policy that declares a reference kernel but misspells render_reference is rejected, naming the member
// (otherwise verification would silently be off).
#define ROCMTPL_FAIL_MISSPELL_REFERENCE
#include "policy_fixture.hpp"
std::string use() { return render_fixture(); }
