// expect-error: runtime_args_differ<[^,]*[{]"int64_t split_k"[}], [^,]*[{]"int32_t split_k"[}]>
// SPDX-License-Identifier: MIT
// split_k declared as int64_t where the GEMM takes int32_t: the error names both (twin: typed_complete.cpp).
#define ROCMTPL_FAIL_RUNTIME_ARGS
#include "typed_fixture.hpp"
std::string use() { return typed_fixture::use(); }
