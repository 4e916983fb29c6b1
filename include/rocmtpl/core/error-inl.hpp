// SPDX-License-Identifier: MIT
#pragma once

// The implementation of core/error.hpp: included at its end (header-only) or compiled once by src/ir.cpp, after it
// (so it does not include it back).

#include <string>
#include <utility>

#include <rocmtpl/core/config.hpp>

namespace rocmtpl {

ROCMTPL_INLINE config_error::config_error(const std::string& template_name, std::string config, std::string reason)
    : invalid_argument_error("rocmtpl: " + template_name + ": invalid config " + config + ": " + reason),
      config_(std::move(config)),
      reason_(std::move(reason)) {}

}  // namespace rocmtpl
