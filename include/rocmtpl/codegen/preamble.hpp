// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Text every generated translation unit starts with (kernels and modules alike).

#include <string_view>

namespace rocmtpl {

/// @brief The PT_EXPORT macro of the reference's globals(): libraries are built with
/// -fvisibility=hidden and only PT_EXPORT symbols (the entry point, its packed twin and its
/// signature function: codegen/rendered_source.hpp) are visible.
inline constexpr std::string_view pt_export_block =
    R"(// We compile all models with -fvisibility=hidden. Any symbols that need to be
// exposed in the final shared library must be declared with PT_EXPORT to make
// them visible.
#ifdef __GNUC__ // Applies to any compiler with GNU extensions (clang and g++)
#define PT_EXPORT __attribute__((__visibility__("default")))
#else
#ifdef _WIN32
#define PT_EXPORT __declspec(dllexport)
#else
#define PT_EXPORT
#endif
#endif
)";

/// @brief The reference's bfloat16 alias (older revision of rocm_template.py's globals()).
inline constexpr std::string_view bfloat16_alias = "using bfloat16 = hip_bfloat16;\n";

}  // namespace rocmtpl
