// SPDX-License-Identifier: MIT
#pragma once

// The implementation of runtime/gpu/error.hpp: included at its end (header-only) or compiled once by
// src/runtime/gpu.cpp, after it (so it does not include it back).

#include <string>
#include <utility>

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/core/error.hpp>

namespace rocmtpl::runtime {

ROCMTPL_INLINE gpu_error::gpu_error(std::string api, int code, std::string message)
    : rocmtpl::error("rocmtpl: gpu: " + api + " failed: " + message + " (error " + std::to_string(code) + ")"),
      api_(std::move(api)),
      code_(code) {}

ROCMTPL_INLINE no_gpu_error::no_gpu_error(const std::string& operation, int code, const std::string& why)
    : gpu_error(preformatted_tag{}, "rocmtpl: gpu: cannot " + operation + ": " + why, operation, code) {}

}  // namespace rocmtpl::runtime
