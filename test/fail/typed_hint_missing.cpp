// expect-error: size_symbol_without_hint<[^,]*[{]"M"[}]>
// SPDX-License-Identifier: MIT
// No hint for the size symbol M: the error names it (twin: typed_complete.cpp).
#define ROCMTPL_FAIL_MISSING_HINT
#include "typed_fixture.hpp"
std::string use() { return typed_fixture::use(); }
