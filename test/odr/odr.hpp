// SPDX-License-Identifier: MIT
#pragma once

// What each translation unit of the ODR test exports to main.cpp.

#include <cstdint>
#include <string>
#include <string_view>

namespace rocmtpl_odr {

/// @brief What one translation unit rendered and where it saw the library's shared state.
struct tu_result {
  std::string choice_name;                              ///< rocm_template_caller::name()
  std::string source;                                   ///< the rendered source
  const void* choice_counter = nullptr;                 ///< &rocmtpl::detail::choice_counter()
  std::uint64_t (*hash64)(std::string_view) = nullptr;  ///< &rocmtpl::detail::hash64
};

tu_result render_in_first_tu();
tu_result render_in_second_tu();

}  // namespace rocmtpl_odr
