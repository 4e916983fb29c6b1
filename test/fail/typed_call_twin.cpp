// expect-success
// SPDX-License-Identifier: MIT
// The passing twin of the typed_call_*.cpp cases: the same call with the signature's arguments, in
// order, builds.
#include "typed_call_fixture.hpp"
