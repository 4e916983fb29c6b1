// expect-error: arguments_in_wrong_order<(rocmtpl::fixed_string<2>)?[{]"Y"[}], (rocmtpl::fixed_string<2>)?[{]"M"[}]>
// expect-lines: 10
// SPDX-License-Identifier: MIT
// The output and the size swapped: the error names both parameters (twin: typed_call_twin.cpp).
#define ROCMTPL_FAIL_WRONG_ORDER
#include "typed_call_fixture.hpp"
