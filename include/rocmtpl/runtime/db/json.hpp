// SPDX-License-Identifier: MIT
#pragma once

/// @file
/// @brief JSON forms (nlohmann::json, found by ADL) of the tuning database's key, measurement and
/// record: `nlohmann::json j = record;` and `j.get<tuning_record>()`.

#include <rocmtpl/core/config.hpp>
#include <rocmtpl/runtime/db/key.hpp>

#include <nlohmann/json.hpp>

#include <string>

namespace rocmtpl::runtime {

/// @brief JSON form of a key: every field, by name (found by ADL: `nlohmann::json j = key;`).
void to_json(nlohmann::json& j, const tuning_key& k);

/// @brief Read a key written by `to_json(nlohmann::json&, const tuning_key&)`; `descriptor` may be
/// missing (JSON written before keys carried one) and then reads back empty.
/// @throws nlohmann::json::exception if another field is missing or not a string.
void from_json(const nlohmann::json& j, tuning_key& k);

/// @brief JSON form of a measurement; `status` is written by name.
void to_json(nlohmann::json& j, const measurement& m);

/// @brief Read a measurement written by `to_json(nlohmann::json&, const measurement&)`; a null
/// number (how `dump()` writes NaN and infinities) reads back as NaN; `device` and `device_id` may
/// be missing (JSON written before they existed) and then read back empty.
/// @throws nlohmann::json::exception if a field is missing or has the wrong type.
/// @throws invalid_argument_error if `status` is not a status name.
void from_json(const nlohmann::json& j, measurement& m);

/// @brief JSON form of a record, with the key's digest.
void to_json(nlohmann::json& j, const tuning_record& rec);

/// @brief Read a record written by `to_json(nlohmann::json&, const tuning_record&)` (the digest is recomputed).
/// @throws nlohmann::json::exception if a field is missing or has the wrong type.
void from_json(const nlohmann::json& j, tuning_record& rec);

}  // namespace rocmtpl::runtime

#ifndef ROCMTPL_COMPILED_LIBRARY
#include <rocmtpl/runtime/db/json-inl.hpp>
#endif
