// expect-error: buffer_name_differs<[^,]*[{]"A"[}], [^,]*[{]"X"[}]>
// SPDX-License-Identifier: MIT
// A buffer named A where the GEMM's parameter is X: the error names both (twin: typed_complete.cpp).
#define ROCMTPL_FAIL_BUFFER_NAME
#include "typed_fixture.hpp"
std::string use() { return typed_fixture::use(); }
