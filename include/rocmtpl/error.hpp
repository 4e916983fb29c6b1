// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The exception hierarchy (rocmtpl::error and the errors derived from it), defined in
/// rocmtpl/core/error.hpp so that ir/ and codegen/ use it without including a top-level header.

#include <rocmtpl/core/error.hpp>
