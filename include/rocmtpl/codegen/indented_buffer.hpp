// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief indented_buffer: lines of generated code with an indentation level (the reference's IndentedBuffer).

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace rocmtpl {

/// @brief Accumulates lines of source at a current indentation.
/// @code{.cpp}
/// rocmtpl::indented_buffer b;
/// b.writeline("if (x) {");
/// { auto scope = b.indent(); b.writeline("return 1;"); }
/// b.writeline("}");
/// b.str();  // "if (x) {\n    return 1;\n}\n"
/// @endcode
class indented_buffer {
 public:
  explicit indented_buffer(int initial_indent = 0, int tab_width = 4) noexcept
      : level_(initial_indent), tab_width_(tab_width) {}

  /// @brief RAII indentation: indents on construction, restores on destruction.
  class indent_scope {
   public:
    indent_scope(indented_buffer& owner, int offset) noexcept : owner_(&owner), offset_(offset) {
      owner_->level_ += offset_;
    }
    indent_scope(const indent_scope&) = delete;
    indent_scope& operator=(const indent_scope&) = delete;
    ~indent_scope() { owner_->level_ -= offset_; }

   private:
    indented_buffer* owner_;
    int offset_;
  };

  /// @brief Writes one line at the current indentation; a blank line is written empty.
  void writeline(std::string_view line) {
    if (line.find_first_not_of(" \t") == std::string_view::npos) {
      lines_.emplace_back();
    } else {
      lines_.push_back(prefix() + std::string(line));
    }
  }

  /// @brief Indents the lines written while the returned scope lives.
  [[nodiscard]] indent_scope indent(int offset = 1) noexcept { return {*this, offset}; }

  /// @brief Writes a block of text: removes its common leading whitespace (textwrap.dedent),
  /// drops trailing blank lines (and leading ones with `strip`), then writes each line indented.
  void splice(std::string_view text, bool strip = false) {
    std::vector<std::string_view> lines;
    for (std::size_t start = 0;;) {
      const auto end = text.find('\n', start);
      lines.push_back(text.substr(start, end == std::string_view::npos ? std::string_view::npos : end - start));
      if (end == std::string_view::npos) break;
      start = end + 1;
    }
    auto blank = [](std::string_view l) { return l.find_first_not_of(" \t\r") == std::string_view::npos; };
    std::size_t common = std::string_view::npos;
    for (auto l : lines) {
      if (blank(l)) continue;
      common = std::min(common, l.find_first_not_of(" \t"));
    }
    if (common == std::string_view::npos) return;  // only blank lines
    std::size_t first = 0;
    if (strip) {
      while (first < lines.size() && blank(lines[first])) ++first;
    }
    std::size_t last = lines.size();
    while (last > first && blank(lines[last - 1])) --last;
    for (std::size_t i = first; i < last; ++i) {
      writeline(blank(lines[i]) ? std::string_view{} : lines[i].substr(common));
    }
  }

  /// @brief Appends another buffer's lines, indented by this buffer's current level.
  void splice(const indented_buffer& other) {
    for (const auto& l : other.lines_) writeline(l);
  }

  /// @brief The text: every line followed by a newline.
  [[nodiscard]] std::string str() const {
    std::string out;
    for (const auto& l : lines_) {
      out += l;
      out += '\n';
    }
    return out;
  }

  [[nodiscard]] const std::vector<std::string>& lines() const noexcept { return lines_; }
  [[nodiscard]] int level() const noexcept { return level_; }
  void clear() noexcept { lines_.clear(); }

 private:
  [[nodiscard]] std::string prefix() const {
    return std::string(static_cast<std::size_t>(std::max(0, level_ * tab_width_)), ' ');
  }

  std::vector<std::string> lines_;
  int level_;
  int tab_width_;
};

}  // namespace rocmtpl
