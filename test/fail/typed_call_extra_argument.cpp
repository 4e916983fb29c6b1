// expect-error: extra_argument_before_parameter<(rocmtpl::fixed_string<7>)?[{]"stream"[}], int>
// expect-lines: 10
// SPDX-License-Identifier: MIT
// An extra argument before the stream: the error says one argument too many, before stream (not a wrong type for
// stream) (twin: typed_call_twin.cpp).
#define ROCMTPL_FAIL_EXTRA_ARGUMENT
#include "typed_call_fixture.hpp"
