// SPDX-License-Identifier: MIT
// The compiled implementation of include/rocmtpl/{core,detail,ir}/ (ROCMTPL_HEADER_ONLY=OFF): every
// -inl.hpp of those folders, included once here. A header-only build does not compile this file.
#include <rocmtpl/core/config.hpp>

#ifndef ROCMTPL_COMPILED_LIBRARY
#error "src/ is compiled only with ROCMTPL_COMPILED_LIBRARY (CMake: -DROCMTPL_HEADER_ONLY=OFF)"
#endif

#include <rocmtpl/core/error-inl.hpp>
#include <rocmtpl/detail/hash-inl.hpp>
#include <rocmtpl/detail/strings-inl.hpp>
#include <rocmtpl/ir/buffer-inl.hpp>
#include <rocmtpl/ir/dtype-inl.hpp>
#include <rocmtpl/ir/identifier-inl.hpp>
#include <rocmtpl/ir/layout-inl.hpp>
#include <rocmtpl/ir/sym_expr-inl.hpp>
#include <rocmtpl/ir/tensor_meta-inl.hpp>
