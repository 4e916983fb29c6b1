// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Forwards to rocmtpl/kernel/rocm_template_buffer.hpp (the reference's module name).

#include <rocmtpl/kernel/rocm_template_buffer.hpp>  // IWYU pragma: export
