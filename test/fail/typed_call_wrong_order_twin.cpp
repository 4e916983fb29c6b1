// expect-success
// SPDX-License-Identifier: MIT
// The passing twin of typed_call_wrong_order.cpp: the same call with the signature's arguments in order builds.
#include "typed_call_fixture.hpp"
