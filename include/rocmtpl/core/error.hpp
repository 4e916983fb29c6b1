// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The exception hierarchy: every error the library throws derives from rocmtpl::error.
///
/// core/ is the bottom of the include graph: its headers include no other rocmtpl header, so that
/// ir/ and codegen/ can use them without including a top-level header (users include
/// rocmtpl/core/error.hpp).

#include <stdexcept>
#include <string>
#include <utility>

#include <rocmtpl/core/config.hpp>

namespace rocmtpl {

/// @brief Base of every exception rocmtpl throws.
class error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

/// @brief A caller passed a value the library cannot use (bad name, negative extent, ...).
/// The message names the value and what was expected.
class invalid_argument_error : public error {
 public:
  using error::error;
};

/// @brief A kernel template's configuration that the template cannot render (a tile that does not
/// divide, too much shared memory, ...). what() is `rocmtpl: <template>: invalid config <config>:
/// <reason>`; reason() is the rule the configuration breaks.
class config_error : public invalid_argument_error {
 public:
  /// @param template_name the template (`gemm`)
  /// @param config the configuration as text (its to_string())
  /// @param reason the rule it breaks
  config_error(const std::string& template_name, std::string config, std::string reason);
  /// @brief The configuration, as text.
  [[nodiscard]] const std::string& config() const noexcept { return config_; }
  /// @brief The rule the configuration breaks.
  [[nodiscard]] const std::string& reason() const noexcept { return reason_; }

 private:
  std::string config_;
  std::string reason_;
};

/// @brief An index (dimension, argument position) outside its valid range.
class out_of_range_error : public error {
 public:
  using error::error;
};

/// @brief A symbolic expression could not be evaluated (a symbol without a size hint, division by zero).
class evaluation_error : public error {
 public:
  using error::error;
};

/// @brief A kernel template did not keep its side of the contract: it yielded no candidate
/// configuration, rendered entry-point arguments that do not start with its inputs and output, or
/// returned no kernel to render. what() says what went wrong and how to fix it;
/// template_name() names the template (or the scheduled node whose template failed).
class template_error : public error {
 public:
  /// @param message the full message (`rocmtpl: WHERE: template 'NAME' ...; FIX`)
  /// @param template_name the template's name, or the node's when the template is not known
  template_error(const std::string& message, std::string template_name)
      : error(message), template_name_(std::move(template_name)) {}
  /// @brief The template (or node) the error is about.
  [[nodiscard]] const std::string& template_name() const noexcept { return template_name_; }

 private:
  std::string template_name_;
};

}  // namespace rocmtpl

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/core/error-inl.hpp>
#endif
