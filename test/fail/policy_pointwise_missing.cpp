// expect-error: declared_pointwise_has_member_pointwise_chain
// SPDX-License-Identifier: MIT
// A policy that declares the pointwise capability without pointwise_chain(context) is rejected,
// naming the member (issue 12).
#define ROCMTPL_FAIL_OMIT_POINTWISE_CHAIN
#include "epilogue_fixture.hpp"
std::string use() { return render_epilogue_fixture(); }
