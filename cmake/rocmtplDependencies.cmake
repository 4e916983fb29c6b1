# SPDX-License-Identifier: MIT
# Third-party dependencies of rocmtpl's pure layer (rocmtpl::rocmtpl): the range-v3 and xxHash
# headers, as small INTERFACE targets so that the exported package works whether a dependency came
# as a CMake package (Debian) or only as headers (a machine where the -dev package is missing and
# the headers were carried in ROCMTPL_EXTRA_INCLUDE_DIR). The runtime layer's own dependencies are
# in rocmtplRuntimeDependencies.cmake, looked up only where the runtime layer is wanted.
#
# Used by the project (which stops when something is missing) and by the installed package
# configuration (which reports the package as not found). Sets ROCMTPL_DEPENDENCIES_MISSING: one
# "<what> (<Debian package>)" entry per dependency not found, empty when all were found.
# CMAKE_DISABLE_FIND_PACKAGE_<name> with a dependency's CMake package name (range-v3, xxHash,
# fmt, nlohmann_json, SQLite3, PostgreSQL) makes it count as missing, as find_package would.

set(ROCMTPL_EXTRA_INCLUDE_DIR "$ENV{ROCMTPL_EXTRA_INCLUDE_DIR}" CACHE PATH
    "Extra folder searched for third-party headers (range-v3, sqlite3.h, xxhash.h, CLI11)")

# _rocmtpl_header_target(<target> <header> <CMake package name> <Debian package> <list variable>):
# <target> as an IMPORTED INTERFACE target adding the folder of <header>, or <header> appended to
# <list variable> when it is not found.
function(_rocmtpl_header_target target header package debian list)
  if(TARGET ${target})
    return()
  endif()
  string(MAKE_C_IDENTIFIER "${target}" _id)
  if(NOT CMAKE_DISABLE_FIND_PACKAGE_${package})
    find_path(_rocmtpl_${_id}_dir NAMES ${header} HINTS ${ROCMTPL_EXTRA_INCLUDE_DIR})
  endif()
  if(CMAKE_DISABLE_FIND_PACKAGE_${package} OR NOT _rocmtpl_${_id}_dir)
    list(APPEND ${list} "${header} (${debian})")
    set(${list} "${${list}}" PARENT_SCOPE)
    return()
  endif()
  # IMPORTED: never part of the export set; the package config re-creates it on the consumer's machine.
  add_library(${target} INTERFACE IMPORTED GLOBAL)
  if(NOT _rocmtpl_${_id}_dir MATCHES "^/usr/include/?$")
    set_target_properties(${target} PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_rocmtpl_${_id}_dir}")
  endif()
endfunction()

# Header-only dependencies: found by their headers, so no CMake package is required. xxHash is
# used inlined (include/rocmtpl/detail/hash.hpp defines XXH_INLINE_ALL itself): no library.
set(ROCMTPL_DEPENDENCIES_MISSING "")
_rocmtpl_header_target(rocmtpl::deps_range_v3 range/v3/view.hpp range-v3 librange-v3-dev ROCMTPL_DEPENDENCIES_MISSING)
_rocmtpl_header_target(rocmtpl::deps_xxhash xxhash.h xxHash libxxhash-dev ROCMTPL_DEPENDENCIES_MISSING)
