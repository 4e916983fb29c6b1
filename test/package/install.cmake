# SPDX-License-Identifier: MIT
# cmake -DBUILD_DIR=<build tree> -DPREFIX=<fresh prefix> [-DSOURCE_DIR=<source tree>] -P install.cmake
# Installs the build tree into an emptied prefix and checks the layout a consumer relies on.
foreach(_var IN ITEMS BUILD_DIR PREFIX)
  if(NOT ${_var})
    message(FATAL_ERROR "install.cmake: set -D${_var}=...")
  endif()
endforeach()

file(REMOVE_RECURSE "${PREFIX}")
execute_process(COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}" --prefix "${PREFIX}"
                RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
if(NOT _rc EQUAL 0)
  message(FATAL_ERROR "cmake --install ${BUILD_DIR} --prefix ${PREFIX} failed (${_rc}):\n${_out}")
endif()

set(_cmake_dir "${PREFIX}/share/cmake/rocmtpl")
foreach(_file IN ITEMS
        "${_cmake_dir}/rocmtplConfig.cmake"
        "${_cmake_dir}/rocmtplConfigVersion.cmake"
        "${_cmake_dir}/rocmtplTargets.cmake"
        "${_cmake_dir}/rocmtplDependencies.cmake"
        "${PREFIX}/include/rocmtpl/kernel/rocm_template.hpp"
        "${PREFIX}/include/rocmtpl/core/version.hpp")
  if(NOT EXISTS "${_file}")
    message(FATAL_ERROR "cmake --install did not install ${_file}; installed:\n${_out}")
  endif()
endforeach()
# Every public header of the source tree is installed (the install rules glob the same tree; a
# header added since the last configure is missing until the build tree is built or reconfigured).
if(NOT SOURCE_DIR)
  return()
endif()
file(GLOB_RECURSE _source_headers RELATIVE "${SOURCE_DIR}/include" "${SOURCE_DIR}/include/rocmtpl/*.hpp")
foreach(_header IN LISTS _source_headers)
  if(NOT EXISTS "${PREFIX}/include/${_header}")
    message(FATAL_ERROR "cmake --install did not install include/${_header} (build or reconfigure ${BUILD_DIR})")
  endif()
endforeach()
list(LENGTH _source_headers _count)
message(STATUS "installed rocmtpl (${_count} headers) into ${PREFIX}")
