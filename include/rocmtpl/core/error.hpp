// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief The exception hierarchy: every error the library throws derives from rocmtpl::error.
///
/// core/ is the bottom of the include graph: its headers include no other rocmtpl header, so that
/// ir/ and codegen/ can use them without including a top-level header (users include
/// rocmtpl/error.hpp).

#include <stdexcept>
#include <string>

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

}  // namespace rocmtpl
