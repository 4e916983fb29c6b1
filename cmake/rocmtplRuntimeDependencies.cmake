# SPDX-License-Identifier: MIT
# Third-party dependencies of rocmtpl's runtime layer (rocmtpl::runtime), on top of the pure
# layer's (rocmtplDependencies.cmake, included first): Threads, fmt, spdlog, nlohmann-json, SQLite and,
# optionally, libpq. Looked up by the project where it builds something on the runtime layer, and by
# the package configuration for its `runtime` component; a render-only consumer never needs them.
#
# Sets ROCMTPL_RUNTIME_DEPENDENCIES_MISSING: one "<what> (<Debian package>)" entry per required
# dependency not found, empty when all were found. ROCMTPL_DEPENDENCIES_QUIET silences the status
# lines.
if(NOT COMMAND _rocmtpl_header_target)
  include("${CMAKE_CURRENT_LIST_DIR}/rocmtplDependencies.cmake")
endif()
set(ROCMTPL_RUNTIME_DEPENDENCIES_MISSING "")

if(NOT TARGET Threads::Threads)
  set(THREADS_PREFER_PTHREAD_FLAG ON)
  find_package(Threads QUIET)
  if(NOT TARGET Threads::Threads)
    list(APPEND ROCMTPL_RUNTIME_DEPENDENCIES_MISSING "Threads (libc6-dev)")
  endif()
endif()

_rocmtpl_header_target(rocmtpl::deps_json nlohmann/json.hpp nlohmann_json nlohmann-json3-dev
                       ROCMTPL_RUNTIME_DEPENDENCIES_MISSING)

# fmt: the compiled library where its CMake package is installed (Debian libfmt-dev), else its
# headers alone (FMT_HEADER_ONLY), which compiles fmt's implementation into every translation unit
# and doubles the compile time of a typical test program.
if(NOT TARGET rocmtpl::deps_fmt)
  find_package(fmt CONFIG QUIET)
  if(TARGET fmt::fmt)
    add_library(rocmtpl::deps_fmt INTERFACE IMPORTED GLOBAL)
    set_target_properties(rocmtpl::deps_fmt PROPERTIES INTERFACE_LINK_LIBRARIES fmt::fmt)
  else()
    _rocmtpl_header_target(rocmtpl::deps_fmt fmt/format.h fmt libfmt-dev ROCMTPL_RUNTIME_DEPENDENCIES_MISSING)
    if(TARGET rocmtpl::deps_fmt)
      set_property(TARGET rocmtpl::deps_fmt APPEND PROPERTY INTERFACE_COMPILE_DEFINITIONS FMT_HEADER_ONLY)
    endif()
  endif()
endif()

# spdlog (on the fmt above): the runtime's levelled log (runtime/sys/log.hpp). Its compiled library
# where its CMake package is installed (Debian libspdlog-dev), else its headers alone (spdlog's
# header-only mode, as a machine that carries the headers in ROCMTPL_EXTRA_INCLUDE_DIR has it).
if(NOT TARGET rocmtpl::deps_spdlog)
  find_package(spdlog CONFIG QUIET)
  if(TARGET spdlog::spdlog)
    add_library(rocmtpl::deps_spdlog INTERFACE IMPORTED GLOBAL)
    set_target_properties(rocmtpl::deps_spdlog PROPERTIES INTERFACE_LINK_LIBRARIES spdlog::spdlog)
  else()
    _rocmtpl_header_target(rocmtpl::deps_spdlog spdlog/spdlog.h spdlog libspdlog-dev
                           ROCMTPL_RUNTIME_DEPENDENCIES_MISSING)
    if(TARGET rocmtpl::deps_spdlog)
      set_property(TARGET rocmtpl::deps_spdlog APPEND PROPERTY INTERFACE_COMPILE_DEFINITIONS SPDLOG_FMT_EXTERNAL)
    endif()
  endif()
endif()

# SQLite: the library may exist only as libsqlite3.so.0 (no -dev package); accept that.
if(NOT TARGET SQLite::SQLite3)
  if(NOT CMAKE_DISABLE_FIND_PACKAGE_SQLite3)
    find_path(SQLite3_INCLUDE_DIR NAMES sqlite3.h HINTS ${ROCMTPL_EXTRA_INCLUDE_DIR})
    find_library(SQLite3_LIBRARY NAMES sqlite3 libsqlite3.so.0)
  endif()
  if(NOT CMAKE_DISABLE_FIND_PACKAGE_SQLite3 AND SQLite3_INCLUDE_DIR AND SQLite3_LIBRARY)
    add_library(SQLite::SQLite3 UNKNOWN IMPORTED GLOBAL)
    set_target_properties(SQLite::SQLite3 PROPERTIES IMPORTED_LOCATION "${SQLite3_LIBRARY}"
                                                     INTERFACE_INCLUDE_DIRECTORIES "${SQLite3_INCLUDE_DIR}")
  else()
    list(APPEND ROCMTPL_RUNTIME_DEPENDENCIES_MISSING "sqlite3.h and libsqlite3 (libsqlite3-dev)")
  endif()
endif()

# PostgreSQL client (libpq, Debian libpq-dev): optional. Found -> the tuning database also speaks
# postgresql:// URLs (runtime/db/postgres.hpp, compiled with ROCMTPL_HAS_LIBPQ=1); missing ->
# SQLite only, and a postgresql:// URL is refused with a message that names the package.
# ROCMTPL_WITH_POSTGRESQL=OFF (or CMAKE_DISABLE_FIND_PACKAGE_PostgreSQL) leaves it out even where
# libpq exists.
if(NOT DEFINED ROCMTPL_WITH_POSTGRESQL)
  set(ROCMTPL_WITH_POSTGRESQL ON)
  if(CMAKE_DISABLE_FIND_PACKAGE_PostgreSQL)
    set(ROCMTPL_WITH_POSTGRESQL OFF)
  endif()
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
    if(NOT ROCMTPL_DEPENDENCIES_QUIET)
      message(STATUS "rocmtpl: PostgreSQL tuning database backend enabled (libpq: ${ROCMTPL_LIBPQ_LIBRARY})")
    endif()
  else()
    set(ROCMTPL_POSTGRESQL_ENABLED OFF)
    if(NOT ROCMTPL_DEPENDENCIES_QUIET)
      message(STATUS "rocmtpl: PostgreSQL tuning database backend disabled (ROCMTPL_WITH_POSTGRESQL is off, or "
                     "libpq-fe.h or libpq was not found: apt-get install libpq-dev to enable it)")
    endif()
  endif()
endif()
