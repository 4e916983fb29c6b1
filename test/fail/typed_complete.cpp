// expect-success
// SPDX-License-Identifier: MIT
// Passing twin of every typed_* case: the typed fixture with nothing spoilt.
#include "typed_fixture.hpp"
std::string twin() { return typed_fixture::use(); }
