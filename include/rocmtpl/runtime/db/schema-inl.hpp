// SPDX-License-Identifier: MIT
#pragma once

// The implementation of runtime/db/schema.hpp: included at its end (header-only) or compiled once by
// src/runtime/db.cpp, after it (so it does not include it back).

#include <rocmtpl/core/config.hpp>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace rocmtpl::runtime {

namespace detail {

// Replaces each `{id}`, `{integer}`, `{real}` and `{boolean}` of `text` by the dialect's type.
ROCMTPL_INLINE std::string with_dialect(std::string_view text, const sql_dialect& d) {
  std::string out;
  out.reserve(text.size() + 64);
  while (!text.empty()) {
    const auto open = text.find('{');
    out.append(text.substr(0, open));
    if (open == std::string_view::npos) break;
    text.remove_prefix(open);
    bool replaced = false;
    for (const auto& [name, type] : {std::pair<std::string_view, std::string_view>{"{id}", d.id},
                                     {"{integer}", d.integer},
                                     {"{real}", d.real},
                                     {"{boolean}", d.boolean}}) {
      if (text.starts_with(name)) {
        out.append(type);
        text.remove_prefix(name.size());
        replaced = true;
        break;
      }
    }
    if (!replaced) {
      out.push_back('{');
      text.remove_prefix(1);
    }
  }
  return out;
}

// The statements that bring the tables of schema version `from` to tuning_schema_version (none when
// `from` is current), in order. Run them in the transaction that then stores the new version.
ROCMTPL_INLINE std::vector<const char*> schema_migration(std::int64_t from) {
  std::vector<const char*> out;
  for (const auto& step : schema_steps) {
    if (step.version > from) out.push_back(step.sql);
  }
  return out;
}

}  // namespace detail

}  // namespace rocmtpl::runtime
