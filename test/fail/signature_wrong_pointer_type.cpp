// expect-error: argument_for_parameter<(rocmtpl::fixed_string<2>)?[{]"X"[}], const rocmtpl::half_t
// SPDX-License-Identifier: MIT
// A bf16 pointer for an f16 input: the error names the parameter X (twin: signature_wrong_pointer_type_twin.cpp).
#define ROCMTPL_FAIL_WRONG_POINTER
#include "signature_fixture.hpp"
