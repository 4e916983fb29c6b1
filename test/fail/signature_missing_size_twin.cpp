// expect-success
// SPDX-License-Identifier: MIT
// The passing twin of signature_missing_size.cpp: the same call with the signature's arguments builds.
#include "signature_fixture.hpp"
