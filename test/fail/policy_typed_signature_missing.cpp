// expect-error: declared_typed_signature_has_member_typed_signature
// SPDX-License-Identifier: MIT
// A policy that declares typed_signature without the static member is rejected, naming the member
// (twin: policy_typed_signature_complete.cpp).
#define ROCMTPL_FAIL_DECLARE_TYPED_SIGNATURE
#include "policy_fixture.hpp"
std::string use() { return render_fixture(); }
