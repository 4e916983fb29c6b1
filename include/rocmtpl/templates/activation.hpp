// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief activation: the elementwise functions a template's epilogue applies (GEMM, elementwise),
/// by their names in the template layer. They are the codegen layer's one activation set
/// (codegen/activation.hpp: the enum, its names and the device text), which epilogue chains use too.

#include <rocmtpl/codegen/activation.hpp>

namespace rocmtpl::templates {

// The elementwise function applied after the bias: rocmtpl::activation, one enum for the templates and
// the epilogue chains.
using rocmtpl::activation;
using rocmtpl::activation_device_function;
using rocmtpl::activation_expression;
using rocmtpl::activation_function_close;
using rocmtpl::activation_function_open;
using rocmtpl::all_activations;
using rocmtpl::parse_activation;
using rocmtpl::to_string;

}  // namespace rocmtpl::templates
