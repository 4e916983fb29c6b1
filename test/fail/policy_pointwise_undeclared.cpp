// expect-error: member_pointwise_chain_is_declared
// SPDX-License-Identifier: MIT
// A policy with pointwise_chain that does not declare the pointwise capability is rejected (its
// nodes would silently carry no chain) (issue 12).
#define ROCMTPL_FAIL_UNDECLARE_POINTWISE
#include "epilogue_fixture.hpp"
std::string use() { return render_epilogue_fixture(); }
