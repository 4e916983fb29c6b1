// expect-error: argument_for_parameter<(rocmtpl::fixed_string<2>)?[{]"Y"[}], rocmtpl::half_t., rocmtpl::bfloat16_t
// expect-lines: 10
// SPDX-License-Identifier: MIT
// A bf16 output for an f16 signature: the error names Y, its type and the given one (twin:
// typed_call_twin.cpp).
#define ROCMTPL_FAIL_WRONG_TYPE
#include "typed_call_fixture.hpp"
