// SPDX-License-Identifier: MIT
#pragma once

// The implementation of runtime/launch/typed_kernel.hpp: included at its end (header-only) or compiled once by
// src/runtime/launch.cpp, after it (so it does not include it back).

#include <cstddef>
#include <string>
#include <utility>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>

namespace rocmtpl::runtime {

ROCMTPL_INLINE workspace_required_error::workspace_required_error(std::string kernel, std::size_t needed,
                                                                  std::size_t given)
    : error("rocmtpl: kernel " + kernel + " needs " + std::to_string(needed) + " bytes of workspace but " +
            (given == 0 ? std::string("none was given") : std::to_string(given) + " were given") +
            "; ask workspace_size() with the same sizes and pass a workspace_ref that large"),
      kernel_(std::move(kernel)),
      needed_(needed),
      given_(given) {}

}  // namespace rocmtpl::runtime
