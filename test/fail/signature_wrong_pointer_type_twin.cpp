// expect-success
// SPDX-License-Identifier: MIT
// The passing twin of signature_wrong_pointer_type.cpp: the same call with the signature's arguments builds.
#include "signature_fixture.hpp"
