// SPDX-License-Identifier: MIT
// The compiled implementation of include/rocmtpl/runtime/db/ (ROCMTPL_HEADER_ONLY=OFF): each header of
// the folder, then its -inl.hpp (which does not include its header back), once. A header-only build
// does not compile this file.
#include <rocmtpl/core/config.hpp>

#ifndef ROCMTPL_COMPILED_LIBRARY
#error "src/ is compiled only with ROCMTPL_COMPILED_LIBRARY (CMake: -DROCMTPL_HEADER_ONLY=OFF)"
#endif

// The headers first: an -inl.hpp does not include its own.
#include <rocmtpl/runtime/db/claims.hpp>
#include <rocmtpl/runtime/db/database.hpp>
#include <rocmtpl/runtime/db/json.hpp>
#include <rocmtpl/runtime/db/key.hpp>
#include <rocmtpl/runtime/db/postgres.hpp>
#include <rocmtpl/runtime/db/schema.hpp>
#include <rocmtpl/runtime/db/sqlite.hpp>

#include <rocmtpl/runtime/db/claims-inl.hpp>
#include <rocmtpl/runtime/db/database-inl.hpp>
#include <rocmtpl/runtime/db/json-inl.hpp>
#include <rocmtpl/runtime/db/key-inl.hpp>
#include <rocmtpl/runtime/db/postgres-inl.hpp>
#include <rocmtpl/runtime/db/schema-inl.hpp>
#include <rocmtpl/runtime/db/sqlite-inl.hpp>
