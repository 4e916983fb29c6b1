// SPDX-License-Identifier: MIT
// The compiled implementation of include/rocmtpl/codegen/ (ROCMTPL_HEADER_ONLY=OFF): each header of
// the folder, then its -inl.hpp (which does not include its header back), once. A header-only build
// does not compile this file.
#include <rocmtpl/core/config.hpp>

#ifndef ROCMTPL_COMPILED_LIBRARY
#error "src/ is compiled only with ROCMTPL_COMPILED_LIBRARY (CMake: -DROCMTPL_HEADER_ONLY=OFF)"
#endif

// The headers first: an -inl.hpp does not include its own.
#include <rocmtpl/codegen/activation.hpp>
#include <rocmtpl/codegen/arg_info.hpp>
#include <rocmtpl/codegen/epilogue.hpp>
#include <rocmtpl/codegen/indented_buffer.hpp>
#include <rocmtpl/codegen/kernel_args.hpp>
#include <rocmtpl/codegen/launch.hpp>
#include <rocmtpl/codegen/rendered_source.hpp>
#include <rocmtpl/codegen/signature.hpp>
#include <rocmtpl/codegen/template_context.hpp>

#include <rocmtpl/codegen/activation-inl.hpp>
#include <rocmtpl/codegen/arg_info-inl.hpp>
#include <rocmtpl/codegen/epilogue-inl.hpp>
#include <rocmtpl/codegen/indented_buffer-inl.hpp>
#include <rocmtpl/codegen/kernel_args-inl.hpp>
#include <rocmtpl/codegen/launch-inl.hpp>
#include <rocmtpl/codegen/rendered_source-inl.hpp>
#include <rocmtpl/codegen/signature-inl.hpp>
#include <rocmtpl/codegen/template_context-inl.hpp>
