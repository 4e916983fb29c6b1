// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Forwards to rocmtpl/kernel/rocm_cpp_scheduling.hpp (the reference's module name).

#include <rocmtpl/kernel/rocm_cpp_scheduling.hpp>  // IWYU pragma: export
