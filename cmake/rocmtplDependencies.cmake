# SPDX-License-Identifier: MIT
# Third-party dependencies of rocmtpl, as small INTERFACE targets so that the exported package
# works whether a dependency came as a CMake package (Debian) or only as headers (a machine where
# the -dev package is missing and the headers were carried in ROCMTPL_EXTRA_INCLUDE_DIR).
include_guard(GLOBAL)
include(CMakeFindDependencyMacro)

set(ROCMTPL_EXTRA_INCLUDE_DIR "$ENV{ROCMTPL_EXTRA_INCLUDE_DIR}" CACHE PATH
    "Extra folder searched for third-party headers (range-v3, sqlite3.h, xxhash.h, CLI11)")

set(THREADS_PREFER_PTHREAD_FLAG ON)
find_dependency(Threads)

function(_rocmtpl_header_target target header)
  if(TARGET ${target})
    return()
  endif()
  string(MAKE_C_IDENTIFIER "${target}" _id)
  find_path(_rocmtpl_${_id}_dir NAMES ${header} HINTS ${ROCMTPL_EXTRA_INCLUDE_DIR})
  if(NOT _rocmtpl_${_id}_dir)
    message(FATAL_ERROR "rocmtpl: ${header} not found; install the Debian package (${ARGN}) "
                        "or set ROCMTPL_EXTRA_INCLUDE_DIR")
  endif()
  # IMPORTED: never part of the export set; the package config re-creates it on the consumer's machine.
  add_library(${target} INTERFACE IMPORTED GLOBAL)
  if(NOT _rocmtpl_${_id}_dir MATCHES "^/usr/include/?$")
    set_target_properties(${target} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_rocmtpl_${_id}_dir}")
  endif()
endfunction()

# Header-only dependencies: found by their headers, so no CMake package is required.
_rocmtpl_header_target(rocmtpl::deps_range_v3 range/v3/view.hpp librange-v3-dev)
_rocmtpl_header_target(rocmtpl::deps_xxhash xxhash.h libxxhash-dev)
set_property(TARGET rocmtpl::deps_xxhash APPEND PROPERTY INTERFACE_COMPILE_DEFINITIONS XXH_INLINE_ALL)
_rocmtpl_header_target(rocmtpl::deps_json nlohmann/json.hpp nlohmann-json3-dev)
# fmt: the compiled library where its CMake package is installed (Debian libfmt-dev), else its
# headers alone (FMT_HEADER_ONLY), which compiles fmt's implementation into every translation unit
# and doubles the compile time of a typical test program.
if(NOT TARGET rocmtpl::deps_fmt)
  find_package(fmt CONFIG QUIET)
  if(TARGET fmt::fmt)
    add_library(rocmtpl::deps_fmt INTERFACE IMPORTED GLOBAL)
    set_target_properties(rocmtpl::deps_fmt PROPERTIES INTERFACE_LINK_LIBRARIES fmt::fmt)
  else()
    _rocmtpl_header_target(rocmtpl::deps_fmt fmt/format.h libfmt-dev)
    set_property(TARGET rocmtpl::deps_fmt APPEND PROPERTY INTERFACE_COMPILE_DEFINITIONS FMT_HEADER_ONLY)
  endif()
endif()

# SQLite: the library may exist only as libsqlite3.so.0 (no -dev package); accept that.
if(NOT TARGET SQLite::SQLite3)
  find_path(SQLite3_INCLUDE_DIR NAMES sqlite3.h HINTS ${ROCMTPL_EXTRA_INCLUDE_DIR})
  find_library(SQLite3_LIBRARY NAMES sqlite3 libsqlite3.so.0)
  if(NOT SQLite3_INCLUDE_DIR OR NOT SQLite3_LIBRARY)
    message(FATAL_ERROR "rocmtpl: SQLite not found; install libsqlite3-dev or set ROCMTPL_EXTRA_INCLUDE_DIR")
  endif()
  add_library(SQLite::SQLite3 UNKNOWN IMPORTED GLOBAL)
  set_target_properties(SQLite::SQLite3 PROPERTIES IMPORTED_LOCATION "${SQLite3_LIBRARY}"
                                                   INTERFACE_INCLUDE_DIRECTORIES "${SQLite3_INCLUDE_DIR}")
endif()

# PostgreSQL client (libpq, Debian libpq-dev): optional. Found -> the tuning database also speaks
# postgresql:// URLs (runtime/db/postgres.hpp, compiled with ROCMTPL_HAS_LIBPQ=1); missing ->
# SQLite only, and a postgresql:// URL is refused with a message that names the package.
# ROCMTPL_WITH_POSTGRESQL=OFF leaves it out even where libpq exists.
if(NOT DEFINED ROCMTPL_WITH_POSTGRESQL)
  set(ROCMTPL_WITH_POSTGRESQL ON)
endif()
if(NOT TARGET rocmtpl::deps_libpq)
  if(ROCMTPL_WITH_POSTGRESQL)
    find_path(ROCMTPL_LIBPQ_INCLUDE_DIR NAMES libpq-fe.h PATH_SUFFIXES postgresql HINTS ${ROCMTPL_EXTRA_INCLUDE_DIR})
    find_library(ROCMTPL_LIBPQ_LIBRARY NAMES pq libpq.so.5)
  endif()
  add_library(rocmtpl::deps_libpq INTERFACE IMPORTED GLOBAL)
  if(ROCMTPL_WITH_POSTGRESQL AND ROCMTPL_LIBPQ_INCLUDE_DIR AND ROCMTPL_LIBPQ_LIBRARY)
    set_target_properties(rocmtpl::deps_libpq PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${ROCMTPL_LIBPQ_INCLUDE_DIR}"
                                                          INTERFACE_LINK_LIBRARIES "${ROCMTPL_LIBPQ_LIBRARY}"
                                                          INTERFACE_COMPILE_DEFINITIONS ROCMTPL_HAS_LIBPQ=1)
    set(ROCMTPL_POSTGRESQL_ENABLED ON)
    message(STATUS "rocmtpl: PostgreSQL tuning database backend enabled (libpq: ${ROCMTPL_LIBPQ_LIBRARY})")
  else()
    set(ROCMTPL_POSTGRESQL_ENABLED OFF)
    message(STATUS "rocmtpl: PostgreSQL tuning database backend disabled (ROCMTPL_WITH_POSTGRESQL is off, or "
                   "libpq-fe.h or libpq was not found: apt-get install libpq-dev to enable it)")
  endif()
endif()
