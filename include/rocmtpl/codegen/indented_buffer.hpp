// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief indented_buffer: lines of generated code with an indentation level (the reference's IndentedBuffer).

#include <algorithm>
#include <cstddef>
#include <string>
#include <string_view>

#include <rocmtpl/core/config.hpp>

namespace rocmtpl {

/// @brief Accumulates lines of source at a current indentation.
///
/// The text is kept as one string (rendering speed: no allocation per line).
/// @code{.cpp}
/// rocmtpl::indented_buffer b;
/// b.writeline("if (x) {");
/// { auto scope = b.indent(); b.writeline("return 1;"); }
/// b.writeline("}");
/// b.str();  // "if (x) {\n    return 1;\n}\n"
/// @endcode
class indented_buffer {
 public:
  /// @param initial_indent the starting indentation level
  /// @param tab_width spaces per level
  explicit indented_buffer(int initial_indent = 0, int tab_width = 4) noexcept
      : level_(initial_indent), tab_width_(tab_width) {}

  /// @brief RAII indentation: indents on construction, restores on destruction.
  class indent_scope {
   public:
    /// @brief Adds `offset` levels to `owner` until destruction.
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
  void writeline(std::string_view line);

  /// @brief Indents the lines written while the returned scope lives.
  [[nodiscard]] indent_scope indent(int offset = 1) noexcept { return {*this, offset}; }

  /// @brief Writes a block of text: removes its common leading whitespace (textwrap.dedent),
  /// drops trailing blank lines (and leading ones with `strip`), then writes each line indented.
  void splice(std::string_view text, bool strip = false);

  /// @brief Appends text exactly as given (already indented, each line ending in '\n'); the fast
  /// path for preformatted fragments such as a template's header and globals.
  void write_verbatim(std::string_view text) { text_.append(text); }

  /// @brief Writes each line of already-dedented text at the current indentation (one pass, no
  /// dedent scan: the fast form of splice() for generated snippets such as check_not_null()).
  void write_lines(std::string_view text) {
    for_each_line(text, [&](std::string_view line, std::size_t) { writeline(line); });
  }

  /// @brief Appends another buffer's lines, indented by this buffer's current level.
  void splice(const indented_buffer& other) {
    for_each_line(other.text_, [&](std::string_view line, std::size_t) { writeline(line); });
  }

  /// @brief The text: every line followed by a newline.
  [[nodiscard]] const std::string& str() const& noexcept { return text_; }
  /// @brief The text, moved out of a temporary buffer.
  [[nodiscard]] std::string str() && noexcept { return std::move(text_); }

  /// @brief Number of lines written.
  [[nodiscard]] std::size_t line_count() const noexcept {
    return static_cast<std::size_t>(std::count(text_.begin(), text_.end(), '\n'));
  }
  /// @brief The current indentation level.
  [[nodiscard]] int level() const noexcept { return level_; }
  /// @brief Reserves capacity for the text (a hint; rendering a known-size source avoids regrowth).
  void reserve(std::size_t bytes) { text_.reserve(bytes); }
  /// @brief Drops the text (the indentation level stays).
  void clear() noexcept { text_.clear(); }

 private:
  static bool is_blank(std::string_view line) noexcept {
    return line.find_first_not_of(" \t\r") == std::string_view::npos;
  }

  // Calls f(line, offset) for each '\n'-separated line; a trailing newline ends the last line.
  template <class F>
  static void for_each_line(std::string_view text, F&& f) {
    std::size_t start = 0;
    while (start < text.size()) {
      const auto nl = text.find('\n', start);
      const auto stop = nl == std::string_view::npos ? text.size() : nl;
      f(text.substr(start, stop - start), start);
      start = stop + 1;
    }
  }

  [[nodiscard]] std::size_t prefix_width() const noexcept {
    return static_cast<std::size_t>(std::max(0, level_ * tab_width_));
  }

  std::string text_;
  int level_;
  int tab_width_;
};

}  // namespace rocmtpl

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/codegen/indented_buffer-inl.hpp>
#endif
