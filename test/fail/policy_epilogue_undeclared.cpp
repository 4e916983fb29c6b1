// expect-error: member_render_epilogue_is_declared
// SPDX-License-Identifier: MIT
// A policy with render_epilogue that does not declare the epilogue capability is rejected: a
// forgotten declaration cannot switch fusion off silently (issue 12).
#define ROCMTPL_FAIL_UNDECLARE_EPILOGUE
#include "epilogue_fixture.hpp"
std::string use() { return render_epilogue_fixture(); }
