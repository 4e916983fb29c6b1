// SPDX-License-Identifier: MIT
// The compiled implementation of include/rocmtpl/kernel/ (ROCMTPL_HEADER_ONLY=OFF): each header of
// the folder, then its -inl.hpp (which does not include its header back), once. A header-only build
// does not compile this file.
#include <rocmtpl/core/config.hpp>

#ifndef ROCMTPL_COMPILED_LIBRARY
#error "src/ is compiled only with ROCMTPL_COMPILED_LIBRARY (CMake: -DROCMTPL_HEADER_ONLY=OFF)"
#endif

// The headers first: an -inl.hpp does not include its own.
#include <rocmtpl/kernel/rocm_benchmark_request.hpp>
#include <rocmtpl/kernel/rocm_cpp_scheduling.hpp>
#include <rocmtpl/kernel/rocm_kernel.hpp>
#include <rocmtpl/kernel/rocm_template.hpp>
#include <rocmtpl/kernel/rocm_template_buffer.hpp>

#include <rocmtpl/kernel/rocm_benchmark_request-inl.hpp>
#include <rocmtpl/kernel/rocm_cpp_scheduling-inl.hpp>
#include <rocmtpl/kernel/rocm_kernel-inl.hpp>
#include <rocmtpl/kernel/rocm_template-inl.hpp>
#include <rocmtpl/kernel/rocm_template_buffer-inl.hpp>
