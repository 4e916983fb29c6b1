// expect-error: buffer_rank_not_accepted<[^,]*[{]"X"[}], 4, 2, 3>
// SPDX-License-Identifier: MIT
// A rank-4 X (the GEMM takes rank 2 or 3): the error names the parameter, its rank and the ranks taken (twin:
// typed_complete.cpp).
#define ROCMTPL_FAIL_RANK
#include "typed_fixture.hpp"
std::string use() { return typed_fixture::use(); }
