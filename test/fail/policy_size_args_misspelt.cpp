// expect-error: declared_size_args_has_member_size_args
// SPDX-License-Identifier: MIT
// A policy that declares size_args but misspells the member is rejected, naming it (otherwise every
// free symbol would silently become a size argument again).
#define ROCMTPL_FAIL_MISSPELL_SIZE_ARGS
#include "policy_fixture.hpp"
std::string use() { return render_fixture(); }
