// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief Parts every template's translation unit shares: the context's includes and globals at its
/// top, and the size symbols appended to a kernel's parameter and argument lists.

#include <string>
#include <vector>

#include <rocmtpl/codegen/indented_buffer.hpp>
#include <rocmtpl/codegen/template_context.hpp>

namespace rocmtpl::templates::detail {

// The context's includes, then its globals, each followed by a blank line.
inline void write_header_and_globals(indented_buffer& src, const template_context& ctx) {
  src.write_verbatim(ctx.header());
  src.writeline("");
  src.write_verbatim(ctx.globals());
  src.writeline("");
}

// Appends `, int64_t S` to `params` and `, S` to `args` for each size symbol S.
inline void append_size_symbols(std::string& params, std::string& args, const std::vector<std::string>& symbols) {
  for (const auto& s : symbols) {
    params += ", int64_t " + s;
    args += ", " + s;
  }
}

}  // namespace rocmtpl::templates::detail
