// expect-error: policy_has_no_typed_signature<fixture_policy>
// SPDX-License-Identifier: MIT
// make_template on a policy that does not declare kernel_capabilities::typed_signature: the error
// names the policy and says to use the runtime-value route (twin: policy_typed_signature_complete.cpp).
#include "policy_fixture.hpp"
void use() { (void)make_typed_fixture(); }
