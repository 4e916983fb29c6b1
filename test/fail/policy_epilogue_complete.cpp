// expect-success
// SPDX-License-Identifier: MIT
// Passing twin of the policy_epilogue_* and policy_pointwise_* cases: both capabilities declared,
// both members present (issue 12).
#include "epilogue_fixture.hpp"
static_assert(rocmtpl::kernel_template<epilogue_fixture_policy>);
static_assert(rocmtpl::check_kernel_template<epilogue_fixture_policy>());
static_assert(rocmtpl::detail::has_epilogue<epilogue_fixture_policy>);
static_assert(rocmtpl::detail::has_pointwise<epilogue_fixture_policy>);
std::string twin() { return render_epilogue_fixture(); }
