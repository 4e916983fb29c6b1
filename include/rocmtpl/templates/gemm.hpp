// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The GEMM template family: gathers its headers under templates/gemm/.
///
/// - gemm/config.hpp: gemm_config, gemm_math, bias_dim, gemm_options and the constraints
///   (invalid_reason(), is_valid(), validate());
/// - gemm/problem.hpp: the checked problem view of a template context;
/// - gemm/search_space.hpp: the SIMT and matrix-core spaces and a problem's ranked configurations;
/// - gemm/cost_model.hpp: gemm_estimate_cost();
/// - gemm/device_code.hpp: the device code generated kernels contain;
/// - gemm/render.hpp and gemm/reference.hpp: the kernel and reference renderers;
/// - gemm/policy.hpp: gemm_policy, the kernel_template;
/// - gemm/descriptor.hpp: gemm_problem, the typed descriptor the tuning database keeps.

#include <rocmtpl/templates/activation.hpp>
#include <rocmtpl/templates/gemm/config.hpp>
#include <rocmtpl/templates/gemm/cost_model.hpp>
#include <rocmtpl/templates/gemm/descriptor.hpp>
#include <rocmtpl/templates/gemm/device_code.hpp>
#include <rocmtpl/templates/gemm/policy.hpp>
#include <rocmtpl/templates/gemm/problem.hpp>
#include <rocmtpl/templates/gemm/reference.hpp>
#include <rocmtpl/templates/gemm/render.hpp>
#include <rocmtpl/templates/gemm/search_space.hpp>
