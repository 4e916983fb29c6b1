# SPDX-License-Identifier: MIT
# cmake -DCXX=<C++ compiler> -DINCLUDE_DIRS=<prefix>/include[;<folder>...] -DSOURCE_DIR=<test/package/common>
#       -DWORK_DIR=<folder> -P plain_compiler.cmake
# The pure layer is header-only: each program below is built with the compiler alone,
#   <CXX> -std=c++20 -I<prefix>/include <program>.cpp -o <program>
# (plus warnings as errors; no optimisation, no define, no library), then run.
#   pure_consumer  renders a GEMM and prints its caller's hash_key()
#   xxhash_user    includes <xxhash.h> itself, before and after rocmtpl's hash header
foreach(_var IN ITEMS CXX INCLUDE_DIRS SOURCE_DIR WORK_DIR)
  if(NOT ${_var})
    message(FATAL_ERROR "plain_compiler.cmake: set -D${_var}=...")
  endif()
endforeach()

set(_includes "")
foreach(_dir IN LISTS INCLUDE_DIRS)
  list(APPEND _includes "-I${_dir}")
endforeach()
file(REMOVE_RECURSE "${WORK_DIR}")
file(MAKE_DIRECTORY "${WORK_DIR}")

foreach(_case IN ITEMS "pure_consumer|rendered rocm_gemm_[0-9]+ .*: [1-9][0-9]* bytes.*hash_key [a-z0-9_]+-[0-9a-f]+"
                       "xxhash_user|xxhash_user: [0-9a-f]+")
  string(REPLACE "|" ";" _case "${_case}")
  list(GET _case 0 _program)
  list(GET _case 1 _expected)
  set(_command "${CXX}" -std=c++20 -Wall -Wextra -Wpedantic -Werror ${_includes} "${SOURCE_DIR}/${_program}.cpp" -o
               "${WORK_DIR}/${_program}")
  string(JOIN " " _shown ${_command})
  execute_process(COMMAND ${_command} RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
  if(NOT _rc EQUAL 0)
    message(FATAL_ERROR "${_shown} failed (${_rc}):\n${_out}")
  endif()
  execute_process(COMMAND "${WORK_DIR}/${_program}" RESULT_VARIABLE _rc OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
  if(NOT _rc EQUAL 0 OR NOT _out MATCHES "${_expected}")
    message(FATAL_ERROR "${WORK_DIR}/${_program} exited ${_rc} and printed, instead of '${_expected}':\n${_out}")
  endif()
  message(STATUS "${_shown}\n${_out}")
endforeach()
