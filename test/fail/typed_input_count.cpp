// expect-error: template_refuses_inputs<[^,]*[{]"gemm"[}], 5,
// SPDX-License-Identifier: MIT
// Five inputs to the GEMM: the error names the template, the count and the policy's reason (twin: typed_complete.cpp).
#define ROCMTPL_FAIL_INPUT_COUNT
#include "typed_fixture.hpp"
std::string use() { return typed_fixture::use(); }
