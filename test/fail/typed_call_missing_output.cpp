// expect-error: missing_argument_for_parameter<(rocmtpl::fixed_string<2>)?[{]"Y"[}]>
// expect-lines: 10
// SPDX-License-Identifier: MIT
// A typed call without its output: the error says the argument for Y is missing (not a wrong type for Y) (twin:
// typed_call_twin.cpp).
#define ROCMTPL_FAIL_MISSING_OUTPUT
#include "typed_call_fixture.hpp"
