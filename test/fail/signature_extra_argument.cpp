// expect-error: extra_argument_after_parameter<(rocmtpl::fixed_string<7>)?[{]"stream"[}], int>
// SPDX-License-Identifier: MIT
// An argument after the stream: the error names the last parameter, stream (twin: signature_extra_argument_twin.cpp).
#define ROCMTPL_FAIL_EXTRA_ARGUMENT
#include "signature_fixture.hpp"
