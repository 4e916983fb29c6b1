// expect-success
// SPDX-License-Identifier: MIT
// Passing twin of every policy_missing_* case: the same fixture with nothing removed.
#include "policy_fixture.hpp"
static_assert(rocmtpl::kernel_template<fixture_policy>);
static_assert(rocmtpl::check_kernel_template<fixture_policy>());
static_assert(rocmtpl::detail::has_reference<fixture_policy> && rocmtpl::detail::has_runtime_args<fixture_policy>);
static_assert(rocmtpl::detail::has_workspace<fixture_policy> && rocmtpl::detail::has_size_args<fixture_policy>);
std::string twin() { return render_fixture(); }
