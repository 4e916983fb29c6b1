// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The umbrella of the pure C++20 layer: every public header of ir/, codegen/, device/,
/// kernel/ (the reference-named classes), templates/ and module/. rocmtpl/rocm_template.hpp forwards
/// here; rocmtpl/runtime.hpp adds the runtime layer. It only includes.

#include <rocmtpl/codegen/arg_info.hpp>
#include <rocmtpl/codegen/concepts.hpp>
#include <rocmtpl/codegen/epilogue.hpp>
#include <rocmtpl/codegen/indented_buffer.hpp>
#include <rocmtpl/codegen/kernel_args.hpp>
#include <rocmtpl/codegen/launch.hpp>
#include <rocmtpl/codegen/preamble.hpp>
#include <rocmtpl/codegen/rendered_source.hpp>
#include <rocmtpl/codegen/signature.hpp>
#include <rocmtpl/codegen/status.hpp>
#include <rocmtpl/codegen/template_context.hpp>
#include <rocmtpl/codegen/typed_entry.hpp>
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/core/version.hpp>
#include <rocmtpl/detail/hash.hpp>
#include <rocmtpl/detail/strings.hpp>
#include <rocmtpl/device/amd_emulator.hpp>
#include <rocmtpl/device/hip_portable.hpp>
#include <rocmtpl/ir/buffer.hpp>
#include <rocmtpl/ir/dim.hpp>
#include <rocmtpl/ir/dtype.hpp>
#include <rocmtpl/ir/fixed_string.hpp>
#include <rocmtpl/ir/host_types.hpp>
#include <rocmtpl/ir/identifier.hpp>
#include <rocmtpl/ir/layout.hpp>
#include <rocmtpl/ir/sym_expr.hpp>
#include <rocmtpl/ir/tensor_meta.hpp>
#include <rocmtpl/kernel/rocm_benchmark_request.hpp>
#include <rocmtpl/kernel/rocm_cpp_scheduling.hpp>
#include <rocmtpl/kernel/rocm_kernel.hpp>
#include <rocmtpl/kernel/rocm_template.hpp>
#include <rocmtpl/kernel/rocm_template_buffer.hpp>
#include <rocmtpl/kernel/typed_template.hpp>
#include <rocmtpl/module.hpp>
#include <rocmtpl/module/emitter.hpp>
#include <rocmtpl/module/graph.hpp>
#include <rocmtpl/module/runner.hpp>
#include <rocmtpl/module/workspace_plan.hpp>
#include <rocmtpl/templates/activation.hpp>
#include <rocmtpl/templates/elementwise.hpp>
#include <rocmtpl/templates/gemm.hpp>
#include <rocmtpl/templates/pointwise.hpp>
#include <rocmtpl/templates/static_source.hpp>
