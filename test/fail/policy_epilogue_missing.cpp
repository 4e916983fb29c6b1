// expect-error: declared_epilogue_has_member_render_epilogue
// SPDX-License-Identifier: MIT
// A policy that declares the epilogue capability without render_epilogue(kernel, context, config,
// epilogue) is rejected, naming the member (issue 12).
#define ROCMTPL_FAIL_OMIT_RENDER_EPILOGUE
#include "epilogue_fixture.hpp"
std::string use() { return render_epilogue_fixture(); }
