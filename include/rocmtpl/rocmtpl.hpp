// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The umbrella of the pure C++20 layer: every public header of ir/, codegen/, device/,
/// templates/, module/ and the reference-named classes. Users include rocmtpl/rocm_template.hpp,
/// which includes this header; rocmtpl/runtime.hpp adds the runtime layer.

#include <rocmtpl/codegen/arg_info.hpp>
#include <rocmtpl/codegen/concepts.hpp>
#include <rocmtpl/codegen/epilogue.hpp>
#include <rocmtpl/codegen/indented_buffer.hpp>
#include <rocmtpl/codegen/kernel_args.hpp>
#include <rocmtpl/codegen/preamble.hpp>
#include <rocmtpl/codegen/signature.hpp>
#include <rocmtpl/codegen/status.hpp>
#include <rocmtpl/codegen/template_context.hpp>
#include <rocmtpl/codegen/typed_entry.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/device/hip_portable.hpp>
#include <rocmtpl/error.hpp>
#include <rocmtpl/ir/buffer.hpp>
#include <rocmtpl/ir/dim.hpp>
#include <rocmtpl/ir/dtype.hpp>
#include <rocmtpl/ir/fixed_string.hpp>
#include <rocmtpl/ir/host_types.hpp>
#include <rocmtpl/ir/layout.hpp>
#include <rocmtpl/ir/sym_expr.hpp>
#include <rocmtpl/ir/tensor_meta.hpp>
#include <rocmtpl/module.hpp>
#include <rocmtpl/rocm_benchmark_request.hpp>
#include <rocmtpl/rocm_cpp_scheduling.hpp>
#include <rocmtpl/rocm_kernel.hpp>
#include <rocmtpl/rocm_template.hpp>
#include <rocmtpl/rocm_template_buffer.hpp>
#include <rocmtpl/templates/elementwise.hpp>
#include <rocmtpl/templates/gemm.hpp>
#include <rocmtpl/templates/pointwise.hpp>
#include <rocmtpl/typed_template.hpp>
#include <rocmtpl/version.hpp>
