// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Forwards to rocmtpl/kernel/rocm_benchmark_request.hpp (the reference's module name).

#include <rocmtpl/kernel/rocm_benchmark_request.hpp>  // IWYU pragma: export
