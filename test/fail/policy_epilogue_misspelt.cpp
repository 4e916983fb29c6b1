// expect-error: declared_epilogue_has_member_render_epilogue
// SPDX-License-Identifier: MIT
// A misspelt render_epilogue cannot switch fusion off silently: the declared capability has no
// member (issue 12).
#define ROCMTPL_FAIL_MISSPELL_RENDER_EPILOGUE
#include "epilogue_fixture.hpp"
std::string use() { return render_epilogue_fixture(); }
