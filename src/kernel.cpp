// SPDX-License-Identifier: MIT
// The compiled implementation of include/rocmtpl/kernel/ (ROCMTPL_HEADER_ONLY=OFF): every -inl.hpp of
// that folder, included once here. A header-only build does not compile this file.
#include <rocmtpl/core/config.hpp>

#ifndef ROCMTPL_COMPILED_LIBRARY
#error "src/ is compiled only with ROCMTPL_COMPILED_LIBRARY (CMake: -DROCMTPL_HEADER_ONLY=OFF)"
#endif

#include <rocmtpl/kernel/rocm_benchmark_request-inl.hpp>
#include <rocmtpl/kernel/rocm_cpp_scheduling-inl.hpp>
#include <rocmtpl/kernel/rocm_kernel-inl.hpp>
#include <rocmtpl/kernel/rocm_template-inl.hpp>
#include <rocmtpl/kernel/rocm_template_buffer-inl.hpp>
