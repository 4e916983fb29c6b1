// expect-error: missing_argument_for_parameter<(rocmtpl::fixed_string<2>)?[{]"M"[}]>
// SPDX-License-Identifier: MIT
// The size argument M left out: the error names the parameter M (twin: signature_missing_size_twin.cpp).
#define ROCMTPL_FAIL_MISSING_SIZE
#include "signature_fixture.hpp"
