// SPDX-License-Identifier: MIT
#pragma once

// The implementation of codegen/indented_buffer.hpp: included at its end (header-only) or compiled once by
// src/codegen.cpp, after it (so it does not include it back).

#include <algorithm>
#include <cstddef>
#include <string_view>

#include <rocmtpl/core/config.hpp>

namespace rocmtpl {

ROCMTPL_INLINE void indented_buffer::writeline(std::string_view line) {
  if (!is_blank(line)) text_.append(prefix_width(), ' ').append(line);
  text_ += '\n';
}

ROCMTPL_INLINE void indented_buffer::splice(std::string_view text, bool strip) {
  std::size_t common = std::string_view::npos;
  std::size_t first = std::string_view::npos;  // start of the first non-blank line
  std::size_t end = 0;                         // end of the last non-blank line
  for_each_line(text, [&](std::string_view line, std::size_t start) {
    if (is_blank(line)) return;
    common = std::min(common, line.find_first_not_of(" \t"));
    if (first == std::string_view::npos) first = start;
    end = start + line.size();
  });
  if (common == std::string_view::npos) return;  // only blank lines
  const std::size_t begin = strip ? first : 0;
  for_each_line(text.substr(begin, end - begin), [&](std::string_view line, std::size_t) {
    writeline(is_blank(line) ? std::string_view{} : line.substr(common));
  });
}

}  // namespace rocmtpl
