// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The GEMM template family: gathers its headers under templates/gemm/.
///
/// - gemm/config.hpp: gemm_options and bias_dim (problem-level options);
/// - gemm/simt/, mma/ (mma.sync and MFMA), wgmma/, skinny/, skinny_mma/: one unit per math path,
///   each with its configuration type, search space, validity rules, cost model and render;
/// - gemm/path.hpp: the gemm_path concept the units meet; gemm/paths.hpp: their list and
///   gemm_config, the variant over their configurations;
/// - gemm/problem.hpp: the checked problem view of a template context;
/// - gemm/search_space.hpp: a problem's ranked configurations, every path's merged;
/// - gemm/cost_model.hpp: what the paths' cost models share;
/// - gemm/device_code.hpp: the device code of the block-tiled (SIMT, matrix-core) kernels;
/// - gemm/render.hpp and gemm/reference.hpp: the shared render steps and the reference renderer;
/// - gemm/policy.hpp: gemm_policy, the kernel_template;
/// - gemm/descriptor.hpp: gemm_problem, the typed descriptor the tuning database keeps.

#include <rocmtpl/templates/activation.hpp>
#include <rocmtpl/templates/gemm/config.hpp>
#include <rocmtpl/templates/gemm/cost_model.hpp>
#include <rocmtpl/templates/gemm/descriptor.hpp>
#include <rocmtpl/templates/gemm/device_code.hpp>
#include <rocmtpl/templates/gemm/path.hpp>
#include <rocmtpl/templates/gemm/paths.hpp>
#include <rocmtpl/templates/gemm/policy.hpp>
#include <rocmtpl/templates/gemm/problem.hpp>
#include <rocmtpl/templates/gemm/reference.hpp>
#include <rocmtpl/templates/gemm/render.hpp>
#include <rocmtpl/templates/gemm/search_space.hpp>
