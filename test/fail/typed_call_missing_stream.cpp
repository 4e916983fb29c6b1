// expect-error: missing_argument_for_parameter<(rocmtpl::fixed_string<7>)?[{]"stream"[}]>
// expect-lines: 10
// SPDX-License-Identifier: MIT
// No stream: the error says the stream is missing (twin: typed_call_twin.cpp).
#define ROCMTPL_FAIL_MISSING_STREAM
#include "typed_call_fixture.hpp"
