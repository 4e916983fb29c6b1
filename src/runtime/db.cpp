// SPDX-License-Identifier: MIT
// The compiled implementation of include/rocmtpl/runtime/db/ (ROCMTPL_HEADER_ONLY=OFF): every -inl.hpp of
// that folder, included once here. A header-only build does not compile this file.
#include <rocmtpl/core/config.hpp>

#ifndef ROCMTPL_COMPILED_LIBRARY
#error "src/ is compiled only with ROCMTPL_COMPILED_LIBRARY (CMake: -DROCMTPL_HEADER_ONLY=OFF)"
#endif

#include <rocmtpl/runtime/db/claims-inl.hpp>
#include <rocmtpl/runtime/db/database-inl.hpp>
#include <rocmtpl/runtime/db/json-inl.hpp>
#include <rocmtpl/runtime/db/key-inl.hpp>
#include <rocmtpl/runtime/db/postgres-inl.hpp>
#include <rocmtpl/runtime/db/schema-inl.hpp>
#include <rocmtpl/runtime/db/sqlite-inl.hpp>
