// expect-error: hint_for_unknown_size_symbol<[^,]*[{]"Q"[}], [^,]*[{]"M"[}]>
// SPDX-License-Identifier: MIT
// A hint for Q, a symbol the template does not have: the error names it and the template's symbols (twin:
// typed_complete.cpp).
#define ROCMTPL_FAIL_UNKNOWN_HINT
#include "typed_fixture.hpp"
std::string use() { return typed_fixture::use(); }
