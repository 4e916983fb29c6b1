// SPDX-License-Identifier: MIT
// The compiled implementation of include/rocmtpl/{core,detail,ir}/ (ROCMTPL_HEADER_ONLY=OFF): each header of
// the folder, then its -inl.hpp (which does not include its header back), once. A header-only build
// does not compile this file.
#include <rocmtpl/core/config.hpp>

#ifndef ROCMTPL_COMPILED_LIBRARY
#error "src/ is compiled only with ROCMTPL_COMPILED_LIBRARY (CMake: -DROCMTPL_HEADER_ONLY=OFF)"
#endif

// The headers first: an -inl.hpp does not include its own.
#include <rocmtpl/core/error.hpp>
#include <rocmtpl/detail/hash.hpp>
#include <rocmtpl/detail/strings.hpp>
#include <rocmtpl/ir/buffer.hpp>
#include <rocmtpl/ir/dtype.hpp>
#include <rocmtpl/ir/identifier.hpp>
#include <rocmtpl/ir/layout.hpp>
#include <rocmtpl/ir/literal_layout.hpp>
#include <rocmtpl/ir/sym_expr.hpp>
#include <rocmtpl/ir/tensor_meta.hpp>

#include <rocmtpl/core/error-inl.hpp>
#include <rocmtpl/detail/hash-inl.hpp>
#include <rocmtpl/detail/strings-inl.hpp>
#include <rocmtpl/ir/buffer-inl.hpp>
#include <rocmtpl/ir/dtype-inl.hpp>
#include <rocmtpl/ir/identifier-inl.hpp>
#include <rocmtpl/ir/layout-inl.hpp>
#include <rocmtpl/ir/literal_layout-inl.hpp>
#include <rocmtpl/ir/sym_expr-inl.hpp>
#include <rocmtpl/ir/tensor_meta-inl.hpp>
