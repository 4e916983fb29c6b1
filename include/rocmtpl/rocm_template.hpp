// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The users' one include of the pure layer (the reference's module name): forwards to the
/// umbrella rocmtpl/rocmtpl.hpp. The class rocm_template itself is in rocmtpl/kernel/rocm_template.hpp;
/// a translation unit that wants less includes what it uses (rocmtpl/templates/gemm.hpp for a GEMM).

#include <rocmtpl/rocmtpl.hpp>  // IWYU pragma: export
