// expect-error: buffer_dtype_not_accepted<[^,]*[{]"X"[}], [^,]*[{]"float64"[}]>
// SPDX-License-Identifier: MIT
// A float64 X, which the GEMM does not take: the error names the parameter and the dtype (twin: typed_complete.cpp).
#define ROCMTPL_FAIL_DTYPE
#include "typed_fixture.hpp"
std::string use() { return typed_fixture::use(); }
