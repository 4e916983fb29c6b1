# SPDX-License-Identifier: MIT
# Runs one compile-fail case: builds TARGET in BUILD_DIR and checks the compiler's diagnostics
# against the case's first lines (SOURCE): "// expect-error: <regex>" must match, and an optional
# second line "// expect-lines: <n>" bounds the number of lines the compiler printed (the build
# tool's own lines, [i/n], FAILED:, the command and ninja:/make lines, are not counted).
#   cmake -DBUILD_DIR=<dir> -DTARGET=<target> -DSOURCE=<case.cpp> -P run_case.cmake
file(STRINGS "${SOURCE}" _head LIMIT_COUNT 2)
list(GET _head 0 _first)
if(NOT _first MATCHES "^// expect-error: (.*)$")
  message(FATAL_ERROR "${SOURCE}: first line must be '// expect-error: <regex>'")
endif()
set(_regex "${CMAKE_MATCH_1}")
set(_max_lines "")
list(LENGTH _head _n)
if(_n GREATER 1)
  list(GET _head 1 _second)
  if(_second MATCHES "^// expect-lines: ([0-9]+)$")
    set(_max_lines "${CMAKE_MATCH_1}")
  endif()
endif()

execute_process(COMMAND "${CMAKE_COMMAND}" --build "${BUILD_DIR}" --target "${TARGET}" RESULT_VARIABLE _rc
                OUTPUT_VARIABLE _out ERROR_VARIABLE _out)
if(_rc EQUAL 0)
  message(FATAL_ERROR "${SOURCE}: built, but it must fail with '${_regex}'")
endif()
if(NOT _out MATCHES "${_regex}")
  message(FATAL_ERROR "${SOURCE}: the diagnostics do not match '${_regex}':\n${_out}")
endif()

# The compiler's lines: everything but the build tool's.
string(REPLACE ";" "\\;" _escaped "${_out}")
string(REPLACE "\n" ";" _lines "${_escaped}")
set(_count 0)
set(_skip_next FALSE)
foreach(_line IN LISTS _lines)
  if(_skip_next)
    set(_skip_next FALSE)  # the command line ninja prints after FAILED:
  elseif(_line MATCHES "^FAILED:")
    set(_skip_next TRUE)
  elseif(_line STREQUAL "" OR _line MATCHES "^\\[[0-9]+/[0-9]+\\]" OR _line MATCHES "^(ninja|g?make(\\[[0-9]+\\])?):")
  else()
    math(EXPR _count "${_count} + 1")
  endif()
endforeach()
if(_max_lines AND _count GREATER _max_lines)
  message(FATAL_ERROR "${SOURCE}: the compiler printed ${_count} lines, more than ${_max_lines}:\n${_out}")
endif()
message(STATUS "${SOURCE}: fails as expected, ${_count} lines of diagnostics")
