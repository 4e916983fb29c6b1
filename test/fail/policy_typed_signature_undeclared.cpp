// expect-error: member_typed_signature_is_declared
// SPDX-License-Identifier: MIT
// A policy with typed_signature that does not declare it is rejected, naming the member
// (twin: policy_typed_signature_complete.cpp).
#define ROCMTPL_FAIL_UNDECLARE_TYPED_SIGNATURE
#include "policy_fixture.hpp"
std::string use() { return render_fixture(); }
