// expect-success
// SPDX-License-Identifier: MIT
// Passing twin of the typed_signature cases (policy_typed_signature_*, typed_no_typed_signature): a
// policy that declares kernel_capabilities::typed_signature and has the member makes typed templates.
#define ROCMTPL_WITH_TYPED_SIGNATURE
#include "policy_fixture.hpp"
static_assert(rocmtpl::check_kernel_template<fixture_policy>());
static_assert(rocmtpl::detail::has_typed_signature<fixture_policy>);
std::string twin() { return make_typed_fixture().generate(fixture_config{}).source(); }
