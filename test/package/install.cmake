# SPDX-License-Identifier: MIT
# cmake -DBUILD_DIR=<build tree> -DPREFIX=<fresh prefix> [-DSOURCE_DIR=<source tree>]
#       [-DCONFIGURE_OPTIONS=<option>|<option>...] -P install.cmake
# Installs the build tree into an emptied prefix and checks the layout a consumer relies on.
# With CONFIGURE_OPTIONS, BUILD_DIR is first emptied and SOURCE_DIR configured into it with those
# options (separated by '|'), and nothing is built: `cmake --install` right after configuring.
foreach(_var IN ITEMS BUILD_DIR PREFIX)
  if(NOT ${_var})
    message(FATAL_ERROR "install.cmake: set -D${_var}=...")
  endif()
endforeach()

if(CONFIGURE_OPTIONS)
  if(NOT SOURCE_DIR)
    message(FATAL_ERROR "install.cmake: CONFIGURE_OPTIONS needs -DSOURCE_DIR=...")
  endif()
  string(REPLACE "|" ";" _options "${CONFIGURE_OPTIONS}")
  file(REMOVE_RECURSE "${BUILD_DIR}")
  execute_process(COMMAND "${CMAKE_COMMAND}" -S "${SOURCE_DIR}" -B "${BUILD_DIR}" ${_options}
                  RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "cmake -S ${SOURCE_DIR} -B ${BUILD_DIR} ${_options} failed (${_rc}):\n${_out}")
  endif()
endif()

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
        "${_cmake_dir}/rocmtplRuntimeTargets.cmake"
        "${_cmake_dir}/rocmtplDependencies.cmake"
        "${_cmake_dir}/rocmtplRuntimeDependencies.cmake"
        "${PREFIX}/include/rocmtpl/kernel/rocm_template.hpp"
        "${PREFIX}/include/rocmtpl/core/version.hpp")
  if(NOT EXISTS "${_file}")
    message(FATAL_ERROR "cmake --install did not install ${_file}; installed:\n${_out}")
  endif()
endforeach()
# The tools are installed exactly where they were built.
foreach(_tool IN ITEMS rocmtpl-tune rocmtpl-bench-worker)
  set(_built "${BUILD_DIR}/tools/${_tool}")
  set(_installed "${PREFIX}/bin/${_tool}")
  if(EXISTS "${_built}" AND NOT EXISTS "${_installed}")
    message(FATAL_ERROR "cmake --install did not install ${_tool}, built at ${_built}; installed:\n${_out}")
  elseif(NOT EXISTS "${_built}" AND EXISTS "${_installed}")
    message(FATAL_ERROR "cmake --install installed ${_installed}, which was not built")
  elseif(EXISTS "${_installed}")
    list(APPEND _tools "${_tool}")
  endif()
endforeach()
if(NOT _tools)
  set(_tools "no tools: none built")
endif()
string(REPLACE ";" ", " _tools "${_tools}")
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
message(STATUS "installed rocmtpl (${_count} headers, ${_tools}) into ${PREFIX}")
