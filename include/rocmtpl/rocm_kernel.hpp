// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Forwards to rocmtpl/kernel/rocm_kernel.hpp (the reference's module name).

#include <rocmtpl/kernel/rocm_kernel.hpp>  // IWYU pragma: export
